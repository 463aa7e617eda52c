"""Routing: which GPU of a pool takes each job (docs/model.md: "Routing").

A pool's GPUs are coroutines (gpu.loop, chunked.loop, instance.loop): each is sent its jobs
in the order they reach it, and can be asked how many jobs it holds at a moment. `pool` routes
a pool's jobs and serves them all: a layout's Run.
"""

from math import inf

from .gpu import finish
from .run import Run

ROUTINGS = ("alternate", "least-loaded")


def assign(routing, gpus, reach, jobs):
    """Hand `jobs` (in the order they reach the pool, at the times `reach`) to the GPUs.

    alternate: in turn, the k-th job to the GPU k mod len(gpus) (the lesson's rule).
    least-loaded: at the moment a job reaches the pool, to the GPU holding the fewest jobs
    (given to it, with their last word after that moment), the lowest index on equal counts.
    Returns, for each GPU, the positions in `jobs` of the jobs it was given."""
    n = len(gpus)
    if routing == "alternate":  # each GPU's jobs are known at once: hand them all over
        for g, gpu in enumerate(gpus):
            gpu.send(jobs[g::n])
        return [range(g, len(jobs), n) for g in range(n)]
    if routing != "least-loaded":
        raise ValueError(f"routing must be one of {', '.join(ROUTINGS)}; got {routing!r}")
    given = [[] for _ in gpus]
    held = [0] * n  # what each GPU last said it holds ...
    until = [-inf] * n  # ... and until when that holds, unless it is given a job
    for k, (t, job) in enumerate(zip(reach, jobs)):
        for g in range(n):
            if t >= until[g]:
                held[g], until[g] = gpus[g].send(t)
        g = held.index(min(held))
        gpus[g].send(job)
        given[g].append(k)
        until[g] = -inf
    return given


def pool(loops, routing, reach, jobs, work, order=None, record=False):
    """Route jobs (in the order they reach the pool, at the times `reach`) to the GPU loops
    and serve them all: the run of `work`'s requests. order: the request index of each job
    (None: the k-th job is request k); a request given no job was dropped."""
    for loop in loops:
        next(loop)
    run = Run(work.replies, record)
    for loop, given in zip(loops, assign(routing, loops, reach, jobs)):
        run.add(finish(loop), given if order is None else list(map(order.__getitem__, given)),
                work.arrivals)
    return run
