"""The two ways of using two GPUs: shared (each reads and writes) and split (reader, link, writer)."""

from operator import sub

from .costs import CACHE_PER_TOKEN, READ_COST
from .gpu import serve


class Run:
    """One layout's run, pooled over its GPUs: what the metrics are computed from.

    Per-request lists are in no particular order: the metrics only count and rank them."""

    __slots__ = ("ttft", "max_gap", "first_gaps", "burst_gaps", "burst_counts", "gaps",
                 "measured")

    def __init__(self):
        self.ttft = []  # time to first word of every request
        self.max_gap = []  # largest gap of every request
        self.first_gaps = []  # irregular gaps, one each ...
        self.burst_gaps = []  # ... and irregular gaps shared by several replies
        self.burst_counts = []
        self.gaps = 0  # all gaps, regular (exactly one step) ones included
        self.measured = None  # target-free measures, worked out once (see metrics.measure)

    def add(self, served, arrivals):
        """Fold in one GPU's jobs, given the times its jobs arrived."""
        self.ttft += map(sub, served.first, arrivals)
        self.max_gap += served.max_gap
        self.first_gaps += served.first_gaps
        self.burst_gaps += served.burst_gaps
        self.burst_counts += served.burst_counts
        self.gaps += served.gaps


def shared_gpu_jobs(work, gpu):
    """What GPU `gpu` of the shared layout serves (request i goes to GPU i mod 2):
    its requests' arrivals, replies and prompts."""
    return work.arrivals[gpu::2], work.replies[gpu::2], work.prompts[gpu::2]


def read_times(prompts):
    return [p * READ_COST for p in prompts]


def shared(work):
    """Each GPU reads its requests' prompts and writes their replies."""
    run = Run()
    for gpu in (0, 1):
        arrivals, replies, prompts = shared_gpu_jobs(work, gpu)
        run.add(serve(arrivals, replies, read_times(prompts)), arrivals)
    return run


def hand_over(work, link):
    """The reader reads one prompt at a time, in arrival order; then the cache crosses the link.

    Returns when each request reaches the writer, its first word made."""
    bytes_per_second = link * 1e9
    done = 0.0
    handed = []
    for a, p in zip(work.arrivals, work.prompts):
        done = (done if done > a else a) + p * READ_COST
        handed.append(done + p * CACHE_PER_TOKEN / bytes_per_second)
    return handed


def writer_jobs(work, link):
    """The split's writer's jobs in the order they reach it: their request indices, the
    times they reach it and their replies."""
    handed = hand_over(work, link)
    order = sorted(range(len(handed)), key=handed.__getitem__)  # stable: ties keep arrival order
    return order, [handed[i] for i in order], [work.replies[i] for i in order]


def split(work, link):
    """One reader, one writer; the writer takes requests in the order they reach it."""
    order, reached, replies = writer_jobs(work, link)
    run = Run()
    run.add(serve(reached, replies), [work.arrivals[i] for i in order])
    return run
