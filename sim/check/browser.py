"""Reaching the page: a headless Chromium driven by Playwright (imported only when a check
runs), the page or the frame of a host page that holds it, and the scripts the check runs in
it. Each script that starts work returns at once, and its outcome is waited for with a
deadline that Playwright keeps, so that even a page whose main thread hangs cannot hold the
check."""

import os
import re
import shutil

from .report import Refused

PACKAGE = "pdsplit-sim"  # pyproject.toml's name: pip install 'pdsplit-sim[check]'
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SYSTEM_CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Seconds after the load event within which a page must have window.pdsplit to count as this
# widget. Its scripts run before the load event, so on any machine this is plenty.
WIDGET_GRACE = 30
MASKED = ("#status",)  # says how long Python took to start: differs from run to run


class Unsteady(Exception):
    """A framed page whose size never settles, so it cannot be pictured (a mismatch)."""


WIDGET = "() => typeof window.pdsplit === 'object' && typeof window.pdsplit.set === 'function'"

# Each of these starts work in the page and returns at once; its outcome lands in
# window.__pdsplitCheck, which Target.outcome waits for with a deadline kept by Playwright,
# so that even a page whose main thread hangs cannot hold the check.

READY = """(ms) => {
  window.__pdsplitCheck = undefined;
  // Python must be up within the deadline; a page that cannot run it says why
  const deadline = setTimeout(() => { window.__pdsplitCheck = { error: `Python was not ready within ${ms / 1000} s` }; }, ms);
  window.pdsplit.ready.then(() => ({}), (e) => ({ error: `the browser could not run the simulator: ${e?.message ?? e}` }))
    .then((outcome) => { clearTimeout(deadline); window.__pdsplitCheck ??= outcome; });
}"""

# Started on every page at once, so that the pages compute side by side: open or close the
# panel, set the settings, wait until every chart is drawn and the fonts are loaded.
SET = """([settings, panelOpen, ms]) => {
  window.__pdsplitCheck = undefined;
  const go = async () => {
    const panel = document.getElementById("explorer");
    if (panel instanceof HTMLDetailsElement && panel.open !== panelOpen) {
      const toggled = new Promise((done) => panel.addEventListener("toggle", done, { once: true }));
      panel.open = panelOpen;
      await toggled; // the page works out the panel's findings from its toggle event
    }
    try {
      await window.pdsplit.set(settings);
    } catch (error) {
      if (!/superseded/.test(error?.message)) throw error;
    }
    await window.pdsplit.settled(); // waits for the newest settings, ours
    await document.fonts.ready;
  };
  const deadline = setTimeout(() => {
    window.__pdsplitCheck ??= { error: `its charts were not all drawn within ${ms / 1000} s` };
  }, ms);
  go().then(() => ({}), (e) => ({ error: String(e?.message ?? e) }))
    .then((outcome) => { clearTimeout(deadline); window.__pdsplitCheck ??= outcome; });
}"""
OUTCOME = "() => window.__pdsplitCheck"

SHOWN = """() => {
  // rendered: not in a closed <details>, not hidden, not display: none
  const visible = (e) => (e.checkVisibility ? e.checkVisibility() : e.getClientRects().length > 0);
  return {
    settings: window.pdsplit.settings(),
    result: window.pdsplit.result(),
    metrics: Array.from(document.querySelectorAll("[data-metric]"),
      (e) => [e.dataset.metric, e.textContent, visible(e)]),
    captions: Object.fromEntries(Array.from(document.querySelectorAll("[id^=caption-]"),
      (e) => [e.id.slice("caption-".length), visible(e)])),
  };
}"""

# No chart is still fitting itself to a new size (Plotly's resize runs on a timer).
CHARTS_STILL = "() => !Array.from(document.querySelectorAll('.plot')).some((g) => g._resolveResize)"
HEIGHT = "() => document.documentElement.getBoundingClientRect().height"


class Target:
    """The widget in one browser context at one viewport size: the page, or the frame in
    the host page that --frame names."""

    def __init__(self, browser, args, size, api):
        self.api, self.args, self.size = api, args, size
        self.ms = args.timeout * 1000
        self.context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        self.page = self.context.new_page()
        self.page.set_default_timeout(self.ms)
        self.element = None
        url, grace = args.url, min(WIDGET_GRACE, args.timeout) * 1000
        try:
            response = self.page.goto(url, wait_until="load")
        except api.TimeoutError:
            raise Refused(f"{url} did not load within {args.timeout:g} s") from None
        except api.Error as e:
            raise Refused(f"cannot reach {url}: {reason(e)}") from None
        if response is not None and response.status >= 400:
            raise Refused(f"{url} answered HTTP {response.status}: not this widget")
        self.frame = self.page.main_frame
        where = ""
        if args.frame:
            where = f" in the frame {args.frame!r}"
            try:
                self.element = self.page.wait_for_selector(args.frame, state="attached", timeout=grace)
            except api.TimeoutError:
                raise Refused(f"{url} has no element matching --frame {args.frame!r}") from None
            except api.Error as e:
                raise Refused(f"--frame {args.frame!r} is not a CSS selector: {reason(e)}") from None
            if self.element.evaluate("e => e.tagName") != "IFRAME":
                raise Refused(f"--frame {args.frame!r} matches a "
                              f"<{self.element.evaluate('e => e.tagName.toLowerCase()')}> in {url}, "
                              f"not an <iframe>")
            self.element.scroll_into_view_if_needed()  # a frame with loading="lazy" loads now
            self.frame = self.element.content_frame()
            if self.frame is None:
                raise Refused(f"the iframe {args.frame!r} in {url} holds no page")
        try:
            self.frame.wait_for_function(WIDGET, timeout=grace)
        except api.TimeoutError:
            raise Refused(f"{url} is not this widget: no window.pdsplit{where} within "
                          f"{grace / 1000:g} s of loading") from None

    @property
    def name(self):
        return f"{self.size[0]}x{self.size[1]}"

    def version(self):
        return self.frame.evaluate("window.pdsplit.version ?? null")

    def outcome(self):
        """What READY or SET left in the page: {} or {error}. The page's own deadline says
        what it was waiting for; this one, a little later, catches a page that hangs."""
        try:
            handle = self.frame.wait_for_function(OUTCOME, polling=100, timeout=self.ms + 15_000)
        except self.api.TimeoutError:
            return {"error": f"the page gave no answer within {self.args.timeout + 15:g} s"}
        return handle.json_value()

    def ready(self):
        """None once Python is up, else why not."""
        self.frame.evaluate(READY, self.ms)
        return self.outcome().get("error")

    def start(self, settings, panel):
        self.frame.evaluate(SET, [settings, panel, self.ms])

    def finish(self):
        """What the page shows once the started settings are drawn: {settings, result,
        metrics, captions}, or {error}."""
        done = self.outcome()
        if "error" in done:
            return done
        return self.frame.evaluate(SHOWN)

    def screenshot(self):
        mask = [self.frame.locator(selector) for selector in MASKED]
        options = dict(animations="disabled", caret="hide", mask=mask)
        if self.element is None:
            return self.page.screenshot(full_page=True, **options)
        self.still()
        return self.element.screenshot(**options)

    def still(self):
        """A framed page's height goes to its host, which may fit the frame to it, and a
        frame that changes size redraws its charts: wait until the frame's size, the page's
        height and its charts stay the same from one check to the next."""
        def now():
            self.frame.wait_for_function(CHARTS_STILL)
            return self.element.bounding_box(), self.frame.evaluate(HEIGHT)

        before = now()
        for _ in range(100):  # each round waits for two frames drawn in each document
            for document in (self.page, self.frame):
                document.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
            after = now()
            if after == before:
                return
            before = after
        raise Unsteady(f"the frame {self.args.frame!r} never stopped changing size")


def reason(error):
    """The gist of a Playwright error: net::ERR_CONNECTION_REFUSED, or its first line."""
    text = str(error)
    found = re.search(r"net::ERR_[A-Z_]+", text)
    if found:
        return found[0]
    return text.splitlines()[0].split(": ", 1)[-1] if text else type(error).__name__


def playwright():
    try:
        from playwright import sync_api
    except ImportError:
        raise Refused(f"Playwright is not installed: pip install '{PACKAGE}[check]', then get a "
                      f"Chromium with `playwright install chromium` (or use one you have: "
                      f"--browser PATH or $CHROMIUM)") from None
    return sync_api


def launch(pw, api, args):
    """A headless Chromium: --browser, else $CHROMIUM, else Playwright's own, else the system's."""
    given, where = (args.browser, "--browser") if args.browser else (os.environ.get("CHROMIUM"), "$CHROMIUM")
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise Refused(f"no Chromium at {given} ({where}): give the path of a Chromium "
                          f"executable, or run `playwright install chromium` and leave it out")
        candidates = [given]
    else:  # None: Playwright's own Chromium, if `playwright install chromium` fetched it
        candidates = [None] + [found for found in map(shutil.which, SYSTEM_CHROMIUMS) if found]
    failed = None
    for path in candidates:
        try:
            return pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        except api.Error as e:
            failed = failed or (path, e)
    if given:
        raise Refused(f"could not start the Chromium at {given}: {reason(failed[1])}")
    raise Refused("no Chromium found: run `playwright install chromium`, or give one with "
                  "--browser PATH or $CHROMIUM")
