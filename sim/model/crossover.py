"""The crossover: the link speed below which splitting stops paying (docs/model.md: "What is
measured, further"), found by bisection on a log scale between the link's limits."""

from math import exp, log

from ..settings import FIELDS

BISECTION_STEPS = 40  # halvings of the link range (on a log scale) at the most


def bisect(lab, s):
    """The bisection, pausing (yield) after each simulation; returns its findings: `link` is the
    slowest link found at which the split's goodput is higher than the shared layout's, `below`
    the fastest at which it is not (within one part in a million), or `verdict` never/always."""
    lo, hi = FIELDS["link"].metadata["limits"]
    shared = lab.compare(s)["shared"]["goodput"]

    def split_at(link):
        return lab.compare(s.but(link=link))["split"]["goodput"]

    out = {"shared_goodput": shared}
    top = split_at(hi)
    yield
    if top <= shared:
        return {**out, "link": None, "below": hi, "verdict": "never", "split_goodput": top}
    bottom = split_at(lo)
    yield
    if bottom > shared:
        return {**out, "link": lo, "below": None, "verdict": "always",
                "split_goodput": bottom}
    at_hi = top
    for _ in range(BISECTION_STEPS):
        if hi / lo < 1 + 1e-6:
            break
        mid = exp((log(lo) + log(hi)) / 2)
        at_mid = split_at(mid)
        yield
        if at_mid > shared:
            hi, at_hi = mid, at_mid
        else:
            lo = mid
    return {**out, "link": hi, "below": lo, "verdict": "between", "split_goodput": at_hi}
