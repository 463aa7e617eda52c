"""The lab's caches: a target change re-scores, a sweep reuses the draws."""

import pytest

import sim
from sim.settings import Settings


def test_changing_only_a_target_does_not_simulate_again():
    lab = sim.Lab()
    first = lab.compare(Settings())
    assert lab.simulations == 2  # shared and split
    looser = lab.compare(Settings(ttft_target=2.0, gap_target=0.2))
    assert lab.simulations == 2
    assert looser["shared"]["goodput"] > first["shared"]["goodput"]
    assert looser == sim.compare(ttft_target=2.0, gap_target=0.2)


def test_a_new_link_reruns_only_the_split():
    lab = sim.Lab()
    lab.compare(Settings())
    lab.compare(Settings(link=1.25))
    assert lab.simulations == 3


def test_sweep_equals_separate_compares():
    lab = sim.Lab()
    out = lab.sweep(Settings(), "rps", [1.0, 4.0, 10.0])
    assert len(lab._draws) == 1  # one set of draws, scaled three times
    for p in out["points"]:
        assert {k: p[k] for k in ("settings", "shared", "split")} == sim.compare(rps=p["value"])


def test_cache_is_bounded():
    lab = sim.Lab(budget=1000)
    for rps in (1.0, 2.0, 3.0, 4.0):
        lab.compare(Settings(rps=rps))
    assert lab._held <= 1000 + 600
    assert lab.compare(Settings(rps=1.0)) == sim.compare(rps=1.0)


def test_a_cached_run_lets_its_gaps_go_and_a_recorded_one_weighs_them():
    """A run of growing step costs keeps a gap a step (none is the regular step's). Measured
    as the lab caches it, it lets them go: a figure's runs of 70B's 800-word replies outgrew
    a page's budget, and drawing the figure simulated them all again. A run made to be
    watched keeps them, and weighs them, so that a page's Python stays within its budget
    (it once grew past 2 GB)."""
    from sim.model import layouts
    from sim.model.lab import weight
    from sim.model.metrics import measure
    lesson = sim.Lab().run("split", Settings())
    assert weight(lesson, 600) == 600
    s = Settings().but(model="70B", tp=2, gpus=4, readers=2, memory="kv", reply=800, rps=0.5,
                       ttft_target=2.0, requests=100)
    heavy = layouts.split(sim.Lab().workload(s), s)
    kept = len(heavy.first_gaps) + len(heavy.burst_gaps) + len(heavy.burst_counts)
    assert kept > 50 * s.requests
    assert weight(heavy, s.requests) == s.requests + kept // 4
    before = dict(measure(heavy))
    assert weight(heavy, s.requests) == s.requests and not heavy.regular
    assert measure(heavy) == before
    lab = sim.Lab(budget=4 * s.requests)  # room for four such runs, as the lab caches them
    for rps in (0.5, 0.6, 0.7):
        lab.run("split", s.but(rps=rps))
    assert len(lab._runs) == 3 and lab._held == 3 * s.requests
    simulated = lab.simulations
    assert lab.compare(s.but(rps=0.5))["split"] == sim.Lab().compare(s.but(rps=0.5))["split"]
    assert lab.simulations == simulated + 1  # the shared layout's run alone


def test_crossover_in_steps_equals_in_one_go():
    lab = sim.Lab()
    s = Settings(rps=6.0, prompt=3000)
    steps = 0
    while not lab.crossover_step(s):
        steps += 1
    assert 3 <= steps <= 45
    assert lab.crossover(s) == sim.Lab().crossover(s)
    assert lab.crossover(s.but(link=1.0))["link"] == lab.crossover(s)["link"]  # link-free


def test_sim_compare_rescores_a_target_change_without_simulating(monkeypatch):
    calls = []
    for name in ("shared", "split"):
        engine = getattr(sim.model.layouts, name)
        monkeypatch.setattr(sim.model.layouts, name,
                            lambda *args, _engine=engine, _name=name: calls.append(_name)
                            or _engine(*args))
    monkeypatch.setattr(sim.model.lab, "DEFAULT_LAB", sim.Lab())  # an empty cache to start from
    first = sim.compare(seed=11)
    assert calls == ["shared", "split"]
    looser = sim.compare(seed=11, ttft_target=2.0, gap_target=0.2)
    assert calls == ["shared", "split"]  # scored again, not simulated again
    assert looser["shared"]["goodput"] > first["shared"]["goodput"]
    sim.compare(seed=11, link=1.25)
    assert calls == ["shared", "split", "split"]  # a new link: only the split runs again
    assert looser == sim.Lab().compare(Settings(seed=11, ttft_target=2.0, gap_target=0.2))


# ---- real traffic: the runs of a trace are keyed by which trace, window and arrivals ----

TRACE = "arrival_s,prompt_tokens,reply_tokens\n" + "".join(
    f"{k * 0.3:.1f},{300 + k * 611 % 4000},{2 + k * 37 % 250}\n" for k in range(200))


def test_with_a_trace_prompt_and_reply_play_no_part():
    lab = sim.Lab()
    s = Settings(traffic="azure-chat", requests=200)
    first = lab.compare(s)
    runs = lab.simulations
    other = lab.compare(s.but(prompt=100, reply=900))
    assert lab.simulations == runs
    assert {k: other[k] for k in ("shared", "split")} == {k: first[k] for k in ("shared", "split")}
    with pytest.raises(ValueError, match="prompt has no effect"):
        lab.sweep(s, "prompt", [100, 200])


def test_each_trace_window_and_arrivals_runs_on_its_own():
    lab = sim.Lab()
    s = Settings(requests=200)
    seen = {}
    for change in ({}, {"traffic": "azure-chat"}, {"traffic": "azure-code"},
                   {"traffic": "azure-code", "trace_start": 1}, {"traffic": "azure-code", "arrivals": "poisson"},
                   {"traffic": "azure-code", "arrivals": "poisson", "seed": 8}):
        before = lab.simulations
        seen[str(change)] = lab.compare(s.but(**change))["shared"]
        assert lab.simulations == before + 2
    assert len({str(v) for v in seen.values()}) == len(seen)
    # recorded arrivals draw nothing: the seed plays no part in them
    before = lab.simulations
    lab.compare(s.but(traffic="azure-code", seed=8))
    assert lab.simulations == before
    assert lab.compare(s) == sim.compare(requests=200)  # the lesson's, as before


def test_a_trace_of_your_own_is_known_by_its_rows_and_remembered():
    lab = sim.Lab()
    s = Settings(requests=150)
    mine = lab.compare(s, trace=TRACE)
    assert mine["settings"]["traffic"] == "own"
    runs = lab.simulations
    assert lab.compare(s, trace=TRACE.replace("\n", "\r\n")) == mine  # the same rows
    assert lab.compare(s.but(traffic="own")) == mine  # the one it was given last
    assert lab.simulations == runs
    other = TRACE.replace(",2", ",9")  # other replies: other runs
    assert lab.compare(s, trace=other)["shared"] != mine["shared"]
    rates = lab.rate(s, trace=TRACE), lab.rate(s, trace=sim.read_trace(other))
    assert rates[0] == sim.rate(trace=TRACE, requests=150) and rates[1] != rates[0]
    assert lab.rate(s, trace=TRACE) == rates[0]  # a finding is kept by which trace it is of


def test_the_rate_bisection_scales_one_window():
    lab = sim.Lab()
    lab.rate(Settings(traffic="azure-chat", requests=100))
    assert len(lab.sources._windows) == 1
    lab.rate(Settings(traffic="azure-chat", requests=100, arrivals="poisson"))
    assert len(lab.sources._windows) == 1 and len(lab.sources._spacings) == 1
