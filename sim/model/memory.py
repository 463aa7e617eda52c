"""The layouts with `memory=kv` (docs/model.md: "Memory that pushes back"): what each instance
holds, and where it could bind, the runs that let it.

Where memory cannot bind, a run with `memory=kv` runs on the fast loops, which also count what
they hold: the shared and chunked layouts' every number is memory=slots', and the split's too
with one writer (with several, a cache's writer is chosen as it asks, not as it lands). Where it
may bind, the shared and chunked instances run the general loop, each admitting a job only once
it fits (instance.py), and the split's readers, link and writers are walked together, moment by
moment (backpressure.py): the one place where they are coupled.
"""

from bisect import bisect_left
from heapq import heappop, heappush
from itertools import islice
from operator import add, itemgetter

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
    moment's changes are all made, as held() counts it (at one moment, its frees first).

    Taken in the order they start (as they come, most often), each frees what ended by its
    start: a heap of the ends of those held, as few as are held at once."""
    if not all(a[0] <= b[0] for a, b in zip(intervals, islice(intervals, 1, None))):
        intervals = sorted(intervals, key=itemgetter(0))
    ending = []
    most = now = 0
    for start, end, tokens in intervals:
        if end <= start:  # freed the moment it is held: it holds nothing
            continue
        while ending and ending[0][0] <= start:
            now -= heappop(ending)[1]
        now += tokens
        if now > most:
            most = now
        heappush(ending, (end, tokens))
    return most


def watched(intervals):
    """[(moment, tokens held from then on)] of intervals, from 0 (for watch's kv events)."""
    changes = [(0.0, 0)]
    held(intervals, changes)
    return changes


def split(work, s, record=False):
    """The split with KV memory: on the fast loops where it cannot bind (the toy's costs, one GPU
    an instance, and room to spare all along), else walked together (backpressure.py)."""
    reader, writer = reader_chip(s), layouts.writer_chip(s)
    writers = (s.gpus - s.readers) // s.tp
    if (layouts.simple(reader) and layouts.simple(writer)
            and max(work.prompts, default=0) <= reader.capacity
            and max(map(add, work.prompts, work.replies), default=0) <= writer.capacity):
        run = quiet(work, s, reader, writer, writers, record)
        if run is not None:
            return run
    walked = Split(work, s, reader, writer, s.readers // reader_tp(s), writers, record).run()
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


def quiet(work, s, reader, writer, writers, record):
    """The split's run if memory never binds in it: each reader's caches, held from their read's
    start until they land, and each writer's jobs, each held from when it asks (its read's end,
    its first layer's, or its arrival if read locally) to its last word, never above their room.
    None if they would be.

    With room to spare nothing waits, so the readers and the link are today's; only the writers'
    turns differ from memory=slots': a cache's writer is chosen as it asks (in the order of
    asking, equal times remote first, then by request index), not as it lands. Each writer then
    takes its jobs in the order they reach it, as today."""
    seen = {}
    order, _, jobs = layouts.writer_jobs(work, s, seen)
    starts, ends, who = seen["reads"]
    reach = seen["reach"]
    taken = range(len(reach)) if order is None else order  # requests in the order they reach
    # when each asks: a remote cache as it could begin crossing on a free link, a local job as
    # it arrives
    asks_at = [a if ready is None else ready for a, ready in zip(work.arrivals, seen["ready"])]
    readers = {}
    for i, r in enumerate(who_of(starts, who)):
        if r is not None:
            readers.setdefault(r, []).append((starts[i], reach[i], work.prompts[i]))
    counting = record or (writers > 1 and s.routing != "alternate")  # least-loaded asks them
    # each writer's marks kept, from which its last words' times follow
    loops = [gpu.loop(writer, s.slots, counting, record, marked=True) for _ in range(writers)]
    for loop in loops:
        next(loop)
    given = [[] for _ in range(writers)]  # the requests each writer takes, in that order
    if writers == 1:
        given[0] = list(taken)
        loops[0].send(jobs)
    else:
        by_request = dict(zip(taken, jobs))
        ranked = sorted(range(len(reach)), key=lambda i: (asks_at[i], ends[i] is None, i))
        if s.routing == "alternate":  # in turn, in the order of asking
            writer_of = [0] * len(reach)
            for k, i in enumerate(ranked):
                writer_of[i] = k % writers
            for i in taken:
                given[writer_of[i]].append(i)
            for loop, requests in zip(loops, given):
                loop.send(list(map(by_request.__getitem__, requests)))
        else:
            least_loaded(loops, given, ranked, asks_at, reach, by_request)
    run, held = layouts.Run(), []
    for loop, requests in zip(loops, given):
        served = gpu.finish(loop)
        run.add(served, list(map(work.arrivals.__getitem__, requests)))
        run.gpus.append((served, requests))
        ended = step_ends(served)
        asks = []
        for j, i in enumerate(requests):
            last = ended(served.last_step[j]) if work.replies[i] > 1 else served.first[j]
            asks.append((asks_at[i], last, work.prompts[i] + work.replies[i]))
        held.append(asks)
    reader_peak = max(map(most_held, readers.values()), default=0) / reader.capacity
    writer_peak = max(map(most_held, held), default=0) / writer.capacity
    if reader_peak > 1 or writer_peak > 1:
        return None
    run.memory = {"reader_kv_peak": reader_peak, "writer_kv_peak": writer_peak,
                  "backpressure": 0.0}
    if record:
        run.handed = seen
        run.kv = {("reader", r): watched(found) for r, found in sorted(readers.items())}
        for w, asks in enumerate(held):
            run.kv[("writer", w)] = watched(asks)
    else:
        run.gpus = []
    return run


def least_loaded(loops, given, ranked, asks_at, reach, by_request):
    """Each request, in the order of asking, to the writer holding the fewest jobs as it asks
    (the lowest index on equal counts): those given to it whose last word comes after then,
    those not yet reached included. A loop is sent its jobs in the order they reach it, each
    once the asks have passed its reach, so that every job it holds has come when it is asked."""
    coming = [[] for _ in loops]  # each writer's jobs given and not yet sent: (reach, request)
    for i in ranked:
        t = asks_at[i]
        counts = []
        for loop, waiting, requests in zip(loops, coming, given):
            while waiting and waiting[0][0] < t:
                j = heappop(waiting)[1]
                loop.send(by_request[j])
                requests.append(j)
            counts.append(loop.send(t)[0] + len(waiting))
        heappush(coming[counts.index(min(counts))], (reach[i], i))
    for loop, waiting, requests in zip(loops, coming, given):
        while waiting:
            j = heappop(waiting)[1]
            loop.send(by_request[j])
            requests.append(j)


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
