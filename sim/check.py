"""`python -m sim check URL`: check a deployed copy of the page against this simulator.

For a course site's CI. In a Chromium, driven by Playwright (the package's `[check]` extra,
imported only inside the command, so that `import sim`, Pyodide and every other command never
need it), it:

- reads the page's simulator version (`window.pdsplit.version`) and fails if it is not this
  package's;
- sets each named state, and `--random N` more drawn from the sliders with `--seed K`,
  through `window.pdsplit.set`, waits until every chart is drawn (`settled()`), and compares
  every number on screen (each `[data-metric]` element) with a native run of this simulator;
- saves a full-page screenshot of each state at 375 x 740 and 1280 x 800 (`--screenshots`),
  and compares each with the one of the same name in `--baseline`, writing a diff image for
  each that differs;
- with `--frame SELECTOR`, does all of this inside the iframe SELECTOR of a host page.

Exit status: 0 when all holds; 1 on any mismatch, each named; 2 when the URL cannot be
reached or is not this widget, or the check cannot run (bad arguments, no Playwright, no
Chromium), with one line saying why.
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import sys
import time
from pathlib import Path

from . import __version__
from .figures import FIGURES
from .lab import Lab
from .page import compare_message, footer
from .report import METRICS, layouts
from .settings import FIELDS, Settings
from .states import EXPLORER_STATES, STATES

PACKAGE = "pdsplit-sim"  # pyproject.toml's name: pip install 'pdsplit-sim[check]'
SIZES = ((375, 740), (1280, 800))  # a phone and a laptop, as the page's layout tests use
MAIN = ("goodput", "gap")  # the page's two main charts: always drawn
LESSON = ("stall", "link", "prompt")  # the lesson's figures: always drawn
PANEL = ("rate", "ratio")  # worked out only while the "Go further" panel is open
# Random states draw every setting from its slider or its choices, but the GPUs from these:
# at 32 GPUs the best-ratio figure alone takes minutes in the browser.
RANDOM_GPUS = (2, 3, 4, 6, 8)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SYSTEM_CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Seconds after the load event within which a page must have window.pdsplit to count as this
# widget. Its scripts run before the load event, so on any machine this is plenty.
WIDGET_GRACE = 30
MASKED = ("#status",)  # says how long Python took to start: differs from run to run
OK, MISMATCH, REFUSED = 0, 1, 2


class Refused(Exception):
    """The check cannot be made (exit 2): one line naming the URL or the argument."""


class Unsteady(Exception):
    """A framed page whose size never settles, so it cannot be pictured (a mismatch)."""


# ---- the arguments ----

def _number(kind, low, high, words):
    def parse(text):
        try:
            x = kind(text)
        except ValueError:
            x = None
        if x is None or not (isinstance(x, int) or math.isfinite(x)) or not low <= x <= high:
            raise argparse.ArgumentTypeError(f"must be {words}; got {text!r}")
        return x
    return parse


def _url(text):
    # A web address: browsers load neither the page's ES modules nor its worker from file://.
    if not re.match(r"(?i)https?://", text):
        raise argparse.ArgumentTypeError(f"must start with http:// or https://; got {text!r}")
    return text


NAMED = {name: (changes, False) for name, _, changes in STATES}  # the lesson's: panel closed
NAMED.update({name: (changes, True) for name, _, changes in EXPLORER_STATES})  # panel open


def _states(text):
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in NAMED]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown state {unknown[0]!r}; known: {', '.join(NAMED)}")
    return names


def add_arguments(p):
    """The command's arguments (on `python -m sim`'s subparser `check`)."""
    p.add_argument("url", type=_url, metavar="URL",
                   help="the deployed page (or, with --frame, the host page that frames it)")
    p.add_argument("--states", type=_states, metavar="NAMES",
                   help=f"only these named states, comma-separated (default: all of "
                        f"{', '.join(NAMED)})")
    p.add_argument("--random", type=_number(int, 0, 1000, "a whole number from 0 to 1,000"),
                   default=0, metavar="N", help="also check N random settings (default 0)")
    p.add_argument("--seed", type=_number(int, 0, 2**53 - 1, "a whole number from 0"),
                   default=0, metavar="K", help="seed of the random settings (default 0)")
    p.add_argument("--screenshots", type=Path, metavar="DIR",
                   help="save a full-page screenshot of each state at 375x740 and 1280x800 "
                        "here, as <state>-<width>x<height>.png")
    p.add_argument("--baseline", type=Path, metavar="DIR",
                   help="compare each screenshot with the one of the same name here (needs "
                        "--screenshots); a diff image <state>-<size>.diff.png for each that differs")
    p.add_argument("--pixel-threshold", type=_number(int, 0, 255, "a whole number from 0 to 255"),
                   default=16, metavar="N",
                   help="a pixel differs when a channel differs by more than N of 255 (default 16)")
    p.add_argument("--max-diff", type=_number(float, 0, 1, "a share from 0 to 1"),
                   default=0.001, metavar="SHARE",
                   help="a screenshot fails when more than this share of its pixels differ, "
                        "or its size does (default 0.001: 0.1%%)")
    p.add_argument("--frame", metavar="SELECTOR",
                   help="URL is a host page: check the copy in the iframe this CSS selector matches")
    p.add_argument("--json", action="store_true", help="print one JSON report on stdout")
    p.add_argument("--junit", type=Path, metavar="FILE",
                   help="write JUnit XML: a testcase per state per check")
    p.add_argument("--browser", metavar="PATH",
                   help="the Chromium to use (default: $CHROMIUM, then Playwright's own, then "
                        "the system's)")
    p.add_argument("--timeout", type=_number(float, 1, 3600, "a number of seconds from 1 to 3600"),
                   default=180.0, metavar="SECONDS",
                   help="longest wait for the page to load, for Python to start, and for each "
                        "state's charts (default 180)")


# ---- the states and what a native run says the page must show ----

def random_settings(rng):
    """One setting of every slider and choice the page offers, as a user could set them."""
    out = {}
    for name, f in FIELDS.items():
        meta = f.metadata
        if name in ("gpus", "readers"):
            continue
        if meta["choices"] or meta["slider"]:
            out[name] = rng.choice(meta["choices"] or meta["slider"])
    gpus = rng.choice(RANDOM_GPUS)
    out.update(gpus=gpus, readers=rng.randint(1, gpus - 1), seed=rng.randrange(2**32))
    return out


def plan(args):
    """[(name, full settings, whether the panel is open)], in the order they are checked:
    the lesson's states with the panel closed, as a visitor first sees the page, then the
    explorer's and the random ones with it open (so that DistServe's goodput and the best
    ratio are on screen too)."""
    names = args.states if args.states is not None else list(NAMED)
    states = [(name, *NAMED[name]) for name in NAMED if name in names]
    states.sort(key=lambda state: state[2])  # closed first; stable within each
    rng = random.Random(args.seed)
    states += [(f"random-{k}", random_settings(rng), True) for k in range(1, args.random + 1)]
    return [(name, Settings().but(**changes).as_dict(), panel) for name, changes, panel in states]


def setting_text(name, value):
    """A slider's value as the page shows it (web/settings.js, `show`): "4 req/s", "100 ms"."""
    meta = FIELDS[name].metadata
    factor, unit = meta["shown"]
    unit = unit or meta["unit"]
    x = value * factor
    if meta["whole"]:
        text = f"{round(x):,}"
    else:  # JavaScript's String(Number(x.toPrecision(12))): 0.1 x 1000 reads 100
        x = float(f"{x:.12g}")
        text = str(int(x)) if x.is_integer() else repr(x)
    return f"{text} {unit}" if unit else text


def shows_value(name):
    """Whether the page shows a setting as a number (a slider's value, data-metric
    settings.<name>): choices and worded settings are select boxes instead."""
    meta = FIELDS[name].metadata
    return bool(meta["slider"]) and not meta["choices"] and not meta["names"]


def expected(lab, settings):
    """What the page must show for these settings, from a native run: the result, every
    number's text by data-metric key with the keys that must be on the page, and each
    figure's caption numbers (expected where the page shows that figure)."""
    s = Settings(**settings)
    message = compare_message(lab, s)
    texts = dict(message["shown"])
    required = {f"{layout}.{key}" for layout in layouts(message["result"]) for key, _ in METRICS}
    required |= set(re.findall(r"\{([a-z_0-9]+\.[a-z_0-9]+)\}", message["headline"]))
    for name in FIELDS:
        if shows_value(name):
            texts[f"settings.{name}"] = setting_text(name, settings[name])
            required.add(f"settings.{name}")
    texts.update(footer())
    required |= set(footer())
    figures = {name: FIGURES[name].render(lab, s)["shown"] for name in MAIN + LESSON + PANEL}
    return {"result": message["result"], "texts": texts, "required": required,
            "figures": figures}


def compare_numbers(want, got):
    """The mismatches between what a native run gives and what the page shows:
    [(key, shown text or None, expected text or None)], and how many keys were compared.

    A figure's caption numbers are expected when its caption is on screen: the page works
    out only the figures it shows (the panel's while the panel is open; an embedded page
    only those it was asked to show), and leaves the others' hidden captions as they were."""
    texts, required = dict(want["texts"]), set(want["required"])
    for name, shown in want["figures"].items():
        if got["captions"].get(name):
            texts.update(shown)
            required |= set(shown)
    problems, seen = [], set()
    for key, text, visible in got["metrics"]:
        if key in texts:
            seen.add(key)
            if text != texts[key]:
                problems.append((key, text, texts[key]))
        elif visible:  # a number on screen that a native run does not give for this state
            problems.append((key, text, None))
    problems += [(key, None, texts[key]) for key in sorted(required - seen)]
    if got["result"] != want["result"]:
        problems.append(("pdsplit.result()", "another result", "the native compare result"))
    return problems, len(seen)


# ---- in the page ----

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

# Two PNGs (data: URLs) compared pixel by pixel in a canvas. The diff image, made only for a
# failure, is the new screenshot faded to grey with every differing pixel red.
DIFF = """async ([shot, base, threshold, maxShare]) => {
  const load = (src) => new Promise((done, fail) => {
    const image = new Image();
    image.onload = () => done(image);
    image.onerror = () => fail(new Error("not a PNG image"));
    image.src = src;
  });
  const [a, b] = await Promise.all([load(shot), load(base)]);
  const width = Math.max(a.width, b.width), height = Math.max(a.height, b.height);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const pixels = (image) => {
    context.clearRect(0, 0, width, height);
    context.drawImage(image, 0, 0); // beyond a smaller image: transparent, so it differs
    return context.getImageData(0, 0, width, height);
  };
  const pa = pixels(a).data, out = pixels(b), pb = out.data;
  let differing = 0;
  const bad = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < pa.length; i += 4, p++) {
    if (Math.abs(pa[i] - pb[i]) > threshold || Math.abs(pa[i + 1] - pb[i + 1]) > threshold ||
        Math.abs(pa[i + 2] - pb[i + 2]) > threshold || Math.abs(pa[i + 3] - pb[i + 3]) > threshold) {
      bad[p] = 1;
      differing++;
    }
  }
  const share = differing / (width * height);
  const sameSize = a.width === b.width && a.height === b.height;
  const result = { width: a.width, height: a.height, baseWidth: b.width, baseHeight: b.height,
                   differing, share, ok: sameSize && share <= maxShare, diff: null };
  if (!result.ok) {
    for (let i = 0, p = 0; i < pa.length; i += 4, p++) {
      const grey = 191 + (pa[i] * 0.3 + pa[i + 1] * 0.59 + pa[i + 2] * 0.11) / 4;
      [pb[i], pb[i + 1], pb[i + 2], pb[i + 3]] = bad[p] ? [255, 0, 0, 255] : [grey, grey, grey, 255];
    }
    context.putImageData(out, 0, 0);
    result.diff = canvas.toDataURL("image/png");
  }
  return result;
}"""


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


# ---- the report ----

class Report:
    """Every check and its outcome; printed as it goes, as JSON, and as JUnit XML."""

    def __init__(self, args, out, log):
        self.args, self.out, self.log = args, out, log
        self.checks = []  # {"state", "check", "ok", "failures": [one line each]}
        self.states = []  # the JSON report's per-state detail
        self.version = {"here": __version__, "page": None}
        self.error = None

    def say(self, line):
        print(line, file=self.log, flush=True)

    def check(self, state, check, failures, note=""):
        self.checks.append({"state": state, "check": check, "ok": not failures,
                            "failures": failures})
        for line in failures:
            self.say(f"MISMATCH {line}")
        if note and not failures:
            self.say(f"ok {note}")

    def refuse(self, message):
        self.error = message

    @property
    def failures(self):
        return [line for c in self.checks for line in c["failures"]]

    @property
    def code(self):
        if self.error:
            return REFUSED
        return MISMATCH if self.failures else OK

    def finish(self):
        if self.error:
            print(f"python -m sim check: error: {self.error}", file=sys.stderr, flush=True)
        elif self.failures:
            self.say(f"{len(self.failures)} mismatch{'es' if len(self.failures) != 1 else ''} "
                     f"in {self.args.url}: exit 1")
        else:
            numbers = sum(s.get("numbers", 0) for s in self.states)
            self.say(f"All holds: {len(self.states)} states, {numbers:,} numbers as a native run "
                     f"gives them, {len(self.checks)} checks in all")
        if self.args.junit:
            self.write_junit(self.args.junit)
        if self.args.json:
            json.dump(self.as_json(), self.out, indent=1)
            self.out.write("\n")
            self.out.flush()

    def as_json(self):
        return {"url": self.args.url, "frame": self.args.frame, "ok": self.code == OK,
                "exit": self.code, "error": self.error, "simulator": self.version,
                "states": self.states, "checks": self.checks, "failures": self.failures}

    def write_junit(self, path):
        from xml.etree import ElementTree as ET

        failed = sum(not c["ok"] for c in self.checks)
        suite = ET.Element("testsuite", name=f"pdsplit check {self.args.url}",
                           tests=str(len(self.checks) + bool(self.error)),
                           failures=str(failed), errors=str(int(bool(self.error))))
        for c in self.checks:
            case = ET.SubElement(suite, "testcase", classname=f"pdsplit.{c['state']}",
                                 name=c["check"])
            if c["failures"]:
                ET.SubElement(case, "failure", message=c["failures"][0]).text = "\n".join(c["failures"])
        if self.error:  # the check could not be made: one case that says why
            case = ET.SubElement(suite, "testcase", classname="pdsplit", name="page")
            ET.SubElement(case, "error", message=self.error).text = self.error
        suites = ET.Element("testsuites")
        suites.append(suite)
        path.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def mismatch_line(state, key, shown, want):
    if shown is None:
        return f"{state}: {key} is not on the page; a native run gives {want!r}"
    if want is None:
        return f"{state}: {key} shows {shown!r}, a number a native run does not give for this state"
    return f"{state}: {key} shows {shown!r}; a native run gives {want!r}"


# ---- the check ----

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


def run_check(args, report):
    if args.baseline is not None and args.screenshots is None:
        raise Refused("--baseline needs --screenshots DIR, where the new screenshots and the "
                      "diff images go")
    if args.baseline is not None and not args.baseline.is_dir():
        raise Refused(f"--baseline {args.baseline}: no such directory")
    states = plan(args)
    if not states:
        raise Refused("no states to check: --states names none and --random is 0")
    api = playwright()
    from concurrent.futures import ThreadPoolExecutor

    # The native runs go on in a thread while the browser computes the same states.
    with api.sync_playwright() as pw, ThreadPoolExecutor(1) as pool:
        browser = launch(pw, api, args)
        lab = Lab()
        natives = [pool.submit(expected, lab, settings) for _, settings, _ in states]
        try:
            sizes = SIZES if args.screenshots else SIZES[-1:]  # numbers alone: one page will do
            targets = [Target(browser, args, size, api) for size in sizes]
            Check(args, report, api, browser, targets).run(states, natives)
        finally:
            for future in natives:
                future.cancel()
            browser.close()


class Check:
    """The checks on booted pages (one per viewport size), state after state."""

    def __init__(self, args, report, api, browser, targets):
        self.args, self.report, self.api, self.browser = args, report, api, browser
        self.targets = targets
        self.differ = None  # a blank page that compares screenshots, opened when first needed

    def run(self, states, natives):
        args, report = self.args, self.report
        version = self.targets[0].version()
        report.version["page"] = version
        report.say(f"Checking {args.url}{f' (frame {args.frame})' if args.frame else ''} "
                   f"against the simulator {__version__}: {len(states)} states")
        if version != __version__:
            shown = ("does not say its simulator version (window.pdsplit.version)"
                     if version is None else f"runs the simulator {version}")
            report.check("page", "version", [f"the page {shown}; this check runs {__version__}"])
        else:
            report.check("page", "version", [], f"the page runs the simulator {version}, as here")
        for target in self.targets:
            why = target.ready()
            if why:
                report.check("page", f"ready {target.name}", [f"{target.name}: {why}"])
                return
        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
        for k, ((name, settings, panel), native) in enumerate(zip(states, natives)):
            try:
                finished = self.state(name, settings, panel, native.result())
            except self.api.Error as e:  # the page crashed or went away mid-check
                report.check(name, "run", [f"{name}: the page failed: {reason(e)}"])
                finished = False
            if not finished:  # a page that hangs on one state would on every other: stop
                rest = [state[0] for state in states[k + 1:]]
                if rest:
                    report.check("page", "other states",
                                 [f"not checked, since {name} did not finish: {', '.join(rest)}"])
                return

    def state(self, name, settings, panel, want):
        """Check one state on every page; False if a page did not finish drawing it."""
        began = time.monotonic()
        for target in self.targets:  # started on each page at once, so they compute side by side
            target.start(settings, panel)
        shown = [target.finish() for target in self.targets]
        seconds = time.monotonic() - began
        detail = {"name": name, "settings": settings, "panel": panel, "numbers": 0,
                  "seconds": round(seconds, 2), "mismatches": [], "screenshots": []}
        self.report.states.append(detail)
        failures, finished = [], True
        for target, got in zip(self.targets, shown):
            where = f"{name} ({target.name})" if len(self.targets) > 1 else name
            if "error" in got:
                failures.append(f"{where}: {got['error']}")
                finished = False
                continue
            if got["settings"] != settings:
                failures.append(f"{where}: the page took the settings {json.dumps(got['settings'])}, "
                                f"not {json.dumps(settings)}")
            problems, count = compare_numbers(want, got)
            detail["numbers"] = max(detail["numbers"], count)
            for key, text, expect in problems:
                detail["mismatches"].append({"size": target.name, "key": key, "shown": text,
                                             "expected": expect})
                failures.append(mismatch_line(where, key, text, expect))
        self.report.check(name, "numbers", failures,
                          f"{name}: {detail['numbers']} numbers as a native run gives them "
                          f"(drawn in {seconds:.1f} s)")
        if finished and self.args.screenshots:
            for target in self.targets:
                self.screenshot(detail, name, target)
        return finished

    def screenshot(self, detail, name, target):
        import base64

        args = self.args
        file = f"{name}-{target.name}.png"
        check = f"screenshot {target.name}"
        try:
            data = target.screenshot()
        except Unsteady as e:
            self.report.check(name, check, [f"{name}: {e}"])
            return
        (args.screenshots / file).write_bytes(data)
        entry = {"size": target.name, "path": str(args.screenshots / file)}
        detail["screenshots"].append(entry)
        if args.baseline is None:
            return
        base = args.baseline / file
        entry["baseline"] = str(base)
        if not base.is_file():
            self.report.check(name, check, [f"{name}: no baseline image {base}"])
            return
        if self.differ is None:
            self.differ = self.browser.new_page()
        url = lambda png: "data:image/png;base64," + base64.b64encode(png).decode()  # noqa: E731
        try:
            found = self.differ.evaluate(DIFF, [url(data), url(base.read_bytes()),
                                                args.pixel_threshold, args.max_diff])
        except self.api.Error as e:
            self.report.check(name, check, [f"{name}: the baseline image {base} cannot be "
                                            f"read: {reason(e)}"])
            return
        entry.update(share=found["share"], ok=found["ok"])
        if found["ok"]:
            self.report.check(name, check, [], f"{name}: screenshot {target.name} matches the "
                                               f"baseline ({found['share']:.3%} of pixels differ)")
            return
        diff = args.screenshots / f"{name}-{target.name}.diff.png"
        diff.write_bytes(base64.b64decode(found["diff"].split(",", 1)[1]))
        entry["diff"] = str(diff)
        if (found["width"], found["height"]) != (found["baseWidth"], found["baseHeight"]):
            what = (f"is {found['width']}x{found['height']} px, the baseline "
                    f"{found['baseWidth']}x{found['baseHeight']}")
        else:
            what = (f"differs from the baseline in {found['share']:.3%} of its pixels (at most "
                    f"{args.max_diff:.3%} may)")
        self.report.check(name, check, [f"{name}: screenshot {target.name} {what}; see {diff}"])


def run(args, out=None):
    """`python -m sim check` with parsed arguments; returns the exit status."""
    out = out or sys.stdout
    report = Report(args, out, sys.stderr if args.json else out)
    try:
        run_check(args, report)
    except Refused as e:
        report.refuse(str(e))
    report.finish()
    return report.code
