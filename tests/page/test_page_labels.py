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
    // axis titles, figure 7's three side by side among them, clear of each other and of any tick label
    const titles = Array.from(chart.querySelectorAll('.infolayer text'))
        .filter((t) => /^[xy][0-9]*title$/.test(t.getAttribute('class'))).map((t) => [t.textContent, box(t)]);
    const ticks = Array.from(chart.querySelectorAll('.xaxislayer-above text, .yaxislayer-above text'), (t) => [t.textContent, box(t)]);
    pairs('axis titles', titles);
    for (const [title, b] of titles) for (const [tick, t] of ticks) if (hit(t, b)) out.push(['axis title over a tick label', title, tick]);
    const notes = Array.from(chart.querySelectorAll('.annotation text'), (t) => [t.textContent, box(t)]);
    const points = Array.from(chart.querySelectorAll('.scatterlayer .points path'), (p) => box(p));
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
    return {out, ticks: ticks.length, notes: notes.length, points: points.length, titles: titles.length};
}"""

# (URL, the panel's other figures it shows, in the page's order): with a trace, figures 7 and 8
# come too, figure 7 with its three panels' titles side by side
PANEL = ["traffic", "chips"]
STATES = {"lesson": ("", []), "portfolio": ("?gpus=3&readers=2&chunk=512", PANEL),
          "h100": ("?reader_gpu=H100&writer_gpu=H100", PANEL), "short-prompts": ("?prompt=200", []),
          "azure-chat": ("?gpus=4&readers=2&chunk=512&routing=least-loaded&traffic=azure-chat",
                         ["traffic", "know", "traces_ratio", "chips"])}

# The charts shown, besides those named.
SHOWN = """(named) => Array.from(document.querySelectorAll('.plot'))
    .filter((plot) => plot.getClientRects().length && plot.querySelector('svg') && !named.includes(plot.id)).map((plot) => plot.id)"""


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
@pytest.mark.parametrize("state", STATES)
def test_no_label_runs_into_another(browser, site, state, width, height):
    page = open_page(browser, site + STATES[state][0], width, height)
    try:
        page.evaluate("window.pdsplit.settled()")
        panel = page.evaluate("document.getElementById('explorer').open")  # an explorer setting opens it
        charts = ["goodput", "gap", "stall", "link", "prompt"] + (["ratio"] if panel else [])
        # Azure chat's window at these settings has no read overlapping a reply: figure 1 says
        # so, with no words drawn (the other states each have their stall)
        stalled = page.evaluate("window.pdsplit.figure('stall').figure.layout.meta.stall !== null")
        assert stalled == (state != "azure-chat")
        for name in charts:
            found = page.evaluate(COLLISIONS, f"chart-{name}")
            assert found["ticks"] > 0 and (found["points"] > 0 or name == "stall" and not stalled), name  # drawn
            assert found["out"] == [], (name, found["out"])
        # the panel's other figures shown (bars, some of them: no points to ask for)
        others = page.evaluate(SHOWN, [f"chart-{name}" for name in charts])
        assert others == [f"chart-{name}" for name in STATES[state][1]]
        for chart in others:
            found = page.evaluate(COLLISIONS, chart)
            assert found["ticks"] > 0 and found["titles"] > 1, chart
            assert found["out"] == [], (chart, found["out"])
        stall = page.evaluate(COLLISIONS, "chart-stall")
        assert stall["notes"] == stalled  # the read's label is there, and clear of every word
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
