"""A chart's sketch: the page's first picture of a chart after a change. Fewer points, each one
exact for the new settings (the very value the whole chart gives there), never interpolated;
then the whole chart, unchanged by the sketch coming first."""

import json

import pytest

import sim
from sim.show.curves import sketch_points
from sim.show.figures import FIGURES
from sim.show import page as page_module
from sim.show.page import Page

SKETCHED = [name for name, f in FIGURES.items() if f.sketch]
RATIOS = ["ratio", "traces_ratio"]  # figures 6 and 8: their bars first, then their lines
ALONG = [name for name in SKETCHED if name not in RATIOS]  # the charts along one setting
EXPLORER = {"gpus": 4, "readers": 2, "chunk": 512, "routing": "least-loaded"}
SETTINGS = [{"prompt": 1400}, {"reply": 350, "rps": 7.0}, {**EXPLORER, "prompt": 1200},
            {"gpus": 3, "readers": 2, "rps": 5.5}]


def ask(page, request):
    return json.loads(page.handle(json.dumps(request)))


def sketch_then_whole(page, name, settings):
    """Ask as the page does: for the sketch, then for the rest from where it stopped."""
    part, sketch, asked = 0, None, 0
    for wanted in (True, False):
        while True:
            reply = ask(page, {"type": "figure", "name": name, "part": part, "settings": settings,
                               **({"sketch": True} if wanted else {})})
            asked += 1
            part = reply["next"]
            if "sketch" in reply:
                assert wanted and reply["next"] < reply["parts"]
                sketch = reply
                break
            if "figure" in reply:
                return sketch, reply
    raise AssertionError("unreachable")


def test_the_main_charts_and_figures_3_4_6_and_8_have_sketches():
    assert SKETCHED == ["goodput", "gap", "link", "prompt", "ratio", "traces_ratio"]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("name", ALONG)
def test_every_point_of_a_sketch_is_the_whole_charts_point(name, settings):
    page = Page()
    ask(page, {"type": "compare", "settings": settings})  # as on the page: the numbers first
    sketch, whole = sketch_then_whole(page, name, settings)
    assert sketch is not None, "a sketch comes before the whole chart"
    drawn = FIGURES[name].render(sim.Lab(), sim.Settings.make(**settings))
    assert whole["figure"] == json.loads(json.dumps(drawn["figure"]))  # the sketch changed nothing
    over = {"prompt": "prompt", "link": "link"}.get(name, "rps")
    s = sim.Settings.make(**settings)
    wanted = list(sketch_points(over, s))
    lines = {trace["name"]: trace for trace in whole["figure"]["data"]}
    for trace in sketch["sketch"]["data"]:
        full = lines[trace["name"]]
        if trace["name"] in ("this setting", "gap target"):  # the circle at the current value, the target
            assert trace["x"] == full["x"] and trace["y"] == full["y"] or trace["name"] == "gap target"
            continue
        assert trace["x"] == wanted  # every fourth point, the last, the current value
        at = dict(zip(full["x"], full["y"]))
        assert [at[x] for x in trace["x"]] == trace["y"]  # exact: the whole chart's own values
    assert len(wanted) < len(lines[sketch["sketch"]["data"][0]["name"]]["x"])


@pytest.mark.parametrize("settings", [{"gpus": 4, "readers": 1, "prompt": 2400}, {**EXPLORER, "rps": 9.0}],
                         ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("name", RATIOS)
def test_a_ratio_sketch_is_the_whole_figures_bars_and_nothing_else_moves(name, settings):
    """Figures 6 and 8: the sketch is the bars, each the whole figure's own (its goodput, its
    outline at the current ratio); the rate goodput line and the best are empty until they are
    worked out, and the layout is the whole figure's but for the rate axis's numbers."""
    page = Page()
    sketch, whole = sketch_then_whole(page, name, settings)
    assert sketch is not None, "a sketch comes before the whole figure"
    drawn = FIGURES[name].render(sim.Lab(), sim.Settings.make(**settings))
    assert whole["figure"] == json.loads(json.dumps(drawn["figure"]))  # the sketch changed nothing
    sketched, full = sketch["sketch"]["data"], whole["figure"]["data"]
    assert [(t["name"], t["xaxis"], t["yaxis"]) for t in sketched] == \
        [(t["name"], t["xaxis"], t["yaxis"]) for t in full]
    panels = 0
    for mine, theirs in zip(sketched, full):
        if mine["type"] == "bar":
            panels += 1
            assert mine == theirs  # every bar, its height and its outline
        else:
            assert mine["x"] == mine["y"] == [] and theirs["x"]
    assert panels == 2
    layout, whole_layout = sketch["sketch"]["layout"], whole["figure"]["layout"]
    for axis in ("yaxis2", "yaxis4"):
        assert layout[axis]["showticklabels"] is False and "tickvals" in whole_layout[axis]
    unnumbered = ("range", "tickvals", "ticktext", "showticklabels")
    assert {k: v for k, v in layout.items() if k != "meta" and k not in ("yaxis2", "yaxis4")} == \
        {k: v for k, v in whole_layout.items() if k != "meta" and k not in ("yaxis2", "yaxis4")}
    for axis in ("yaxis2", "yaxis4"):
        assert {k: v for k, v in layout[axis].items() if k not in unnumbered} == \
            {k: v for k, v in whole_layout[axis].items() if k not in unnumbered}


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("name", SKETCHED)
def test_a_sketch_needs_only_the_first_pieces_and_fewer_than_the_whole(name, settings):
    """The pieces come the sketch's first: once they are done, drawing the sketch simulates
    nothing more, and they are at most about a third of the whole chart's."""
    lab, s = sim.Lab(), sim.Settings.make(**settings)
    figure = FIGURES[name]
    pieces = figure.needs(lab, s)
    needed, drawing = figure.sketch(lab, s)
    for piece in pieces[:needed]:
        piece()
    before = lab.simulations
    drawing()
    assert lab.simulations == before
    for piece in pieces[needed:]:
        piece()
    assert 0 < before < 0.4 * lab.simulations


def test_once_the_whole_chart_is_known_a_sketch_request_gets_it_whole():
    page = Page()
    sketch_then_whole(page, "gap", {"prompt": 900})
    reply = ask(page, {"type": "figure", "name": "gap", "part": 0, "settings": {"prompt": 900},
                       "sketch": True})
    while "figure" not in reply:
        assert "sketch" not in reply  # its pieces are all cached: no sketch is needed
        reply = ask(page, {"type": "figure", "name": "gap", "part": reply["next"],
                           "settings": {"prompt": 900}, "sketch": True})


def test_a_figure_without_a_sketch_comes_whole_when_asked_for_one():
    page = Page()
    part = 0
    while "figure" not in (reply := ask(page, {"type": "figure", "name": "rate", "part": part,
                                               "sketch": True, "settings": {"gpus": 4}})):
        assert "sketch" not in reply
        part = reply["next"]


def test_a_bad_sketch_value_is_refused():
    reply = ask(Page(), {"type": "figure", "name": "goodput", "part": 0, "sketch": "yes",
                         "settings": {}})
    assert reply == {"error": "sketch must be true or false; got 'yes'"}


@pytest.mark.parametrize("name", SKETCHED)
def test_a_sketch_comes_as_soon_as_its_pieces_are_simulated(name, monkeypatch):
    """Not at the end of the slice: with a slice that never ends, the reply comes with the
    sketch exactly when its last piece is done, and the rest is left for the next requests."""
    monkeypatch.setattr(page_module, "SLICE", 3600.0)
    page, settings = Page(), {"prompt": 1300, "reply": 170}
    needed, _ = FIGURES[name].sketch(page.lab, sim.Settings.make(**settings))
    reply = ask(page, {"type": "figure", "name": name, "part": 0, "settings": settings, "sketch": True})
    assert "sketch" in reply and "figure" not in reply
    assert reply["next"] == needed < reply["parts"]


def test_a_sketch_whose_pieces_another_simulated_comes_after_one_piece_more(monkeypatch):
    """The two main charts share their runs: once the first one's sketch is simulated, the
    second's pieces are all done. Its sketch then comes as soon as a piece needs simulating
    (one piece past its own), not at the end of a slice, which here never ends."""
    monkeypatch.setattr(page_module, "SLICE", 3600.0)
    page, settings = Page(), {"prompt": 1100, "reply": 190}
    s = sim.Settings.make(**settings)
    assert FIGURES["goodput"].sketch(page.lab, s)[0] == FIGURES["gap"].sketch(page.lab, s)[0]
    first = ask(page, {"type": "figure", "name": "goodput", "part": 0, "settings": settings, "sketch": True})
    before = page.lab.simulations
    needed, _ = FIGURES["gap"].sketch(page.lab, s)
    reply = ask(page, {"type": "figure", "name": "gap", "part": 0, "settings": settings, "sketch": True})
    assert "sketch" in first and "sketch" in reply and "figure" not in reply
    assert reply["next"] == needed + 1 < reply["parts"]
    assert page.lab.simulations == before + 1
