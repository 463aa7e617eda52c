"""On a phone and on a laptop: no sideways scroll, no text under 12 px, legends above the
plots; a full-page screenshot of each under test-artifacts/ on every run."""

import pytest

from conftest import open_page

SMALL_TEXT = """() => {
    const small = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.parentElement;
        if (!node.textContent.trim() || !element) continue;
        const box = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
        if (element.closest('details:not([open])') && !element.closest('summary')) continue;
        const size = parseFloat(style.fontSize);
        if (size < 12) small.push([node.textContent.trim().slice(0, 40), size]);
    }
    return small;
}"""

# Text against the page's white: WCAG AA asks 4.5:1 for text of this size.
LOW_CONTRAST = """() => {
    const luminance = rgb => {
        const [r, g, b] = rgb.match(/[\\d.]+/g).slice(0, 3).map(v => {
            const c = Number(v) / 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const low = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const element = node.parentElement;
        if (!node.textContent.trim() || !element || element.closest('.plot, script')) continue;
        const ratio = 1.05 / (luminance(getComputedStyle(element).color) + 0.05);
        if (ratio < 4.5) low.push([node.textContent.trim().slice(0, 40), ratio.toFixed(2)]);
    }
    return low;
}"""

# Whatever a finger should hit: at least 40 px tall (of what is not folded away).
SMALL_TARGETS = """() => Array.from(document.querySelectorAll('button, input, select, summary'))
    .filter(e => e.getClientRects().length)
    .map(e => [e.id || e.textContent.trim().slice(0, 30), e.getBoundingClientRect().height])
    .filter(([, h]) => h < 40)"""


# Boxes that scroll sideways inside the page: a table wider than its column is cut off at
# the screen's edge, its last column out of sight (Watch it run's KV bars were, at 375 px)
INNER_SCROLL = """() => [...document.querySelectorAll('body *')].filter(e => {
    if (!e.getClientRects().length) return false;
    const s = getComputedStyle(e);
    return ['auto', 'scroll'].includes(s.overflowX) && e.scrollWidth > e.clientWidth + 1;
}).map(e => `${e.tagName.toLowerCase()}#${e.id}.${e.className}: ${e.scrollWidth} px in ${e.clientWidth}`)"""


def assert_fits(page):
    """No sideways scroll, of the page or inside it, no text under 12 px, AA contrast,
    targets a finger can hit."""
    scroll = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll[0] <= scroll[1], f"page is {scroll[0]} px wide in a {scroll[1]} px window"
    assert page.evaluate(INNER_SCROLL) == []
    assert page.evaluate(SMALL_TEXT) == []
    assert page.evaluate(LOW_CONTRAST) == []
    assert page.evaluate(SMALL_TARGETS) == []

LEGENDS = """() => Array.from(document.querySelectorAll('.plot'), plot => plot)
    .filter(plot => !plot.closest('[hidden], details:not([open])')).map(plot => {
    const legend = plot.querySelector('g.legend');
    const areas = Array.from(plot.querySelectorAll('.draglayer .nsewdrag'), r => r.getBoundingClientRect());
    if (!legend || areas.length === 0) return [plot.id, null, null];
    return [plot.id, legend.getBoundingClientRect().bottom, Math.min(...areas.map(a => a.top))];
})"""


# The sticky line at the top (the headline on a laptop, #glance on a phone) and where an
# element brought into view by a link lands: its top, and that line's bottom.
LANDS = """id => {
    const sticky = [document.getElementById('headline'), document.getElementById('glance')]
        .find(e => e.getClientRects().length && getComputedStyle(e).position === 'sticky');
    return [document.getElementById(id).getBoundingClientRect().top, sticky.getBoundingClientRect().bottom];
}"""


def assert_links_clear_the_sticky_line(page):
    """An in-page link (the explorer's "The charts for these settings", or a course site's to
    a figure) brings its target into view below the sticky line, not under it."""
    for target in ("charts", "watch"):
        page.evaluate("location.hash = ''; scrollTo(0, 0)")
        page.evaluate("id => { location.hash = id; }", target)
        page.wait_for_function(f"({LANDS})('{target}')[0] < innerHeight / 2", timeout=10_000)
        top, line = page.evaluate(LANDS, target)
        assert line - 1 <= top, f"#{target} lands at {top} px, under the sticky line (down to {line} px)"
    page.evaluate("history.replaceState(null, '', location.pathname + location.search); scrollTo(0, 0)")


# Each shown chart's x axis titles: [chart, [[its lines, font size, left, right], ...]].
X_TITLES = """() => Array.from(document.querySelectorAll('.plot'))
    .filter(plot => plot._fullLayout && !plot.closest('[hidden], details:not([open])')).map(plot => [plot.id,
        Array.from(plot.querySelectorAll('.infolayer [class$="title"] text'))
            .filter(t => /^x\\d*title$/.test(t.getAttribute('class')) && t.textContent).map(t => {
                const box = t.getBoundingClientRect();
                return [t.querySelectorAll('tspan.line').length || 1, parseFloat(getComputedStyle(t).fontSize), box.left, box.right];
            })])"""


def assert_x_titles_fit(page):
    """No x axis title runs into its neighbour's. Figure 1's two, side by side, each half a
    phone's width, fit on one line in the same font, no smaller than the ticks' 12 px."""
    titles = dict(page.evaluate(X_TITLES))
    for chart, found in titles.items():
        spans = sorted((left, right) for *_, left, right in found)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), (chart, found)
    stall = titles["chart-stall"]
    assert len(stall) == 2 and {lines for lines, *_ in stall} == {1}, stall
    assert len({size for _, size, *_ in stall}) == 1 and stall[0][1] >= 12, stall


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
def test_layout(browser, site, artifacts, width, height):
    page = open_page(browser, site, width, height)
    try:
        page.evaluate("window.pdsplit.settled()")
        page.screenshot(path=str(artifacts / f"page-{width}x{height}.png"), full_page=True)
        assert_fits(page)
        legends = page.evaluate(LEGENDS)
        assert len(legends) == 5
        for plot, legend_bottom, plot_top in legends:
            assert legend_bottom is not None, f"{plot} has no legend or plot area"
            assert legend_bottom <= plot_top + 1, f"{plot}: legend reaches into the plot area"
        assert_links_clear_the_sticky_line(page)
        assert_x_titles_fit(page)
        assert page.watch.console_errors() == []
    finally:
        page.context.close()


# Each chart is as wide as its box, and its legend above its plot area.
CHARTS_FIT = """() => Array.from(document.querySelectorAll('.plot'))
    .filter(plot => !plot.closest('[hidden], details:not([open])')).every(plot => {
    const svg = plot.querySelector('svg.main-svg');
    const legend = plot.querySelector('g.legend');
    const areas = Array.from(plot.querySelectorAll('.draglayer .nsewdrag'), r => r.getBoundingClientRect().top);
    return svg && legend && areas.length && Math.abs(svg.getBoundingClientRect().width - plot.clientWidth) <= 1
        && legend.getBoundingClientRect().bottom <= Math.min(...areas) + 1;
})"""


def test_charts_fit_again_when_the_window_turns(browser, site):
    """A phone turned or a window resized: each chart takes the new width, and its legend
    (one row wide, two rows on a phone) stays above the plot (Plotly's own resize left it
    overlapping the plot once the window widened again)."""
    page = open_page(browser, site, 1280, 800)
    try:
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate(CHARTS_FIT)
        for width, height in [(375, 740), (1280, 800), (375, 740)]:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function(CHARTS_FIT, timeout=15_000)
        legends = page.evaluate(LEGENDS)
        assert len(legends) == 5 and all(bottom <= top + 1 for _, bottom, top in legends)
        assert page.watch.console_errors() == []
    finally:
        page.context.close()


# A caption's height, and the height of its words alone (which its kept room may exceed).
CAPTION = """id => {
    const caption = document.getElementById(id), words = document.createRange();
    words.selectNodeContents(caption);
    return [caption.getBoundingClientRect().height, words.getBoundingClientRect().height];
}"""
BELOW = "document.getElementById('figures').getBoundingClientRect().top + scrollY"


def test_a_caption_keeps_its_room_and_nothing_below_it_moves_back(lesson):
    """Figure 2's caption takes three lines at 4,000-token prompts and two at the lesson's
    2,000 (at 1280 px). Going back, it keeps the room of three, so that the figures below do
    not move up and then down again at the next stop of a drag."""
    page = lesson
    page.get_by_role("button", name="Lesson default").click()  # every setting, from other tests
    page.evaluate("window.pdsplit.settled()")
    page.evaluate("window.pdsplit.set({prompt: 4000})")
    page.evaluate("window.pdsplit.settled()")
    tall, tall_words = page.evaluate(CAPTION, "caption-gap")
    below = page.evaluate(BELOW)
    page.evaluate("window.pdsplit.set({prompt: 2000})")
    page.evaluate("window.pdsplit.settled()")
    kept, words = page.evaluate(CAPTION, "caption-gap")
    assert words < tall_words, "the two settings' captions should differ in lines for this test"
    assert kept == tall
    assert page.evaluate(BELOW) == below
