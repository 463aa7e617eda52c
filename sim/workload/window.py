"""A window of a trace and its requests' arrivals (docs/model.md: "Seconds, exactly",
"The requests of a trace").

The settings-free part of a window (each request's time after the first, its prompt and its
reply) is made once, and its arrivals are worked out for each load: the rate goodput's
bisection asks for the same window at some thirty loads. Likewise the Poisson spacings of a
seed: `expovariate(rps)` is `-log(1 - random()) / rps` (CPython 3.11 to 3.14), so the
spacings at rate 1 are drawn once and divided by each rps, as the lesson's draws are.
"""

import random
from itertools import accumulate
from math import log

from .draws import Room


class Requests(Room):
    """The requests of one setting, as the model takes them (like draws.Workload)."""

    __slots__ = ("arrivals", "prompts", "replies")

    def __init__(self, arrivals, prompts, replies):
        self.arrivals = arrivals  # seconds from the start, in request order
        self.prompts = prompts  # prompt tokens of each
        self.replies = replies  # reply words (tokens) of each
        self._totals = None


class Window:
    """Requests start .. start + count - 1 of a trace, before any load is set."""

    __slots__ = ("name", "taus", "prompts", "replies", "lines")

    def __init__(self, trace, start, count):
        end = start + count
        if trace.usable < end or (not trace.whole and trace.first + len(trace) < end):
            raise ValueError(too_few(trace, start, count))
        if start < trace.first:
            raise ValueError(f"{trace.name} was read from request {trace.first:,} on; the "
                             f"window asks for requests {start:,} to {end - 1:,}")
        i = start - trace.first
        times = trace.times[i:i + count]
        self.name = trace.name
        self.taus = taus(trace.clock, times)
        self.prompts = trace.prompts[i:i + count]
        self.replies = trace.replies[i:i + count]
        self.lines = (trace.lines[i], trace.lines[i + count - 1])

    def recorded(self, rps):
        """The trace's own spacing, scaled so that it lasts (N - 1) / rps seconds: k first,
        then each tau times k, in the model's order of operations."""
        span = self.taus[-1]
        if span == 0:
            raise ValueError(same_moment(self))
        k = (len(self.taus) - 1) / (rps * span)
        return [tau * k for tau in self.taus]

    def requests(self, arrivals):
        return Requests(arrivals, self.prompts, self.replies)


def taus(clock, times):
    """Each time after the first, in seconds, exactly as the model works it out: one true
    division of two whole numbers for date-times (nanoseconds) and milliseconds, a float
    subtraction for seconds."""
    t0 = times[0]
    if clock == "date-time":
        return [(t - t0) / 1_000_000_000 for t in times]
    if clock == "milliseconds":
        return [(t - t0) / 1000 for t in times]
    return [t - t0 for t in times]


def too_few(trace, start, count):
    have = f"{trace.usable:,}" if trace.whole else f"at least {trace.usable:,}"
    left = (f" ({trace.left_out:,} row{'' if trace.left_out == 1 else 's'} with 0 prompt or "
            f"reply tokens left out)" if trace.left_out else "")
    return (f"{trace.name} has {have} usable request{'' if trace.usable == 1 else 's'}{left}; "
            f"the window needs {start + count:,} (trace_start {start:,} + requests {count:,})")


def same_moment(window):
    first, last = window.lines
    where = f"line {first:,}" if first == last else f"lines {first:,} to {last:,}"
    many = len(window.taus)
    if many == 1:
        return (f"{window.name}, {where}: a window of one request has no spacing of its own to "
                "scale to a load (arrivals=recorded); take more requests, or arrivals=poisson")
    return (f"{window.name}, {where}: the window's {many:,} requests all arrive at one moment, "
            "so their spacing cannot be scaled to a load (arrivals=recorded); take another "
            "window, or arrivals=poisson")


def poisson_spacings(seed, count):
    """The gaps of `count` Poisson arrivals at rate 1 from random.Random(seed): nothing else
    is drawn (the lesson's draws also pick lengths; a trace has its own)."""
    uniform = random.Random(seed).random
    return [-log(1.0 - uniform()) for _ in range(count)]


def poisson(spacings, rps):
    """Arrivals at rate rps: each gap divided by rps, added up from 0 (`t += gap`)."""
    return list(accumulate([g / rps for g in spacings]))
