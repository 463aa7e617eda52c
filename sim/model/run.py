"""A layout's run: what each request got, by its index in the workload.

Request i of the workload is request i here, whichever instance served it and in whatever
order: `ttft[i]`, its time to first word; `max_gap[i]`, its longest gap (0 for a one-word
reply); `gaps_of()[i]`, every gap it had; and None in `ttft[i]` and `max_gap[i]` if it was
dropped (memory=kv: it could never fit). A measure of requests (metrics.py) is therefore a
function of these lists, whatever loops, routing or layout made them.

Each instance's loop keeps its gaps without listing them (gpu.py): irregular gaps, some shared
by several replies, and gaps of exactly one step, counted. The run pools them as they come
(the measures of every request read only the pool), and keeps each instance's Served until it
is measured: a request's own gaps are found from it (Served.spans: its first gap, the shared
gaps it sat through, and one step for each of the rest).
"""

from collections import deque
from operator import sub


class Run:
    """One layout's run: what its requests got (by index), and its gaps pooled."""

    __slots__ = ("ttft", "max_gap", "replies", "first_gaps", "burst_gaps", "burst_counts",
                 "regular", "gaps", "measured", "scored", "gpus", "handed", "dropped", "memory",
                 "pushed", "kv", "record")

    def __init__(self, replies, record=False):
        n = len(replies)
        self.ttft = [None] * n  # each request's time to first word (None: dropped)
        self.max_gap = [None] * n  # each request's largest gap (0 for one word; None: dropped)
        self.replies = replies  # each request's words: its gaps are one fewer
        self.first_gaps = []  # irregular gaps, one each ...
        self.burst_gaps = []  # ... and irregular gaps shared by several replies
        self.burst_counts = []
        self.regular = {}  # step -> how many gaps lasted exactly that one step
        self.gaps = 0  # all gaps, regular ones included
        self.measured = None  # target-free measures, worked out once (see metrics.measure)
        self.scored = None  # (targets, measures) of its last scoring (see metrics.score)
        # (Served, request indices) of each instance, in order: kept until the run is measured,
        # and after that only when recording (to watch the run)
        self.gpus = []
        self.record = record
        self.handed = None  # the split's readers and link (link.hand_over), only when recording
        self.dropped = 0  # requests too long to ever fit (memory=kv): served nowhere, not good
        self.memory = None  # memory=kv: the measures of what its instances held (metrics.score)
        self.pushed = None  # memory=kv, split: the run walked (backpressure.Split), when recording
        # memory=kv, when recording: each lane's (time, tokens held from then on)
        self.kv = None

    def add(self, served, requests, arrivals):
        """Fold in one instance's jobs: `requests` is the request index of each of its jobs
        (a range or a list), `arrivals` every request's arrival time."""
        if requests.__class__ is range:
            where = slice(requests.start, requests.stop, requests.step)
            self.ttft[where] = map(sub, served.first, arrivals[where])
            self.max_gap[where] = served.max_gap
        else:  # stored by index, in C (a Python step per request costs the page a tenth)
            deque(map(self.ttft.__setitem__, requests,
                      map(sub, served.first, map(arrivals.__getitem__, requests))), 0)
            deque(map(self.max_gap.__setitem__, requests, served.max_gap), 0)
        self.first_gaps += served.first_gaps
        self.burst_gaps += served.burst_gaps
        self.burst_counts += served.burst_counts
        irregular = len(served.first_gaps)
        for count in served.burst_counts:
            irregular += count
        if served.gaps > irregular:
            self.regular[served.step] = self.regular.get(served.step, 0) + served.gaps - irregular
        self.gaps += served.gaps
        self.gpus.append((served, requests))

    def gaps_of(self):
        """{request: its gaps, smallest first} for every request served, from its instance's
        Served: the run must not have been measured (or must be recorded)."""
        out = {}
        for served, given in self.gpus:
            firsts, spans, values, weights = served.spans()
            for j, i in enumerate(given):
                mine = [] if firsts[j] is None else [firsts[j]]
                lo, hi = spans[j]
                if weights is None:
                    mine += values[lo:hi]
                else:
                    for k in range(lo, hi):
                        mine += [values[k]] * weights[k]
                mine += [served.step] * (self.replies[i] - 1 - len(mine))
                mine.sort()
                out[i] = mine
        return out
