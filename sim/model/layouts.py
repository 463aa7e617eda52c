"""Three ways of using the same GPUs: shared (each reads and writes), chunked (each reads in
chunks between its writing steps) and split (readers, a link, writers).

GPUs 0 .. readers-1 are of kind reader_gpu (capped at reader_power), the others of kind
writer_gpu (capped at writer_power), in every layout: the layouts use the same machines,
differently.
"""

from itertools import islice, repeat
from operator import le, sub

from . import chunked as chunked_gpu
from . import gpu
from .costs import capped
from .link import hand_over
from .routing import assign


class Run:
    """One layout's run, pooled over its GPUs: what the metrics are computed from.

    Per-request lists are in no particular order: the metrics only count and rank them."""

    __slots__ = ("ttft", "max_gap", "first_gaps", "burst_gaps", "burst_counts", "regular",
                 "gaps", "measured", "scored", "gpus", "handed")

    def __init__(self):
        self.ttft = []  # time to first word of every request
        self.max_gap = []  # largest gap of every request
        self.first_gaps = []  # irregular gaps, one each ...
        self.burst_gaps = []  # ... and irregular gaps shared by several replies
        self.burst_counts = []
        self.regular = {}  # step -> how many gaps lasted exactly that one step
        self.gaps = 0  # all gaps, regular ones included
        self.measured = None  # target-free measures, worked out once (see metrics.measure)
        self.scored = None  # (targets, measures) of its last scoring (see metrics.score)
        self.gpus = []  # (Served, request indices) of each GPU, kept only when recording
        self.handed = None  # the split's readers and link (link.hand_over), only when recording

    def add(self, served, arrivals):
        """Fold in one GPU's jobs, given the times its jobs arrived."""
        self.ttft += map(sub, served.first, arrivals)
        self.max_gap += served.max_gap
        self.first_gaps += served.first_gaps
        self.burst_gaps += served.burst_gaps
        self.burst_counts += served.burst_counts
        irregular = len(served.first_gaps)
        for count in served.burst_counts:
            irregular += count
        if served.gaps > irregular:
            self.regular[served.step] = self.regular.get(served.step, 0) + served.gaps - irregular
        self.gaps += served.gaps


def chip(s, g):
    """GPU number g: its kind, capped at its pool's power cap."""
    if g < s.readers:
        return capped(s.reader_gpu, s.reader_power)
    return capped(s.writer_gpu, s.writer_power)


def pool(loops, routing, reach, jobs, arrivals, order=None, record=False):
    """Route jobs (in the order they reach the pool) to the GPU loops and serve them all.

    order: the request index of each job (None: the k-th job is request k); arrivals: when
    each request arrived, for its time to first word."""
    for loop in loops:
        next(loop)
    run = Run()
    for loop, given in zip(loops, assign(routing, loops, reach, jobs)):
        served = gpu.finish(loop)
        requests = given if order is None else list(map(order.__getitem__, given))
        run.add(served, list(map(arrivals.__getitem__, requests)))
        if record:
            run.gpus.append((served, requests))
    return run


def shared(work, s, record=False):
    """Each GPU reads its requests' prompts whole and writes their replies. record: keep
    each GPU's Served, with its marks and every value of its clock (run.gpus)."""
    counting = record or s.routing != "alternate"  # least-loaded asks the GPUs questions
    loops = [gpu.loop(chip(s, g), s.slots, counting, record) for g in range(s.gpus)]
    jobs = list(zip(work.arrivals, work.replies, work.prompts))
    return pool(loops, s.routing, work.arrivals, jobs, work.arrivals, record=record)


def chunked(work, s, record=False):
    """Each GPU reads its requests' prompts `chunk` tokens a step, writing meanwhile.
    record: keep each GPU's Served, with its passes (run.gpus)."""
    loops = [chunked_gpu.loop(chip(s, g), s.slots, s.chunk, record) for g in range(s.gpus)]
    jobs = list(zip(work.arrivals, work.replies, work.prompts))
    return pool(loops, s.routing, work.arrivals, jobs, work.arrivals, record=record)


def writer_jobs(work, s, seen=None):
    """The split's writing pool's jobs in the order they reach it: their request indices
    (None when that is arrival order), the times they reach it, and each job (reach time,
    reply, prompt tokens a writer reads: 0 unless the request is read locally). seen: for
    hand_over, to watch the run."""
    reach, local = hand_over(work, s, seen)
    if all(map(le, reach, islice(reach, 1, None))):  # in arrival order already (often)
        order, reached, replies = None, reach, work.replies
    else:
        order = sorted(range(len(reach)), key=reach.__getitem__)  # stable: ties keep arrival order
        reached = list(map(reach.__getitem__, order))
        replies = map(work.replies.__getitem__, order)
    if any(local):
        taken = range(len(reach)) if order is None else order
        reads = [work.prompts[i] if local[i] else 0 for i in taken]
    else:  # (the lesson's: every prompt read by a reader)
        reads = repeat(0)
    return order, reached, list(zip(reached, replies, reads))


def split(work, s, record=False):
    """Readers read, the caches cross, writers write; local prompts a writer reads itself.
    record: keep each writer's Served (run.gpus) and the readers' and link's times (run.handed)."""
    seen = {} if record else None
    order, reached, jobs = writer_jobs(work, s, seen)
    counting = record or s.routing != "alternate"
    loops = [gpu.loop(chip(s, g), s.slots, counting, record) for g in range(s.readers, s.gpus)]
    run = pool(loops, s.routing, reached, jobs, work.arrivals, order, record)
    run.handed = seen
    return run

