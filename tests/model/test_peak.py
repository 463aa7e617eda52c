"""What an instance held at most, worked out after its run (sim/model/peak.py), is what the
moment-by-moment count (peak.held) and the fast GPU loop's own admission rule give: the
readers' shortcut (each cache landed by the start of the read after the next), and a shared
GPU's reads counted in its steps, on random intervals shaped like theirs and on any others."""

import random
from heapq import heappop, heappush

from sim.model import peak


def test_readers_held_is_what_held_counts():
    """Readers read one prompt after another, each cache held from its read's start until it
    lands, a crossing or a slow link away: the most any reader held is the most held counts,
    reader by reader, whether the shortcut applies (each landed by the next read but one) or
    not (a slow link: the caches pile up), equal moments and idle readers included."""
    rng = random.Random(47)
    shortcut = 0
    for _ in range(600):
        columns, bounds = ([], [], []), [0]
        most = 0
        for _ in range(rng.randrange(0, 4)):  # readers, some idle
            at, intervals = 0.0, []
            for _ in range(rng.randrange(0, 12)):
                at += rng.choice((0.0, 0.5, 1.0, rng.random()))  # waits, or reads at once
                read = rng.choice((0.5, 1.0, rng.random() + 0.01))
                cross = rng.choice((0.0, 0.25, 0.5, rng.random(), 3 * rng.random()))
                intervals.append((at, at + read + cross, rng.randrange(1, 9)))
                at += read
            for column, values in zip(columns, zip(*intervals) if intervals else ((), (), ())):
                column.extend(values)
            bounds.append(len(columns[0]))
            most = max(most, peak.held(intervals))
        starts, landings, prompts = columns
        shortcut += all(landings[k] <= starts[k + 2] for lo, hi in zip(bounds, bounds[1:])
                        for k in range(lo, hi - 2))
        assert peak.readers_held(starts, landings, prompts, bounds) == most
    assert 100 < shortcut < 550  # both ways taken, often


def loop_most(reads_at, last_step, replies, tokens):
    """What gpu.loop counted before it kept its reads' steps: a heap of (last step, tokens) of
    the jobs admitted, those whose last step has come freed as each read begins."""
    holding, held, most = [], 0, 0
    for steps, last, r, t in zip(reads_at, last_step, replies, tokens):
        while holding and holding[0][0] <= steps:
            held -= heappop(holding)[1]
        held += t
        most = max(most, held)
        if r > 1:
            heappush(holding, (last, t))
        else:
            held -= t
    return most


def test_reads_held_is_what_the_loop_counted():
    """A shared GPU's jobs, each read at a step count no lower than the one before and holding
    its prompt and reply until its last word's step (a one-word reply only as it is read):
    the most, worked out after the run, is what the loop counted as it went."""
    rng = random.Random(48)
    for _ in range(800):
        n = rng.randrange(0, 40)
        steps, reads_at, last_step, replies, prompts = 0, [], [], [], []
        for _ in range(n):
            steps += rng.choice((0, 0, 1, 3, rng.randrange(0, 50)))
            r = rng.choice((1, 2, 5, rng.randrange(1, 60)))
            reads_at.append(steps)
            last_step.append(steps + r - 1 if r > 1 else 0)
            replies.append(r)
            prompts.append(rng.randrange(1, 9))
        tokens = [p + r for p, r in zip(prompts, replies)]
        assert (peak.reads_held(reads_at, last_step, replies, tokens, prompts)
                == loop_most(reads_at, last_step, replies, tokens))
