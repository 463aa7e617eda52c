"""A main chart's points spread over two workers (sim.show.page: "help" and "told"), natively:
two Pages stand for the page's two workers, a third for a worker alone."""

import json

import pytest

from sim.settings import Settings
from sim.show.curves import sketch_points
from sim.show.page import Page


def ask(page, request):
    return json.loads(page.handle(json.dumps(request)))


def whole(page, name, settings):
    """The figure as a worker alone draws it, piece by piece."""
    reply = {"next": 0}
    while "figure" not in reply:
        reply = ask(page, {"type": "figure", "name": name, "settings": settings, "part": reply["next"]})
    return reply


def helped(name, settings):
    """The figure as the page's first worker draws it while the second helps: a help request
    after each of the first's, its points handed on with the first's next request."""
    first, second = Page(), Page()
    ask(first, {"type": "compare", "settings": settings})
    reply, done, told, left, gave = {"next": 0}, 0, [], None, []
    while "figure" not in reply:
        reply = ask(first, {"type": "figure", "name": name, "settings": settings,
                            "part": reply["next"], "told": told})
        told = []
        if left != 0 and "next" in reply:
            helping = ask(second, {"type": "help", "name": name, "settings": settings,
                                   "done": done, "main": reply["next"]})
            told, done, left = [helping["points"]], helping["done"], helping["left"]
            gave += json.loads(helping["points"])
    return reply, first, second, gave


@pytest.mark.parametrize("name", ["goodput", "gap"])
@pytest.mark.parametrize("settings", [{"prompt": 1300}, {"reply": 150, "chunk": 512},
                                      {"traffic": "azure-code", "requests": 400}],
                         ids=["lesson", "chunked", "azure"])
def test_a_chart_drawn_with_told_points_is_the_chart_drawn_alone(name, settings):
    alone = Page()
    expected = whole(alone, name, settings)
    got, first, second, gave = helped(name, settings)
    for key in ("figure", "caption", "template", "shown"):
        assert got[key] == expected[key], key
    assert gave and second.lab.simulations > 0, "the second worker simulated some points"
    assert first.lab.simulations < alone.lab.simulations, "and the first did not simulate them"


def test_help_takes_the_rest_from_the_end_never_the_sketch_nor_this_setting():
    settings = {"prompt": 1300, "rps": 2.7}
    s = Settings.make(**settings)
    page, done, seen, left = Page(), 0, [], None
    while left != 0:
        reply = ask(page, {"type": "help", "name": "goodput", "settings": settings, "done": done, "main": 0})
        points = json.loads(reply["points"])
        assert points, "each request that has points left gives one at least"
        seen += [p["settings"]["rps"] for p in points]
        done, left = reply["done"], reply["left"]
    sketch = set(sketch_points("rps", s))
    assert s.rps in sketch and not sketch & set(seen)
    assert seen == sorted(seen, reverse=True) and len(seen) == len(set(seen))
    # what the first worker has done, and the point it is on, are left to it
    reply = ask(Page(), {"type": "help", "name": "goodput", "settings": settings, "done": 0,
                         "main": 2 * (len(sketch) + len(seen) - 3)})
    assert [p["settings"]["rps"] for p in json.loads(reply["points"])] == seen[:2] and reply["left"] == 0


@pytest.mark.parametrize("name, settings", [
    ("goodput", {"gpus": 4, "readers": 2}),  # the explorer's load axis is found as it is simulated
    ("link", {}),  # a lane figure: the second worker draws it itself
    ("stall", {}),
], ids=["explorer", "figure 3", "figure 1"])
def test_help_has_nothing_to_do_where_a_chart_has_no_points_known_before(name, settings):
    page = Page()
    assert ask(page, {"type": "help", "name": name, "settings": settings}) == {"points": "[]", "done": 0, "left": 0}
    assert page.lab.simulations == 0


def test_a_trace_of_your_own_is_never_helped_nor_told():
    page = Page()
    ask(page, {"type": "trace", "text": "arrival_s,prompt_tokens,reply_tokens\n" + "".join(
        f"{k * 0.2},{500 + k},{100 + k}\n" for k in range(300)), "name": "mine.csv"})
    own = {"traffic": "own", "requests": 200}
    assert ask(page, {"type": "help", "name": "goodput", "settings": own})["left"] == 0
    point = ask(page, {"type": "compare", "settings": own})["result"]
    reply = ask(page, {"type": "figure", "name": "goodput", "settings": own, "told": [json.dumps([point])]})
    assert "for the lesson's traffic or a shipped trace" in reply["error"]


POINT = {"settings": {"rps": 2.0}, "shared": {"goodput": 1.0}, "split": {"goodput": 1.0}}


def told(*points):
    return [json.dumps(list(points))]


@pytest.mark.parametrize("request_, error", [
    ({"type": "figure", "name": "goodput", "told": {"rps": 2}}, "told points are a list of help replies' points"),
    ({"type": "figure", "name": "goodput", "told": [POINT]}, "told points are a list of help replies' points"),
    ({"type": "figure", "name": "goodput", "told": ["[{"]}, "told points are a help reply's points, as JSON text; got '[{'"),
    ({"type": "figure", "name": "goodput", "told": ['{"a": 1}']}, "told points are a list of compare results"),
    ({"type": "figure", "name": "goodput", "told": told(3)}, "a told point is a compare result, with its settings"),
    ({"type": "figure", "name": "goodput", "told": told(POINT, {**POINT, "settings": {"rps": -2}})},
     "a told point's settings: rps must be a number from 0.01 to 1000 req/s; got -2"),
    ({"type": "figure", "name": "goodput", "told": told({"settings": {"rps": 2.0}, "shared": {}})},
     "a told point holds the settings and each layout's measures"),
    ({"type": "figure", "name": "goodput", "told": told({**POINT, "split": 0.5})},
     "a told point holds the settings and each layout's measures"),
    ({"type": "help", "name": "nope"}, "unknown figure 'nope'; known: goodput, gap"),
    ({"type": "help", "name": "goodput", "done": 99}, "done must be a whole number from 0 to 13; got 99"),
    ({"type": "help", "name": "goodput", "done": True}, "done must be a whole number from 0 to 13; got True"),
    ({"type": "help", "name": "goodput", "main": -1}, "main must be a whole number from 0; got -1"),
    ({"type": "help", "name": "goodput", "main": 1.5}, "main must be a whole number from 0; got 1.5"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_bad_help_and_told_points_get_one_clear_error(request_, error):
    page = Page()
    reply = ask(page, request_)
    assert set(reply) == {"error"} and reply["error"].startswith(error)
    assert page.lab.simulations == 0 and not page.lab.told, "and nothing is taken"
