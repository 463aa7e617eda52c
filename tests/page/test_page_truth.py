"""Every state tells the truth (issue 46): each finding's steps as a learner takes them, on the
built page, and a walk of every named state and preset button whose words (headline, captions,
verdict, labels) must be a native run's. Each test here failed on the page before the fix."""

import re

import pytest

import sim
from conftest import open_page
from native import state_figure, state_message
from sim.show.figures import FIGURES, SHOWN_WITH_A_TRACE
from sim.show.numbers import fill
from sim.show.states import found
from sim.workload.tracefile import read_text
from test_page_layout import assert_fits

# A learner's small request log: 12 rows, recorded at 2.78 req/s.
SHORT = "arrival_s,prompt_tokens,reply_tokens\n" + "".join(
    f"{k * 0.36:.2f},{300 + (k * 7919) % 3500},{5 + (k * 104729) % 400}\n" for k in range(12))
LESSON_HEADLINE = ("Within both targets, sharing the two GPUs serves 13.5% of requests; splitting them "
                   "serves 98.7%.")


def defaults(**changes):
    return sim.Settings().but(**changes).as_dict()


def address(page):
    """The page's query once the address bar has caught up with the settings."""
    page.evaluate("window.pdsplit.settled()")  # writes the address bar too
    return page.evaluate("location.search")


def load_short(page, tmp_path):
    path = tmp_path / "short.csv"
    path.write_text(SHORT)
    page.set_input_files("#trace-file", str(path))
    page.wait_for_function("window.pdsplit.settings().traffic === 'own'")
    page.evaluate("window.pdsplit.settled()")
    return read_text(SHORT, "short.csv")


@pytest.fixture()
def small_file(browser, site, tmp_path):
    """A fresh page (its own browser store) with the 12-row file loaded, from Azure chat."""
    page = open_page(browser, site + "?traffic=azure-chat")
    page.evaluate("window.pdsplit.settled()")
    trace = load_short(page, tmp_path)
    yield page, trace
    page.context.close()


# ---- 1. a small file must not change the lesson's requests ----

def test_1_a_small_file_leaves_the_lesson_s_traffic_its_600_requests(small_file):
    page, _ = small_file
    assert page.evaluate("window.pdsplit.settings().requests") == 12  # the file's window: all of it
    said = page.text_content("#note-window")
    assert "all 12 usable requests of short.csv, fewer than the 600 asked for" in said and page.is_visible("#note-window")
    assert "requests=" not in address(page)  # the URL keeps the requests asked for
    page.select_option("#choice-traffic", "lesson")
    page.wait_for_function("window.pdsplit.settings().traffic === 'lesson'")
    page.evaluate("window.pdsplit.settled()")
    assert page.evaluate("window.pdsplit.settings()") == defaults()
    assert page.text_content("#headline") == LESSON_HEADLINE
    assert address(page) == ""
    assert page.is_hidden("#note-window")
    # and Azure's traces too take their 600
    page.select_option("#choice-traffic", "azure-code")
    page.wait_for_function("window.pdsplit.settings().traffic === 'azure-code'")
    assert page.evaluate("window.pdsplit.settings().requests") == 600


def test_1_figure_7_beside_a_small_file_is_the_lesson_s_and_azure_s(small_file):
    page, trace = small_file
    native = sim.Lab()
    s = native.given(sim.Settings(**page.evaluate("window.pdsplit.settings()")), trace)
    want = FIGURES["know"].render(native, s)
    page.wait_for_function("t => document.getElementById('caption-know').textContent === t", arg=want["caption"])
    numbers = dict(page.evaluate("""Array.from(document.querySelectorAll('#caption-know [data-metric]'),
        e => [e.dataset.metric, e.textContent])"""))
    assert numbers["know.code_cv"] == "13.90" and numbers["know.others"] == "600"  # the lesson's, not 0.91 at 12
    assert numbers["know.lesson_shared"] == "13.5%" and numbers["know.lesson_split"] == "98.7%"
    assert "Its bursts, not only its lengths, decide." in want["caption"]


# ---- 2. "Back to the lesson's toy" sets the traffic back too ----

def test_2_back_to_the_lesson_s_toy_sets_back_the_traffic(browser, site):
    page = open_page(browser, site + "?traffic=azure-code&gpus=3")
    try:
        page.evaluate("window.pdsplit.settled()")
        page.get_by_role("button", name="Back to the lesson's toy").click()
        page.wait_for_function("window.pdsplit.settings().traffic === 'lesson'")
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate("window.pdsplit.settings()") == defaults()
        assert page.text_content("#headline") == LESSON_HEADLINE
        assert address(page) == ""
    finally:
        page.context.close()


# ---- 3. a tiny file's verdict, its rate, its box ----

def test_3_a_tiny_file_s_verdict_says_12_requests_settle_nothing(small_file):
    page, trace = small_file
    native = sim.Lab()
    s = native.given(sim.Settings(**page.evaluate("window.pdsplit.settings()")), trace)
    want = FIGURES["verdict"].render(native, s)
    page.wait_for_function("t => document.getElementById('caption-verdict').textContent === t", arg=want["caption"])
    verdict = page.text_content("#caption-verdict")
    assert re.match(r"For this traffic on 2 GPUs \(only 12 requests: too few to settle it, which takes about 200\), ", verdict)
    assert ". " not in verdict and verdict.endswith(".")  # in the verdict's own sentence
    assert page.text_content('#caption-verdict [data-metric="verdict.thin"]') == "12"
    for name in ("rate", "ratio"):  # the rate goodput and the best ratio say it too
        assert "too few to settle it" in FIGURES[name].render(native, s)["caption"]
        page.wait_for_function("n => document.querySelector(`#caption-${n} [data-metric='${n}.thin']`)?.textContent === '12'", arg=name)
    assert page.text_content(f'#headline [data-metric="headline.thin"]') == "12"


def test_3_a_file_s_own_rate_is_said_beside_the_load_it_is_replayed_at(small_file):
    page, _ = small_file
    assert "short.csv was recorded at 2.78 req/s on average; it is replayed at the load set, 4 req/s" in \
        page.text_content("#notices")
    assert page.text_content('#caption-traffic [data-metric="traffic.recorded_rps"]') == "2.78"
    assert "recorded at 2.78 req/s, replayed over" in page.text_content("#caption-traffic")


def test_3_the_file_box_names_the_file_in_use_after_a_load_and_a_reload(small_file):
    page, _ = small_file
    shown = "() => Array.from(document.getElementById('trace-file').files, f => f.name)"
    assert page.evaluate(shown) == ["short.csv"]
    page.reload()
    page.evaluate("window.pdsplit.ready")
    page.wait_for_function(f"({shown})().length === 1")
    assert page.evaluate(shown) == ["short.csv"]


# ---- 4. preset labels say what their figures find (and the walk below) ----

@pytest.mark.parametrize("name", ["chat", "summarizing", "azure-chat-8"])
def test_4_a_best_ratio_button_sets_the_ratio_its_figure_rings(browser, site, name):
    _, _, label, changes = next(state for state in found() if state[1] == name)
    page = open_page(browser, site + "?routing=least-loaded")  # the panel open
    try:
        page.get_by_role("button", name=label, exact=True).click()
        want = defaults(**changes)
        page.wait_for_function("w => JSON.stringify(window.pdsplit.settings()) === JSON.stringify(w)", arg=want)
        page.evaluate("window.pdsplit.settled()")
        figure = "traces_ratio" if want["traffic"] != "lesson" else "ratio"
        drawn = page.evaluate("n => window.pdsplit.figure(n)", figure)
        assert drawn["figure"]["layout"]["meta"]["best"][0] == want["readers"]
        ratio = f"{want['readers']}:{want['gpus'] - want['readers']}"
        key = "traces.chat_best" if figure == "traces_ratio" else "ratio.these_best"
        assert page.text_content(f'#caption-{figure} [data-metric="{key}"]') == ratio
    finally:
        page.context.close()


# ---- 5. figure 6 with one ratio ----

def test_5_figure_6_at_2_gpus_calls_its_one_bar_the_only_ratio_and_names_the_axes(browser, site):
    page = open_page(browser, site + "?routing=least-loaded")
    try:
        page.evaluate("window.pdsplit.settled()")
        drawn = page.evaluate("window.pdsplit.figure('ratio')")
        names = [trace["name"] for trace in drawn["figure"]["data"][:3]]
        assert names == ["goodput (left axis)", "rate goodput (right axis)", "the only ratio (right axis)"]
        assert not any(trace.get("text") == ["best"] for trace in drawn["figure"]["data"])
        caption = page.text_content("#caption-ratio")
        assert "1:1 is the only ratio" in caption and "serves most" not in caption
        assert "(bar, left axis)" in caption and "(ring, right axis)" in caption
        legend = page.locator("#chart-ratio g.legend").text_content()
        assert "left axis" in legend and "right axis" in legend
    finally:
        page.context.close()


# ---- 6. Watch it run after a change ----

def test_6_a_changed_run_starts_at_its_window_s_start_and_says_why_reads_differ(browser, site):
    page = open_page(browser, site)
    try:
        page.evaluate("window.pdsplit.settled()")
        page.locator("#watch").scroll_into_view_if_needed()
        page.wait_for_function("document.getElementById('watch').dataset.state === 'current'")
        # the learner plays the window to its end
        page.evaluate("""() => { const s = document.getElementById('watch-scrub');
            s.value = s.max; s.dispatchEvent(new Event('input')); }""")
        at = "() => { const w = document.getElementById('watch').dataset; return [Number(w.at), Number(w.t0), Number(w.t1)]; }"
        now, _, end = page.evaluate(at)
        assert now == pytest.approx(end, abs=1e-9)
        key = page.evaluate("document.getElementById('watch').dataset.key")
        page.evaluate("window.pdsplit.set({prompt: 2100})")
        page.evaluate("window.pdsplit.settled()")
        page.wait_for_function("k => { const w = document.getElementById('watch'); return w.dataset.state === 'current' && w.dataset.key !== k; }", arg=key)
        now, start, _ = page.evaluate(at)
        assert now == start
        said = page.text_content("#watch-reads")
        assert said == ("The lesson's prompts are half, once or one and a half times the prompt tokens set: "
                        "the reads here are of 1,050, 2,100 or 3,150 tokens.")
        assert page.locator("#watch-reads [data-metric]").count() == 3
    finally:
        page.context.close()


# ---- 7. layout ----

# Adjacent buttons in a row of buttons: the horizontal gap between each two on one line.
GAPS = """(id) => {
    const boxes = Array.from(document.querySelectorAll(`#${id} > button`), b => b.getBoundingClientRect());
    const gaps = [];
    for (let i = 1; i < boxes.length; i++) {
        if (Math.abs(boxes[i].top - boxes[i - 1].top) < 2) gaps.push(boxes[i].left - boxes[i - 1].right);
    }
    return gaps;
}"""
# The room between the bottom of a plot's lowest axis title and the top of its caption.
UNDER_PLOT = """(name) => {
    const titles = Array.from(document.querySelectorAll(`#chart-${name} g[class^="g-x"][class$="title"]`));
    const bottom = Math.max(...titles.map(t => t.getBoundingClientRect().bottom));
    return document.getElementById(`caption-${name}`).getBoundingClientRect().top - bottom;
}"""
LONG_TITLES = "shared: each GPU reads and writes|split: readers, the link, writers|chunked: each GPU reads in chunks while it writes"


@pytest.fixture(scope="module", params=[(375, 740), (1280, 800)], ids=["375", "1280"])
def laid_out(request, browser, site):
    """A phone's page and a laptop's, a trace chosen and prompts read in chunks (three layouts)."""
    width, height = request.param
    page = open_page(browser, site + "?traffic=azure-code&chunk=512", width, height)
    page.evaluate("window.pdsplit.settled()")
    yield page
    page.context.close()


def test_7_the_page_fits_and_is_pictured(laid_out, artifacts):
    assert_fits(laid_out)
    width, height = laid_out.viewport_size["width"], laid_out.viewport_size["height"]
    laid_out.evaluate("document.fonts.ready")
    laid_out.add_style_tag(content="#headline, #glance { position: static !important; }")
    for part in ("explorer", "further", "watch"):  # the panel, its findings, Watch it run
        if part == "watch":
            watch_on_screen(laid_out)
        laid_out.locator(f"#{part}").screenshot(path=str(artifacts / f"truth-{part}-{width}x{height}.png"))


def test_7_the_traffic_buttons_do_not_touch_nor_the_heading_under_them(laid_out):
    gaps = laid_out.evaluate(GAPS, "traffic-states")
    assert gaps and min(gaps) >= 4, gaps
    below = laid_out.evaluate("""() => document.querySelector('#traffic .chart h2').getBoundingClientRect().top -
        Math.max(...Array.from(document.querySelectorAll('#traffic-states button'), b => b.getBoundingClientRect().bottom))""")
    assert below >= 8, below


def test_7_figure_1_s_axis_titles_clear_its_caption(laid_out):
    assert laid_out.evaluate(UNDER_PLOT, "stall") >= 4


def test_7_figure_9_s_tallest_bars_have_room_above_them(laid_out):
    chips = laid_out.evaluate("window.pdsplit.figure('chips').figure")
    for axis in ("yaxis", "yaxis2"):
        bars = [y for t in chips["data"] if t["yaxis"] == axis.replace("axis", "") for y in t["y"] if y is not None]
        assert chips["layout"][axis]["range"][1] >= 1.15 * max(bars)


def watch_on_screen(page):
    page.locator("#watch").scroll_into_view_if_needed()
    page.wait_for_function("document.getElementById('watch').dataset.state === 'current'")


def test_7_each_watch_lane_title_is_whole(laid_out):
    watch_on_screen(laid_out)
    canvas = laid_out.evaluate("({...document.getElementById('watch-canvas').dataset})")
    titles = (canvas.get("titles") or LONG_TITLES).split("|")  # (the page before drew these)
    room = float(canvas.get("room") or laid_out.evaluate("document.getElementById('watch-canvas').clientWidth - 12"))
    widths = laid_out.evaluate("""(titles) => { const c = document.createElement('canvas').getContext('2d');
        c.font = '600 13px system-ui, sans-serif'; return titles.map(t => c.measureText(t).width); }""", titles)
    assert len(titles) == 3 and all(w <= room for w in widths), (titles, widths, room)


def test_7_the_watch_table_s_headers_take_two_lines_at_most(laid_out):
    watch_on_screen(laid_out)
    heads = laid_out.evaluate("""() => Array.from(document.querySelectorAll('#watch-now thead th[scope=col]'), th => {
        const line = parseFloat(getComputedStyle(th).lineHeight), pad = parseFloat(getComputedStyle(th).paddingTop) * 2;
        return Math.round((th.getBoundingClientRect().height - pad) / line); })""")
    assert max(heads) <= 2, heads


def test_7_the_panel_s_findings_fill_the_laptop_s_columns_and_its_questions_come_first(laid_out):
    if laid_out.viewport_size["width"] >= 900:  # no empty column beside DistServe's goodput
        rate, money = (laid_out.locator(f"#caption-{n}").bounding_box() for n in ("rate", "economics"))
        assert money["x"] >= rate["x"] + rate["width"] and abs(money["y"] - rate["y"]) < 40
    top = laid_out.evaluate("""() => document.getElementById('explorer-states').getBoundingClientRect().top -
        document.getElementById('explorer').getBoundingClientRect().top""")
    assert top < 300, top  # on a phone too: not thousands of px down the panel


# ---- 8. a bad price names the field ----

def test_8_a_bad_price_typed_names_the_field_as_the_page_labels_it(browser, site):
    page = open_page(browser, site + "?routing=least-loaded")
    try:
        page.fill("#price-reader_price", "abc")
        page.press("#price-reader_price", "Enter")
        page.wait_for_function("document.getElementById('note-reader_price').textContent !== ''")
        note = page.text_content("#note-reader_price")
        label = page.text_content('label[for="price-reader_price"]')
        assert note.startswith(f"{label}: “abc” is not a price") and "reader_price=" not in note
    finally:
        page.context.close()


# ---- every named state and preset button: its words are a native run's ----

CAPTIONS = "() => Object.fromEntries(Array.from(document.querySelectorAll('figcaption[id^=caption-], p[id^=caption-]'), e => [e.id.slice(8), e.textContent]))"


@pytest.fixture(scope="module")
def walker(browser, site):
    page = open_page(browser, site)
    page.evaluate("window.pdsplit.settled()")
    yield page
    page.context.close()


@pytest.mark.parametrize("group, name, label, changes", found(), ids=[state[1] for state in found()])
def test_every_named_state_s_button_shows_a_native_run_s_words(walker, group, name, label, changes):
    page = walker
    if group == "lesson":  # its buttons keep what Go further sets: from the lesson's own
        page.evaluate("s => window.pdsplit.set(s)", defaults(rps=6.0))
    page.evaluate("o => document.getElementById('explorer').open = o", group != "lesson")
    row = {"lesson": "#states", "explorer": "#explorer-states", "traffic": "#traffic-states",
           "model": "#model-states"}[group]
    buttons = page.locator(f"{row} > button")
    labels = buttons.all_text_contents()
    assert label in labels, labels  # the label, as worked out from the runs
    buttons.nth(labels.index(label)).click()
    want = defaults(**changes)
    page.wait_for_function("w => JSON.stringify(window.pdsplit.settings()) === JSON.stringify(w)", arg=want)
    page.evaluate("window.pdsplit.settled()")
    s = sim.Settings(**want)
    message = state_message(name, want)  # (the build's native run, where it is this tree's)
    assert page.text_content("#headline") == fill(message["headline"], message["shown"])
    shown = ["goodput", "gap", "stall", "link", "prompt"]
    if group != "lesson":
        shown += ["traffic", "rate", "economics", "verdict", "ratio", "chips"]
        shown += list(SHOWN_WITH_A_TRACE) if s.traffic != "lesson" else []
        shown += ["kv"] if s.memory == "kv" else []  # Memory over time, shown with memory=kv
    captions = page.evaluate(CAPTIONS)
    for figure in shown:
        assert captions[figure] == state_figure(name, want, figure)["caption"], (name, figure)
    assert page.evaluate("window.pdsplit.result()") == sim.Lab().compare(s) == message["result"]
