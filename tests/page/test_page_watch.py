"""Watch it run, on the page: its events are sim.watch's for the settings on screen, its clock
plays and steps through them in order, a change of settings brings the new run's, nothing plays
by itself, and it fits a phone."""

import random

import pytest

import sim
from conftest import open_page
from sim.check.expected import random_settings

# The section is on screen, and its events are for the current settings.
CURRENT = """() => {
    const s = document.getElementById('watch');
    return s.dataset.state === 'current' && s.dataset.at !== undefined;
}"""
AT = "() => Number(document.getElementById('watch').dataset.at)"
NAMED = [{}, {"rps": 10}, {"link": 0.25}, {"prompt": 200}, {"chunk": 512, "gpus": 3, "readers": 2}]


def native(settings):
    """sim.watch's events of every layout in the page's default window, for these settings."""
    s = sim.Settings.make(**settings)
    lab = sim.Lab()
    from sim.show.watch import default_window
    t0, t1 = default_window(lab, s)
    layouts = ["shared", "split"] + (["chunked"] if s.chunk else [])
    return t0, t1, {layout: lab.watch(layout, t0, t1, s) for layout in layouts}


def shown(page):
    page.locator("#watch").scroll_into_view_if_needed()
    page.wait_for_function(CURRENT)
    return page.evaluate("() => ({...document.getElementById('watch').dataset})")


@pytest.fixture(scope="module")
def watching(browser, site):
    page = open_page(browser, site)
    page.evaluate("window.pdsplit.settled()")
    yield page
    page.context.close()


def cases():
    rng = random.Random(20)
    return NAMED + [dict(random_settings(rng)) for _ in range(4)]


def test_pdsplit_watch_is_native_sim_watch(watching):
    """window.pdsplit.watch equals sim.watch for the named states and 4 random settings, in
    the default window and in one the test names."""
    for settings in cases():
        watching.evaluate("s => window.pdsplit.set(s)", settings)
        got = watching.evaluate("() => window.pdsplit.settings()")
        t0, t1, want = native(got)
        for layout, events in want.items():
            assert watching.evaluate("l => window.pdsplit.watch(l)", layout) == events, (settings, layout)
        assert watching.evaluate("() => window.pdsplit.watch('shared', 1.5, 2.25)") == \
            sim.watch("shared", 1.5, 2.25, **got)
    with pytest.raises(Exception, match="chunked needs chunk above 0"):
        watching.evaluate("() => window.pdsplit.set({chunk: 0}).then(() => window.pdsplit.watch('chunked'))")


def test_the_section_shows_the_current_runs_events(watching):
    """The section's window and events are the current settings'; a change of settings greys
    the old ones and then shows the new run's."""
    watching.evaluate("window.pdsplit.set({})")
    watching.evaluate("window.pdsplit.settled()")
    data = shown(watching)
    t0, t1, want = native(watching.evaluate("() => window.pdsplit.settings()"))
    assert (float(data["t0"]), float(data["t1"])) == (t0, t1)
    assert data["events"] == " ".join(f"{layout} {len(events)}" for layout, events in want.items())
    watching.evaluate("window.pdsplit.set({rps: 6})")
    assert watching.evaluate("document.getElementById('watch').dataset.state") == "old"
    assert watching.locator("#watch-note").is_visible()
    watching.evaluate("window.pdsplit.settled()")
    data = shown(watching)
    t0, t1, want = native(watching.evaluate("() => window.pdsplit.settings()"))
    assert (float(data["t0"]), float(data["t1"])) == (t0, t1)
    assert data["events"] == " ".join(f"{layout} {len(events)}" for layout, events in want.items())
    assert not watching.locator("#watch-note").is_visible()


def test_stepping_visits_the_events_in_order_and_playing_moves_the_clock(watching):
    watching.evaluate("window.pdsplit.set({})")
    watching.evaluate("window.pdsplit.settled()")
    shown(watching)
    t0, t1, want = native(watching.evaluate("() => window.pdsplit.settings()"))
    starts = sorted({e["start"] for events in want.values() for e in events if t0 <= e["start"] <= t1})
    watching.locator("#watch-canvas").focus()
    at = watching.evaluate(AT)
    ahead = [t for t in starts if t > at + 1e-9]
    visited = []
    for _ in range(30):
        watching.keyboard.press("ArrowRight")
        visited.append(watching.evaluate(AT))
    assert visited == ahead[:30]
    for _ in range(5):
        watching.keyboard.press("ArrowLeft")
    assert watching.evaluate(AT) == ahead[24]
    assert "Paused at" in watching.locator("#watch-said").text_content()
    before = watching.evaluate(AT)
    watching.keyboard.press(" ")  # plays
    assert watching.get_attribute("#watch-play", "aria-pressed") == "true"
    watching.wait_for_function(f"() => Number(document.getElementById('watch').dataset.at) > {before}")
    watching.keyboard.press(" ")  # pauses
    assert watching.get_attribute("#watch-play", "aria-pressed") == "false"
    paused = watching.evaluate(AT)
    # paused, no frame moves it (two animation frames later it is where it was)
    watching.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert watching.evaluate(AT) == paused


def test_the_window_moves_along_the_run(watching):
    watching.evaluate("window.pdsplit.set({})")
    watching.evaluate("window.pdsplit.settled()")
    data = shown(watching)
    t0, t1 = float(data["t0"]), float(data["t1"])
    watching.click("#watch-later")
    watching.wait_for_function(f"() => Number(document.getElementById('watch').dataset.t0) > {t0}")
    data = shown(watching)
    s = watching.evaluate("() => window.pdsplit.settings()")
    assert float(data["t0"]) == pytest.approx(t1)
    events = sim.watch("shared", float(data["t0"]), float(data["t1"]), **s)
    assert data["events"].startswith(f"shared {len(events)} ")


def test_nothing_plays_by_itself_with_reduced_motion(browser, site):
    page = open_page(browser, site, script=None)
    try:
        page.emulate_media(reduced_motion="reduce")
        page.evaluate("window.pdsplit.settled()")
        data = shown(page)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert page.evaluate(AT) == float(data["t0"])
        assert page.get_attribute("#watch-play", "aria-pressed") == "false"
    finally:
        page.context.close()


MID_READ = """() => {
    // the playhead nine tenths into the window's longest read on a shared GPU
    const s = document.getElementById('watch');
    return window.pdsplit.watch('shared', Number(s.dataset.t0), Number(s.dataset.t1)).then(events => {
        const reads = events.filter(e => e.kind === 'read' && e.start >= Number(s.dataset.t0));
        const read = reads.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
        const scrub = document.getElementById('watch-scrub');
        scrub.value = String(read.start + 0.9 * (read.end - read.start));
        scrub.dispatchEvent(new Event('input'));
        return read;
    });
}"""


# The playhead's column on the canvas (where the mark's colour is in the most rows), and the
# runs of rows, top to bottom, in which that column has the mark's colour.
PLAYHEAD = """() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))).then(() => {
    const canvas = document.getElementById('watch-canvas');
    const { data, width, height } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const probe = document.createElement('span');
    probe.style.color = 'var(--mark)';
    canvas.after(probe);
    const [r, g, b] = getComputedStyle(probe).color.match(/\\d+/g).map(Number);
    probe.remove();
    const mark = (x, y) => { const i = (y * width + x) * 4; return data[i] === r && data[i + 1] === g && data[i + 2] === b && data[i + 3] === 255; };
    let column = -1, most = 0;
    for (let x = 0; x < width; x++) {
        let n = 0;
        for (let y = 0; y < height; y++) n += mark(x, y);
        if (n > most) [column, most] = [x, n];
    }
    const runs = [];
    for (let y = 0, start = null; y <= height; y++) {
        const on = y < height && mark(column, y);
        if (on && start === null) start = y;
        if (!on && start !== null) { runs.push([start, y]); start = null; }
    }
    return { column, runs, scale: canvas.width / canvas.clientWidth };
})"""


@pytest.mark.parametrize("width, height", [(1280, 800), (375, 740)])
def test_mid_read_on_a_shared_gpu_fits_and_is_shot(browser, site, artifacts, width, height):
    """Mid-read, the shared GPU's gap counter has passed the target while the split's has not;
    at 375 px nothing scrolls sideways and every control is 40 px tall."""
    page = open_page(browser, site, width=width, height=height)
    try:
        page.evaluate("window.pdsplit.settled()")
        shown(page)
        read = page.evaluate(MID_READ)
        # The playhead crosses each layout's lanes, not its name above them (which on a phone
        # runs across most of the window): one run of rows a layout, each a lane or more tall.
        playhead = page.evaluate(PLAYHEAD)
        lanes = [(a, b) for a, b in playhead["runs"] if b - a >= 24 * playhead["scale"]]
        assert len(lanes) == 2, playhead  # shared, split
        said = page.locator("#watch-said").text_content()
        assert f"reads request {read['request']}'s" in said
        assert 0.9 * (read["end"] - read["start"]) > 0.1  # the default gap target
        assert "over" in (page.get_attribute('#watch-now tr[data-layout="shared"] td:nth-of-type(3)', "class") or "")
        assert "over" not in (page.get_attribute('#watch-now tr[data-layout="split"] td:nth-of-type(3)', "class") or "")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        for selector in ["#watch-play", "#watch-prev", "#watch-next", "#watch-speed", "#watch-earlier",
                         "#watch-later", "#watch-scrub"]:
            assert page.locator(selector).bounding_box()["height"] >= 40, selector
        label, choice = (page.locator(f).bounding_box() for f in ('label[for="watch-speed"]', "#watch-speed"))
        middle = lambda box: box["y"] + box["height"] / 2  # noqa: E731
        assert abs(middle(label) - middle(choice)) < choice["height"] / 2 and label["x"] < choice["x"], \
            "the Speed label sits just before its choice, on its line, however the row wraps"
        if width >= 600:
            page.locator("#watch").screenshot(path=str(artifacts / f"watch-{width}x{height}.png"))
        else:  # the section is taller than a phone: the screen, the lanes and controls in view
            page.locator("#watch-canvas").evaluate("e => e.scrollIntoView({block: 'center'})")
            page.screenshot(path=str(artifacts / f"watch-{width}x{height}.png"))
    finally:
        page.context.close()
