"""The traffic summary (traffic.md, "What the traffic looks like"): its keys, its numbers for
the lesson's draws and for a trace's window, and how they are summed."""

import ast
import math

import pytest

from conftest import ROOT

import oracle
import sim
from sim.workload.draws import Draws, Workload
from sim.workload.summary import burstiness

KEYS = ["requests", "span_s", "prompt_p50", "prompt_p90", "prompt_p99", "prompt_mean",
        "reply_p50", "reply_p90", "reply_p99", "reply_mean", "gap_cv"]


def test_the_lesson_s_traffic_has_the_spec_s_keys_and_its_draws_numbers():
    got = sim.traffic()
    assert list(got) == KEYS
    work = Workload(Draws(7, 600), 4.0, 2000, 200)
    assert got["span_s"] == work.arrivals[-1] - work.arrivals[0]
    assert (got["prompt_p50"], got["prompt_p99"], got["reply_p90"]) == (2000, 3000, 300)
    assert got["prompt_mean"] == math.fsum(work.prompts) / 600
    assert got == oracle.traffic()
    assert 0.9 < got["gap_cv"] < 1.1  # Poisson arrivals: about 1


def test_a_trace_s_summary_names_it_and_counts_what_it_leaves_out():
    got = sim.traffic(traffic="azure-code", requests=50, trace_start=100)
    assert list(got) == KEYS + ["name", "trace_requests", "left_out"]
    assert (got["name"], got["trace_requests"], got["left_out"]) == (
        "Azure LLM inference trace 2023 (code)", 8_819, 0)
    assert got["span_s"] == pytest.approx(49 / 4.0, rel=1e-15)  # recorded: (N - 1) / rps
    text = ("arrival_s,prompt_tokens,reply_tokens\n0,5,0\n1,10,3\n1,0,2\n2,20,4\n3,30,5\n")
    mine = sim.traffic(trace=text, requests=3)
    assert (mine["name"], mine["trace_requests"], mine["left_out"]) == ("the trace", 3, 2)
    assert (mine["prompt_p50"], mine["prompt_mean"], mine["reply_p99"]) == (20, 20.0, 5)
    assert mine["gap_cv"] == 0.0  # evenly spaced


def test_burstiness_is_none_for_one_request():
    assert sim.traffic(requests=1)["gap_cv"] is None
    assert sim.traffic(traffic="azure-chat", requests=1, arrivals="poisson")["gap_cv"] is None
    assert burstiness([3.0, 3.0, 3.0]) is None  # a mean gap of 0
    assert burstiness([0.0, 1.0, 2.0, 3.0]) == 0.0


def test_the_summary_is_the_arrivals_simulated():
    """Poisson arrivals keep the trace's lengths in order and change only the spacing; at
    another load, recorded arrivals keep the same shape, only stretched."""
    recorded = sim.traffic(traffic="azure-code")
    poisson = sim.traffic(traffic="azure-code", arrivals="poisson")
    assert {k: recorded[k] for k in KEYS[2:10]} == {k: poisson[k] for k in KEYS[2:10]}
    slower = sim.traffic(traffic="azure-code", rps=1.0)
    assert slower["gap_cv"] == pytest.approx(recorded["gap_cv"], rel=1e-12)
    assert slower["span_s"] == pytest.approx(4 * recorded["span_s"], rel=1e-12)


@pytest.mark.parametrize("start", [0, 3000, 8219])
def test_windows_along_the_code_trace_agree_with_the_oracle(start):
    for arrivals in ("recorded", "poisson"):
        got = sim.traffic(traffic="azure-code", trace_start=start, arrivals=arrivals)
        want = oracle.traffic(traffic="azure-code", trace_start=start, arrivals=arrivals)
        assert {k: got[k] for k in want} == want


def test_the_traffic_layer_sums_floats_only_with_fsum():
    """The same numbers on CPython 3.11 and 3.14: no float sum() or statistics.mean, whose
    rounding is not the same across versions (3.12 made sum() of floats compensated)."""
    for path in (ROOT / "sim" / "workload").glob("*.py"):
        tree = ast.parse(path.read_text())
        calls = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Name)]
        assert "sum" not in calls, path
        assert "statistics" not in path.read_text(), path
