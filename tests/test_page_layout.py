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

LEGENDS = """() => Array.from(document.querySelectorAll('.plot'), plot => {
    const legend = plot.querySelector('g.legend');
    const areas = Array.from(plot.querySelectorAll('.draglayer .nsewdrag'), r => r.getBoundingClientRect());
    if (!legend || areas.length === 0) return [plot.id, null, null];
    return [plot.id, legend.getBoundingClientRect().bottom, Math.min(...areas.map(a => a.top))];
})"""


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
def test_layout(browser, site, artifacts, width, height):
    page = open_page(browser, site, width, height)
    try:
        page.evaluate("window.pdsplit.settled()")
        page.screenshot(path=str(artifacts / f"page-{width}x{height}.png"), full_page=True)
        scroll = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll[0] <= scroll[1], f"page is {scroll[0]} px wide in a {scroll[1]} px window"
        assert page.evaluate(SMALL_TEXT) == []
        legends = page.evaluate(LEGENDS)
        assert len(legends) == 5
        for plot, legend_bottom, plot_top in legends:
            assert legend_bottom is not None, f"{plot} has no legend or plot area"
            assert legend_bottom <= plot_top + 1, f"{plot}: legend reaches into the plot area"
        assert page.watch.console_errors() == []
    finally:
        page.context.close()
