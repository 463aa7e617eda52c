"""The layouts with `memory=kv` (docs/model.md: "Memory that pushes back"): what each instance
holds, and where it could bind, the runs that let it.

Where memory cannot bind, a run with `memory=kv` runs on the fast loops, and what each instance
held is worked out once it is done (peak.py; the split's run is quiet.py's): the shared and
chunked layouts' every number is memory=slots', and the split's too with one writer (with
several, a cache's writer is chosen as it asks, not as it lands). Where it
may bind, the shared and chunked instances run the general loop, each admitting a job only once
it fits (instance.py), and the split's readers, link and writers are walked together, moment by
moment (backpressure.py): the one place where they are coupled.
"""

from . import instance as general
from .backpressure import Split
from .instances import reader_tp, shared_instances, simple, writer_chip
from .link import reader_chip
from .peak import reads_held, watched
from .quiet import pick, quiet
from .routing import pool
from .run import Run
from .watch import Steps


def with_memory(work, s, record, make, fast):
    """The shared or chunked layout: a request whose prompt and reply would not fit even an
    empty instance of the smaller kind is dropped as it arrives; the others are routed among
    the instances, in turn or to the least loaded, and each admits a job only once it fits.

    An instance holds at most `slots` jobs, so if that many of the longest fit the smaller room
    it cannot bind: the fast loops (`fast`, None where they cannot say what they held to be
    watched) then run it as with memory=slots."""
    chips = shared_instances(s)
    room = min(c.capacity for c in chips)
    totals = work.totals
    if fast and all(map(simple, chips)) and s.slots * max(totals, default=0) <= room:
        jobs = list(zip(work.arrivals, work.replies, work.prompts))
        run = pool([fast(c) for c in chips], s.routing, work.arrivals, jobs, work, record=record)
        # what each held: a chunked GPU counts its own, gpu.loop keeps its reads' steps
        most = [served.held if served.reads_at is None else
                reads_held(served.reads_at, served.last_step, pick(work.replies, requests),
                           pick(totals, requests), pick(work.prompts, requests))
                for served, requests in run.gpus]
        run.memory = {"kv_peak": max(h / c.capacity for h, c in zip(most, chips))}
        if record:  # what each held, from the recorded run: a job from its read's start
            run.kv = {("gpu", k): watched(whole_reads(served, requests, work))
                      for k, (served, requests) in enumerate(run.gpus)}
        return run
    made = [make(c) for c in chips]
    kept = [i for i, (p, r) in enumerate(zip(work.prompts, work.replies)) if p + r <= room]
    reach = [work.arrivals[i] for i in kept]
    jobs = [(work.arrivals[i], work.replies[i], work.prompts[i]) for i in kept]
    order = None if len(kept) == len(work.arrivals) else kept
    run = pool([general.loop(m) for m in made], s.routing, reach, jobs, work, order, record)
    run.dropped = len(work.arrivals) - len(kept)
    run.memory = {"kv_peak": max(m.peak / m.capacity for m in made)}
    if record:
        run.kv = {("gpu", k): m.kv for k, m in enumerate(made)}
    return run


def whole_reads(served, requests, work):
    """(from, to, tokens) of each job of a fast loop watched (its clocks kept): its prompt and
    reply held from its read's start to its last word."""
    steps = Steps("gpu", 0, served, [work.replies[i] for i in requests])
    starts = {}
    for n, (_, _, j) in enumerate(served.clocks):
        if j >= 0:
            starts[j] = served.clocks[n - 1][1]
    out = []
    for j, i in enumerate(requests):
        last = steps.times(served.last_step[j])[1] if work.replies[i] > 1 else served.first[j]
        out.append((starts[j], last, work.prompts[i] + work.replies[i]))
    return out


def split(work, s, record=False):
    """The split with KV memory: on the fast loops where it cannot bind (the toy's costs, one GPU
    an instance, and room to spare all along: quiet.py), else walked together (backpressure.py)."""
    reader, writer = reader_chip(s), writer_chip(s)
    writers = (s.gpus - s.readers) // s.tp
    if simple(reader) and simple(writer):
        run = quiet(work, s, reader, writer, s.readers // reader_tp(s), writers, record)
        if run is not None:
            return run
    walked = Split(work, s, reader, writer, s.readers // reader_tp(s), writers, record).run()
    run = Run(work.replies, record)
    for each in walked.writers:
        run.add(each.served(), each.requests, work.arrivals)
    run.dropped = walked.dropped
    end = max((max(w.last, default=0.0) for w in walked.writers), default=0.0)
    run.memory = {"reader_kv_peak": walked.reader_peak, "writer_kv_peak": walked.writer_peak,
                  "backpressure": walked.pushed_back / end if end > 0 else 0.0}
    if record:
        run.pushed, run.kv = walked, walked.kv
    return run
