"""The one boundary with JavaScript, natively: JSON in, JSON out, clear errors."""

import json

import pytest

import sim
from sim.settings import FIELDS
from sim.show.figures import FIGURES
from sim.show.page import Page
from sim.show.report import HEADLINE
from sim.show.numbers import fill, shown


@pytest.fixture
def page():
    return Page()


def ask(page, request):
    return json.loads(page.handle(json.dumps(request)))


def test_compare(page):
    reply = ask(page, {"type": "compare", "settings": {"rps": 10}})
    assert reply["result"] == sim.compare(rps=10)
    texts = {key: text for key, text in reply["shown"].items() if not key.startswith(("intro.", "watch."))}
    assert texts == shown(sim.compare(rps=10))
    assert reply["headline"] == HEADLINE
    # the introduction's sentences that follow the GPUs: the lesson's own words at two; and
    # Watch it run's, why its reads are not all the prompt setting's
    assert reply["intro"] == {"gpus": "Two GPUs serve a language model.",
                              "split": "one GPU only reads, the other only writes",
                              "reads": "The lesson's prompts are half, once or one and a half times the "
                                       "prompt tokens set: the reads here are of {watch.small}, "
                                       "{watch.prompt} or {watch.large} tokens."}
    assert {key: reply["shown"][key] for key in ("watch.small", "watch.prompt", "watch.large")} == {
        "watch.small": "1,000", "watch.prompt": "2,000", "watch.large": "3,000"}


def test_figures_come_in_pieces_then_whole(page):
    for name, figure in FIGURES.items():
        if not figure.page:  # the files' own (figures 7, 8): below
            continue
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
        # asked again, it is drawn from cached runs: not one simulation more (in one request or
        # a few: each hands back after about SLICE seconds, and a busy machine is slow)
        before, part = page.lab.simulations, 0
        while "figure" not in (again := ask(page, {"type": "figure", "name": name, "part": part,
                                                   "settings": {"prompt": 3000}})):
            part = again["next"]
        assert again["figure"] == reply["figure"]
        assert page.lab.simulations == before, name


@pytest.mark.parametrize("request_, error", [
    ({"type": "compare", "settings": {"rps": -1}}, "rps must be a number from 0.01 to 1000"),
    ({"type": "compare", "settings": {"speed": 1}}, "unknown setting 'speed'"),
    ({"type": "compare", "settings": [1]}, "settings must be an object"),
    ({"type": "dance"}, "unknown request type 'dance'; known: compare, figure, help, traffic, trace"),
    ({"type": "patience", "settings": {"reply": 0}}, "reply must be a whole number from 2"),
    ({"type": "compare", "settings": {"traffic": "own"}}, "traffic=own needs a trace of your own"),
    ({"type": "trace", "text": 5}, "a trace request gives the file's text"),
    ({"type": "trace", "text": "arrival_s,prompt_tokens\n1,2\n"},
     "the trace, line 1: no reply tokens column"),
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


# the page's largest request count; and 70B's 800-word replies on two A100s with memory=kv,
# whose runs keep a gap for every step (a figure's once outgrew the lab's budget)
HEAVIEST = {"requests": FIELDS["requests"].metadata["page"][1], "prompt": 8000, "rps": 20}
KEEPS_EVERY_GAP = {"model": "70B", "tp": 2, "gpus": 4, "readers": 2, "memory": "kv", "reply": 800,
                   "rps": 0.5, "ttft_target": 2.0}


@pytest.mark.parametrize("settings", [HEAVIEST, KEEPS_EVERY_GAP], ids=["heaviest", "keeps-every-gap"])
@pytest.mark.parametrize("name", ["link", "prompt"])  # the two that need the most runs
def test_a_figure_at_the_page_limits_is_drawn_from_its_pieces(name, settings):
    """At the page's largest request count, and where runs keep a gap a step, the lab keeps
    every run a figure's pieces made, so drawing it simulates nothing again: each request
    stays short, well within the page's deadline for a figure request."""
    page = Page()
    part = 0
    while "figure" not in (reply := ask(page, {"type": "figure", "name": name, "part": part, "settings": settings})):
        part = reply["next"]
    before = page.lab.simulations
    again = ask(page, {"type": "figure", "name": name, "part": reply["parts"], "settings": settings})
    assert again["figure"] == reply["figure"]
    assert page.lab.simulations == before


def test_every_figure_is_on_the_page_and_figure_7_comes_in_pieces():
    """Every figure is on the page (page=True) but figures 10 and 11, of the settings the page
    does not offer yet (bigger models and memory): the build bakes the others, figures 7 and 8
    only for the states with a trace (they are shown only while a trace is chosen)."""
    assert [name for name, f in FIGURES.items() if not f.page] == ["models", "memory"]
    page = Page()
    part = 0
    settings = {"requests": 60}
    while "figure" not in (reply := ask(page, {"type": "figure", "name": "know", "part": part,
                                                "settings": settings})):
        part = reply["next"]
    drawn = FIGURES["know"].render(sim.Lab(), sim.Settings(requests=60))
    assert {k: reply[k] for k in drawn} == json.loads(json.dumps(drawn))


def test_traffic_and_a_trace_of_your_own(page):
    assert ask(page, {"type": "traffic", "settings": {"traffic": "azure-chat"}}) == \
        json.loads(json.dumps(sim.traffic(traffic="azure-chat")))
    text = "arrival_s,prompt_tokens,reply_tokens\n0,100,20\n0.5,0,3\n1,2000,50\n3,300,2\n"
    reply = ask(page, {"type": "trace", "text": text, "name": "mine.csv"})
    # recorded: the usable rows' 2 gaps over 3 s (the row with 0 tokens is left out)
    assert reply == {"trace": {"name": "mine.csv", "trace_requests": 3, "left_out": 1, "recorded": "0.667"}}
    own = {"traffic": "own", "requests": 3}
    assert ask(page, {"type": "compare", "settings": own})["result"] == \
        sim.compare(trace=text, requests=3)
    # a bad trace is refused with its line, and the one before it stays
    bad = ask(page, {"type": "trace", "text": text + "2,5,5\n"})
    assert bad == {"error": "the trace, line 6: the time '2' is earlier than the row before's "
                            "('3', line 5): rows must be in time order"}
    assert ask(page, {"type": "traffic", "settings": own})["name"] == "mine.csv"


def test_patience_grows_with_the_words_a_run_may_walk(page):
    """How many times its usual deadline a request may take (web/python.js): 1 wherever the
    fast loops take a request at a time, the lesson's heaviest included; where a run is walked
    a word at a time (memory=kv, costs=roofline, tp > 1), every word of every reply in each layout over
    the work the deadlines were set for (two layouts at the page's largest count)."""
    from sim.show.page import USUAL_WORK

    def patience(**settings):
        return ask(page, {"type": "patience", "settings": settings})["patience"]

    assert patience() == 1 and patience(**HEAVIEST, reply=1000, link=0.1) == 1
    assert USUAL_WORK == 2 * 6000
    assert patience(**KEEPS_EVERY_GAP) == 2 * 600 * 800 / USUAL_WORK  # 80
    assert patience(costs="roofline", requests=6000, reply=1000, chunk=512) == 3 * 6000 * 1000 / USUAL_WORK
    assert patience(memory="kv", requests=10, reply=100) == 1  # never below the usual
    # GPUs working as one: a writing step's all-reduce grows with its replies
    assert patience(gpus=32, readers=24, tp=2, requests=6000, reply=900, chunk=256) == 3 * 6000 * 900 / USUAL_WORK
    assert patience(gpus=4, readers=2, reader_tp=2) == 1  # the readers' reads: a request each
    # a trace's replies are its own: its longest stands for every one
    longest = max(sim.Lab().workload(sim.Settings(traffic="azure-code")).replies)
    assert patience(traffic="azure-code", costs="roofline") == 2 * 600 * longest / USUAL_WORK
