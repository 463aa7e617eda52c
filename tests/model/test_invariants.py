"""Properties that must hold whatever the settings."""

import math

import pytest

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

import oracle
import sim
from sim.model import costs, layouts
from sim.settings import FIELDS

A100 = costs.CHIPS["A100"]  # the lesson's GPU: its read cost and writing step

SLIDER = {name: f.metadata["slider"] for name, f in FIELDS.items() if f.metadata["slider"]}


def slider(name):
    return st.sampled_from(SLIDER[name])


settings_strategy = st.builds(
    sim.Settings, rps=slider("rps"), prompt=slider("prompt"), reply=slider("reply"),
    link=slider("link"), ttft_target=slider("ttft_target"), gap_target=slider("gap_target"),
    requests=st.integers(1, 400), seed=st.integers(0, 2**32))

fast = hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(settings_strategy)
def test_goodput_is_a_share(s):
    r = sim.Lab().compare(s)
    for layout in ("shared", "split"):
        m = r[layout]
        assert 0.0 <= m["goodput"] <= 1.0
        assert m["good"] == round(m["goodput"] * m["requests"])
        shares = m["goodput"] + m["missed_ttft_only"] + m["missed_gap_only"] + m["missed_both"]
        assert math.isclose(shares, 1.0)
        assert m["ttft_p50"] <= m["ttft_p99"] <= m["ttft_max"]
        assert m["gap_p50"] <= m["gap_p99"] <= m["gap_max"] or m["gap_max"] == 0.0


@fast
@given(settings_strategy, st.data())
def test_looser_targets_never_lower_goodput(s, data):
    lab = sim.Lab()
    before = lab.compare(s)
    looser = s.but(ttft_target=data.draw(st.floats(s.ttft_target, 3600.0)),
                   gap_target=data.draw(st.floats(s.gap_target, 60.0)))
    after = lab.compare(looser)
    for layout in ("shared", "split"):
        assert after[layout]["goodput"] >= before[layout]["goodput"]


@fast
@given(settings_strategy, st.data())
def test_faster_link_never_lowers_split_goodput(s, data):
    """Holds while the writer has free slots and the gap target allows a first gap (under two
    steps): then only the time to first word decides, and a faster link only shortens it."""
    s = s.but(gap_target=max(s.gap_target, 2 * A100.step))
    faster = s.but(link=data.draw(st.sampled_from([g for g in SLIDER["link"] if g >= s.link])))
    jobs = oracle.draw(s.rps, s.prompt, s.reply, s.requests, s.seed)
    if max(oracle.writer_peak(jobs, g) for g in (s.link, faster.link)) < costs.SLOTS:
        lab = sim.Lab()
        assert lab.compare(faster)["split"]["goodput"] >= lab.compare(s)["split"]["goodput"]


@pytest.mark.parametrize("s, faster_link", [
    # Gap target under two steps: the first gap depends on where a reply lands in the
    # writer's step, and a faster link moves that.
    (sim.Settings(rps=7.5, prompt=2000, reply=670, gap_target=0.015, requests=50, seed=20), 30.0),
    # Writer full: arriving earlier can mean queueing behind a different set of replies.
    (sim.Settings(rps=4.0, prompt=300, reply=980, link=0.6, ttft_target=2.0, gap_target=0.2,
                  requests=600, seed=90), 6.0),
])
def test_outside_those_conditions_a_faster_link_can_lower_goodput(s, faster_link):
    """The model's honest exceptions to the rule above (the page's text says so too)."""
    lab = sim.Lab()
    assert lab.compare(s.but(link=faster_link))["split"]["goodput"] < lab.compare(s)["split"]["goodput"]


@fast
@given(settings_strategy)
def test_split_gaps_are_one_step_while_the_writer_has_free_slots(s):
    jobs = oracle.draw(s.rps, s.prompt, s.reply, s.requests, s.seed)
    words = oracle.split(jobs, s.link)
    peak = oracle.writer_peak(jobs, s.link)
    lab = sim.Lab()
    run = layouts.split(lab.workload(s), s)  # as made: the lab's cached runs let their gaps go
    if peak < costs.SLOTS:
        # Every gap is one step, but a reply's first: it waits for the step in progress.
        for _, gaps in words.values():
            assert all(math.isclose(g, A100.step) for g in gaps[1:])
            assert all(g < 2 * A100.step for g in gaps[:1])
        assert not run.burst_gaps
        assert max(run.max_gap) < 2 * A100.step


def test_a_full_writer_makes_longer_gaps():
    """The counterpart of the test above: with the slots full, replies wait longer."""
    s = sim.Settings(rps=20.0, prompt=100, reply=1000, requests=400)
    jobs = oracle.draw(s.rps, s.prompt, s.reply, s.requests, s.seed)
    assert oracle.writer_peak(jobs, s.link) == costs.SLOTS
    assert sim.compare(**s.as_dict())["split"]["gap_max"] > 2 * A100.step
