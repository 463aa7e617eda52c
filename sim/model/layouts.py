"""Three ways of using the same GPUs: shared (each reads and writes), chunked (each reads in
chunks between its writing steps) and split (readers, a link, writers).

GPUs 0 .. readers-1 are of kind reader_gpu (capped at reader_power), the others of kind
writer_gpu (capped at writer_power), in every layout: the layouts use the same machines,
differently. GPUs work in instances of tp (the split's readers of reader_tp): instances.py.

Each instance runs the fast loop (gpu.py, chunked.py) where its passes cost what the lesson's
do, one step alike whatever the batch (one GPU, the toy's costs), and the general one
(instance.py) otherwise: with tp GPUs, roofline costs, or a KV memory that may bind.
"""

from itertools import islice, repeat
from operator import le, sub

from . import chunked as chunked_gpu
from . import gpu
from . import instance as general
from . import memory
from .costs import instance
from .link import hand_over
from .routing import assign


class Run:
    """One layout's run, pooled over its GPUs: what the metrics are computed from.

    Per-request lists are in no particular order: the metrics only count and rank them."""

    __slots__ = ("ttft", "max_gap", "first_gaps", "burst_gaps", "burst_counts", "regular",
                 "gaps", "measured", "scored", "gpus", "handed", "dropped", "memory", "pushed",
                 "kv")

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
        self.dropped = 0  # requests too long to ever fit (memory=kv): served nowhere, not good
        self.memory = None  # memory=kv: the measures of what its instances held (metrics.score)
        self.pushed = None  # memory=kv, split: the run walked (backpressure.Split), when recording
        # memory=kv, when recording: each lane's (time, tokens held from then on)
        self.kv = None

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
    """The instance that GPU g is part of in the shared and chunked layouts (with tp = 1, GPU g
    itself): of the readers' kind and power cap if its first GPU is one of the readers."""
    if g // s.tp * s.tp < s.readers:
        return instance(s.reader_gpu, s.reader_power, s.model, s.tp, s.costs)
    return instance(s.writer_gpu, s.writer_power, s.model, s.tp, s.costs)


def writer_chip(s):
    """The split's writer instances: tp GPUs of kind writer_gpu, capped at writer_power."""
    return instance(s.writer_gpu, s.writer_power, s.model, s.tp, s.costs)


def simple(c):
    """Whether an instance's passes cost what the fast loops assume: one GPU, the toy's costs."""
    return c.tp == 1 and not c.roofline


def whole_loop(s, c, counting, record, capacity=None):
    """A loop of the lesson's kind for instance c: the fast one where it can be."""
    if simple(c) and capacity is None:
        return gpu.loop(c, s.slots, counting, record)
    return general.loop(general.Whole(c, s.slots, capacity, record))


def instances(s):
    """The shared and chunked layouts' instances, in order."""
    return [chip(s, k * s.tp) for k in range(s.gpus // s.tp)]


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
    if s.memory == "kv":
        return memory.with_memory(work, s, record, lambda c: general.Whole(c, s.slots, c.capacity, record),
                           lambda c: gpu.loop(c, s.slots, counting, record, memory=True))
    loops = [whole_loop(s, c, counting, record) for c in instances(s)]
    jobs = list(zip(work.arrivals, work.replies, work.prompts))
    return pool(loops, s.routing, work.arrivals, jobs, work.arrivals, record=record)


def chunked(work, s, record=False):
    """Each GPU reads its requests' prompts `chunk` tokens a step, writing meanwhile.
    record: keep each GPU's Served, with its passes (run.gpus)."""
    if s.memory == "kv":
        return memory.with_memory(work, s, record,
                           lambda c: general.Chunked(c, s.slots, s.chunk, c.capacity, record),
                           None if record else  # (watched: its reads' starts are not kept)
                           lambda c: chunked_gpu.loop(c, s.slots, s.chunk, memory=True))
    loops = [chunked_gpu.loop(c, s.slots, s.chunk, record) if simple(c) else
             general.loop(general.Chunked(c, s.slots, s.chunk, record=record)) for c in instances(s)]
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
    if s.memory == "kv":
        return memory.split(work, s, record)
    seen = {} if record else None
    order, reached, jobs = writer_jobs(work, s, seen)
    counting = record or s.routing != "alternate"
    loops = [whole_loop(s, writer_chip(s), counting, record) for _ in range((s.gpus - s.readers) // s.tp)]
    if not simple(writer_chip(s)):  # the general loop costs a step by its replies' contexts
        prompts = work.prompts if order is None else [work.prompts[i] for i in order]
        jobs = [job + (p,) for job, p in zip(jobs, prompts)]
    run = pool(loops, s.routing, reached, jobs, work.arrivals, order, record)
    run.handed = seen
    return run
