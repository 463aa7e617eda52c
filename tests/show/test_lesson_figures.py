"""Every figure of the spec's last table, to the digit shown there."""

import pytest

import sim
from sim.model import costs
from sim.show.numbers import ms, percent
from sim.show.walkthrough import break_even_link
from sim.workload.draws import Draws, Workload

A100 = costs.CHIPS["A100"]  # the lesson's GPU: its read cost and writing step


@pytest.fixture(scope="module")
def lab():
    return sim.Lab()


def goodputs(lab, **change):
    r = lab.compare(sim.Settings().but(**change))
    return percent(r["shared"]["goodput"]), percent(r["split"]["goodput"])


def test_defaults(lab):
    r = lab.compare(sim.Settings())
    sh, sp = r["shared"], r["split"]
    assert (percent(sh["goodput"]), percent(sp["goodput"])) == ("13.5%", "98.7%")
    assert (ms(sh["ttft_p50"]), ms(sh["ttft_p99"])) == ("106.6 ms", "267.0 ms")
    assert (ms(sp["ttft_p50"]), ms(sp["ttft_p99"])) == ("143.0 ms", "616.3 ms")
    assert (ms(sh["gap_p50"]), ms(sh["gap_p99"])) == ("7.9 ms", "110.8 ms")
    assert (ms(sp["gap_p50"]), ms(sp["gap_p99"])) == ("7.9 ms", "7.9 ms")


@pytest.mark.parametrize("change, shared, split", [
    ({"rps": 10}, "1.7%", "32.2%"),
    ({"link": 0.25}, "13.5%", "0.0%"),
    ({"prompt": 200}, "100.0%", "100.0%"),
])
def test_lesson_states(lab, change, shared, split):
    assert goodputs(lab, **change) == (shared, split)


def test_split_goodput_by_link(lab):
    got = [goodputs(lab, link=g)[1] for g in (100, 25, 12.5, 1.25, 0.125)]
    assert got == ["98.7%", "98.7%", "98.7%", "86.3%", "0.0%"]


def test_derived_facts():
    assert f"{2000 * A100.read_cost * 1e3:.1f}" == "103.0"
    assert f"{A100.read_cost * 1e6:.3f}" == "51.476"
    assert f"{A100.step * 1e3:.4f}" == "7.8767"
    assert f"{2000 * costs.LESSON.cache / 1e6:.1f}" == "262.1"
    assert f"{2000 * costs.LESSON.cache / 25e9 * 1e3:.1f}" == "10.5"
    assert f"{break_even_link(sim.Settings()):.2f}" == "2.55"
    assert ms(2000 * A100.read_cost + A100.step) == "110.8 ms"


def test_last_arrival():
    work = Workload(Draws(7, 600), 4.0, 2000, 200)
    assert f"{work.arrivals[-1]:.1f}" == "148.9"
