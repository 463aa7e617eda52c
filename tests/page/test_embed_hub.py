"""One Python per course page (issue 21): the pieces of a host page share the hub's worker.

On dist/embed-example.html (three pieces) and six-pieces.html, served under a sub-path with
docs/course-sites.md's strict CSP: every piece shows native Python's numbers, the wasm and the snapshot
are downloaded once, the page costs at most 1.15x the bytes of index.html alone, one worker
runs; a piece whose settings change never shows another's numbers; killing the shared worker
heals every piece; without the hub each piece runs its own worker, as before."""

import pytest

import sim
from conftest import BOOT_TIMEOUT, Watch
from hub_pages import SNAPSHOT, WASM, CountingSite, boot_pieces
from pieces import VIOLATIONS, assert_native

MAX_BYTES_RATIO = 1.15  # the course page's bytes over index.html's alone


@pytest.fixture(scope="module")
def counting():
    site = CountingSite()
    yield site
    site.close()


def open_host(browser, url, script=None, route=None):
    """A host page in a fresh context (an empty cache), its frames watched for violations."""
    context = browser.new_context(viewport={"width": 375, "height": 800})
    context.add_init_script(VIOLATIONS)
    if script:
        context.add_init_script(script)
    if route:
        context.route(*route)
    page = context.new_page()
    page.watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    page.goto(url)
    return page


def python_workers(page):
    """The page's workers running worker.js (the host's, the pieces' and the hub's frames)."""
    return [w for w in page.workers if "/worker.js" in w.url]


def assert_clean(page, frames, site):
    assert page.watch.console_errors() == []
    for frame in [page.main_frame, *frames]:
        assert frame.evaluate("window.__violations") == []
    assert site.reports == []


def test_the_example_page_downloads_and_runs_one_python(browser, counting):
    counting.reset()
    alone = open_host(browser, counting.url + "index.html")
    try:
        alone.evaluate("window.pdsplit.ready")
        alone.evaluate("window.pdsplit.settled()")
        page_bytes = counting.bytes()
        assert counting.downloads(WASM) == 1 and counting.downloads(SNAPSHOT) == 1
    finally:
        alone.context.close()

    counting.reset()
    page = open_host(browser, counting.url + "embed-example.html")
    try:
        frames = boot_pieces(page, BOOT_TIMEOUT)
        assert len(frames) == 3
        infos = [frame.evaluate("window.pdsplit.python()") for frame in frames]
        assert len({(i["hub"], i["worker"]) for i in infos}) == 1 and infos[0]["hub"]
        assert all(i["boot"] == "snapshot" for i in infos)
        for frame in frames:
            assert_native(frame)
        assert len(python_workers(page)) == 1
        assert page.locator("iframe.pdsplit-hub").count() == 1
        assert counting.downloads(WASM) == 1 and counting.downloads(SNAPSHOT) == 1
        ratio = counting.bytes() / page_bytes
        assert ratio <= MAX_BYTES_RATIO, f"{counting.bytes():,} bytes, {ratio:.3f}x index.html's {page_bytes:,}"
        # every piece's memory is the one worker's
        assert len({frame.evaluate("window.pdsplit.memory()")["numbers"] for frame in frames}) == 1
        assert_clean(page, frames, counting)
    finally:
        page.context.close()


def test_six_pieces_share_one_python(browser, counting):
    counting.reset()
    page = open_host(browser, counting.url + "six-pieces.html")
    try:
        frames = boot_pieces(page, BOOT_TIMEOUT)
        assert len(frames) == 6
        assert len({frame.evaluate("window.pdsplit.python().hub") for frame in frames}) == 1
        for frame in frames:
            assert_native(frame)
        assert [frame.evaluate("window.pdsplit.settings().rps") for frame in frames][1] == 12
        assert len(python_workers(page)) == 1
        assert counting.downloads(WASM) == 1 and counting.downloads(SNAPSHOT) == 1
        assert_clean(page, frames, counting)
    finally:
        page.context.close()


# In a piece: every time it puts numbers on screen, whose settings they are and its own then,
# and every time it is dimmed as stale.
NUMBERS_LOG = """() => {
    window.__numbers = [];
    addEventListener('pdsplit:numbers', () => window.__numbers.push(
        [window.pdsplit.result().settings, window.pdsplit.settings()]));
    window.__stale = 0;
    new MutationObserver(() => { if (document.body.classList.contains('stale')) window.__stale += 1; })
        .observe(document.body, {attributes: true, attributeFilter: ['class']});
}"""


def test_a_piece_never_shows_another_pieces_numbers(browser, counting):
    """Three pieces change their settings at once, to three different ones, again and again:
    each shows only numbers for its own settings, and a piece left alone is never dimmed."""
    counting.reset()
    page = open_host(browser, counting.url + "six-pieces.html")
    try:
        frames = boot_pieces(page, BOOT_TIMEOUT)
        moving, still = frames[:3], frames[3:]
        before = [frame.evaluate("window.pdsplit.result()") for frame in still]
        for frame in frames:
            frame.evaluate(NUMBERS_LOG)
        for round_ in range(4):
            changes = [{"rps": 4.0 + round_ + 3 * i, "prompt": 1000 + 500 * i} for i in range(3)]
            # sent to the three together, then waited for
            for frame, change in zip(moving, changes):
                frame.evaluate("s => { window.__asked = window.pdsplit.set(s); }", change)
            for frame, change in zip(moving, changes):
                full = sim.Settings().but(**change).as_dict()
                assert frame.evaluate("window.__asked") == sim.compare(**full)
        for frame in moving:
            frame.evaluate("window.pdsplit.settled()")
            assert_native(frame)
            log = frame.evaluate("window.__numbers")
            assert log and all(shown == own for shown, own in log), log
        for frame, was in zip(still, before):
            assert frame.evaluate("window.__numbers") == []
            assert frame.evaluate("window.__stale") == 0
            assert frame.evaluate("window.pdsplit.result()") == was
            assert_native(frame)
    finally:
        page.context.close()


# Every change of a piece's status line.
STATUS_LOG = """() => {
    window.__statuses = [];
    const status = document.getElementById('status');
    new MutationObserver(() => window.__statuses.push(status.textContent))
        .observe(status, {childList: true, characterData: true, subtree: true});
}"""


@pytest.mark.parametrize("how", ["self.close();", "for (;;) {}"], ids=["closed", "stuck"])
def test_killing_the_shared_worker_heals_every_piece(browser, counting, how):
    counting.reset()
    page = open_host(browser, counting.url + "embed-example.html")
    try:
        frames = boot_pieces(page, BOOT_TIMEOUT)
        for frame in frames:
            frame.evaluate(STATUS_LOG)
        [worker] = python_workers(page)
        gone = []  # the lost worker, ended by the hub: Playwright hears so a moment later
        worker.once("close", lambda _: gone.append(True))
        worker.evaluate(f"setTimeout(() => {{ {how} }})")
        # one piece asks: the hub finds its worker gone, and every piece hears so
        frames[1].evaluate("() => { window.__asked = window.pdsplit.set({link: 2.5}); }")
        for frame in frames:
            frame.wait_for_function("() => window.pdsplit.python() && window.pdsplit.python().restarts === 1")
        for index, frame in enumerate(frames):
            said = frame.evaluate("window.__statuses")
            assert any(s.startswith("The simulator stopped: it gave no answer within") for s in said), (index, said)
            assert frame.evaluate("window.pdsplit.python().worker") == 2
            change = {"rps": 3.0 + index}
            full = {**frame.evaluate("window.pdsplit.settings()"), **change}
            assert frame.evaluate("s => window.pdsplit.set(s)", change) == sim.compare(**full)
            frame.evaluate("window.pdsplit.settled()")
            assert_native(frame)
            assert frame.text_content("#status").startswith("The simulator was restarted, since the one before ")
        assert frames[1].evaluate("window.pdsplit.settings().link") == 2.5
        if not gone:  # (events come in while Playwright waits: none between this and the next line)
            with worker.expect_event("close", timeout=BOOT_TIMEOUT):
                pass
        assert len(python_workers(page)) == 1
    finally:
        page.context.close()


def test_three_failed_starts_are_said_in_every_piece(browser, counting):
    counting.reset()
    page = open_host(browser, counting.url + "embed-example.html",
                     route=("**/pyodide.asm.wasm*", lambda route: route.fulfill(status=404, body="gone")))
    try:
        for index in range(3):
            element = page.locator("iframe.pdsplit-frame").nth(index)
            element.scroll_into_view_if_needed()
            page.wait_for_function("i => document.querySelectorAll('iframe.pdsplit-frame')[i].getAttribute('src')", arg=index)
            frame = element.element_handle().content_frame()
            frame.wait_for_function("() => window.pdsplit !== undefined")
            failure = frame.evaluate("window.pdsplit.ready.then(() => 'ready', e => e.message)")
            assert "Python's core (pyodide.asm.wasm) could not be loaded" in failure and "3 times in a row" in failure
            status = frame.text_content("#status")
            assert status.startswith("Your browser could not run the simulator: ") and "3 times in a row" in status
            assert frame.evaluate("window.pdsplit.result()") is not None  # the baked numbers stay
    finally:
        page.context.close()


@pytest.mark.parametrize("missing", ["no BroadcastChannel", "no hub page"])
def test_without_the_hub_each_piece_runs_its_own_python(browser, counting, missing):
    """The sharing unavailable: a browser without BroadcastChannel (then embed.js adds no hub),
    or a hub whose page never loads (then each piece stops waiting for it): every piece works
    as before the hub, with a worker of its own."""
    counting.reset()
    page = open_host(browser, counting.url + "embed-example.html",
                     script="delete window.BroadcastChannel;" if missing == "no BroadcastChannel" else None,
                     route=("**/hub.html*", lambda route: route.abort()) if missing == "no hub page" else None)
    try:
        frames = boot_pieces(page, BOOT_TIMEOUT)
        for frame in frames:
            assert not frame.evaluate("window.pdsplit.python().hub")
            assert frame.evaluate("window.pdsplit.python().restarts") == 0
            assert_native(frame)
            assert frame.evaluate("window.pdsplit.set({rps: 6.5})") == sim.compare(
                **{**frame.evaluate("window.pdsplit.settings()"), "rps": 6.5})
        assert len(python_workers(page)) == 3
        assert page.locator("iframe.pdsplit-hub").count() == (0 if missing == "no BroadcastChannel" else 1)
        hub = [frame.evaluate("new URLSearchParams(location.search).get('hub')") for frame in frames]
        assert all(hub) == (missing == "no hub page")
    finally:
        page.context.close()


def test_a_piece_says_quietly_where_its_numbers_come_from(browser, counting):
    """In embed mode, while all is well, the status line is a small note; its details (the
    technical line) are its accessible description, shown on hover and on focus."""
    counting.reset()
    page = open_host(browser, counting.url + "embed-example.html")
    try:
        frame = boot_pieces(page, BOOT_TIMEOUT)[0]
        note = frame.locator("#status .quiet-note")
        assert note.inner_text() == "computed in your browser"
        assert frame.locator("#status").inner_text().strip() == "computed in your browser"
        details = frame.locator("#status-details")
        assert not details.is_visible()
        described = frame.evaluate("""() => { const n = document.querySelector('#status .quiet-note');
            return [n.tabIndex, n.getAttribute('aria-describedby'),
                    document.getElementById(n.getAttribute('aria-describedby')).textContent]; }""")
        assert described[0] == 0 and described[1] == "status-details"
        assert described[2].startswith("Python 3.") and "computed in your browser" in described[2]
        note.focus()
        assert details.is_visible() and details.inner_text() == described[2]
        frame.evaluate("document.activeElement.blur()")
        assert not details.is_visible()
        note.hover()
        assert details.is_visible()
    finally:
        page.context.close()
