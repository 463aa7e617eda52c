"""Power caps, prices and the queue rule: what follows from the rules, the API, and the lab's
economics in steps and cached (chips-and-rules.md)."""

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

import sim
from sim.model.costs import CHIPS, LESSON, capped
from sim.model.economics import EXAMPLE_PRICE, TDP
from sim.settings import CHIPS as KINDS
from sim.settings import FIELDS, Settings

WEIGHTS = LESSON.params  # Llama-3-8B's parameters

NEW = ("reader_power", "writer_power", "reader_price", "writer_price", "local_queue")


def test_the_new_settings_default_to_today():
    """At their defaults (1.0, 0, 0) every number is today's: the uncapped chip is the
    datasheet's own object, and the settings are the same settings."""
    for kind in KINDS:
        assert capped(kind, 1.0) is CHIPS[kind]
    defaults = {name: FIELDS[name].default for name in NEW}
    assert defaults == {"reader_power": 1.0, "writer_power": 1.0, "reader_price": 0.0,
                        "writer_price": 0.0, "local_queue": 0}
    assert sim.compare(**defaults) == sim.compare()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("cap", [0.5, 0.55, 0.8, 1.0])
def test_a_capped_gpu_reads_slower_and_writes_as_fast(kind, cap):
    chip = capped(kind, cap)
    assert chip.read_cost == 2 * WEIGHTS / (CHIPS[kind].peak_flops * cap)  # the spec's order
    assert chip.step == CHIPS[kind].step
    assert chip.read_cost >= CHIPS[kind].read_cost


def test_the_kinds_tdps_and_example_prices():
    assert TDP == {"A100": 400.0, "H100": 700.0, "H200": 700.0, "B200": 1000.0}
    assert EXAMPLE_PRICE == {"A100": 1.30, "H100": 3.00, "H200": 3.80, "B200": 5.50}
    assert set(TDP) == set(EXAMPLE_PRICE) == set(CHIPS) == set(KINDS)


fast = hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
loads = st.builds(Settings, rps=st.sampled_from((2.0, 4.0, 8.0)), requests=st.integers(1, 150),
                  seed=st.integers(0, 2**32), gpus=st.sampled_from((2, 3, 5)),
                  prompt=st.sampled_from((500, 2000, 6000)), reply=st.integers(2, 300))


@fast
@given(loads, st.sampled_from(FIELDS["writer_power"].metadata["slider"]))
def test_capped_writers_write_the_split_as_fast(s, cap):
    """Reading is compute-bound, writing memory-bound: with no prompt read locally, the
    split's writers only write, so their cap changes nothing of the split."""
    s = s.but(readers=1)
    assert sim.Lab().compare(s.but(writer_power=cap))["split"] == sim.Lab().compare(s)["split"]


@fast
@given(loads)
def test_a_queue_longer_than_the_requests_never_bites(s):
    s = s.but(readers=1)
    lab = sim.Lab()
    assert lab.compare(s.but(local_queue=s.requests))["split"] == lab.compare(s)["split"]


def test_a_queue_of_one_reads_locally_whenever_a_reader_is_busy():
    """local_queue=1: a prompt goes to a reader only if no prompt sent before it still waits;
    with one reader that keeps the readers' queue at most one deep."""
    from sim.model.link import reads
    from sim.workload.draws import Draws, Workload

    s = Settings(rps=16.0, local_queue=1, requests=300)
    work = Workload(Draws(s.seed, s.requests), s.rps, s.prompt, s.reply)
    starts, _ = reads(work, s)
    sent = [(a, start) for a, start in zip(work.arrivals, starts) if start is not None]
    assert len(sent) < s.requests  # some were read locally
    for k, (a, _) in enumerate(sent):  # at each one's arrival, none of the earlier ones waits
        assert all(start <= a for _, start in sent[:k])


def test_capping_a_shared_gpu_slows_its_reads():
    """The shared layout reads on every GPU: a cap on either pool lowers its goodput here."""
    base = sim.compare()["shared"]["goodput"]
    assert sim.compare(reader_power=0.5)["shared"]["goodput"] < base
    assert sim.compare(writer_power=0.5)["shared"]["goodput"] < base


def test_the_shared_layout_sees_the_readers_through_their_caps():
    """Its cached runs are keyed by each pool's kind and cap: with the caps apart, moving the
    readers changes which GPUs are capped, so it simulates again."""
    lab = sim.Lab()
    s = Settings(gpus=4, readers=1, reader_power=0.5)
    first = lab.compare(s)["shared"]
    other = lab.compare(s.but(readers=3))["shared"]
    assert other == sim.Lab().compare(s.but(readers=3))["shared"] != first
    lab = sim.Lab()
    lab.compare(Settings(gpus=4, readers=1))
    lab.compare(Settings(gpus=4, readers=3))
    assert lab.simulations == 3  # the same uncapped A100s: the shared run is reused


def test_economics_api():
    got = sim.economics(chunk=512, gpus=3, readers=2)
    assert list(got) == ["shared", "split", "chunked"]
    rates = sim.rate(chunk=512, gpus=3, readers=2)
    for layout, e in got.items():
        assert list(e) == ["rate", "price_per_hour", "watts", "per_dollar", "per_kwh"]
        assert e["rate"] == rates[layout]
        assert e["price_per_hour"] == 3.9000000000000004  # fsum of three $1.30
        assert e["watts"] == 1200.0
    given = sim.economics(reader_price=2.0, writer_price=0.5, writer_power=0.75, gpus=4,
                          readers=1, reader_gpu="H100")["split"]
    assert given["price_per_hour"] == 3.5 and given["watts"] == 700.0 + 3 * 300.0


def test_economics_in_steps_equals_in_one_go_and_is_cached():
    lab = sim.Lab()
    s = Settings(gpus=3, readers=2, rps=8.0, requests=200)
    steps = 0
    while not lab.economics_step(s):
        steps += 1
    assert 4 <= steps <= 2 * 33
    assert lab.economics(s) == sim.Lab().economics(s)
    simulated = lab.simulations
    # a new price, load or target of nothing it depends on: no simulation at all
    assert lab.economics_step(s.but(reader_price=9.0, writer_price=0.25, rps=2.0))
    assert lab.economics(s.but(writer_price=0.25))["split"]["rate"] == lab.economics(s)["split"]["rate"]
    assert lab.rate(s.but(reader_price=7.0)) == {k: e["rate"] for k, e in lab.economics(s).items()}
    assert lab.simulations == simulated
    # prices change no simulation, so no other finding is worked out again for them either
    lab.crossover(s)
    assert lab.crossover_step(s.but(reader_price=4.0))  # known at once


def test_prices_are_numbers_without_a_slider_in_a_group_of_their_own():
    """The page builds a control for every "explorer" field, and a slider needs its stops:
    the prices, which have none yet, are "price" fields, which its URL takes as numbers."""
    for name in ("reader_price", "writer_price"):
        meta = FIELDS[name].metadata
        assert meta["group"] == "price" and meta["slider"] is None and meta["choices"] is None
        assert meta["page"] == meta["limits"] == (0.0, 1000.0) and not meta["whole"]
    for name in ("reader_power", "writer_power", "local_queue"):
        meta = FIELDS[name].metadata
        assert meta["group"] == "explorer" and FIELDS[name].default in meta["slider"]
    assert FIELDS["reader_power"].metadata["slider"] == tuple(k / 100 for k in range(50, 101, 5))
    assert FIELDS["local_queue"].metadata["slider"] == tuple(range(17))
