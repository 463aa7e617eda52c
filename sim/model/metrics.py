"""Measuring a run: percentiles (nearest rank) and goodput against the two targets."""

from bisect import bisect_right
from itertools import accumulate


def rank(n, p):
    """Nearest rank, counting from 1: ceil(p/100 x n), in integers so nothing rounds."""
    return -(-p * n // 100)


class GapPool:
    """Every gap of a run, without listing them: the irregular ones, some shared by several
    replies, and for each GPU kind's step the gaps of exactly one step, as (value, count)."""

    def __init__(self, run):
        self.singles = sorted(run.first_gaps)
        values = run.burst_gaps + list(run.regular)
        counts = run.burst_counts + list(run.regular.values())
        order = sorted(range(len(values)), key=values.__getitem__)
        self.bursts = [values[k] for k in order]
        self.burst_upto = list(accumulate([counts[k] for k in order]))
        self.total = run.gaps

    def at_most(self, v):
        """How many gaps are <= v."""
        k = bisect_right(self.bursts, v)
        return bisect_right(self.singles, v) + (self.burst_upto[k - 1] if k else 0)

    def smallest_reaching(self, values, want):
        """The smallest of sorted `values` with at least `want` gaps at or below it, or None."""
        if not values or self.at_most(values[-1]) < want:
            return None
        lo, hi = 0, len(values) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.at_most(values[mid]) >= want:
                hi = mid
            else:
                lo = mid + 1
        return values[lo]

    def percentile(self, p):
        if not self.total:
            return 0.0
        want = rank(self.total, p)
        found = [self.smallest_reaching(v, want) for v in (self.singles, self.bursts)]
        return min(v for v in found if v is not None)


def measure(run):
    """What does not depend on the targets: percentiles and sorted lists, worked out once.
    Percentiles are over the requests served (memory=kv drops some): None if none was."""
    if run.measured is None:
        ttft = sorted(run.ttft)
        n = len(ttft)
        pool = GapPool(run)
        run.measured = {
            "ttft_sorted": ttft,
            "max_gap_sorted": sorted(run.max_gap),
            "requests": n + run.dropped,
            "ttft_p50": ttft[rank(n, 50) - 1] if n else None,
            "ttft_p99": ttft[rank(n, 99) - 1] if n else None,
            "ttft_max": ttft[-1] if n else None,
            "gap_p50": pool.percentile(50) if n else None,
            "gap_p99": pool.percentile(99) if n else None,
        }
        # The gaps themselves are let go: every measure that needs them is now worked out, and
        # where a step's cost grows with its context (roofline, memory=kv) no two are alike,
        # so a run of 70B's 800-word replies kept ~100 a request: a figure's cached runs then
        # outgrew the page's budget, and drawing it simulated them all again (lab.weight).
        run.first_gaps = run.burst_gaps = run.burst_counts = ()
        run.regular = {}
    return run.measured


def score(run, ttft_target, gap_target):
    """The JSON-ready measures of one layout's run for the two targets (a new dict each time).

    The last scoring is kept: the page scores a run again at the same targets for each chart
    that shows it, its sketch and then its whole figure, and counting the requests that miss
    both targets goes through all of them."""
    if run.scored is not None and run.scored[0] == (ttft_target, gap_target):
        return dict(run.scored[1])
    m = measure(run)
    n = m["requests"]  # a dropped request is neither late nor choppy, and not good
    served = n - run.dropped
    late = served - bisect_right(m["ttft_sorted"], ttft_target)
    choppy = served - bisect_right(m["max_gap_sorted"], gap_target)
    both = 0
    if late and choppy:
        for t, g in zip(run.ttft, run.max_gap):
            if t > ttft_target and g > gap_target:
                both += 1
    good = served - late - choppy + both
    measures = {
        "goodput": good / n,
        "good": good,
        "requests": n,
        "ttft_p50": m["ttft_p50"],
        "ttft_p99": m["ttft_p99"],
        "ttft_max": m["ttft_max"],
        "gap_p50": m["gap_p50"],
        "gap_p99": m["gap_p99"],
        "gap_max": m["max_gap_sorted"][-1] if served else None,
        "missed_ttft_only": (late - both) / n,
        "missed_gap_only": (choppy - both) / n,
        "missed_both": both / n,
        "dropped": run.dropped,
    }
    if run.memory is not None:  # memory=kv: what its instances held, as shares of their room
        measures.update(run.memory)
    run.scored = ((ttft_target, gap_target), measures)
    return dict(measures)
