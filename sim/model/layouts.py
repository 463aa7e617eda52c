"""Three ways of using the same GPUs: shared (each reads and writes), chunked (each reads in
chunks between its writing steps) and split (readers, a link, writers).

GPUs 0 .. readers-1 are of kind reader_gpu (capped at reader_power), the others of kind
writer_gpu (capped at writer_power), in every layout: the layouts use the same machines,
differently. GPUs work in instances of tp (the split's readers of reader_tp): instances.py.

Each instance runs the fast loop (gpu.py, chunked.py) where its passes cost what the lesson's
do, one step alike whatever the batch (one GPU, the toy's costs), and the general one
(instance.py) otherwise: with tp GPUs, roofline costs, or a KV memory that may bind
(memory.py). Each layout's run is a Run (run.py): what each request got, by its index.
"""

from . import chunked as chunked_gpu
from . import gpu
from . import instance as general
from . import memory
from .instances import shared_instances, simple, writer_chip
from .link import writer_jobs
from .routing import pool


def layouts_of(s):
    """The layouts settings s have: shared and split, and chunked when s.chunk > 0."""
    return ("shared", "split", "chunked") if s.chunk else ("shared", "split")


def whole_loop(s, c, counting, record):
    """A loop of the lesson's kind for instance c: the fast one where it can be."""
    if simple(c):
        return gpu.loop(c, s.slots, counting, record)
    return general.loop(general.Whole(c, s.slots, record=record))


def shared(work, s, record=False):
    """Each GPU reads its requests' prompts whole and writes their replies. record: keep
    each GPU's Served, with its marks and every value of its clock (run.gpus)."""
    counting = record or s.routing != "alternate"  # least-loaded asks the GPUs questions
    if s.memory == "kv":
        return memory.with_memory(work, s, record, lambda c: general.Whole(c, s.slots, c.capacity, record),
                                  lambda c: gpu.loop(c, s.slots, counting, record, memory=True))
    loops = [whole_loop(s, c, counting, record) for c in shared_instances(s)]
    jobs = list(zip(work.arrivals, work.replies, work.prompts))
    return pool(loops, s.routing, work.arrivals, jobs, work, record=record)


def chunked(work, s, record=False):
    """Each GPU reads its requests' prompts `chunk` tokens a step, writing meanwhile.
    record: keep each GPU's Served, with its passes (run.gpus)."""
    if s.memory == "kv":
        return memory.with_memory(work, s, record,
                                  lambda c: general.Chunked(c, s.slots, s.chunk, c.capacity, record),
                                  None if record else  # (watched: its reads' starts are not kept)
                                  lambda c: chunked_gpu.loop(c, s.slots, s.chunk, memory=True))
    loops = [chunked_gpu.loop(c, s.slots, s.chunk, record) if simple(c) else
             general.loop(general.Chunked(c, s.slots, s.chunk, record=record))
             for c in shared_instances(s)]
    jobs = list(zip(work.arrivals, work.replies, work.prompts))
    return pool(loops, s.routing, work.arrivals, jobs, work, record=record)


def split(work, s, record=False):
    """Readers read, the caches cross, writers write; local prompts a writer reads itself.
    record: keep each writer's Served (run.gpus) and the readers' and link's times (run.handed)."""
    if s.memory == "kv":
        return memory.split(work, s, record)
    seen = {} if record else None
    order, reached, jobs = writer_jobs(work, s, seen)
    counting = record or s.routing != "alternate"
    writer = writer_chip(s)
    loops = [whole_loop(s, writer, counting, record) for _ in range((s.gpus - s.readers) // s.tp)]
    if not simple(writer):  # the general loop costs a step by its replies' contexts
        prompts = work.prompts if order is None else [work.prompts[i] for i in order]
        jobs = [job + (p,) for job, p in zip(jobs, prompts)]
    run = pool(loops, s.routing, reached, jobs, work, order, record)
    run.handed = seen
    return run
