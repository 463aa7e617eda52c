"""The learner's portfolio project on a phone and a laptop: the three-layout table fits 320 px,
a control that cannot move says why, the charts follow the panel, the lesson's buttons keep
what the panel sets, and every sentence follows the settings. Screenshots of the portfolio
state at both sizes go to test-artifacts/."""

import pytest

import sim
from conftest import open_page
from sim.show.curves import load_top
from sim.show.numbers import shown

PORTFOLIO = {"gpus": 3, "readers": 2, "chunk": 512}

# Each cell of the results tables: the number of lines its text takes.
TABLE_LINES = """() => Array.from(document.querySelectorAll('#table th, #table td, #misses th, #misses td'))
    .filter(e => e.getClientRects().length)
    .map(e => {
        const range = document.createRange();
        range.selectNodeContents(e);
        const tops = new Set(Array.from(range.getClientRects(), r => Math.round(r.top)));
        const kind = e.tagName === 'TD' ? 'value' : e.closest('thead') ? 'column' : 'row';
        return [e.dataset.metric || e.textContent.trim(), kind, tops.size];
    })"""


def portfolio(page):
    page.evaluate("s => window.pdsplit.set(s)", sim.Settings().but(**PORTFOLIO).as_dict())
    page.evaluate("window.pdsplit.settled()")


@pytest.mark.parametrize("width", [320, 375])
def test_the_three_layout_table_fits_a_phone_with_no_word_broken(browser, site, width):
    page = open_page(browser, site + "?gpus=3&readers=2&chunk=512", width, 740)
    try:
        page.click("#results summary")  # "Why requests missed" too
        cells = page.evaluate(TABLE_LINES)
        assert len(cells) > 30
        broken = [c for c in cells if c[2] > 1 and c[1] != "row"]
        assert broken == []  # values and layout names on one line; row names may wrap between words
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        header = page.locator("#table thead th.chunked")
        assert header.is_visible() and header.text_content() == "chunked"
        # times far past the targets (minutes) may be wider than a phone: the table scrolls
        # in its own box, the page never sideways, and no value breaks
        page.evaluate("window.pdsplit.set({rps: 300, prompt: 8000})")
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert [c for c in page.evaluate(TABLE_LINES) if c[2] > 1 and c[1] != "row"] == []
    finally:
        page.context.close()


def test_plus_on_readers_at_its_top_adds_a_gpu_and_says_so(browser, site):
    page = open_page(browser, site + "?routing=least-loaded")
    try:
        assert page.text_content("#value-readers") == "1 GPU"  # in the singular
        page.click("#slider-readers + button.step")
        page.wait_for_function("window.pdsplit.settings().readers === 2")
        assert (page.evaluate("window.pdsplit.settings().gpus"), page.text_content("#value-readers")) == (3, "2 GPUs")
        said = page.text_content("#note-readers")
        assert said == "A GPU was added too: the split needs a writer, so 2 readers take 3 GPUs."
        assert page.is_visible("#note-readers")
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate("window.pdsplit.result()") == sim.compare(gpus=3, readers=2, routing="least-loaded")
        page.click("#slider-gpus + button.step")  # another change: the note has said its piece
        assert page.text_content("#note-readers") == ""
        page.evaluate("window.pdsplit.set({gpus: 32, readers: 31})")
        page.click("#slider-readers + button.step")
        assert page.evaluate("window.pdsplit.settings()")["readers"] == 31
        assert "32 GPUs is the most, and the split needs a writer" in page.text_content("#note-readers")
    finally:
        page.context.close()


def test_the_charts_follow_the_panel_and_the_load_slider_reaches_them(browser, site):
    page = open_page(browser, site + "?routing=least-loaded")
    try:
        page.get_by_role("button", name="Portfolio: 3 GPUs, 2 readers, chunks of 512").click()
        page.evaluate("window.pdsplit.settled()")
        order = page.evaluate("""() => Array.from(document.querySelector('main').children,
            e => e.id).filter(Boolean)""")
        assert order.index("charts") == order.index("explorer") + 1
        assert order.index("further") == order.index("charts") + 1  # DistServe's goodput, figure 6
        assert page.locator('#explorer a[href="#charts"]').count() >= 1
        assert page.text_content("#title-goodput") == "Figure 5. Goodput against load"
        x = page.evaluate("window.pdsplit.figure('goodput').figure.data[0].x")
        assert x[-1] == load_top(3) == 30
        top = page.evaluate("() => { const s = document.getElementById('slider-rps'); return Number(s.max); }")
        stops = page.evaluate("JSON.parse(document.getElementById('pdsplit-baked').textContent).schema.find(f => f.name === 'rps').slider")
        assert stops[top] == 30  # the slider reaches as far as the chart goes
        page.evaluate("window.pdsplit.set({gpus: 2, readers: 1, chunk: 0})")
        top = page.evaluate("Number(document.getElementById('slider-rps').max)")
        assert stops[top] == 20 and page.text_content("#title-goodput") == "Goodput against load"
    finally:
        page.context.close()


def test_on_a_phone_only_a_line_of_numbers_stays_in_view(browser, site):
    page = open_page(browser, site + "?gpus=3&readers=2&chunk=512", 375, 740)
    try:
        page.evaluate("window.pdsplit.settled()")
        page.mouse.wheel(0, 1500)
        page.wait_for_function("window.scrollY > 1000")
        glance = page.locator("#glance")
        box = glance.bounding_box()
        assert box["y"] == 0 and box["height"] <= 60  # was 166 px: the whole sentence
        assert page.evaluate("getComputedStyle(document.getElementById('headline')).position") == "static"
        want = shown(sim.compare(**PORTFOLIO))
        for layout in ("shared", "split", "chunked"):
            assert glance.locator(f'[data-metric="{layout}.goodput"]').text_content() == want[f"{layout}.goodput"]
    finally:
        page.context.close()


def test_the_lessons_buttons_keep_the_panels_settings_and_say_so(browser, site):
    page = open_page(browser, site)
    try:
        assert page.is_hidden("#states-keep")
        page.evaluate("s => window.pdsplit.set(s)", PORTFOLIO)
        assert "keep what Go further sets" in page.text_content("#states-keep")
        page.get_by_role("button", name="Busy: 10 req/s").click()
        want = sim.Settings().but(rps=10.0, **PORTFOLIO).as_dict()
        page.wait_for_function("w => JSON.stringify(window.pdsplit.result()?.settings) === JSON.stringify(w)", arg=want)
        assert page.evaluate("window.pdsplit.result()") == sim.compare(**want)
        page.get_by_role("button", name="Lesson default").click()
        assert page.evaluate("window.pdsplit.settings()") == sim.Settings().but(**PORTFOLIO).as_dict()
        page.click("#explorer > summary")
        page.get_by_role("button", name="Back to the lesson's toy").click()  # the panel's own reset
        assert page.evaluate("window.pdsplit.settings()") == sim.Settings().as_dict()
        assert page.is_hidden("#states-keep")
        assert page.get_by_role("button", name="Reset").count() == 0  # one reset a group, no twin
    finally:
        page.context.close()


def test_every_sentence_follows_the_settings(browser, site):
    page = open_page(browser, site + "?gpus=3&readers=2&chunk=512")
    try:
        page.evaluate("window.pdsplit.settled()")
        assert page.text_content("#table-caption") == "The three layouts, for the settings below"
        lede = " ".join(page.text_content(".lede").split())
        assert lede.startswith("3 GPUs serve a language model.")
        assert "Split: 2 GPUs only read, the other one only writes" in lede
        assert "Chunked: each GPU reads and writes" in lede
        page.evaluate("window.pdsplit.set({gpus: 2, readers: 1, chunk: 0, slots: 1})")
        page.evaluate("window.pdsplit.settled()")
        lede = " ".join(page.text_content(".lede").split())
        assert lede.startswith("Two GPUs serve a language model.") and "Chunked" not in page.inner_text(".lede")
        assert page.text_content("#table-caption") == "Both layouts, for the settings below"
        assert page.text_content("#value-slots") == "1 reply"
        assert page.text_content("#value-readers") == "1 GPU"
    finally:
        page.context.close()


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
def test_portfolio_screenshots(browser, site, artifacts, width, height):
    page = open_page(browser, site + "?gpus=3&readers=2&chunk=512", width, height)
    try:
        page.evaluate("window.pdsplit.settled()")
        page.evaluate("document.fonts.ready")
        page.screenshot(path=str(artifacts / f"portfolio-{width}x{height}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        page.context.close()
