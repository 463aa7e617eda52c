"""Labels never collide, on a phone or a laptop: a chart's tick labels, its legend's entries and
its annotations (figure 1's read) keep clear of each other and of the points drawn."""

import pytest

from conftest import open_page

# Each collision in a chart: [what, first text, second text].
COLLISIONS = """(id) => {
    const chart = document.getElementById(id);
    const box = (e) => e.getBoundingClientRect();
    const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const out = [];
    const pairs = (what, items) => {
        for (let i = 0; i < items.length; i++)
            for (let j = i + 1; j < items.length; j++)
                if (hit(items[i][1], items[j][1])) out.push([what, items[i][0], items[j][0]]);
    };
    for (const layer of chart.querySelectorAll('.xaxislayer-above, .yaxislayer-above'))
        pairs('tick labels', Array.from(layer.querySelectorAll('text'), (t) => [t.textContent, box(t)]));
    pairs('legend entries', Array.from(chart.querySelectorAll('.legend .traces'), (t) => [t.textContent, box(t)]));
    const notes = Array.from(chart.querySelectorAll('.annotation text'), (t) => [t.textContent, box(t)]);
    const points = Array.from(chart.querySelectorAll('.scatterlayer .points path'), (p) => box(p));
    const ticks = Array.from(chart.querySelectorAll('.xaxislayer-above text, .yaxislayer-above text'), (t) => [t.textContent, box(t)]);
    // the curves' lines too, sampled every 2 px along their length, in the page's coordinates
    const along = [];
    for (const line of chart.querySelectorAll('.scatterlayer .js-line')) {
        const matrix = line.getScreenCTM();
        const length = line.getTotalLength();
        for (let at = 0; at <= length; at += 2) along.push(line.getPointAtLength(at).matrixTransform(matrix));
    }
    const inside = (p, b) => p.x > b.left && p.x < b.right && p.y > b.top && p.y < b.bottom;
    for (const [text, b] of notes) {
        if (points.some((p) => hit(p, b))) out.push(['annotation over a point', text, '']);
        if (along.some((p) => inside(p, b))) out.push(['annotation over a curve', text, '']);
        for (const [tick, t] of ticks) if (hit(t, b)) out.push(['annotation over a tick label', text, tick]);
    }
    return {out, ticks: ticks.length, notes: notes.length, points: points.length};
}"""

STATES = {"lesson": "", "portfolio": "?gpus=3&readers=2&chunk=512", "h100": "?reader_gpu=H100&writer_gpu=H100",
          "short-prompts": "?prompt=200"}


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
@pytest.mark.parametrize("state", STATES)
def test_no_label_runs_into_another(browser, site, state, width, height):
    page = open_page(browser, site + STATES[state], width, height)
    try:
        page.evaluate("window.pdsplit.settled()")
        panel = page.evaluate("document.getElementById('explorer').open")  # an explorer setting opens it
        charts = ["goodput", "gap", "stall", "link", "prompt"] + (["ratio"] if panel else [])
        for name in charts:
            found = page.evaluate(COLLISIONS, f"chart-{name}")
            assert found["ticks"] > 0 and found["points"] > 0, name  # the chart is drawn
            assert found["out"] == [], (name, found["out"])
        stall = page.evaluate(COLLISIONS, "chart-stall")
        assert stall["notes"] == 1  # the read's label is there, and clear of every word
    finally:
        page.context.close()


def test_a_phone_labels_only_the_powers_of_ten_on_a_log_axis(browser, site):
    page = open_page(browser, site, 375, 740)
    try:
        page.evaluate("window.pdsplit.settled()")
        shown = page.evaluate("() => Array.from(document.querySelectorAll('#chart-link .xaxislayer-above text'), t => t.textContent)")
        assert shown == ["0.1", "1", "10", "100"]
        # the figure as Python drew it keeps its 1-2-5 labels: only the drawing is fitted
        assert "0.5" in page.evaluate("window.pdsplit.figure('link').figure.layout.xaxis.ticktext")
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_function("() => document.querySelectorAll('#chart-link .xaxislayer-above text').length > 4")
    finally:
        page.context.close()
