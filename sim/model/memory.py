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
from itertools import accumulate, repeat
from math import inf
from operator import add, le, mul, neg, sub

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


def most_held(starts, ends, tokens):
    """The most tokens held at once by the intervals (starts[k], ends[k], tokens[k]), as held()
    counts them: once a moment's changes are all made (an interval that ends as it starts
    holds nothing).

    Every change in the order of time, at one moment the frees first (they come first, and the
    sort keeps the order of equals), so that the running total passes through each moment's
    count and never above it: its most. The sort, the running total and the most are taken
    in C, without a Python step per interval (the split's fast path, a compare's cost)."""
    if not all(map(le, starts, ends)):  # an interval that ends before it starts holds nothing
        kept = [k for k, (a, b) in enumerate(zip(starts, ends)) if a < b]
        starts, ends, tokens = ([x[k] for k in kept] for x in (starts, ends, tokens))
    at = list(ends)
    at += starts
    change = list(map(neg, tokens))
    change += tokens
    return max(accumulate(map(change.__getitem__, sorted(range(len(at)), key=at.__getitem__))),
               default=0)


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
    takes its jobs in the order they reach it, as today.

    Its lists are made with map and sorted (C), not a Python step per request: with room to
    spare this is all memory=kv adds to a compare."""
    seen = {}
    order, _, jobs = layouts.writer_jobs(work, s, seen)
    starts, _, who = seen["reads"]
    reach, n = seen["reach"], len(seen["reach"])
    place = range(n) if order is None else sorted(range(n), key=order.__getitem__)  # in `jobs`
    remote = range(n)  # the requests the readers read, in order
    asks_at = seen["ready"]  # when each asks: a remote cache as it could go on a free link ...
    some_local = None in starts
    if some_local:  # ... a local job as it arrives
        remote = [i for i, start in enumerate(starts) if start is not None]
        asks_at = [a if ready is None else ready for a, ready in zip(work.arrivals, asks_at)]
    totals = list(map(add, work.prompts, work.replies))
    counting = record or (writers > 1 and s.routing != "alternate")  # least-loaded asks them
    # each writer's marks kept, from which its last words' times follow
    loops = [gpu.loop(writer, s.slots, counting, record, marked=True) for _ in range(writers)]
    for loop in loops:
        next(loop)
    if writers == 1:
        given = [list(range(n) if order is None else order)]
        loops[0].send(jobs)
    else:  # in the order of asking, equal times remote first, then by request index
        ranked = sorted(range(n), key=asks_at.__getitem__)
        if some_local:
            local = [start is None for start in starts]
            ranked = sorted(sorted(range(n), key=local.__getitem__), key=asks_at.__getitem__)
        if s.routing == "alternate":  # in turn, in the order of asking; each in reach order
            given = [sorted(ranked[w::writers], key=None if order is None else place.__getitem__)
                     for w in range(writers)]
            for loop, requests in zip(loops, given):
                loop.send(list(map(jobs.__getitem__, map(place.__getitem__, requests))))
        else:
            given = [[] for _ in range(writers)]
            least_loaded(loops, given, ranked, asks_at, reach,
                         dict(zip(range(n) if order is None else order, jobs)))
    run, held = layouts.Run(), []
    for loop, requests in zip(loops, given):
        served = gpu.finish(loop)
        run.add(served, list(map(work.arrivals.__getitem__, requests)))
        run.gpus.append((served, requests))
        held.append((list(map(asks_at.__getitem__, requests)),
                     last_words(served, list(map(work.replies.__getitem__, requests))),
                     list(map(totals.__getitem__, requests))))
    readers = []  # each reader's caches: (read starts, landings, prompts)
    for read in by_reader(who, remote):
        readers.append((list(map(starts.__getitem__, read)), list(map(reach.__getitem__, read)),
                        list(map(work.prompts.__getitem__, read))))
    reader_peak = max((most_held(*r) for r in readers), default=0) / reader.capacity
    writer_peak = max((most_held(*w) for w in held), default=0) / writer.capacity
    if reader_peak > 1 or writer_peak > 1:
        return None
    run.memory = {"reader_kv_peak": reader_peak, "writer_kv_peak": writer_peak,
                  "backpressure": 0.0}
    if record:
        run.handed = seen
        run.kv = {("reader", r): watched(list(zip(*found)))
                  for r, found in enumerate(readers) if found[0]}
        for w, asks in enumerate(held):
            run.kv[("writer", w)] = watched(list(zip(*asks)))
    else:
        run.gpus = []
    return run


def least_loaded(loops, given, ranked, asks_at, reach, by_request):
    """Each request, in the order of asking, to the writer holding the fewest jobs as it asks
    (the lowest index on equal counts): those given to it whose last word comes after then,
    those not yet reached included. A loop is sent its jobs in the order they reach it, each
    once the asks have passed its reach, so that every job it holds has come when it is asked;
    its answer holds until the time it gives, unless it is sent a job (routing.assign's rule)."""
    coming = [[] for _ in loops]  # each writer's jobs given and not yet sent: (reach, request)
    held = [0] * len(loops)  # what each loop last said it holds ...
    until = [-inf] * len(loops)  # ... and until when that holds
    writers = range(len(loops))
    for i in ranked:
        t = asks_at[i]
        for w in writers:
            waiting = coming[w]
            if waiting and waiting[0][0] < t:
                loop, requests = loops[w], given[w]
                while waiting and waiting[0][0] < t:
                    j = heappop(waiting)[1]
                    loop.send(by_request[j])
                    requests.append(j)
                until[w] = -inf
            if t >= until[w]:
                held[w], until[w] = loops[w].send(t)
        counts = list(map(add, held, map(len, coming)))
        heappush(coming[counts.index(min(counts))], (reach[i], i))
    for loop, waiting, requests in zip(loops, coming, given):
        while waiting:
            j = heappop(waiting)[1]
            loop.send(by_request[j])
            requests.append(j)


def last_words(served, replies):
    """When each job of a fast loop that kept its marks wrote its last word: a one-word reply's
    first, else the end of its last step, the clock of the loop's last mark before that step
    plus whole steps (watched, from its every clock value), in the loop's own arithmetic."""
    if served.clocks is not None:
        steps = Steps("writer", 0, served, ())
        ends = [steps.times(k)[1] if r > 1 else 0.0 for k, r in zip(served.last_step, replies)]
    elif served.marks[-1][0] < min(served.last_step, default=0):  # all after its last mark
        at, clock = served.marks[-1]  # (a busy writer's: it marks only when it idles)
        ends = list(map(add, repeat(clock), map(mul, map(sub, served.last_step, repeat(at)),
                                                repeat(served.step))))
    else:
        at = [k for k, _ in served.marks]
        clocks = [clock for _, clock in served.marks]
        mark = list(map(sub, map(bisect_left, repeat(at), served.last_step), repeat(1)))
        ends = list(map(add, map(clocks.__getitem__, mark),
                        map(mul, map(sub, served.last_step, map(at.__getitem__, mark)),
                            repeat(served.step))))
    if 1 in replies:
        ends = [first if r == 1 else end for first, r, end in zip(served.first, replies, ends)]
    return ends


def by_reader(who, remote):
    """The requests each reader read, in order, from the reader of each read (who) and the
    requests read (remote), in the readers' order of taking."""
    if not who:
        return []
    if max(who) == 0:
        return [remote]
    taken = sorted(range(len(who)), key=who.__getitem__)  # reader by reader, each in order
    out, k = [], 0
    for r in range(max(who) + 1):
        count = who.count(r)
        out.append(list(map(remote.__getitem__, taken[k:k + count])))
        k += count
    return out
