"""The fast engine agrees with the step-by-step oracle with power caps, prices and Dynamo's
queue rule (chips-and-rules.md), among every other setting of the explorer: compare on
hundreds of settings, and the economics (each layout's rate bisection) on a few dozen."""

import random

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

import oracle
import sim
from agreement import agree
from sim.model.link import reads
from sim.settings import CHIPS, FIELDS
from sim.workload.draws import Draws, Workload

POWERS = FIELDS["reader_power"].metadata["slider"] + (0.73, 0.5, 1.0, 1.0)  # and a value between stops
QUEUES = (0, 0, 1, 2, 3, 4, 8, 16, 200_000)
PRICES = (0.0, 0.0, 0.01, 1.1, 2.5, 1000.0)  # no effect on a run, only on the economics


def slider(name):
    return st.sampled_from(FIELDS[name].metadata["slider"])


@st.composite
def chips_settings(draw, requests=120, gpus=(2, 2, 3, 4, 5, 8)):
    g = draw(st.sampled_from(gpus))
    return sim.Settings(
        rps=draw(slider("rps")), prompt=draw(slider("prompt")), reply=draw(st.integers(2, 400)),
        link=draw(slider("link")), ttft_target=draw(slider("ttft_target")),
        gap_target=draw(slider("gap_target")), requests=draw(st.integers(1, requests)),
        seed=draw(st.integers(0, 2**53 - 1)), gpus=g, readers=draw(st.integers(1, g - 1)),
        routing=draw(st.sampled_from(("alternate", "least-loaded"))),
        chunk=draw(st.sampled_from((0, 0, 0, 64, 512, 2048))),
        link_sharing=draw(st.sampled_from(("free", "queued"))),
        layerwise=draw(st.sampled_from((0, 1))),
        local_below=draw(st.sampled_from((0, 0, 0, 1500, 4000))),
        reader_gpu=draw(st.sampled_from(CHIPS)), writer_gpu=draw(st.sampled_from(CHIPS)),
        slots=draw(st.sampled_from((2, 8, 32))), attainment=draw(slider("attainment")),
        reader_power=draw(st.sampled_from(POWERS)), writer_power=draw(st.sampled_from(POWERS)),
        reader_price=draw(st.sampled_from(PRICES)), writer_price=draw(st.sampled_from(PRICES)),
        local_queue=draw(st.sampled_from(QUEUES)))


@hsettings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chips_settings())
def test_hypothesis_chips_settings(s):
    agree(s)


def local_by_queue(s):
    """How many prompts the queue rule alone reads locally at settings s (the engine's)."""
    work = Workload(Draws(s.seed, s.requests), s.rps, s.prompt, s.reply)
    with_rule = reads(work, s)[0].count(None)
    return with_rule - reads(work, s.but(local_queue=0))[0].count(None)


# Seeded cases that make the rule bite: busy readers, so that queues form at them.
rng = random.Random(20260719)
BUSY = [sim.Settings(rps=rng.choice((6.0, 10.0, 16.0)), prompt=rng.choice((2000, 4000, 8000)),
                     reply=rng.choice((20, 200)), requests=rng.choice((80, 200)),
                     seed=rng.randrange(2**32), gpus=(gpus := rng.choice((2, 3, 4, 6))),
                     readers=rng.randint(1, gpus - 1), local_queue=rng.choice((1, 2, 3, 5)),
                     local_below=rng.choice((0, 0, 1500)), reader_gpu=rng.choice(CHIPS),
                     reader_power=rng.choice(POWERS), writer_power=rng.choice(POWERS),
                     routing=rng.choice(("alternate", "least-loaded")),
                     link_sharing=rng.choice(("free", "queued")), layerwise=rng.choice((0, 1)))
        for _ in range(30)]


@pytest.mark.parametrize("s", BUSY, ids=lambda s: f"q{s.local_queue}-{s.rps}-{s.prompt}")
def test_busy_readers_and_the_queue_rule(s):
    agree(s)


def test_the_cases_make_the_queue_rule_bite():
    """Most busy cases read some prompts locally because of the queue alone, and some read
    most of them so (the rule is not a no-op in the cases that check it)."""
    counts = [local_by_queue(s) for s in BUSY]
    assert sum(c > 0 for c in counts) >= 20
    assert sum(c > s.requests // 4 for c, s in zip(counts, BUSY)) >= 5


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chips_settings(requests=40, gpus=(2, 3, 4)))
def test_hypothesis_economics(s):
    """Value for value: the rate bisections take the same steps, the sums are fsum's."""
    assert sim.Lab().economics(s) == oracle.economics(**s.as_dict())
