"""The engine and the oracle each reproduce chips-and-rules.md's figures, to the digit shown.

The spec chips-and-rules.md (docs/model.md: "Price and power") ends with two tables of "figures a faithful simulator
gives": power caps and Dynamo's queue rule (600 requests, seed 7), and the economics of four
mixes of chips at gpus=8 readers=4 rps=16. The oracle is written from the specs alone; both
are checked against the tables, as tests/model/test_spec_figures.py does for the others.
"""

import functools

import pytest

import oracle
import sim

IMPLEMENTATIONS = {
    "engine": (lambda **s: {layout: m for layout, m in sim.Lab().compare(sim.Settings(**s)).items()
                            if layout != "settings"},
               lambda **s: sim.Lab().economics(sim.Settings(**s))),
    "oracle": (oracle.compare, oracle.economics),
}


@functools.lru_cache(maxsize=None)
def _run(implementation, which, items):
    return IMPLEMENTATIONS[implementation][which](**dict(items))


@pytest.fixture(params=IMPLEMENTATIONS)
def compare(request):
    return lambda **settings: _run(request.param, 0, tuple(sorted(settings.items())))


@pytest.fixture(params=IMPLEMENTATIONS)
def economics(request):
    return lambda **settings: _run(request.param, 1, tuple(sorted(settings.items())))


def pct(share):
    return f"{share * 100:.1f}"


def ms(seconds):
    return f"{seconds * 1e3:.1f}"


# (settings, layout, metric, figure shown): the first table, row by row.
QUEUE = dict(gpus=4, readers=1, rps=10.0)
FIGURES = [
    (dict(writer_power=0.5), "shared", "goodput", "8.7"),
    (dict(writer_power=0.5), "shared", "ttft_p99", "468.5"),
    (dict(writer_power=0.5), "split", "goodput", "98.7"),
    (dict(writer_power=0.5), "split", "gap_p99", "7.9"),
    (dict(reader_power=0.5), "shared", "goodput", "8.0"),
    (dict(reader_power=0.5), "split", "goodput", "45.3"),
    (dict(reader_power=0.5), "split", "ttft_p99", "2053.5"),
    (dict(QUEUE, local_queue=2), "shared", "goodput", "8.3"),
    (dict(QUEUE, local_queue=2), "split", "goodput", "55.0"),
    (dict(QUEUE, local_queue=2), "split", "ttft_p99", "413.3"),
    (dict(QUEUE, local_queue=4, local_below=1500), "shared", "goodput", "8.3"),
    (dict(QUEUE, local_queue=4, local_below=1500), "split", "goodput", "79.2"),
    (dict(QUEUE, local_queue=4, local_below=1500), "split", "gap_p99", "59.4"),
]


@pytest.mark.parametrize("settings, layout, metric, shown", FIGURES,
                         ids=lambda x: " ".join(f"{k}={v}" for k, v in x.items())
                         if isinstance(x, dict) else str(x))
def test_power_and_queue_figure(compare, settings, layout, metric, shown):
    got = compare(**settings)
    assert set(got) == {"shared", "split"}
    value = got[layout][metric]
    assert (pct(value) if metric == "goodput" else ms(value)) == shown


# The economics table: the split, at gpus=8 readers=4 rps=16, for each mix of chips.
# (changes, rate (req/s per GPU), $/h, W, good requests per $, per kWh)
ECONOMICS = dict(gpus=8, readers=4, rps=16.0)
MIXES = [
    ({}, "4.715", "10.4", "3200", "13056", "42432"),
    (dict(reader_gpu="H100"), "9.491", "17.2", "4400", "15893", "62126"),
    (dict(reader_gpu="H100", writer_gpu="H100"), "17.327", "24.0", "5600", "20793", "89112"),
    (dict(reader_gpu="H100", writer_gpu="H100", writer_power=0.5),
     "17.327", "24.0", "4200", "20793", "118816"),
]


@pytest.mark.parametrize("changes, rate, price, watts, per_dollar, per_kwh", MIXES,
                         ids=["A100/A100", "H100/A100", "H100/H100", "H100/H100 capped"])
def test_economics_figure(economics, changes, rate, price, watts, per_dollar, per_kwh):
    got = economics(**ECONOMICS, **changes)
    assert set(got) == {"shared", "split"}
    split = got["split"]
    assert f"{split['rate']:.3f}" == rate
    assert f"{split['price_per_hour']:.1f}" == price
    assert f"{split['watts']:.0f}" == watts
    assert f"{split['per_dollar']:.0f}" == per_dollar
    assert f"{split['per_kwh']:.0f}" == per_kwh
    # the same GPUs, so every layout costs and draws the same
    assert got["shared"]["price_per_hour"] == split["price_per_hour"]
    assert got["shared"]["watts"] == split["watts"]


def test_the_capped_writers_lose_no_speed_and_a_quarter_of_the_power(economics):
    """The spec's note under its table."""
    full = economics(**ECONOMICS, reader_gpu="H100", writer_gpu="H100")["split"]
    capped = economics(**ECONOMICS, reader_gpu="H100", writer_gpu="H100", writer_power=0.5)["split"]
    assert capped["rate"] == full["rate"]
    assert capped["watts"] == 0.75 * full["watts"]


def test_economics_at_the_defaults_is_the_rate_goodput_priced(economics):
    """Two A100s at the example price ($1.30 an hour each) and their TDP (400 W each)."""
    got = economics()
    rates = sim.rate()
    for layout in ("shared", "split"):
        assert got[layout]["rate"] == rates[layout]
        assert got[layout]["price_per_hour"] == 2.6 and got[layout]["watts"] == 800.0
        assert got[layout]["per_dollar"] == rates[layout] * 2 * 3600 / 2.6
        assert got[layout]["per_kwh"] == rates[layout] * 2 * 3600 / 0.8
