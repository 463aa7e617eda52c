"""The fast engine agrees with the step-by-step oracle across the sliders' whole ranges: every
measure, and each request by its index (tests/agreement.py)."""

import random

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

import oracle
import sim
from agreement import agree
from sim.settings import FIELDS

SLIDERS = ("rps", "prompt", "reply", "link", "ttft_target", "gap_target")


def random_settings(rng, requests):
    values = {name: rng.choice(FIELDS[name].metadata["slider"]) for name in SLIDERS}
    return sim.Settings(**values, requests=requests, seed=rng.randrange(2**32))


rng = random.Random(20261129)
CASES = [random_settings(rng, rng.choice((50, 150, 300))) for _ in range(300)]
CASES += [random_settings(rng, 600) for _ in range(40)]
OVERLOADED = [  # slots full, the reader far behind, both
    sim.Settings(rps=20.0, prompt=8000, reply=1000, link=0.1),
    sim.Settings(rps=20.0, prompt=100, reply=1000, link=400.0),
    sim.Settings(rps=12.0, prompt=8000, reply=10, ttft_target=5.0, gap_target=0.5),
    sim.Settings(rps=3.0, prompt=8000, reply=1000, requests=300),
]


@pytest.mark.parametrize("s", CASES, ids=lambda s: f"{s.rps}-{s.prompt}-{s.reply}-{s.link}")
def test_random_slider_settings(s):
    agree(s)


@pytest.mark.parametrize("s", OVERLOADED, ids=str)
def test_overloaded(s):
    agree(s)
    jobs = oracle.draw(s.rps, s.prompt, s.reply, s.requests, s.seed)
    assert oracle.writer_peak(jobs, s.link) == 32 or s.rps * s.prompt * oracle.READ_COST > 1


def test_cases_cover_overload():
    """The random cases include the regimes that stress the engine, not only easy ones."""
    full = sum(oracle.writer_peak(oracle.draw(s.rps, s.prompt, s.reply, s.requests, s.seed),
                                  s.link) == 32 for s in CASES)
    behind = sum(s.rps * s.prompt * oracle.READ_COST > 1 for s in CASES)  # reader busier than 100 %
    assert full >= 10 and behind >= 40


@hsettings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.builds(sim.Settings, **{n: st.sampled_from(FIELDS[n].metadata["slider"]) for n in SLIDERS},
                 requests=st.integers(1, 200), seed=st.integers(0, 2**53 - 1)))
def test_hypothesis_settings(s):
    agree(s)
