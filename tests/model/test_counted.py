"""A measure of some requests (metrics.measure's `counted`, GapPool.of): the same numbers as
working them out from each request's own, by its index (run.py: ttft, max_gap, gaps_of, which
tests/agreement.py holds to the oracle request by request). This is what a new measure of
requests (a warm-up left out, docs/development.md) is built on, through every loop: the fast
one (gpu.py), chunked reading (chunked.py), instances of several GPUs (instance.py), memory=kv
with requests dropped, and a split whose writers take their jobs out of arrival order."""

import random

import pytest

import sim
from sim.model import layouts
from sim.model.metrics import GapPool, measure, rank, score

CASES = {
    "lesson": {},
    "chunked, least-loaded": dict(gpus=3, readers=1, chunk=512, routing="least-loaded", rps=6.0),
    "split out of order": dict(gpus=4, readers=2, link=0.3, link_sharing="queued", local_below=1500,
                               routing="least-loaded"),
    "70B on pairs, roofline": dict(model="70B", tp=2, gpus=6, readers=2, chunk=512, costs="roofline",
                                   rps=1.0, reply=300),
    "memory=kv, dropping": dict(rps=2.0, prompt=30000, reply=530, link=0.15, requests=30,
                                seed=1360077007, gpus=8, readers=2, routing="least-loaded",
                                link_sharing="queued", local_below=1500, local_queue=2, model="70B",
                                tp=2, memory="kv"),
}


def subsets(n):
    rng = random.Random(n)
    return {"after a warm-up": range(n // 6, n), "some": set(rng.sample(range(n), n // 3)),
            "one": {n - 1}, "all": range(n)}


def expected(run, gaps, counted, s):
    """What a measure of `counted` must give, from each request's own numbers."""
    served = [i for i in sorted(counted) if run.ttft[i] is not None]
    ttft = sorted(run.ttft[i] for i in served)
    every = sorted(g for i in served for g in gaps[i])
    good = sum(run.ttft[i] <= s.ttft_target and run.max_gap[i] <= s.gap_target for i in served)
    return served, ttft, every, good


@pytest.mark.parametrize("name", CASES)
def test_a_measure_of_some_requests_is_theirs_alone(name):
    s = sim.Settings(**CASES[name])
    work = sim.Lab().workload(s)
    dropped = 0
    for layout in layouts.layouts_of(s):
        make = getattr(layouts, layout)
        run = make(work, s)
        gaps = run.gaps_of()
        dropped += run.dropped
        for what, counted in subsets(s.requests).items():
            served, ttft, every, good = expected(run, gaps, counted, s)
            pool = GapPool.of(make(work, s), counted)
            assert pool.total == len(every), (layout, what)
            for p in (1, 50, 90, 99, 100):
                assert pool.percentile(p) == (every[rank(len(every), p) - 1] if every else 0.0), (layout, what, p)
            fresh = make(work, s)
            m = measure(fresh, counted)
            assert (m["requests"], m["dropped"]) == (len(counted), len(counted) - len(served)), (layout, what)
            assert m["ttft_sorted"] == ttft, (layout, what)
            assert m["max_gap_sorted"] == sorted(run.max_gap[i] for i in served), (layout, what)
            if served:
                assert m["ttft_p99"] == ttft[rank(len(ttft), 99) - 1] and m["ttft_max"] == ttft[-1]
                assert m["gap_p99"] == (every[rank(len(every), 99) - 1] if every else 0.0), (layout, what)
            else:
                assert m["ttft_p50"] is m["gap_p99"] is None
            scored = score(fresh, s.ttft_target, s.gap_target)
            assert scored["good"] == good and scored["dropped"] == len(counted) - len(served), (layout, what)
            assert scored["goodput"] == good / len(counted), (layout, what)
    if name == "memory=kv, dropping":
        assert dropped > 0  # (else this case would not hold the drops' path)


@pytest.mark.parametrize("name", CASES)
def test_counting_every_request_gives_today_s_measures(name):
    """counted=range(n) (each request's own gaps, pooled again) and counted=None (the run's pool,
    today's path) give every measure alike."""
    s = sim.Settings(**CASES[name])
    work = sim.Lab().workload(s)
    for layout in layouts.layouts_of(s):
        make = getattr(layouts, layout)
        every, today = make(work, s), make(work, s)
        counted = measure(every, range(s.requests))
        assert {k: v for k, v in counted.items() if k != "counted"} == \
            {k: v for k, v in measure(today).items() if k != "counted"}, layout
        assert score(every, s.ttft_target, s.gap_target) == score(today, s.ttft_target, s.gap_target)
