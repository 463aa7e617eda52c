"""The lab's caches: a target change re-scores, a sweep reuses the draws."""

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
