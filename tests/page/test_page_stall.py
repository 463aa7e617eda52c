"""Figure 1 is drawn with one trace a GPU (web/view.js: merged): Python's figure has a trace
for each reply's words (21 at the lesson's 200-word replies, 68 at 1,000), and a Plotly draw
costs mostly by the trace. The page draws the same picture, pixel for pixel, with the same
words; what it says it shows (pdsplit.figure) stays Python's figure."""

import pytest

from conftest import open_page

# view.js as the page imported it (the build's ?v=), to draw a figure as the page does
VIEW = """const app = document.querySelector('script[src*="app.js"]').src;
    const view = await import(new URL("view.js" + new URL(app).search, app).href);"""

# Draws figure 1 as Python gave it, merged or not, in a new chart `width` px wide, as the page
# fits and colours a figure (view.js: themed, fitted); what it drew.
DRAW = """async ({merge, width}) => {
    """ + VIEW + """
    document.getElementById("probe")?.remove();
    const div = Object.assign(document.createElement("div"), { className: "plot", id: "probe" });
    div.style.width = `${width}px`;
    document.querySelector("main").prepend(div);
    const figure = structuredClone(window.pdsplit.figure("stall").figure);
    const drawn = view.fitted(view.themed(merge ? view.merged(figure) : figure), width);
    await Plotly.newPlot(div, drawn.data, drawn.layout, { responsive: false, displayModeBar: false, scrollZoom: false });
    return div.data.length;
}"""

# merged() on figures made for the rule: each case's traces, and how many it leaves
RULE = """async (cases) => {
    """ + VIEW + """
    return cases.map((data) => view.merged({ data: structuredClone(data) }).data);
}"""


@pytest.fixture(scope="module")
def page(browser, site):
    page = open_page(browser, site)
    yield page
    page.context.close()


def at(page, reply):
    page.evaluate("s => window.pdsplit.set(s)", {"reply": reply})
    page.evaluate("window.pdsplit.settled()")
    return page.evaluate("window.pdsplit.figure('stall').figure.data")


@pytest.mark.parametrize("reply", [200, 1000])
def test_the_page_draws_figure_1_as_one_trace_a_gpu_with_every_word_in_order(page, reply):
    python = at(page, reply)
    drawn = page.evaluate("document.getElementById('chart-stall').data")
    gpus = ["shared GPU", "split's writer"]
    assert [t["legendgroup"] for t in drawn] == gpus
    assert len(python) > 2 * len(gpus)  # a trace a reply: rows of words on each GPU
    for trace in drawn:
        rows = [t for t in python if t["legendgroup"] == trace["legendgroup"]]
        assert trace["x"] == [x for t in rows for x in t["x"]]
        assert trace["y"] == [y for t in rows for y in t["y"]]
        assert [t["showlegend"] for t in rows] == [True] + [False] * (len(rows) - 1)
        assert trace["showlegend"] is True
        assert trace["marker"]["symbol"] == rows[0]["marker"]["symbol"]
        assert trace["hovertemplate"] == rows[0]["hovertemplate"]


@pytest.mark.parametrize("reply", [200, 1000])
@pytest.mark.parametrize("width", [375, 1280])
def test_merged_figure_1_is_the_same_picture(page, reply, width):
    python = at(page, reply)
    assert page.evaluate(DRAW, {"merge": False, "width": width}) == len(python)
    whole = page.locator("#probe").screenshot()
    assert page.evaluate(DRAW, {"merge": True, "width": width}) == 2
    assert page.locator("#probe").screenshot() == whole
    page.evaluate("document.getElementById('probe').remove()")


def marks(name, **extra):
    return {"type": "scatter", "mode": "markers", "x": [1, 2], "y": [0, 1], "name": name,
            "legendgroup": name, "marker": {"size": 10, "color": "#d95f02"}, **extra}


def test_only_alike_marker_traces_in_a_row_are_merged_and_one_legend_entry_each(page):
    hidden = {"showlegend": False}
    cases = {
        "a run, its first in the legend": [marks("a", showlegend=True), marks("a", **hidden), marks("a", **hidden)],
        "a run, its last in the legend by default": [marks("a", **hidden), marks("a")],
        "two entries in the legend": [marks("a"), marks("a")],
        "not in a row": [marks("a", **hidden), marks("b"), marks("a", **hidden)],
        "lines": [{**marks("a", **hidden), "mode": "lines"}, {**marks("a", **hidden), "mode": "lines"}],
        "a list per point": [marks("a", text=["p", "q"], **hidden), marks("a", text=["p", "q"], **hidden)],
        "another colour": [marks("a", **hidden), {**marks("a", **hidden), "marker": {"size": 10, "color": "#1b9e77"}}],
    }
    out = dict(zip(cases, page.evaluate(RULE, list(cases.values()))))
    first = out["a run, its first in the legend"]
    assert len(first) == 1 and first[0]["x"] == [1, 2] * 3 and first[0]["y"] == [0, 1] * 3
    assert first[0]["showlegend"] is True
    last = out["a run, its last in the legend by default"]
    assert len(last) == 1 and "showlegend" not in last[0] and last[0]["x"] == [1, 2, 1, 2]
    for name in ("two entries in the legend", "lines", "a list per point", "another colour"):
        assert out[name] == cases[name], name
    assert out["not in a row"] == cases["not in a row"]
    assert page.evaluate(f"async () => {{ {VIEW} return view.merged({{layout: {{}}}}); }}") == {"layout": {}}
