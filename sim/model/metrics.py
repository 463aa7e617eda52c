"""Measuring a run: percentiles (nearest rank) and goodput against the two targets."""

from bisect import bisect_right
from itertools import accumulate


def rank(n, p):
    """Nearest rank, counting from 1: ceil(p/100 x n), in integers so nothing rounds."""
    return -(-p * n // 100)


class GapPool:
    """Every gap of a run, or of some of its requests, without listing them: the irregular
    ones, some shared by several replies, and for each GPU kind's step the gaps of exactly one
    step, as (value, count)."""

    def __init__(self, singles, values, counts, total):
        self.singles = sorted(singles)
        order = sorted(range(len(values)), key=values.__getitem__)
        self.bursts = [values[k] for k in order]
        self.burst_upto = list(accumulate([counts[k] for k in order]))
        self.total = total

    @classmethod
    def pooled(cls, run):
        """Every request's gaps, as the run pooled them."""
        return cls(run.first_gaps, run.burst_gaps + list(run.regular),
                   run.burst_counts + list(run.regular.values()), run.gaps)

    @classmethod
    def of(cls, run, counted):
        """The gaps of the requests in `counted` only (a range or a set of indices), from each
        instance's Served (Served.spans: its first gap, the shared gaps it sat through, and a
        step for each of the rest)."""
        singles, values, counts, regular, total = [], [], [], {}, 0
        replies = run.replies
        for served, given in run.gpus:
            firsts, spans, shared, weights = served.spans()
            upto = None if weights is None else [0, *accumulate(weights)]
            covering = [0] * (len(shared) + 1)  # requests whose span begins, less ends, at each
            steps = 0
            for j, i in enumerate(given):
                if i not in counted:
                    continue
                lo, hi = spans[j]
                covering[lo] += 1
                covering[hi] -= 1
                own = replies[i] - 1
                total += own
                if firsts[j] is not None:
                    singles.append(firsts[j])
                    own -= 1
                steps += own - (hi - lo if upto is None else upto[hi] - upto[lo])
            running = 0
            for k, value in enumerate(shared):
                running += covering[k]
                if running:
                    values.append(value)
                    counts.append(running if weights is None else running * weights[k])
            if steps:
                regular[served.step] = regular.get(served.step, 0) + steps
        return cls(singles, values + list(regular), counts + list(regular.values()), total)

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


def measure(run, counted=None):
    """What does not depend on the targets: percentiles and sorted lists, worked out once,
    over the requests in `counted` (a range or a set of request indices; None: every one).
    Percentiles are over the requests served (memory=kv drops some): None if none was."""
    if run.measured is None:
        if counted is None:
            ttft, max_gap, pool = run.ttft, run.max_gap, GapPool.pooled(run)
        else:
            order = sorted(counted)
            ttft = [run.ttft[i] for i in order]
            max_gap = [run.max_gap[i] for i in order]
            pool = GapPool.of(run, counted)
        n = len(ttft)
        if run.dropped:  # (a dropped request has no first word and no gaps)
            ttft = [t for t in ttft if t is not None]
            max_gap = [g for g in max_gap if g is not None]
        ttft = sorted(ttft)
        served = len(ttft)
        run.measured = {
            "counted": counted,
            "ttft_sorted": ttft,
            "max_gap_sorted": sorted(max_gap),
            "requests": n,
            "dropped": n - served,
            "ttft_p50": ttft[rank(served, 50) - 1] if served else None,
            "ttft_p99": ttft[rank(served, 99) - 1] if served else None,
            "ttft_max": ttft[-1] if served else None,
            "gap_p50": pool.percentile(50) if served else None,
            "gap_p99": pool.percentile(99) if served else None,
        }
        # The gaps themselves are let go: every measure that needs them is now worked out, and
        # where a step's cost grows with its context (roofline, memory=kv) no two are alike,
        # so a run of 70B's 800-word replies kept ~100 a request: a figure's cached runs then
        # outgrew the page's budget, and drawing it simulated them all again (lab.weight).
        run.first_gaps = run.burst_gaps = run.burst_counts = ()
        run.regular = {}
        if not run.record:  # (each instance's Served, from which its requests' own gaps follow)
            run.gpus = []
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
    served = n - m["dropped"]
    late = served - bisect_right(m["ttft_sorted"], ttft_target)
    choppy = served - bisect_right(m["max_gap_sorted"], gap_target)
    both = 0
    if late and choppy:
        counted = m["counted"]
        if counted is None and not run.dropped:
            for t, g in zip(run.ttft, run.max_gap):
                if t > ttft_target and g > gap_target:
                    both += 1
        else:  # (a dropped request's None is neither late nor choppy)
            for i, t in enumerate(run.ttft):
                if t is not None and t > ttft_target and run.max_gap[i] > gap_target \
                        and (counted is None or i in counted):
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
        "dropped": m["dropped"],
    }
    if run.memory is not None:  # memory=kv: what its instances held, as shares of their room
        measures.update(run.memory)
    run.scored = ((ttft_target, gap_target), measures)
    return dict(measures)
