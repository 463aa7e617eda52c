"""Figures shown stage by stage: figures 7 and 9 come late in the figures' lane, asked for
whole, and take long (a panel of runs along the load for each kind of traffic; every layout's
rate bisection for each mix of chips). The page shows each panel or mix as soon as it is
worked out: every line or bar shown is the whole figure's own, the rest are empty in place,
and the whole figure is unchanged by coming in stages."""

import json

import pytest

import sim
from sim.show import page as page_module
from sim.show.figures import FIGURES
from sim.show.page import Page

STAGED = [name for name, f in FIGURES.items() if f.stages]
SETTINGS = {
    "know": [{"traffic": "azure-chat"}, {"gpus": 3, "readers": 2, "traffic": "azure-code", "rps": 6.0}],
    "chips": [{"gpus": 4, "readers": 2}, {"gpus": 3, "readers": 1, "reader_price": 2.5}],
}
CASES = [(name, settings) for name in STAGED for settings in SETTINGS[name]]


def ask(page, request):
    return json.loads(page.handle(json.dumps(request)))


def whole_as_the_page_asks(page, name, settings):
    """Ask for the figure whole from its first piece, then from each reply's next: the
    sketches that came on the way (with the piece each came at), and the whole reply."""
    part, sketches = 0, []
    while True:
        reply = ask(page, {"type": "figure", "name": name, "part": part, "settings": settings})
        part = reply["next"]
        if "figure" in reply:
            assert "sketch" not in reply
            return sketches, reply
        if "sketch" in reply:
            sketches.append((reply["next"], reply["sketch"]))


def native(name, settings):
    drawn = FIGURES[name].render(sim.Lab(), sim.Settings.make(**settings))
    return json.loads(json.dumps(drawn["figure"]))


def check_stage(name, stage, done, whole):
    """A stage drawn with `done` panels or mixes: theirs are the whole figure's own, the rest
    empty; the layout is the whole figure's but for what depends on the numbers shown."""
    assert [(t["name"], t.get("xaxis"), t.get("yaxis")) for t in stage["data"]] == \
        [(t["name"], t.get("xaxis"), t.get("yaxis")) for t in whole["data"]]
    if name == "chips":  # a bar per mix in each trace: the first `done` mixes' alone
        for mine, full in zip(stage["data"], whole["data"]):
            assert mine["x"] == full["x"]
            assert mine["y"] == full["y"][:done] + [None] * (len(full["y"]) - done)
        axes = ("yaxis", "yaxis2")  # their range follows the highest bar shown
    else:  # the traces of each panel in turn: the first `done` panels' alone
        per_panel = len(whole["data"]) // len(whole["layout"]["meta"]["panels"])
        for k, (mine, full) in enumerate(zip(stage["data"], whole["data"])):
            if k < done * per_panel:
                assert (mine["x"], mine["y"]) == (full["x"], full["y"])
            else:  # no point plotted, its load axis's ends the whole panel's (its range)
                assert mine["y"] and all(y is None for y in mine["y"])
                assert (min(mine["x"]), max(mine["x"])) == (min(full["x"]), max(full["x"]))
        axes = ()
    keep = lambda layout: {k: v for k, v in layout.items() if k not in axes}  # noqa: E731
    assert keep(stage["layout"]) == keep(whole["layout"])
    for axis in axes:
        assert {k: v for k, v in stage["layout"][axis].items() if k != "range"} == \
            {k: v for k, v in whole["layout"][axis].items() if k != "range"}


def test_figures_7_and_9_come_in_stages():
    assert STAGED == ["know", "chips"]
    assert not any(FIGURES[name].sketch for name in STAGED)  # asked for whole, never sketched first


@pytest.mark.parametrize("name,settings", CASES, ids=[f"{n}:{','.join(f'{k}={v}' for k, v in s.items())}"
                                                      for n, s in CASES])
def test_each_stage_shows_the_whole_figures_own_lines_and_bars_and_the_rest_empty(name, settings):
    page = Page()
    sketches, whole = whole_as_the_page_asks(page, name, settings)
    assert whole["figure"] == native(name, settings)  # the stages changed nothing
    stages = FIGURES[name].stages(page.lab, sim.Settings.make(**settings))
    assert [at for at, _ in sketches] == [needed for needed, _ in stages]  # each, in turn
    for done, (_, stage) in enumerate(sketches, start=1):
        check_stage(name, stage, done, whole["figure"])
    # asked again, all of it known: the whole at once, no stage on the way
    again, reply = whole_as_the_page_asks(page, name, settings)
    assert again == [] and reply["figure"] == whole["figure"]


@pytest.mark.parametrize("name,settings", CASES[::2], ids=STAGED)
def test_a_stage_needs_only_the_pieces_before_it(name, settings):
    """Each stage ends where its panel's or mix's pieces do: drawing it then simulates
    nothing more, and every stage leaves more to do."""
    lab, s = sim.Lab(), sim.Settings.make(**settings)
    figure = FIGURES[name]
    pieces, done = figure.needs(lab, s), 0
    for needed, drawing in figure.stages(lab, s):
        assert done < needed < len(pieces)
        for piece in pieces[done:needed]:
            piece()
        before = lab.simulations
        drawing()
        assert lab.simulations == before
        done = needed


@pytest.mark.parametrize("name,settings", CASES[::2], ids=STAGED)
def test_a_stage_comes_as_soon_as_it_is_done(name, settings, monkeypatch):
    """Not at the end of the slice: with a slice that never ends, each reply comes exactly at
    the end of a stage, and the last with the whole figure."""
    monkeypatch.setattr(page_module, "SLICE", 3600.0)
    page = Page()
    stages = FIGURES[name].stages(page.lab, sim.Settings.make(**settings))
    replies, part = [], 0
    while True:
        reply = ask(page, {"type": "figure", "name": name, "part": part, "settings": settings})
        replies.append(reply)
        part = reply["next"]
        if "figure" in reply:
            break
    assert [r["next"] for r in replies[:-1]] == [needed for needed, _ in stages]
    assert all("sketch" in r for r in replies[:-1])


def test_a_figure_asked_for_a_sketch_shows_no_stage():
    """The stages are for a figure asked for whole: asked for a sketch (a figure without
    one comes whole), figure 9 comes whole."""
    page = Page()
    part = 0
    settings = {"gpus": 3, "readers": 2}
    while "figure" not in (reply := ask(page, {"type": "figure", "name": "chips", "part": part,
                                               "sketch": True, "settings": settings})):
        assert "sketch" not in reply
        part = reply["next"]
