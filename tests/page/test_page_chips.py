"""Price, power caps and Dynamo's queue rule on the page (issue 19; chips-and-rules.md, "On the
page"): the power sliders, the price fields and the local_queue slider in the "Go further"
panel; good requests per dollar and per kWh beside the rate goodput; figure 9 live; and
window.pdsplit.economics(). The new named states and random settings set through the new
controls equal native runs, number for number; bad values get one notice each and the page
works on; the panel passes the accessibility scan and fits a phone. Screenshots of the panel
with the new controls at 375 x 740 and 1280 x 800 go to test-artifacts/."""

import json
import random
import re

import pytest

import sim
from sim.check.browser import SHOWN
from sim.check.expected import compare_numbers, expected
from sim.settings import CHIPS, FIELDS
from sim.show.economics import example_prices
from sim.show.figures import FIGURES
from sim.show.states import group

from conftest import BOOT_TIMEOUT, baked as baked_page, hold_snapshot_until, open_page
from test_page_a11y import SCAN, axe_source  # noqa: F401 (a fixture)
from test_page_layout import assert_fits
from test_page_results import BARE_NUMBERS

NEW_STATES = [state for state in group("explorer")
              if state[0] in ("splitwise-ha", "writers-capped", "dynamo-queue")]


@pytest.fixture(scope="module")
def chips(browser, site):
    """One booted page with the panel open (a power cap in its URL opens it). Two cores, as
    here: the figures follow the numbers in the one worker."""
    page = open_page(browser, site + "?writer_power=0.9", cores=2)
    yield page
    page.context.close()


def native_figure(name, settings):
    return json.loads(json.dumps(FIGURES[name].render(sim.Lab(), sim.Settings(**settings))))


def equal_native(page, full):
    """Every number on screen (results, sliders, the footer, each caption the page shows, the
    economics' and figure 9's among them), the result, economics(), rate() and figure 9 itself
    equal a native run's, as `python -m sim check` compares them."""
    page.evaluate("window.pdsplit.settled()")
    assert page.evaluate("window.pdsplit.settings()") == full
    got = page.evaluate(SHOWN)
    assert got["captions"]["economics"] and got["captions"]["chips"]  # on screen, so compared
    problems, count = compare_numbers(expected(sim.Lab(), full), got)
    assert problems == [] and count > 60, problems
    assert page.evaluate("window.pdsplit.result()") == sim.compare(**full)
    assert page.evaluate("window.pdsplit.economics()") == json.loads(json.dumps(sim.economics(**full)))
    assert page.evaluate("window.pdsplit.rate()") == sim.rate(**full)
    chip_mix = native_figure("chips", full)
    assert {k: v for k, v in page.evaluate("window.pdsplit.figure('chips')").items() if k in chip_mix} == chip_mix
    words = native_figure("economics", full)
    assert page.text_content("#caption-economics") == words["caption"]
    assert page.evaluate("window.pdsplit.figure('economics').figure") is None  # words, no chart


@pytest.mark.parametrize("name, label, changes", NEW_STATES, ids=[s[0] for s in NEW_STATES])
def test_the_new_named_states_equal_native(chips, name, label, changes):
    chips.get_by_role("button", name=label).click()
    want = sim.Settings().but(**changes).as_dict()
    chips.wait_for_function("want => JSON.stringify(window.pdsplit.settings()) === JSON.stringify(want)", arg=want)
    equal_native(chips, want)


def random_chip_settings(rng):
    """A setting of the lesson's and the explorer's, and of every new control: both power
    caps, the queue rule, and a price for each pool (empty, the example price, about half
    the time)."""
    gpus = rng.choice((2, 3, 4, 6))
    out = {name: rng.choice(FIELDS[name].metadata["slider"]) for name in ("rps", "prompt", "reply", "local_below")}
    out.update(gpus=gpus, readers=rng.randint(1, gpus - 1), reader_gpu=rng.choice(CHIPS),
               writer_gpu=rng.choice(CHIPS), seed=rng.randrange(2**32))
    new = {name: rng.choice(FIELDS[name].metadata["slider"]) for name in ("reader_power", "writer_power", "local_queue")}
    new.update({name: rng.choice((0.0, round(rng.uniform(0.4, 9.0), 2))) for name in ("reader_price", "writer_price")})
    return out, new


rng = random.Random(19)
RANDOM = [random_chip_settings(rng) for _ in range(4)]


def test_the_random_settings_move_every_new_control():
    for name in ("reader_power", "writer_power", "local_queue", "reader_price", "writer_price"):
        assert any(new[name] != FIELDS[name].default for _, new in RANDOM), name


SLIDE = """([name, index]) => {
    const slider = document.getElementById(`slider-${name}`);
    slider.value = String(index);
    slider.dispatchEvent(new Event('input', {bubbles: true}));
}"""


@pytest.mark.parametrize("others, new", RANDOM, ids=[f"random{k}" for k in range(len(RANDOM))])
def test_random_settings_through_the_new_controls_equal_native(chips, others, new):
    full = sim.Settings().but(**others, **new).as_dict()
    chips.evaluate("s => window.pdsplit.set(s)", {**sim.Settings().but(**others).as_dict()})
    for name in ("reader_power", "writer_power", "local_queue"):  # the sliders, stop by stop
        chips.evaluate(SLIDE, [name, FIELDS[name].metadata["slider"].index(new[name])])
    for name in ("reader_price", "writer_price"):  # typed, and Enter
        chips.fill(f"#price-{name}", f"{new[name]:g}" if new[name] else "")
        chips.press(f"#price-{name}", "Enter")
    chips.wait_for_function("want => JSON.stringify(window.pdsplit.settings()) === JSON.stringify(want)", arg=full)
    equal_native(chips, full)
    for name in ("reader_power", "writer_power"):
        assert chips.text_content(f"#value-{name}") == f"{round(new[name] * 100)} %"


def test_the_price_fields_follow_the_kinds_and_show_the_example_as_a_placeholder(chips):
    examples = example_prices()
    chips.evaluate("window.pdsplit.set({reader_gpu: 'H100', writer_gpu: 'B200', reader_price: 0, writer_price: 4.25})")
    assert chips.get_attribute("#price-reader_price", "placeholder") == examples["H100"] == "$3.00 for an H100"
    assert chips.get_attribute("#price-writer_price", "placeholder") == "$5.50 for a B200"
    assert chips.input_value("#price-reader_price") == "" and chips.input_value("#price-writer_price") == "4.25"
    chips.select_option("#choice-reader_gpu", "A100")
    chips.wait_for_function("document.getElementById('price-reader_price').placeholder === '$1.30 for an A100'")
    chips.wait_for_function("location.search.includes('writer_price=4.25')")  # the address follows
    chips.evaluate("window.pdsplit.settled()")
    words = chips.text_content("#caption-economics")
    assert "at $1.30 an hour" in words and "(the example price)" in words and "at $4.25 an hour" in words
    assert "(given)" in words


def test_the_economics_never_hold_up_newer_numbers(chips):
    """The numbers of new settings are on screen before their economics, which follow in
    pieces after the main charts; economics() waits for them."""
    chips.evaluate("window.pdsplit.set({gpus: 3, readers: 2, rps: 6, writer_power: 0.6})")
    chips.evaluate("window.pdsplit.settled()")
    before = chips.text_content("#caption-economics")
    full = {**chips.evaluate("window.pdsplit.settings()"), "prompt": 3000}
    result = chips.evaluate("s => window.pdsplit.set(s).then(r => [r, document.getElementById('caption-economics').textContent])", full)
    assert result[0] == sim.compare(**full)
    assert result[1] == before  # the numbers came first
    assert chips.evaluate("window.pdsplit.economics()") == json.loads(json.dumps(sim.economics(**full)))
    chips.wait_for_function("want => document.getElementById('caption-economics').textContent === want",
                            arg=native_figure("economics", full)["caption"])


# ---- bad values: one notice each, naming the field, the value and what is allowed ----

PRICES = "$0 to $1,000 an hour per GPU"
EXAMPLE = "empty or 0: the example price of its kind"
URL_CASES = [
    ("reader_power=0.4", "reader_power", 0.5,
     "reader_power=0.4 is below the page's range (50 % to 100 %); using 50 %."),
    ("writer_power=1.2", "writer_power", 1.0,
     "writer_power=1.2 is above the page's range (50 % to 100 %); using 100 %."),
    ("reader_price=-1", "reader_price", 0.0,
     f"reader_price=-1 is below the page's range of prices ({PRICES}; {EXAMPLE}); using the example price."),
    ("writer_price=abc", "writer_price", 0.0,
     f"writer_price=abc is not a price: the page takes {PRICES} ({EXAMPLE}); using the example price."),
    ("reader_price=NaN", "reader_price", 0.0,
     f"reader_price=NaN is not a price: the page takes {PRICES} ({EXAMPLE}); using the example price."),
    ("writer_price=1e999", "writer_price", 1000.0,
     f"writer_price=1e999 is above the page's range of prices ({PRICES}); using $1,000."),
    ("local_queue=-1", "local_queue", 0,
     "local_queue=-1 is below the page's range (0 prompts to 16 prompts); using 0 prompts."),
    ("local_queue=2.5", "local_queue", 3, "local_queue=2.5 must be a whole number; using 3 prompts."),
]


@pytest.mark.parametrize("query, name, used, notice", URL_CASES, ids=[c[0] for c in URL_CASES])
def test_a_bad_value_in_the_url_gets_one_notice_and_the_page_works_on(browser, site, query, name, used, notice):
    page = open_page(browser, f"{site}?{query}&rps=6")
    try:
        assert page.locator("#notices li").all_text_contents() == [notice]
        assert page.is_visible("#notices")
        full = sim.Settings(rps=6.0, **{name: used}).as_dict()
        assert page.evaluate("window.pdsplit.settings()") == full
        assert page.evaluate("window.pdsplit.result()") == sim.compare(**full)  # computed in the browser
        assert page.evaluate("window.pdsplit.economics()") == json.loads(json.dumps(sim.economics(**full)))
        assert page.evaluate("document.getElementById('explorer').open") is True
        # and it goes on: a slider still moves, and its numbers follow
        page.click("#slider-rps + button.step")
        page.wait_for_function("window.pdsplit.settings().rps === 6.25")
        assert page.evaluate("window.pdsplit.settled().then(() => window.pdsplit.result())") == \
            sim.compare(**{**full, "rps": 6.25})
        assert page.watch.console_errors() == []
    finally:
        page.context.close()


def test_bad_values_through_set_are_said_in_the_notices(chips):
    notices = chips.evaluate("""window.pdsplit.set({reader_price: 'abc', local_queue: -1, writer_power: 0.4})
        .then(() => Array.from(document.querySelectorAll('#notices li'), li => li.textContent))""")
    assert notices == [f"reader_price=abc is not a price: the page takes {PRICES} ({EXAMPLE}); using the example price.",
                       "local_queue=-1 is below the page's range (0 prompts to 16 prompts); using 0 prompts.",
                       "writer_power=0.4 is below the page's range (50 % to 100 %); using 50 %."]
    settings = chips.evaluate("window.pdsplit.settings()")
    assert (settings["reader_price"], settings["local_queue"], settings["writer_power"]) == (0, 0, 0.5)


# typed, then Enter: the field keeps (and shows) what the page uses, and its note names the
# field as the page labels it, not the URL's key
FIELD = "Reader price ($ per GPU-hour)"
FIELD_CASES = [
    ("abc", 0.0, "", f"{FIELD}: “abc” is not a price: the page takes {PRICES} ({EXAMPLE}); using the example price."),
    ("-1", 0.0, "", f"{FIELD}: “-1” is below the page's range of prices ({PRICES}; {EXAMPLE}); using the example price."),
    ("NaN", 0.0, "", f"{FIELD}: “NaN” is not a price: the page takes {PRICES} ({EXAMPLE}); using the example price."),
    ("1e999", 1000.0, "1000", f"{FIELD}: “1e999” is above the page's range of prices ({PRICES}); using $1,000."),
]


@pytest.mark.parametrize("typed, used, field, notice", FIELD_CASES, ids=[c[0] for c in FIELD_CASES])
def test_a_bad_price_typed_is_said_by_its_field_once_and_the_page_works_on(chips, typed, used, field, notice):
    chips.evaluate("window.pdsplit.set({reader_price: 2.5, gpus: 2, readers: 1})")
    chips.evaluate("window.pdsplit.settled()")
    assert chips.input_value("#price-reader_price") == "2.5"
    chips.fill("#price-reader_price", typed)
    if typed != "abc":  # a price the page cannot use waits for Enter, marked as not valid
        assert chips.get_attribute("#price-reader_price", "aria-invalid") == "true"
    chips.press("#price-reader_price", "Enter")
    chips.wait_for_function("used => window.pdsplit.settings().reader_price === used", arg=used)
    assert chips.text_content("#note-reader_price") == notice
    assert chips.is_visible("#note-reader_price")
    assert notice not in chips.text_content("#notices")  # one notice: by the field
    assert chips.input_value("#price-reader_price") == field
    assert chips.get_attribute("#price-reader_price", "aria-invalid") is None
    full = chips.evaluate("window.pdsplit.settings()")
    assert chips.evaluate("window.pdsplit.settled().then(() => window.pdsplit.result())") == sim.compare(**full)
    assert chips.text_content("#caption-economics") == native_figure("economics", full)["caption"]
    # a good price typed clears the note, and applies as it is typed
    chips.fill("#price-reader_price", "3.75")
    chips.wait_for_function("window.pdsplit.settings().reader_price === 3.75")
    assert chips.text_content("#note-reader_price") == ""


def test_a_dollar_sign_and_an_empty_field_are_prices_too(chips):
    chips.fill("#price-writer_price", "$1.05")
    chips.wait_for_function("window.pdsplit.settings().writer_price === 1.05")
    chips.fill("#price-writer_price", "")
    chips.wait_for_function("window.pdsplit.settings().writer_price === 0")
    assert chips.text_content("#note-writer_price") == ""


# ---- what the page shows: labels, every number marked, what the build bakes ----

def test_the_new_controls_read_right(chips):
    chips.evaluate("window.pdsplit.set({reader_power: 0.55, writer_power: 0.5, local_queue: 1, reader_price: 0, writer_price: 0})")
    assert chips.text_content("#value-reader_power") == "55 %"
    assert chips.text_content("#value-writer_power") == "50 %"
    assert chips.text_content("#value-local_queue") == "1 prompt"
    labels = chips.evaluate("""() => Array.from(document.querySelectorAll('#explorer-controls label'), l => l.textContent)""")
    for label in ("Reader power cap", "Writer power cap", "Read locally at a queue of",
                  "Reader price ($ per GPU-hour)", "Writer price ($ per GPU-hour)"):
        assert label in labels
    # local_queue beside local_below, and each pool's kind, cap and price side by side
    order = chips.evaluate("""() => Array.from(document.querySelectorAll('#explorer-controls [data-setting]'), e => e.dataset.setting)""")
    at = order.index("local_below")
    assert order[at:at + 8] == ["local_below", "local_queue", "reader_gpu", "writer_gpu", "reader_power",
                                "writer_power", "reader_price", "writer_price"]
    for name in ("reader_power", "writer_power", "local_queue", "reader_price", "writer_price"):
        help_text = chips.text_content(f"#help-{name}")
        assert len(help_text) > 40 and help_text.endswith(".") and not re.search(r"\d", help_text), name


def test_every_number_with_the_new_controls_is_marked(chips):
    chips.evaluate("window.pdsplit.set({reader_power: 0.7, writer_price: 2.2, chunk: 256, gpus: 3, readers: 1, local_queue: 2})")
    chips.evaluate("window.pdsplit.settled()")
    bare, marked = chips.evaluate(BARE_NUMBERS)
    assert bare == [], bare
    keys = set(marked)
    assert {"economics.shared_per_dollar", "economics.split_per_dollar", "economics.chunked_per_dollar",
            "economics.shared_per_kwh", "economics.split_per_kwh", "economics.chunked_per_kwh",
            "economics.reader_power", "economics.writer_price", "chips.split_per_dollar"} <= keys
    assert chips.text_content('[data-metric="economics.writer_price"]') == "$2.20"


def test_the_build_bakes_the_new_states_with_their_economics_and_chip_mix():
    baked = baked_page()
    assert baked["examples"] == example_prices()
    names = [state["name"] for state in baked["states"]]
    assert {"splitwise-ha", "writers-capped", "dynamo-queue"} <= set(names)
    for state in baked["states"]:
        assert {"rate", "economics", "ratio", "chips"} <= set(state["figures"]), state["name"]
    ha = next(state for state in baked["states"] if state["name"] == "splitwise-ha")
    assert ha["figures"]["economics"]["result"] == json.loads(json.dumps(sim.economics(**ha["settings"])))


def test_a_named_state_shows_its_economics_before_python_is_up(browser, site):
    """Baked: the Splitwise-HA state's good requests per dollar and figure 9 are on screen from
    the build's states file (fetched beside index.html), once its baked charts are drawn,
    before Python's numbers."""
    record = """addEventListener('pdsplit:settled', (e) => {
        if (e.detail.source === 'baked' && !window.__baked) window.__baked = {
            economics: document.getElementById('caption-economics').textContent,
            chips: document.getElementById('caption-chips').textContent,
            drawn: document.querySelector('#chart-chips .main-svg') !== null};
    });"""
    changes = dict(NEW_STATES[0][2])
    query = "&".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in changes.items())
    # Its results come in the states' file: Python's snapshot is held until the baked charts
    # are drawn, so that they come first whatever the order of the downloads.
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(record + """addEventListener('pdsplit:settled', (e) => {
        if (e.detail.source === 'baked') window.bakedDrawn();
    });""")
    hold_snapshot_until(context, "bakedDrawn")
    try:
        page = context.new_page()
        page.set_default_timeout(BOOT_TIMEOUT)
        page.goto(f"{site}?{query}")
        page.evaluate("window.pdsplit.ready")
        s = sim.Settings().but(**changes).as_dict()
        assert page.evaluate("window.__baked") == {"economics": native_figure("economics", s)["caption"],
                                                   "chips": native_figure("chips", s)["caption"], "drawn": True}
        assert page.evaluate("window.pdsplit.python()")["boot"] == "snapshot"
    finally:
        context.close()


# ---- a phone and a laptop; the accessibility scan ----

# Figure 9's labels: tick labels clear of each other, the note clear of the legend, and both
# inside the chart (none cut off).
CHIP_LABELS = """() => {
    const chart = document.getElementById('chart-chips');
    const box = (e) => e.getBoundingClientRect();
    const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const frame = box(chart);
    const inside = (b) => b.left >= frame.left - 0.5 && b.right <= frame.right + 0.5 && b.top >= frame.top - 0.5 && b.bottom <= frame.bottom + 0.5;
    const ticks = Array.from(chart.querySelectorAll('.xaxislayer-above text'), box);
    const notes = Array.from(chart.querySelectorAll('.annotation text'), box);
    const legend = Array.from(chart.querySelectorAll('.legend .traces'), box);
    const out = [];
    ticks.forEach((a, i) => ticks.slice(i + 1).forEach((b) => { if (hit(a, b)) out.push('tick labels'); }));
    for (const n of notes) for (const l of legend) if (hit(n, l)) out.push('note over the legend');
    for (const n of notes) for (const t of ticks) if (hit(n, t)) out.push('note over a tick label');
    for (const b of [...ticks, ...notes, ...legend]) if (!inside(b)) out.push('cut off');
    return {out, ticks: ticks.length, notes: notes.length, legend: legend.length};
}"""


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
def test_the_panel_with_the_new_controls_fits_phones_and_laptops(browser, site, artifacts, width, height):
    page = open_page(browser, site + "?gpus=8&readers=3&rps=16&reader_gpu=H100&writer_price=1.1&writer_power=0.6&local_queue=3&chunk=256",
                     width, height)
    try:
        page.evaluate("window.pdsplit.settled()")
        page.fill("#price-reader_price", "abc")
        page.press("#price-reader_price", "Enter")  # a refusal said by its field, in the picture too
        page.wait_for_function("document.getElementById('note-reader_price').textContent !== ''")
        page.evaluate("window.pdsplit.settled()")
        assert_fits(page)  # no sideways scroll, text of 12 px, contrast, every control 40 px tall
        heights = page.evaluate("""() => Array.from(document.querySelectorAll('#explorer-controls input, #explorer-controls select, #explorer-controls button'),
            e => e.getBoundingClientRect().height)""")
        assert len(heights) >= 30 and min(heights) >= 40
        labels = page.evaluate(CHIP_LABELS)
        assert labels["ticks"] == 4 and labels["notes"] == 1 and labels["legend"] == 3
        assert labels["out"] == [], labels["out"]
        page.evaluate("scrollTo(0, 0)")  # the sticky headline in its place, over no control
        for name, part in (("panel", "#explorer"), ("further", "#further")):  # as the page lies
            box = page.evaluate("""(part) => { const r = document.querySelector(part).getBoundingClientRect();
                return {x: 0, y: r.top + scrollY, width: innerWidth, height: r.height}; }""", part)
            page.screenshot(path=str(artifacts / f"chips-{name}-{width}x{height}.png"), full_page=True, clip=box)
        assert page.watch.console_errors() == []
    finally:
        page.context.close()


@pytest.mark.parametrize("prefers", ["light", "dark"])
def test_no_serious_accessibility_violation_with_the_new_controls(browser, site, axe_source, prefers):  # noqa: F811
    context = browser.new_context(viewport={"width": 375, "height": 740}, color_scheme=prefers)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(site + "?reader_price=2.5&writer_power=0.5&local_queue=3&writer_gpu=H100")
        page.evaluate("window.pdsplit.settled()")
        # the URL's price is taken, shown in its field, and said by the economics
        assert page.evaluate("window.pdsplit.settings().reader_price") == 2.5
        assert page.input_value("#price-reader_price") == "2.5"
        assert "1 A100 reader at $2.50 an hour (given)" in page.text_content("#caption-economics")
        assert page.get_attribute("#price-writer_price", "placeholder") == "$3.00 for an H100"
        page.fill("#price-writer_price", "-1")  # marked as not valid while it waits for Enter
        page.add_script_tag(content=axe_source)
        violations = page.evaluate(SCAN)
        assert violations == [], "\n".join(f"{v['impact']} {v['id']}: {v['help']}\n  " + "\n  ".join(v["nodes"]) for v in violations)
        page.press("#price-writer_price", "Enter")  # and refused: said by the field
        page.wait_for_function("document.getElementById('note-writer_price').textContent !== ''")
        assert page.evaluate(SCAN) == []
    finally:
        context.close()


def test_a_course_page_can_show_figure_9_alone(browser, site):
    """?show=chips: a piece of a course page with the chip mix only; it opens the panel and
    works out that figure alone (not the rate goodput's words, nor figure 6)."""
    page = open_page(browser, f"{site}?embed=1&show=chips&gpus=4&readers=2&writer_power=0.5")
    try:
        page.evaluate("window.pdsplit.settled()")
        full = sim.Settings(gpus=4, readers=2, writer_power=0.5).as_dict()
        assert page.is_visible("#chart-chips") and page.is_hidden("#caption-rate") and page.is_hidden("#chart-ratio")
        assert page.text_content("#caption-chips") == native_figure("chips", full)["caption"]
        assert page.evaluate("window.pdsplit.figure('ratio')") is None
        assert page.locator("#notices li").count() == 0
    finally:
        page.context.close()
