"""A finding from too few requests says so, in its own sentence; a window of your own file is
your file's alone (figures 7 and 8 put the lesson's and Azure's windows beside it); figure 6
says which axis each mark reads on, and with one ratio that it is the only one; a trace's
words give its recorded rate beside the load it is replayed at."""

import pytest

import sim
from sim.show.figures import FIGURES
from sim.show.page import compare_message
from sim.show.numbers import SETTLES

SHORT = "arrival_s,prompt_tokens,reply_tokens\n" + "".join(
    f"{k * 0.36:.2f},{300 + (k * 7919) % 3500},{5 + (k * 104729) % 400}\n" for k in range(12))
CAVEAT = "too few to settle it"


def caption(lab, name, s):
    return FIGURES[name].render(lab, s)


@pytest.mark.parametrize("name", ["verdict", "rate", "ratio"])
def test_a_finding_from_too_few_requests_says_so_in_its_own_sentence(name):
    lab = sim.Lab()
    few = caption(lab, name, sim.Settings(requests=12, gpus=3))
    assert CAVEAT in few["caption"]
    key = {"verdict": "verdict", "rate": "rate", "ratio": "ratio"}[name]
    assert few["shown"][f"{key}.thin"] == "12" and few["shown"][f"{key}.settles"] == f"{SETTLES:,}"
    if name == "verdict":  # one sentence: the caveat before its claim
        assert few["caption"].count(". ") == 0 and few["caption"].index(CAVEAT) < few["caption"].index("serves")
    for enough in (SETTLES, 600):
        assert CAVEAT not in caption(lab, name, sim.Settings(requests=enough, gpus=3))["caption"]


def test_the_headline_says_so_too_and_the_lesson_s_stays_byte_for_byte():
    lab = sim.Lab()
    few = compare_message(lab, sim.Settings(requests=12))
    assert few["headline"].endswith("{split.goodput} (only {headline.thin} requests: too few to "
                                    "settle it, which takes about {headline.settles}).")
    assert few["shown"]["headline.thin"] == "12"
    lesson = compare_message(lab, sim.Settings())
    assert lesson["headline"] == ("Within both targets, sharing the two GPUs serves {shared.goodput} of "
                                  "requests; splitting them serves {split.goodput}.")
    assert not any(key.startswith("headline.") for key in lesson["shown"])


def test_figure_6_with_one_ratio_calls_it_the_only_one_and_names_each_mark_s_axis():
    lab = sim.Lab()
    drawn = caption(lab, "ratio", sim.Settings())  # 2 GPUs: 1:1 alone
    names = [trace["name"] for trace in drawn["figure"]["data"][:3]]
    assert names == ["goodput (left axis)", "rate goodput (right axis)", "the only ratio (right axis)"]
    assert "best" not in drawn["caption"] and "1:1 is the only ratio" in drawn["caption"]
    assert all(t.get("text") != ["best"] for t in drawn["figure"]["data"])
    assert "(ring, right axis)" in drawn["caption"] and "(bar, left axis)" in drawn["caption"]
    more = caption(lab, "ratio", sim.Settings(gpus=8, rps=16.0))
    assert [t["name"] for t in more["figure"]["data"][:3]][2] == "best (right axis)"
    assert "(line, its best ringed, right axis)" in more["caption"]


def test_a_small_file_leaves_figure_7_the_lesson_s_and_azure_s_windows():
    lab = sim.Lab()
    s = lab.given(sim.Settings(requests=12), SHORT)
    drawn = caption(lab, "know", s)
    shown = drawn["shown"]
    assert shown["know.requests"] == "12" and shown["know.others"] == "600"
    lesson = sim.compare()
    assert shown["know.lesson_shared"] == f"{lesson['shared']['goodput'] * 100:.1f}%"  # 13.5%
    assert shown["know.code_cv"] == f"{sim.traffic(traffic='azure-code')['gap_cv']:.2f}" == "13.90"
    assert "Its bursts, not only its lengths, decide." in drawn["caption"]
    assert "12 requests of your file, too few to settle it" in drawn["caption"]
    eight = caption(lab, "traces_ratio", s)
    assert eight["shown"]["traces.requests"] == "600"


def test_figure_7_says_whether_bursts_decide_from_its_runs():
    lab = sim.Lab()
    thin = caption(lab, "know", sim.Settings(traffic="azure-chat", requests=12))["caption"]
    assert "decide." not in thin.replace("cannot tell whether its bursts or its lengths decide.", "")
    assert "12 requests each, too few to settle it" in thin
    drowned = caption(lab, "know", sim.Settings(traffic="azure-code", rps=16.0))["caption"]
    code = [sim.compare(traffic="azure-code", rps=16.0, arrivals=a) for a in ("recorded", "poisson")]
    moved = max(abs(code[0][n]["goodput"] - code[1][n]["goodput"]) for n in ("shared", "split"))
    assert moved < 0.10 and "its lengths decide." in drowned and "not only" not in drowned


def test_a_window_past_the_other_trace_s_end_is_brought_within_it():
    lab = sim.Lab()
    s = sim.Settings(traffic="azure-chat", trace_start=10_000)  # Azure code has 8,819
    for name in ("know", "traces_ratio"):
        assert caption(lab, name, s)["caption"]  # drawn, not refused


def test_a_trace_s_words_give_its_recorded_rate_and_the_load_it_is_replayed_at():
    lab = sim.Lab()
    s = lab.given(sim.Settings(requests=12), SHORT)
    words = caption(lab, "traffic", s)
    assert words["shown"]["traffic.recorded_rps"] == "2.78"  # 11 gaps over 3.96 s
    assert "recorded at 2.78 req/s, replayed over" in words["caption"]
    assert "its own spacing scaled to the load" in words["caption"]
    lesson = caption(lab, "traffic", sim.Settings())
    assert "recorded" not in lesson["caption"]
