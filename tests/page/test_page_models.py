"""Bigger models, GPUs working as one, costs and memory on the page (docs/model.md: "Bigger
models, GPUs working as one, and memory"): the "Go further" panel's section of their own, its
named states, random settings with its controls, the capacity line, memory=kv's rows and the
memory chart, each equal to a native run's; its controls move only through what the settings
allow; and it all fits a phone. The named states' captions are checked in test_page_truth.py."""

import random
from bisect import bisect_right

import pytest

import sim
from sim.model.lab import DEFAULT_LAB
from sim.settings import Settings
from sim.show.figures import FIGURES
from sim.show.numbers import shown
from sim.show.states import group

from conftest import BOOT_TIMEOUT, open_page, state_query
from test_page_explorer import on_screen
from test_page_layout import assert_fits


@pytest.fixture(scope="module")
def panel(browser, site):
    """One booted page with the panel open (a URL that sets a model's setting opens it)."""
    page = open_page(browser, site + "?costs=toy")
    yield page
    page.context.close()


def settle(page, settings):
    """The settings set, and their numbers on screen (not every chart: memory=kv's rate
    searches on 70B take the browser minutes)."""
    full = Settings().but(**settings).as_dict()
    page.evaluate("s => window.pdsplit.set(s)", full)
    return full


def state_page(browser, site, name, width=1280, height=800):
    """A page opened at a named state's URL: its baked numbers and charts at once."""
    full = Settings().but(**next(changes for n, _, changes in group("model") if n == name)).as_dict()
    page = open_page(browser, site + "?" + state_query(name), width=width, height=height)
    page.evaluate("window.pdsplit.settled()")
    return page, full


def numbers_equal_native(page, full):
    native = sim.compare(**full)
    assert page.evaluate("window.pdsplit.result()") == native
    want = shown(native)
    for key, text in on_screen(page).items():
        if key in want:
            assert text == want[key], key
    kv = full["memory"] == "kv"
    for key in ("split.reader_kv_peak", "split.writer_kv_peak", "split.backpressure",
                "shared.kv_peak"):  # memory=kv's rows: shown, and only then
        assert page.is_visible(f'#table [data-metric="{key}"]') == kv, key
        if kv:
            assert page.text_content(f'#table [data-metric="{key}"]') == want[key]
    return native


def counting_figure_requests(route):
    """worker.js, counting the figure requests it is sent (self.figures)."""
    script = route.fetch().text()
    handler = "self.onmessage = async (event) => {"
    assert handler in script
    route.fulfill(body=script.replace(handler, handler + ' if (event.data?.type === "figure") self.figures = (self.figures ?? 0) + 1;'),
                  content_type="text/javascript")


def test_a_named_state_opened_from_its_link_asks_python_for_its_numbers_alone(browser, site):
    """Its charts and figures were worked out by the build: the page planned its work before
    the states' file came, and so worked them all out again, minutes of a learner's CPU for
    the models' states. Its numbers, still asked of Python, equal a native run's."""
    context = browser.new_context()
    context.route("**/worker.js*", counting_figure_requests)
    page = context.new_page()
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        full = Settings().but(**next(c for n, _, c in group("model") if n == "memory-pushes-back")).as_dict()
        page.goto(site + "?" + state_query("memory-pushes-back"))
        page.evaluate("window.pdsplit.ready")
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate("window.pdsplit.result()") == sim.compare(**full)
        assert page.evaluate("window.pdsplit.figure('kv')")["caption"]
        assert [worker.evaluate("self.figures ?? 0") for worker in page.workers] == [0]
    finally:
        context.close()


@pytest.mark.parametrize("name", [n for n, _, _ in group("model")])
def test_every_named_state_equals_a_native_run(panel, name):
    label, changes = next((label, changes) for n, label, changes in group("model") if n == name)
    panel.get_by_role("button", name=label, exact=True).click()
    full = Settings().but(**changes).as_dict()
    assert panel.evaluate("window.pdsplit.settings()") == full
    panel.evaluate("s => window.pdsplit.set(s)", full)  # (the same: its numbers on screen)
    numbers_equal_native(panel, full)
    assert panel.evaluate("window.pdsplit.capacity()") == sim.capacity(**full)


def random_settings(rng):
    """Settings with the new controls that hang together: a model on instances that hold it."""
    for _ in range(100):
        model = rng.choice(["8B", "70B", "405B"])
        kind = rng.choice(["A100", "H100", "H200", "B200"])
        tp = rng.choice([1, 2, 4, 8])
        reader_tp = rng.choice([0, 0, 1, 2, 4, 8])
        each = max(tp, reader_tp or tp)
        readers = each * rng.randint(1, 2)
        gpus = readers + tp * rng.randint(1, 2)
        s = dict(model=model, tp=tp, reader_tp=reader_tp, gpus=gpus, readers=readers,
                 reader_gpu=kind, writer_gpu=kind, costs=rng.choice(["toy", "roofline"]),
                 memory=rng.choice(["slots", "kv"]), rps=rng.choice([0.5, 1.0, 2.0, 4.0]),
                 prompt=rng.choice([500, 2000, 4000]), reply=rng.choice([100, 200, 400]),
                 slots=rng.choice([32, 128]), requests=200, ttft_target=2.0)
        try:
            sim.capacity(**s)
        except ValueError:
            continue
        return s
    raise AssertionError("no settings fit")


def test_random_settings_with_the_new_controls_equal_native_runs(panel):
    rng = random.Random(48)
    picked = [random_settings(rng) for _ in range(6)]
    picked[0]["memory"] = picked[1]["memory"] = "kv"  # memory=kv among them, at least twice
    for s in picked:
        full = settle(panel, s)
        numbers_equal_native(panel, full)
        for pool in sim.capacity(**full).values():
            for part in pool:
                panel.wait_for_function("t => document.getElementById('capacity').textContent.includes(t)",
                                        arg=f"{part['kv_tokens']:,}")


def test_the_memory_chart_is_the_runs_kv_events(browser, site):
    panel, full = state_page(browser, site, "memory-pushes-back")
    assert panel.is_visible("#chart-kv")
    figure = panel.evaluate("window.pdsplit.figure('kv')")
    native = FIGURES["kv"].render(DEFAULT_LAB, Settings(**full))
    assert figure["caption"] == native["caption"]
    meta = figure["figure"]["layout"]["meta"]
    assert meta == native["figure"]["layout"]["meta"]
    # and the series are the sums of the kv events the page's own watch gives, in three
    # windows (a window lasts 10 s at most): the start, the first held-back stretch, and the
    # writers' last event, where only they still change (the readers read their last long
    # before): the room of the last reply, until it is freed at the end (a change after which
    # nothing is held makes no event of its own: sim.watch's kv events)
    assert meta["held_back"], "the state is named for its backpressure"
    first = meta["held_back"][0][0]
    both = (("readers", "reader"), ("writers", "writer"))
    for t0, pools in ((0.0, both), (max(0.0, first - 5), both), (max(0.0, meta["writers"]["t"][-2] - 5), both[1:])):
        events = [e for e in panel.evaluate(f"window.pdsplit.watch('split', {t0}, {t0 + 10})")
                  if e["kind"] == "kv"]
        for pool, lane in pools:
            times, tokens = meta[pool]["t"], meta[pool]["tokens"]
            moments = sorted({e["start"] for e in events if e["lane"] == lane and t0 <= e["start"] < t0 + 10})
            assert moments, (pool, t0)
            for t in moments:
                held = sum(e["tokens"] for e in events
                           if e["lane"] == lane and e["start"] <= t < e["end"])
                assert tokens[bisect_right(times, t) - 1] == held, (pool, t)
    # with memory=slots it is not shown
    settle(panel, {})
    assert not panel.is_visible("#memory-figure")
    panel.context.close()


def test_tp_cannot_go_below_what_holds_the_model_and_says_why(panel):
    settle(panel, dict(model="70B", tp=2, gpus=4, readers=2))
    lower = panel.locator("#slider-tp").locator("xpath=..").get_by_role("button", name="Lower gpus per instance one stop")
    lower.click()
    panel.evaluate("window.pdsplit.set({})")
    assert panel.evaluate("window.pdsplit.settings().tp") == 2
    assert panel.get_attribute("#slider-tp", "min") == "1"  # stops 1, 2, 4, 8: from 2
    note = panel.text_content("#note-tp")
    assert "At least 2 GPUs an instance" in note and "141.1 GB" in note and "77.3 GB" in note
    # the GPUs and readers step by whole instances
    panel.locator("#slider-gpus").locator("xpath=..").get_by_role("button", name="Raise gpus one stop").click()
    panel.evaluate("window.pdsplit.set({})")
    assert panel.evaluate("window.pdsplit.settings().gpus") == 6
    panel.locator("#slider-readers").locator("xpath=..").get_by_role("button", name="Raise readers one stop").click()
    panel.evaluate("window.pdsplit.set({})")
    assert panel.evaluate("[window.pdsplit.settings().readers, window.pdsplit.settings().gpus]") == [4, 6]


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
def test_the_section_the_memory_chart_and_the_watch_bars_fit(browser, site, artifacts, width, height):
    """At a phone's width and a laptop's: no sideways scroll, controls a finger can hit,
    numbers on one line; each shot into test-artifacts/."""
    page, _ = state_page(browser, site, "memory-pushes-back", width, height)
    try:
        page.wait_for_function("document.querySelector('#capacity [data-metric]') !== null")
        page.locator("#watch").scroll_into_view_if_needed()
        page.wait_for_function("document.querySelector('#watch-now .kv-lane') !== null")
        assert_fits(page)
        for control in page.query_selector_all("#models button, #models select, #models input"):
            box = control.bounding_box()
            assert box is None or box["height"] >= 40
        # numbers do not wrap: each is one box on one line
        assert page.evaluate("""() => [...document.querySelectorAll(
            '#capacity [data-metric], #table tr.kv td, #caption-kv [data-metric]')]
            .every(e => e.getClientRects().length <= 1)""")
        for part in ("models", "memory-figure", "watch-now"):
            page.locator(f"#{part}").screenshot(path=str(artifacts / f"{part}-{width}.png"))
    finally:
        page.context.close()


def held_at(events, t):
    """{"lane index": tokens}: what each lane holds at t, from its kv events (none: 0)."""
    held = {}
    for e in events:
        if e["kind"] == "kv":
            lane = f"{e['lane']} {e['index']}"
            held.setdefault(lane, 0)
            if e["start"] <= t < e["end"]:
                held[lane] = e["tokens"]
    return held


def bars(page):
    """The watch's KV bars on screen: {"lane index": tokens}, and the lanes that wait for room."""
    return page.evaluate("""() => {
        const lanes = [...document.querySelectorAll('#watch-now tr[data-layout="split"] .kv-lane')];
        return [Object.fromEntries(lanes.map(l => [l.dataset.lane, Number(l.dataset.tokens)])),
                lanes.filter(l => l.classList.contains('stalled')).map(l => l.dataset.lane)];
    }""")


def test_the_watch_bars_are_the_runs_kv_and_a_held_back_reader_says_so(browser, site):
    panel, full = state_page(browser, site, "memory-pushes-back")
    panel.locator("#watch").scroll_into_view_if_needed()
    panel.wait_for_function("document.getElementById('watch').dataset.state === 'current'")
    assert panel.is_visible("#watch-now .kv")
    t0, t1 = (float(panel.get_attribute("#watch", f"data-{k}")) for k in ("t0", "t1"))
    events = sim.watch("split", t0, t1, **full)
    room = sim.capacity(**full)  # each bar is against its instance's KV room
    labels = panel.evaluate("""[...document.querySelectorAll('#watch-now tr[data-layout="split"] meter')]
        .map(m => m.getAttribute('aria-label'))""")
    assert [label.split(" of ")[1] for label in labels] == \
        [f"{room[pool][0]['kv_tokens']:,} tokens" for pool in ("readers", "writers")]
    for at in (t0 + 0.1 * (t1 - t0), (t0 + t1) / 2, t0 + 0.9 * (t1 - t0)):  # three moments
        panel.evaluate("""t => { const s = document.getElementById('watch-scrub');
            s.value = String(t); s.dispatchEvent(new Event('input')); }""", at)
        shown_now, _ = bars(panel)
        want = held_at(events, float(panel.get_attribute("#watch", "data-at")))
        assert shown_now == {lane: want.get(lane, 0) for lane in shown_now}, at
        assert set(shown_now) == {"reader 0", "writer 0"}  # 70B on 2 A100s: one instance a pool
    # the memory chart's button opens the watch where memory first holds the readers back
    figure = panel.evaluate("window.pdsplit.figure('kv')")
    first = figure["figure"]["layout"]["meta"]["held_back"][0]
    panel.locator("#memory-figure").scroll_into_view_if_needed()
    panel.click("#kv-moment")
    middle = (first[0] + first[1]) / 2
    panel.wait_for_function(f"Number(document.getElementById('watch').dataset.at) === {middle!r}")
    t0, t1 = (float(panel.get_attribute("#watch", f"data-{k}")) for k in ("t0", "t1"))
    assert t0 <= middle <= t1
    shown_now, stalled = bars(panel)
    want = held_at(sim.watch("split", t0, t1, **full), middle)
    assert shown_now == {lane: want.get(lane, 0) for lane in shown_now}
    assert stalled == ["reader 0"]
    assert "waits for room" in panel.text_content('#watch-now tr[data-layout="split"]')
    panel.context.close()
