"""One name for each constant: a cost the simulator uses is the one every number shown comes
from. Changed where the simulator takes it, the simulated gaps, the walk-through's words and
the page's footer all move together; there is no second copy that could be edited alone."""

import pytest

import sim
from sim.model import costs
from sim.show.page import footer
from sim.show.numbers import ms
from sim.show.walkthrough import lesson


@pytest.fixture
def slower_a100(monkeypatch):
    """An A100 whose memory is 10% slower: every writing step 10% longer."""
    a100 = costs.CHIPS["A100"]
    slower = costs.Chip("A100", a100.peak_flops, a100.bandwidth / 1.1)
    monkeypatch.setitem(costs.CHIPS, "A100", slower)
    return slower


def test_a_changed_step_moves_every_number_that_shows_it(slower_a100):
    step = slower_a100.step
    assert ms(step) != ms(costs.Chip("A100", 312e12, 2.039e12).step)  # it shows as changed
    split = sim.Lab().compare(sim.Settings())["split"]
    assert split["gap_p50"] == pytest.approx(step)  # the simulator writes at that step ...
    assert footer()["costs.step"] == ms(step)  # ... the footer says it ...
    words = " ".join(lesson(sim.Lab(), sim.Settings()).split())
    assert f"plus one {ms(step)} step" in words  # ... and so does the walk-through


def test_the_footer_and_the_walkthrough_hold_no_number_of_their_own():
    """At the defaults they say exactly what the simulator's own GPU costs."""
    a100 = costs.CHIPS["A100"]
    assert footer()["costs.read_cost"] == f"{a100.read_cost * 1e6:.3f} µs" == "51.476 µs"
    assert footer()["costs.step"] == ms(a100.step) == "7.9 ms"
    assert footer()["costs.slots"] == str(sim.Settings().slots) == "32"
    assert not hasattr(costs, "STEP") and not hasattr(costs, "READ_COST")
