"""The oracle: the lesson's toy model written straight from the spec, one step at a time.

It shares no code with `sim/` (constants included) and is deliberately naive: every writing
step of every reply is walked and every gap is kept. The fast engine must agree with it.
"""

import math
import random

WEIGHTS = 8_030_261_248
READ_COST = 2 * WEIGHTS / 312e12
STEP = 2 * WEIGHTS / 2.039e12
CACHE_PER_TOKEN = 131_072
SLOTS = 32


def draw(rps, prompt, reply, requests, seed):
    rng = random.Random(seed)
    t = 0.0
    jobs = []
    for _ in range(requests):
        t += rng.expovariate(rps)
        p = round(prompt * rng.choice((0.5, 1, 1.5)))
        r = round(reply * rng.choice((0.5, 1, 1.5)))
        jobs.append((t, p, r))
    return jobs


def serve(jobs, read, peak=None):
    """One GPU. jobs: list of (arrival, prompt, reply, index), in the order they are taken.

    Returns {index: (first_word_time, [gaps])}; appends the most slots used to `peak`."""
    most = 0
    clock = 0.0
    slots = []  # [index, words_left, last_word_time]
    out = {}
    nxt = 0
    while nxt < len(jobs) or slots:
        if not slots and nxt < len(jobs) and jobs[nxt][0] > clock:
            clock = jobs[nxt][0]
        if nxt < len(jobs) and jobs[nxt][0] <= clock and len(slots) < SLOTS:
            arrival, p, r, i = jobs[nxt]
            nxt += 1
            if read:
                clock += p * READ_COST
                first = clock
            else:
                first = arrival
            out[i] = (first, [])
            if r > 1:
                slots.append([i, r - 1, first])
            continue
        most = max(most, len(slots))
        clock += STEP
        for s in slots:
            out[s[0]][1].append(clock - s[2])
            s[2] = clock
            s[1] -= 1
        slots = [s for s in slots if s[1] > 0]
    if peak is not None:
        peak.append(most)
    return out


def nearest_rank(values, p):
    values = sorted(values)
    return values[math.ceil(p / 100 * len(values)) - 1]


def metrics(jobs, out, ttft_target, gap_target):
    ttfts, gaps, good = [], [], 0
    for i, (arrival, _, _) in enumerate(jobs):
        first, g = out[i]
        ttft = first - arrival
        ttfts.append(ttft)
        gaps.extend(g)
        if ttft <= ttft_target and max(g, default=0.0) <= gap_target:
            good += 1
    return {
        "goodput": good / len(jobs),
        "good": good,
        "ttft_p50": nearest_rank(ttfts, 50),
        "ttft_p99": nearest_rank(ttfts, 99),
        "gap_p50": nearest_rank(gaps, 50) if gaps else 0.0,
        "gap_p99": nearest_rank(gaps, 99) if gaps else 0.0,
    }


def shared(jobs):
    out = {}
    for gpu in (0, 1):
        mine = [(a, p, r, i) for i, (a, p, r) in enumerate(jobs) if i % 2 == gpu]
        out.update(serve(mine, read=True))
    return out


def split(jobs, link, peak=None):
    done = 0.0
    handed = []
    for i, (a, p, r) in enumerate(jobs):
        done = max(done, a) + p * READ_COST
        handed.append((done + p * CACHE_PER_TOKEN / (link * 1e9), p, r, i))
    handed.sort(key=lambda job: (job[0], job[3]))
    return serve(handed, read=False, peak=peak)


def writer_peak(jobs, link):
    """The most replies the split's writer had in its slots at once."""
    peak = []
    split(jobs, link, peak)
    return peak[0]


def compare(rps=4.0, prompt=2000, reply=200, link=25.0, ttft_target=0.5, gap_target=0.1,
            requests=600, seed=7):
    jobs = draw(rps, prompt, reply, requests, seed)
    return {
        "shared": metrics(jobs, shared(jobs), ttft_target, gap_target),
        "split": metrics(jobs, split(jobs, link), ttft_target, gap_target),
    }
