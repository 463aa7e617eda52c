"""The layouts with `memory=kv` (docs/model.md: "Memory that pushes back"): what each instance
holds, and where it could bind, the runs that let it.

Where memory cannot bind, a run with `memory=kv` is the run with `memory=slots`: every number
the same, bit for bit, and as fast (the fast loops, which only count what they hold). Where it
may, the shared and chunked instances run the general loop, each admitting a job only once it
fits (instance.py), and the split's readers, link and writers are walked together, moment by
moment (backpressure.py).
"""

from bisect import bisect_left
from operator import add

from . import gpu
from . import instance as general
from . import layouts
from .backpressure import Split
from .instances import reader_tp
from .link import reader_chip
from .watch import Steps


def with_memory(work, s, record, make, fast):
    """The shared or chunked layout: a request whose prompt and reply would not fit even an
    empty instance of the smaller kind is dropped as it arrives; the others are routed among
    the instances, in turn or to the least loaded, and each admits a job only once it fits.

    An instance holds at most `slots` jobs, so if that many of the longest fit the smaller room
    it cannot bind: the fast loops (`fast`, None where they cannot say what they held to be
    watched) then run it as with memory=slots."""
    chips = layouts.instances(s)
    room = min(c.capacity for c in chips)
    longest = max(map(add, work.prompts, work.replies), default=0)
    if fast and all(map(layouts.simple, chips)) and s.slots * longest <= room:
        jobs = list(zip(work.arrivals, work.replies, work.prompts))
        run = layouts.pool([fast(c) for c in chips], s.routing, work.arrivals, jobs,
                           work.arrivals, record=record)
        run.memory = {"kv_peak": max(h / c.capacity for h, c in zip(run.held, chips))}
        if record:  # what each held, from the recorded run: a job from its read's start
            run.kv = {("gpu", k): watched(whole_reads(served, requests, work))
                      for k, (served, requests) in enumerate(run.gpus)}
        return run
    made = [make(c) for c in chips]
    kept = [i for i, (p, r) in enumerate(zip(work.prompts, work.replies)) if p + r <= room]
    reach = [work.arrivals[i] for i in kept]
    jobs = [(work.arrivals[i], work.replies[i], work.prompts[i]) for i in kept]
    order = None if len(kept) == len(work.arrivals) else kept
    run = layouts.pool([general.loop(m) for m in made], s.routing, reach, jobs, work.arrivals,
                       order, record)
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


def held(intervals, changes=None):
    """The most tokens held at once by (from, to, tokens) intervals, the changes at one moment
    summed (those that cancel out make none); `changes`, a list, gets (moment, tokens held from
    then on) at each, to watch the run."""
    net = {}
    get = net.get
    for start, end, tokens in intervals:
        net[start] = get(start, 0) + tokens
        net[end] = get(end, 0) - tokens
    most = now = 0
    for moment in sorted(net):
        change = net[moment]
        if change:
            now += change
            if now > most:
                most = now
            if changes is not None:
                changes.append((moment, now))
    return most


def most_held(intervals):
    """The most tokens (from, to, tokens) intervals hold at once: what they hold once a
    moment's changes are all made, as held() counts it (at one moment, its frees first)."""
    ends = sorted([(end, tokens) for _, end, tokens in intervals])
    most = now = k = 0
    for start, _, tokens in sorted(intervals):
        while k < len(ends) and ends[k][0] <= start:
            now -= ends[k][1]
            k += 1
        now += tokens
        if now > most:
            most = now
    return most


def watched(intervals):
    """[(moment, tokens held from then on)] of intervals, from 0 (for watch's kv events)."""
    changes = [(0.0, 0)]
    held(intervals, changes)
    return changes


def split(work, s, record=False):
    """The split with KV memory: as with memory=slots where it cannot bind (one writer
    instance, one GPU an instance, the toy's costs, and room to spare all along), else walked
    together (backpressure.py)."""
    reader, writer = reader_chip(s), layouts.writer_chip(s)
    if ((s.gpus - s.readers) // s.tp == 1 and layouts.simple(reader) and layouts.simple(writer)
            and max(work.prompts, default=0) <= reader.capacity
            and max(map(add, work.prompts, work.replies), default=0) <= writer.capacity):
        run = quiet(work, s, reader, writer, record)
        if run is not None:
            return run
    walked = Split(work, s, reader, writer, s.readers // reader_tp(s),
                   (s.gpus - s.readers) // s.tp, record).run()
    run = layouts.Run()
    for each in walked.writers:
        served = each.served()
        run.add(served, [work.arrivals[i] for i in each.requests])
        if record:
            run.gpus.append((served, each.requests))
    run.dropped = walked.dropped
    end = max((max(w.last, default=0.0) for w in walked.writers), default=0.0)
    run.memory = {"reader_kv_peak": walked.reader_peak, "writer_kv_peak": walked.writer_peak,
                  "backpressure": walked.pushed_back / end if end > 0 else 0.0}
    if record:
        run.pushed, run.kv = walked, walked.kv
    return run


def quiet(work, s, reader, writer, record):
    """The split with memory=slots' run, if memory never binds in it: each reader's caches,
    held from their read's start until they land, and the writer's jobs, each held from when
    it asks (its read's end, its first layer's, or its arrival if read locally) to its last
    word, never above their room. None if they would be."""
    seen = {}
    order, reached, jobs = layouts.writer_jobs(work, s, seen)
    # its marks kept (memory=True), from which its last words' times follow
    loop = gpu.loop(writer, s.slots, record, record, memory=True)
    run = layouts.pool([loop], s.routing, reached, jobs, work.arrivals, order, True)
    starts, ends, who = seen["reads"]
    reach = seen["reach"]
    readers = {}
    for i, r in enumerate(who_of(starts, who)):
        if r is not None:
            readers.setdefault(r, []).append((starts[i], reach[i], work.prompts[i]))
    served, requests = run.gpus[0]
    ended = step_ends(served)
    asks = []
    for j, i in enumerate(requests):
        last = ended(served.last_step[j]) if work.replies[i] > 1 else served.first[j]
        if ends[i] is None:  # read locally: it asks as it arrives
            ask = work.arrivals[i]
        elif s.layerwise:  # once its first layer is read
            ask = starts[i] + reader.read_time(work.prompts[i]) / reader.model.layers
        else:
            ask = ends[i]
        asks.append((ask, last, work.prompts[i] + work.replies[i]))
    reader_peak = max(map(most_held, readers.values()), default=0) / reader.capacity
    writer_peak = most_held(asks) / writer.capacity
    if reader_peak > 1 or writer_peak > 1:
        return None
    run.memory = {"reader_kv_peak": reader_peak, "writer_kv_peak": writer_peak,
                  "backpressure": 0.0}
    if record:
        run.handed = seen
        run.kv = {("reader", r): watched(found) for r, found in sorted(readers.items())}
        run.kv[("writer", 0)] = watched(asks)
    else:
        run.gpus = []
    return run


def step_ends(served):
    """A function: step k -> when it ended, on a fast loop that kept its marks: the clock of its
    last mark before step k, plus whole steps (or, watched, its own every clock value)."""
    if served.clocks is not None:
        steps = Steps("writer", 0, served, ())
        return lambda k: steps.times(k)[1]
    at = [k for k, _ in served.marks]
    step = served.step

    def end(k):
        m = bisect_left(at, k) - 1  # the last mark made before step k
        mark, clock = served.marks[m]
        return clock + (k - mark) * step
    return end


def who_of(starts, who):
    """The reader of each request (None for a local one), from the readers' order of taking."""
    out, k = [], 0
    for start in starts:
        if start is None:
            out.append(None)
        else:
            out.append(who[k])
            k += 1
    return out
