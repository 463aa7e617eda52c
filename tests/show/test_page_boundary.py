"""The one boundary with JavaScript, natively: JSON in, JSON out, clear errors."""

import json

import pytest

import sim
from sim.show.figures import FIGURES
from sim.show.page import Page
from sim.show.report import HEADLINE, fill, shown


@pytest.fixture
def page():
    return Page()


def ask(page, request):
    return json.loads(page.handle(json.dumps(request)))


def test_compare(page):
    reply = ask(page, {"type": "compare", "settings": {"rps": 10}})
    assert reply["result"] == sim.compare(rps=10)
    texts = {key: text for key, text in reply["shown"].items() if not key.startswith("intro.")}
    assert texts == shown(sim.compare(rps=10))
    assert reply["headline"] == HEADLINE
    # the introduction's sentences that follow the GPUs: the lesson's own words at two
    assert reply["intro"] == {"gpus": "Two GPUs serve a language model.",
                              "split": "one GPU only reads, the other only writes"}


def test_figures_come_in_pieces_then_whole(page):
    for name, figure in FIGURES.items():
        part, pieces = 0, 0
        while True:
            reply = ask(page, {"type": "figure", "name": name, "part": part,
                               "settings": {"prompt": 3000}})
            pieces += 1
            if "figure" in reply:
                break
            assert part < reply["next"] <= reply["parts"]
            part = reply["next"]
        drawn = figure.render(sim.Lab(), sim.Settings(prompt=3000))
        assert {k: reply[k] for k in drawn} == json.loads(json.dumps(drawn))
        assert reply["caption"] == fill(reply["template"], reply["shown"])
        again = ask(page, {"type": "figure", "name": name, "part": 0, "settings": {"prompt": 3000}})
        assert "figure" in again  # cached runs: one request is enough


@pytest.mark.parametrize("request_, error", [
    ({"type": "compare", "settings": {"rps": -1}}, "rps must be a number from 0.01 to 1000"),
    ({"type": "compare", "settings": {"speed": 1}}, "unknown setting 'speed'"),
    ({"type": "compare", "settings": [1]}, "settings must be an object"),
    ({"type": "dance"}, "unknown request type 'dance'"),
    ({"type": "figure", "name": "pie"}, "unknown figure 'pie'"),
    ({"type": "figure", "name": "gap", "part": 99},
     f"part must be a whole number from 0 to {len(FIGURES['gap'].needs(sim.Lab(), sim.Settings()))}"),
    ({"type": "figure", "name": "gap", "part": "1"}, "part must be a whole number"),
    ([1, 2], "a request is a JSON object"),
])
def test_bad_requests_get_one_clear_error(page, request_, error):
    reply = ask(page, request_)
    assert list(reply) == ["error"] and error in reply["error"]


def test_not_json(page):
    assert "error" in json.loads(page.handle("{nope"))


@pytest.mark.parametrize("name", ["link", "prompt"])  # the two that need the most runs
def test_a_figure_at_the_page_limits_is_drawn_from_its_pieces(name):
    """At the page's largest request count the lab keeps every run a figure's pieces made,
    so drawing it simulates nothing again: each request stays short, well within the page's
    deadline for a figure request."""
    from sim.settings import FIELDS

    page = Page()
    settings = {"requests": FIELDS["requests"].metadata["page"][1], "prompt": 8000, "rps": 20}
    part = 0
    while "figure" not in (reply := ask(page, {"type": "figure", "name": name, "part": part, "settings": settings})):
        part = reply["next"]
    before = page.lab.simulations
    again = ask(page, {"type": "figure", "name": name, "part": reply["parts"], "settings": settings})
    assert again["figure"] == reply["figure"]
    assert page.lab.simulations == before
