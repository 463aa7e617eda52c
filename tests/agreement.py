"""What every agreement test holds the engine to: the oracle's run of the same settings
(tests/oracle.py, written from the specs alone), value for value.

- Each layout's measures: the good and dropped requests exactly; every time within a
  microsecond (the engine jumps where the oracle walks, and floats round differently), a
  percentile of no request None in both; memory=kv's shares within a billionth.
- Each request, by its index (sim/model/run.py): dropped in both or in neither; its time to
  first word and its longest gap within a microsecond; and every gap it had, as many, each
  within a microsecond (sorted: the engine keeps them without their order).

Shared by tests/model/test_*_agreement.py and tests/workload/test_trace_agreement.py."""

from operator import sub

import oracle
import sim
from sim.model import layouts

TIMES = ("ttft_p50", "ttft_p99", "ttft_max", "gap_p50", "gap_p99", "gap_max")
SHARES = ("kv_peak", "reader_kv_peak", "writer_kv_peak", "backpressure")
TOLERANCE = 1e-6  # seconds: far inside the 0.1 ms the page shows; only rounding differs


def agree(s, trace=None):
    """The engine's compare (a fresh Lab's) and each request of each layout's run, against
    the oracle's for settings s (and a trace of one's own, for traffic=own). Returns the
    engine's compare."""
    lab = sim.Lab()
    got = lab.compare(s, trace)
    o = oracle.options(**s.as_dict())
    jobs = oracle.requests_of(o, trace)
    runs = {layout: oracle.run(layout, jobs, o) for layout in oracle.layouts(o)}
    assert set(got) - {"settings"} == set(runs)
    s = lab.given(s, trace)
    work = lab.workload(s)
    for layout, run in runs.items():
        same_measures(got[layout], oracle.metrics(jobs, run, o["ttft_target"], o["gap_target"]), layout)
        same_requests(getattr(layouts, layout)(work, s), run, jobs, layout)
    return got


def same_measures(mine, want, layout):
    assert (mine["good"], mine["dropped"]) == (want["good"], want["dropped"]), layout
    for key in TIMES:
        if want[key] is None:
            assert mine[key] is None, (layout, key)
        else:
            assert abs(mine[key] - want[key]) <= TOLERANCE, (layout, key, mine[key], want[key])
    assert {k for k in SHARES if k in mine} == {k for k in SHARES if k in want}, layout
    for key in SHARES:
        if key in want:
            assert abs(mine[key] - want[key]) <= 1e-9, (layout, key, mine[key], want[key])


def same_requests(run, theirs, jobs, layout):
    """The engine's run (unmeasured, so it still knows each request's gaps) against the
    oracle's, request by request."""
    gaps = run.gaps_of()
    assert set(gaps) == set(theirs.words) and not set(gaps) & theirs.dropped, layout
    for i, (arrival, _, _) in enumerate(jobs):
        if i in theirs.dropped:
            assert run.ttft[i] is None and run.max_gap[i] is None, (layout, i)
            continue
        first, want = theirs.words[i]
        assert abs(run.ttft[i] - (first - arrival)) <= TOLERANCE, (layout, i, "ttft")
        assert abs(run.max_gap[i] - max(want, default=0.0)) <= TOLERANCE, (layout, i, "max_gap")
        mine = gaps[i]
        assert len(mine) == len(want), (layout, i, "gaps", len(mine), len(want))
        # (the largest difference of the two, sorted: in C, since a run has ~100,000 gaps)
        assert max(map(abs, map(sub, mine, sorted(want))), default=0.0) <= TOLERANCE, (layout, i, "gaps")
