"""What the traffic looks like (docs/model.md: "What the traffic looks like"): its lengths and how
bursty its arrivals are, for the lesson's draws and a trace's window alike.

Sums are math.fsum (or of whole numbers), so that the numbers are the same on every Python.
"""

from math import fsum, sqrt

PERCENTILES = (50, 90, 99)


def nearest_rank(ordered, p):
    """The p-th percentile of sorted values: the one at ceil(p/100 x n), counting from 1."""
    return ordered[-(-p * len(ordered) // 100) - 1]


def lengths(name, values):
    ordered = sorted(values)
    out = {f"{name}_p{p}": nearest_rank(ordered, p) for p in PERCENTILES}
    out[f"{name}_mean"] = fsum(values) / len(values)
    return out


def burstiness(arrivals):
    """The coefficient of variation of the gaps between consecutive arrivals (population):
    1 for Poisson arrivals, far above 1 for bursts; None for one request or a mean gap of 0."""
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    if not gaps:
        return None
    mean = fsum(gaps) / len(gaps)
    if mean == 0:
        return None
    return sqrt(fsum([(g - mean) * (g - mean) for g in gaps]) / len(gaps)) / mean


def summary(requests, trace=None):
    """The summary of a setting's requests (draws.Workload or window.Requests); for a trace
    also its name, its usable requests in all (read so far, if it was read only up to the
    window) and the rows left out."""
    arrivals = requests.arrivals
    out = {"requests": len(arrivals), "span_s": arrivals[-1] - arrivals[0],
           **lengths("prompt", requests.prompts), **lengths("reply", requests.replies),
           "gap_cv": burstiness(arrivals)}
    if trace is not None:
        out.update(name=trace.name, trace_requests=trace.usable, left_out=trace.left_out)
    return out
