"""The draws are the spec's: expovariate, then choice for the prompt, then for the reply."""

import random

import pytest

from sim.workload.draws import MULTIPLIERS, Draws, Workload


def spec_draw(rps, prompt, reply, n, seed):
    rng = random.Random(seed)
    t, out = 0.0, []
    for _ in range(n):
        t += rng.expovariate(rps)
        out.append((t, round(prompt * rng.choice(MULTIPLIERS)), round(reply * rng.choice(MULTIPLIERS))))
    return out


@pytest.mark.parametrize("seed", [0, 7, 12345, 2**40 + 3])
@pytest.mark.parametrize("rps, prompt, reply", [(4.0, 2000, 200), (0.25, 101, 15), (17.3, 7999, 999)])
def test_same_requests_as_calling_random_directly(seed, rps, prompt, reply):
    work = Workload(Draws(seed, 700), rps, prompt, reply)
    assert list(zip(work.arrivals, work.prompts, work.replies)) == spec_draw(rps, prompt, reply, 700, seed)


def test_rounding_is_pythons():
    # round() halves to even: 15 words x 0.5 is 8, 101 tokens x 0.5 is 50.
    work = Workload(Draws(7, 200), 4.0, 101, 15)
    assert set(work.prompts) == {50, 101, 152} and set(work.replies) == {8, 15, 22}
