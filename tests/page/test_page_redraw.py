"""A chart whose points alone move is redrawn by its traces alone (Plotly's transition path,
view.js's showFigure), and then looks exactly as a full draw of the same figure would: the
same SVG, element by element, at the very moment the page says the chart shows it (its
`pdsplit:charts-partial`, `pdsplit:charts` and `pdsplit:settled` events wait for those
traces)."""

import pytest

from conftest import open_page

# Wraps Plotly.react as Plotly is defined (which path each draw took: a layout with a
# transition is a redraw of the traces alone), and at each chart event takes down, at once,
# what the chart shows and the figure it was last given.
SHOTS = """
    window.__path = {};
    window.__draw = {};  // each chart's draws so far
    window.__shots = [];
    let real;
    Object.defineProperty(window, "Plotly", { configurable: true, get: () => real, set(plotly) {
        real = plotly;
        const react = plotly.react;
        plotly.react = function (chart, data, layout, ...rest) {
            window.__path[chart.id] = layout && layout.transition ? "traces" : "full";
            window.__draw[chart.id] = (window.__draw[chart.id] ?? 0) + 1;
            return react.call(this, chart, data, layout, ...rest);
        };
    } });
    // the SVG as a list of elements: depth, tag, sorted attributes, a leaf's text; Plotly's
    // random ids (a trace's uid, a plot's clip path) left out
    window.__tree = (root) => {
        const out = [];
        const named = new Set(["id", "class", "clip-path", "href", "xlink:href", "mask", "filter"]);
        const walk = (el, depth) => {
            const attrs = [...el.attributes].map((a) => [a.name,
                named.has(a.name) ? a.value.replace(/[0-9a-f]{6,}/g, "#") : a.value]).sort();
            out.push(JSON.stringify([depth, el.tagName, attrs, el.children.length ? "" : el.textContent]));
            for (const child of el.children) walk(child, depth + 1);
        };
        for (const child of root.children) walk(child, 0);
        return out;
    };
    const shoot = (name, event) => {
        const chart = document.getElementById(`chart-${name}`);
        window.__shots.push({ name, event, path: window.__path[chart.id], draw: window.__draw[chart.id], width: chart.clientWidth, rps: window.pdsplit.settings().rps,
            tree: window.__tree(chart), data: structuredClone(chart.data), layout: structuredClone(chart.layout) });
    };
    addEventListener("pdsplit:charts-partial", (e) => e.detail.source === "python" && shoot(e.detail.name, "partial"));
    addEventListener("pdsplit:charts", (e) => {
        if (e.detail.source === "python") for (const name of ["goodput", "gap"]) shoot(name, "charts");
    });
    // settled: every chart, the figures' lane's too (figure 3's lines move with the prompt)
    addEventListener("pdsplit:settled", (e) => {
        if (e.detail.source !== "python") return;
        for (const chart of document.querySelectorAll(".js-plotly-plot[id^='chart-']")) {
            if (chart.offsetParent) shoot(chart.id.slice("chart-".length), "settled");
        }
    });
"""

# The same figure drawn whole, from nothing, in a new chart of the same width.
FULL_DRAW = """async ({data, layout, width}) => {
    const div = Object.assign(document.createElement("div"), { className: "plot" });
    div.style.width = `${width}px`;
    document.querySelector("main").append(div);
    const { transition, ...rest } = layout;
    await Plotly.newPlot(div, data, rest, { responsive: false, displayModeBar: false, scrollZoom: false });
    const tree = window.__tree(div);
    Plotly.purge(div);
    div.remove();
    return tree;
}"""

CHANGES = [{"prompt": 1400}, {"prompt": 1600}, {"reply": 350}, {"reply": 150, "prompt": 2600},
           {"rps": 6}, {"prompt": 1800}]


@pytest.fixture(scope="module")
def shots(browser, site):
    page = open_page(browser, site, script=SHOTS)
    page.evaluate("window.pdsplit.settled()")
    page.evaluate("window.__shots.length = 0")
    for change in CHANGES:
        page.evaluate("s => window.pdsplit.set(s)", change)
        page.evaluate("window.pdsplit.settled()")
    # a storm: each change takes over from the one before, between pieces
    page.evaluate("() => { for (const prompt of [700, 900, 1100, 1300]) window.pdsplit.set({prompt}); }")
    page.evaluate("window.pdsplit.settled()")
    taken = page.evaluate("window.__shots")
    for shot in taken:
        shot["full"] = page.evaluate(FULL_DRAW, {k: shot[k] for k in ("data", "layout", "width")})
    yield taken
    page.context.close()


def test_each_main_chart_is_redrawn_by_its_traces_alone_where_only_its_points_move(shots):
    for name in ("goodput", "gap"):
        paths = {(s["event"], s["path"]) for s in shots if s["name"] == name}
        assert ("charts", "traces") in paths, (name, paths)
    # goodput's axes never move at a prompt or reply step (0-100%, the same loads): each such
    # draw is of its traces alone; at a load step its circle moves along the load axis, and
    # a trace that ends elsewhere is drawn whole
    goodput = list({s["draw"]: s for s in shots if s["name"] == "goodput"}.values())  # a shot a draw
    steps = [(before["rps"] == after["rps"], after["path"]) for before, after in zip(goodput, goodput[1:])]
    assert {path for same, path in steps if same} == {"traces"}
    assert {path for same, path in steps if not same} == {"full"}
    # figure 2's log axis follows its points: where they end elsewhere it is drawn whole
    assert "full" in {s["path"] for s in shots if s["name"] == "gap"}


def test_what_a_chart_shows_when_the_page_says_so_is_what_a_full_draw_shows(shots):
    assert len(shots) >= 3 * (len(CHANGES) + 1)
    assert {"traces", "full"} <= {s["path"] for s in shots if s["event"] == "settled" and s["name"] not in ("goodput", "gap")}
    for shot in shots:
        assert len(shot["tree"]) > 100, shot["name"]  # the axes, legend and traces of a chart
        differs = [(a, b) for a, b in zip(shot["tree"], shot["full"]) if a != b][:1]
        assert shot["tree"] == shot["full"], (shot["name"], shot["event"], shot["path"],
                                              len(shot["tree"]), len(shot["full"]), differs)
