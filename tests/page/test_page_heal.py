"""The worker boots from the build's snapshot, falls back to a plain boot when it cannot, and
is replaced when it dies or stops answering; a browser that cannot run it at all says so.

Failures are made from outside, without test hooks in the page: Playwright's routing drops,
corrupts or swaps the downloads, and evaluating in the worker closes it, holds its thread, or
throws in it."""

import gzip
import json
import re

import pytest
from playwright.sync_api import Error as PlaywrightError

import sim
from build import SNAPSHOT
from conftest import BOOT_TIMEOUT, DIST, ROOT, Watch, open_page
from sim.show.figures import FIGURES

# the page's deadlines, in ms, as web/python.js sets them
DEADLINES = {name: int(ms) for name, ms in re.findall(
    r"^  (\w+): (\d+),", (ROOT / "web" / "python.js").read_text().split("DEADLINES = {")[1].split("}")[0], re.M)}

# ms after a change that numbers still on screen from the settings before are dimmed (web/app.js):
# a change's new numbers that come sooner are not preceded by a flash of grey
DIM_AFTER = int(re.search(r"^const DIM_AFTER = (\d+);", (ROOT / "web" / "app.js").read_text(), re.M).group(1))

SETTINGS = [{"rps": 9.0, "prompt": 3000}, {"rps": 3.0, "link": 5.0}, {"reply": 450, "gap_target": 0.05}]


def full(changes):
    return sim.Settings().but(**changes).as_dict()


def open_routed(browser, site, url_glob, handler, query=""):
    context = browser.new_context()
    context.route(url_glob, handler)
    page = context.new_page()
    page.watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    page.goto(site + query)
    return page


def snapshot_bytes():
    return (DIST / SNAPSHOT).read_bytes()


def assert_native(page, changes):
    want = full(changes)
    assert page.evaluate("s => window.pdsplit.set(s)", want) == sim.compare(**want)
    assert page.evaluate("window.pdsplit.result()") == sim.compare(**want)


def test_boot_from_the_snapshot_gives_native_numbers(lesson):
    info = lesson.evaluate("window.pdsplit.python()")
    assert info["boot"] == "snapshot" and info["fallback"] is None and info["restarts"] == 0
    assert "from its snapshot" in lesson.text_content("#status")
    for changes in SETTINGS:
        assert_native(lesson, changes)
    lesson.evaluate("window.pdsplit.settled()")
    figure = lesson.evaluate("window.pdsplit.figure('link')")
    assert figure["shown"]["link.shared"]  # drawn by Python for these settings
    assert lesson.evaluate("window.pdsplit.settings()") == full(SETTINGS[-1])


def test_a_worker_started_with_boot_now_boots_unasked(lesson):
    """The page's own workers start with ?boot=now: such a worker boots without a message
    (a message to a worker that has just started waits for the page's main thread), and then
    answers as the page's does. A worker without it waits for its boot request."""
    found = lesson.evaluate("""async () => {
        // the page's own worker URL, from the module the page loaded (the same instance)
        const { workerURL } = await import(document.querySelector('script[src*="start.js"]').src);
        const url = (now) => {
            const found = new URL(workerURL);
            if (now) found.searchParams.set('boot', 'now');
            return found;
        };
        const ask = (worker, type, body = {}) => new Promise((resolve) => {
            const id = Math.random();
            const heard = (e) => { if (e.data.id === id) { worker.removeEventListener('message', heard); resolve(e.data); } };
            worker.addEventListener('message', heard);
            worker.postMessage({id, type, ...body});
        });
        const now = new Worker(url(true), {type: 'module'}), asked = new Worker(url(false), {type: 'module'});
        try {
            const began = performance.now();
            while ((await ask(now, 'alive')).result.booting) {
                if (performance.now() - began > 60000) return {booted: false};
                await new Promise((next) => setTimeout(next, 50));
            }
            return {booted: true, waiting: (await ask(asked, 'alive')).result.booting,
                    compare: (await ask(now, 'compare', {settings: {rps: 9}})).result.result};
        } finally {
            now.terminate();
            asked.terminate();
        }
    }""")
    assert found["booted"], "a worker with ?boot=now did not boot unasked within 60 s"
    assert found["waiting"] is True  # the one without it still waits for its boot request
    assert found["compare"] == sim.compare(rps=9)


@pytest.mark.parametrize("damage, said", [
    ("missing", "could not be downloaded (HTTP 404)"),
    ("corrupt", "it is corrupt"),
    ("other build", "Snapshot build id mismatch"),
])
def test_a_snapshot_that_cannot_be_used_falls_back_to_a_plain_boot(browser, site, damage, said):
    data = snapshot_bytes()
    if damage == "corrupt":  # bytes changed on the way: gzip's check fails
        middle = len(data) // 2
        data = data[:middle] + bytes(b ^ 0x5A for b in data[middle:middle + 64]) + data[middle + 64:]
    elif damage == "other build":  # a snapshot of another Pyodide: its build id differs
        raw = bytearray(gzip.decompress(data))
        raw[16:48] = bytes(32)
        data = gzip.compress(bytes(raw), compresslevel=1)

    def route(route):
        if damage == "missing":
            route.fulfill(status=404, body="not here")
        else:
            route.fulfill(status=200, body=data, content_type="application/octet-stream")

    page = open_routed(browser, site, f"**/{SNAPSHOT}*", route, "?rps=7.5")
    try:
        page.evaluate("window.pdsplit.ready")
        info = page.evaluate("window.pdsplit.python()")
        assert info["boot"] == "plain" and said in info["fallback"]
        status = page.text_content("#status")
        assert "by a full start, since its snapshot could not be used" in status and said in status
        assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=7.5)  # not baked
        assert any(u.endswith(".whl") or ".whl?" in u for u in page.watch.requests)  # micropip's install
        for changes in SETTINGS[:2]:
            assert_native(page, changes)
    finally:
        page.context.close()


@pytest.fixture(scope="module", params=[2, 4], ids=["one worker", "two workers"])
def healing(browser, site, request):
    """One page whose workers the tests below break, one way after another: with one worker,
    and with a second one for the figures (as on 4 cores)."""
    page = open_page(browser, site, cores=request.param)
    page.evaluate("window.pdsplit.settled()")
    assert len(page.evaluate("window.pdsplit.memory()")) == request.param // 2
    yield page
    page.context.close()


def break_workers(page, how):
    """Break every worker of the page from inside it. A worker the page ended in an earlier
    test (a stuck one, terminated) may still be listed until Playwright hears it close."""
    broken = 0
    for worker in page.workers:
        try:
            worker.evaluate(f"setTimeout(() => {{ {how} }})")
            broken += 1
        except PlaywrightError as e:  # (TargetClosedError, which sync_api does not export)
            if "has been closed" not in str(e):
                raise
    assert broken


# Every change of the status line, with what the page showed at that moment.
STATUS_LOG = """() => {
    window.__statuses = [];
    new MutationObserver(() => window.__statuses.push({
        text: document.getElementById('status').textContent,
        stale: document.body.classList.contains('stale'),
        pending: document.getElementById('results').classList.contains('pending'),
        rps: window.pdsplit.result().settings.rps,
        current: window.pdsplit.settings().rps,
        at: performance.now(),
    })).observe(document.getElementById('status'), {childList: true, characterData: true, subtree: true});
}"""


# Silent, the numbers' worker owes a compare and the main charts' figure request: it is given
# the longer of their deadlines (web/python.js: watchSilence)
SILENT = max(DEADLINES["compare"], DEADLINES["figure"]) // 1000


@pytest.mark.parametrize("how, said", [
    ("self.close();", f"it gave no answer within {SILENT} s"),
    ("for (;;) {}", f"it gave no answer within {SILENT} s"),
    ("throw new Error('broken on purpose');", "it failed (Uncaught Error: broken on purpose)"),
], ids=["closed", "stuck", "error"])
def test_a_dead_or_stuck_worker_is_replaced_and_the_next_change_is_right(healing, how, said):
    page = healing
    page.evaluate("window.pdsplit.settled()")
    restarts = page.evaluate("window.pdsplit.python().restarts")
    before = page.evaluate("window.pdsplit.result()")
    page.evaluate(STATUS_LOG)
    break_workers(page, how)
    changes = {"rps": 5.5 + restarts, "prompt": 1800}
    set_at = page.evaluate("() => performance.now()")
    assert page.evaluate("s => window.pdsplit.set(s)", full(changes)) == sim.compare(**full(changes))
    assert not page.evaluate("document.body.classList.contains('stale')")
    stopped = [s for s in page.evaluate("window.__statuses") if s["text"].startswith("The simulator stopped")]
    assert stopped and said in stopped[0]["text"] and "A new one is starting" in stopped[0]["text"]
    # whenever the numbers on screen were computed for other settings, they looked it: dimmed
    # while they were awaited (the figures' worker may be found silent first), then stale; in
    # the change's first DIM_AFTER ms as any change's are (a broken figures' worker can say so
    # then: CI once logged it there)
    statuses = page.evaluate("window.__statuses")
    assert all(s["stale"] or s["pending"] or s["rps"] == s["current"] or 0 <= s["at"] - set_at < DIM_AFTER
               for s in statuses), statuses
    assert any(s["stale"] and s["rps"] == before["settings"]["rps"] for s in statuses)
    info = page.evaluate("window.pdsplit.python()")
    assert info["restarts"] == restarts + 1 and info["boot"] == "snapshot"
    page.evaluate("window.pdsplit.settled()")  # every figure too, from the new workers
    assert page.evaluate("window.pdsplit.figure('prompt').shown['prompt.rps']") == sim.show.numbers.number(changes["rps"])
    assert page.text_content("#status").startswith("The simulator was restarted, since the one before ")
    assert_native(page, {"rps": 2.0})


def test_a_missing_wasm_is_said_within_seconds_and_the_baked_numbers_stay(browser, site):
    page = open_routed(browser, site, "**/pyodide.asm.wasm*", lambda route: route.fulfill(status=404, body="gone"))
    try:
        failure = page.evaluate("window.pdsplit.ready.then(() => 'ready', e => e.message)")
        # three starts failed on the wasm itself, not on a deadline
        assert "Python's core (pyodide.asm.wasm) could not be loaded" in failure
        assert "3 times in a row" in failure and "no answer" not in failure
        status = page.text_content("#status")
        assert status.startswith("Your browser could not run the simulator: ")
        assert "The numbers shown were worked out when this page was built." in status
        assert page.get_attribute("#status", "data-kind") == "error"
        assert page.evaluate("window.pdsplit.result()") == sim.compare()  # the baked default
        assert not page.evaluate("document.body.classList.contains('stale')")
        # a setting without baked numbers: none shown as its own, and set() says why
        message = page.evaluate("window.pdsplit.set({rps: 9}).then(() => 'resolved', e => e.message)")
        assert message == failure
        assert page.evaluate("document.body.classList.contains('stale')")
        assert page.evaluate("window.pdsplit.result().settings.rps") == 4
        assert "only the lesson's named states" in page.text_content("#status")
        page.get_by_role("button", name="Busy: 10 req/s").click()  # a named state: baked numbers
        assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=10)
        assert not page.evaluate("document.body.classList.contains('stale')")
    finally:
        page.context.close()


def test_a_browser_without_webassembly_is_told_at_once(browser, site):
    def without_webassembly(route):
        response = route.fetch()
        route.fulfill(response=response, body="delete globalThis.WebAssembly;\n" + response.text())

    page = open_routed(browser, site, "**/worker.js*", without_webassembly)
    try:
        failure = page.evaluate("window.pdsplit.ready.then(() => 'ready', e => e.message)")
        assert failure == "it could not start Python (this browser cannot run WebAssembly)"  # one try
        assert page.text_content("#status").startswith(
            "Your browser could not run the simulator: it could not start Python (this browser cannot run WebAssembly).")
    finally:
        page.context.close()


def test_a_storm_of_unawaited_changes_ends_on_the_last(lesson):
    outcome = lesson.evaluate("""async (base) => {
        const stops = JSON.parse(document.getElementById('pdsplit-baked').textContent)
            .schema.find(f => f.name === 'rps').slider;
        const promises = [];
        for (let i = 0; i < 300; i++)
            promises.push(window.pdsplit.set({...base, rps: stops[(i * 7) % stops.length]})
                .then(r => r.settings.rps, e => e.message));
        const outcomes = await Promise.all(promises);
        return {last: stops[(299 * 7) % stops.length], outcomes};
    }""", full({"prompt": 2400}))
    last = outcome["last"]
    assert outcome["outcomes"] == ["superseded by newer settings"] * 299 + [last]
    assert lesson.evaluate("window.pdsplit.result()") == sim.compare(rps=last, prompt=2400)
    lesson.evaluate("window.pdsplit.settled()")
    assert lesson.evaluate("window.pdsplit.settings()") == full({"rps": last, "prompt": 2400})
    assert lesson.evaluate("location.search") == f"?rps={last:g}&prompt=2400"  # the link is the last setting
    assert lesson.evaluate("window.pdsplit.figure('goodput').shown['goodput.rps']") == sim.show.numbers.number(last)



def test_the_heaviest_settings_never_trip_a_deadline(lesson):
    """At the page's limits every request still answers well within its deadline: the page
    settles with the same workers, none ended for being slow."""
    before = lesson.evaluate("window.pdsplit.python().restarts")
    heaviest = full({"requests": 6000, "prompt": 8000, "rps": 20.0, "reply": 1000, "link": 0.1})
    assert lesson.evaluate("s => window.pdsplit.set(s)", heaviest) == sim.compare(**heaviest)
    lesson.evaluate("window.pdsplit.settled()")
    assert lesson.evaluate("window.pdsplit.python().restarts") == before
    assert "stopped" not in lesson.text_content("#status")
    assert lesson.evaluate("window.pdsplit.figure('prompt').shown['prompt.rps']") == "20"


# Runs walked a writing step at a time, each compare longer in the browser than the compare's
# deadline: 70B on two A100s with memory=kv, 16,000-token prompts and 1,000-word replies (room
# for two replies at once; natively ~5 s at 1,200 requests); 32 GPUs working in pairs, whose
# all-reduce grows with the batch (4 replies at once on each: natively ~6.7 s at 6,000 requests,
# 0.05 s in single GPUs; with 8 at once, ~3 s natively took 4.9 s in CI's browser, too near
# the deadline)
HEAVY = [{"model": "70B", "tp": 2, "gpus": 4, "readers": 2, "memory": "kv", "prompt": 16000,
          "reply": 1000, "requests": 1200, "rps": 0.25, "ttft_target": 5.0},
         {"gpus": 32, "readers": 24, "tp": 2, "chunk": 256, "slots": 4, "prompt": 7000, "reply": 1000,
          "rps": 46.0, "requests": 6000, "link": 250.0}]


@pytest.mark.parametrize("changes", HEAVY, ids=["70B-kv", "tp-2"])
def test_a_heavy_model_s_long_runs_are_waited_for_not_restarted(browser, site, changes):
    """The worker tells the page a request's patience before it begins, so such a compare is
    waited for, not restarted (which asked it again, and again)."""
    page = open_page(browser, site)
    try:
        heavy = full(changes)
        took = page.evaluate("""async (s) => { const t = performance.now(); await window.pdsplit.set(s);
            return performance.now() - t; }""", heavy)
        assert took > DEADLINES["compare"], "the settings must keep Python busy past the deadline"
        assert page.evaluate("window.pdsplit.result()") == sim.compare(**heavy)
        assert page.evaluate("window.pdsplit.python().restarts") == 0
        assert "stopped" not in page.text_content("#status")
    finally:
        page.context.close()


def test_a_figures_worker_lost_while_it_helps_costs_the_main_charts_nothing(browser, site):
    """On 4 cores the figures' worker helps with the main charts' points (web/help.js). Stuck
    as it is asked to help, it is not waited for: the main charts are complete from the
    numbers' worker alone, exact, long before the stuck one's deadline; then a new figures'
    worker is started and draws the figures."""
    # settings the build did not bake: settled, their figures came from the figures' worker,
    # which is then up (a named state's come from the build, with no worker but the numbers')
    page = open_page(browser, site + "?prompt=2100", cores=4)
    try:
        page.evaluate("window.pdsplit.settled()")
        for worker in page.workers:  # only the figures' worker is ever asked to help
            worker.evaluate("""() => { const answer = self.onmessage;
                self.onmessage = (e) => { if (e.data?.type === "help") for (;;) {} else answer(e); }; }""")
        page.evaluate("""() => { window.__heard = [];
            addEventListener("pdsplit:charts", (e) => window.__heard.push(["charts", e.detail.key]));
            new MutationObserver(() => window.__heard.push(["status", document.getElementById("status").textContent]))
                .observe(document.getElementById("status"), {childList: true, characterData: true, subtree: true}); }""")
        changes = {"prompt": 2600, "reply": 170}
        page.evaluate("s => window.pdsplit.set(s)", changes)
        page.wait_for_function("window.__heard.some(([kind]) => kind === 'charts')")
        heard = page.evaluate("window.__heard")
        assert not any("figures' simulator stopped" in what for kind, what in heard), heard
        settings = sim.Settings.make(**page.evaluate("window.pdsplit.settings()"))
        for name in ("goodput", "gap"):
            native = FIGURES[name].render(sim.Lab(), settings)["figure"]["data"]
            assert page.evaluate("n => window.pdsplit.figure(n).figure.data", name) == json.loads(json.dumps(native))
        page.evaluate("window.pdsplit.settled()")  # the figures, from a new figures' worker
        heard = page.evaluate("window.__heard")
        assert any(f"figures' simulator stopped: it gave no answer within {DEADLINES['help'] // 1000} s" in what
                   for kind, what in heard), heard
        native = FIGURES["prompt"].render(sim.Lab(), settings)["figure"]["data"]
        assert page.evaluate("window.pdsplit.figure('prompt').figure.data") == json.loads(json.dumps(native))
    finally:
        page.context.close()
