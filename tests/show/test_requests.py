"""What the requests look like on the page, and the verdict: every bar counts the window's own
requests, every number is sim.traffic's, sim.rate's or sim.ratio's, and the verdict names the
layout that serves the most per GPU."""

import pytest

import sim
from sim.show.figures import FIGURES
from sim.show.ratio import readers_to_writers
from sim.show.numbers import percent, rate
from sim.show.requests import counted, nice_width

TRAFFIC = [{}, {"traffic": "azure-chat"}, {"traffic": "azure-code", "arrivals": "poisson", "trace_start": 2000},
           {"traffic": "azure-code", "requests": 1, "arrivals": "poisson"}]


def test_bars_are_of_a_nice_width_and_hold_every_value():
    assert nice_width(7400, 24) == 500 and nice_width(585, 24) == 50 and nice_width(149.8, 60) == 5
    assert nice_width(0, 24) == 1.0
    bars = counted([0, 4.9, 5, 12, 12], 5.0)
    assert bars == [(0.0, 2), (5.0, 1), (10.0, 2)]


@pytest.mark.parametrize("settings", TRAFFIC, ids=lambda s: s.get("traffic", "lesson") + str(s.get("requests", "")))
def test_the_traffic_chart_counts_the_windows_requests_and_its_words_are_the_summary(settings):
    lab = sim.Lab()
    s = sim.Settings(**settings)
    drawn = FIGURES["traffic"].render(lab, s)
    work, summary = lab.workload(s), sim.traffic(**settings)
    prompts, replies, arrivals = drawn["figure"]["data"][:3]
    n = len(work.arrivals)
    assert sum(prompts["y"]) == pytest.approx(100) and sum(replies["y"]) == pytest.approx(100)
    width = arrivals["width"] / 0.9
    assert round(sum(y * width for y in arrivals["y"])) == n  # each arrival in one bar
    shown = drawn["shown"]
    assert shown["traffic.prompt_p50"] == f"{summary['prompt_p50']:,}"
    assert shown["traffic.reply_p99"] == f"{summary['reply_p99']:,}"
    assert shown["traffic.span_s"] == f"{summary['span_s']:,.1f}"
    assert shown.get("traffic.gap_cv") == (None if summary["gap_cv"] is None else f"{summary['gap_cv']:.2f}")
    if s.traffic != "lesson":
        assert shown["traffic.trace_requests"] == f"{summary['trace_requests']:,}"
        assert drawn["caption"].startswith(("Azure chat: requests", "Azure code: requests"))
    assert drawn["result"] == summary


@pytest.mark.parametrize("settings", [{}, {"traffic": "azure-chat", "gpus": 8, "rps": 16.0},
                                      {"gpus": 3, "readers": 2, "chunk": 512}, {"traffic": "azure-code", "gpus": 4}])
def test_the_verdict_names_the_layout_that_serves_most_per_gpu(settings):
    lab = sim.Lab()
    s = sim.Settings(**settings)
    words = FIGURES["verdict"].render(lab, s)
    rates, ratios = sim.rate(**settings), sim.ratio(**settings)
    best = max(ratios, key=lambda r: (r["rate"], r["goodput"]))
    offers = {"shared": rates["shared"], "split": best["rate"], **({"chunked": rates["chunked"]} if s.chunk else {})}
    winner = max(offers, key=offers.get)
    top, second = sorted(offers.values(), reverse=True)[:2]
    shown = words["shown"]
    assert words["caption"].startswith(f"For this traffic on {s.gpus} GPUs, ")
    assert shown["verdict.rate"] == rate(top) and shown["verdict.attainment"] == percent(s.attainment)
    assert shown["verdict.ratio"] == readers_to_writers(s, best["readers"])
    assert shown["verdict.times"] == f"{top / second:.3g}"
    said = {"shared": "sharing them serves", "split": "the split at", "chunked": "sharing them, reading prompts"}
    assert words["caption"].split(", ", 1)[1].startswith(said[winner])
    assert words["figure"] is None  # words only
