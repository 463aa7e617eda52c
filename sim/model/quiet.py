"""The split with memory=kv where memory never binds (memory.py): the readers, the link and the
writers run on the fast loops as with memory=slots, and what each reader and writer held is
worked out once they are done (peak.py).

With room to spare nothing waits, so the readers and the link are today's; only the writers'
turns differ from memory=slots': a cache's writer is chosen as it asks (in the order of asking,
equal times remote first, then by request index), not as it lands. Each writer then takes its
jobs in the order they reach it, as today.

Its lists are made with map, slices and sorted (C), not a Python step per request: with room
to spare this is all memory=kv adds to a compare.
"""

from bisect import bisect_left
from heapq import heappop, heappush
from itertools import accumulate, repeat
from math import inf
from operator import add, itemgetter, le, mul, sub

from . import gpu
from .link import writer_jobs
from .peak import most_held, readers_held, watched
from .run import Run
from .watch import Steps


def quiet(work, s, reader, writer, readers, writers, record):
    """The split's run if memory never binds in it: each reader's caches, held from their read's
    start until they land, and each writer's jobs, each held from when it asks (its read's end,
    its first layer's, or its arrival if read locally) to its last word, never above their room.
    None if they would be (or if a request could never fit)."""
    totals = work.totals  # what a writer holds for each
    if max(work.prompts, default=0) > reader.capacity or max(totals, default=0) > writer.capacity:
        return None
    seen = {}
    order, _, jobs = writer_jobs(work, s, seen)
    starts, _, who = seen["reads"]
    reach, n = seen["reach"], len(seen["reach"])
    remote = range(n)  # the requests the readers read, in order
    asks_at = seen["ready"]  # when each asks: a remote cache as it could go on a free link ...
    some_local = (s.local_below or s.local_queue) and None in starts
    if some_local:  # ... a local job as it arrives
        remote = [i for i, start in enumerate(starts) if start is not None]
        asks_at = [a if ready is None else ready for a, ready in zip(work.arrivals, asks_at)]
    counting = record or (writers > 1 and s.routing != "alternate")  # least-loaded asks them
    # each writer's marks kept, from which its last words' times follow
    loops = [gpu.loop(writer, s.slots, counting, record, marked=True) for _ in range(writers)]
    for loop in loops:
        next(loop)
    if writers == 1:
        given = [range(n) if order is None else order]
        loops[0].send(jobs)
    else:  # in the order of asking, equal times remote first, then by request index
        if some_local:
            local = [start is None for start in starts]
            ranked = sorted(sorted(range(n), key=local.__getitem__), key=asks_at.__getitem__)
        elif all(map(le, asks_at, asks_at[1:])):  # (one reader, whole caches: its reads' ends)
            ranked = range(n)
        else:
            ranked = sorted(range(n), key=asks_at.__getitem__)
        if s.routing == "alternate":  # in turn, in the order of asking; each in reach order
            given = [ranked[w::writers] for w in range(writers)]
            if order is None:  # (reach order is request order: a range's turns stay ranges)
                given = [g if g.__class__ is range else sorted(g) for g in given]
                for loop, requests in zip(loops, given):
                    loop.send(pick(jobs, requests))
            else:
                place = sorted(range(n), key=order.__getitem__)  # each request's in `jobs`
                given = [sorted(g, key=place.__getitem__) for g in given]
                for loop, requests in zip(loops, given):
                    loop.send(list(map(jobs.__getitem__, map(place.__getitem__, requests))))
        else:
            given = [[] for _ in range(writers)]
            least_loaded(loops, given, ranked, asks_at, reach,
                         dict(zip(range(n) if order is None else order, jobs)))
    run, held = Run(work.replies, record), []
    for loop, requests in zip(loops, given):
        served = gpu.finish(loop)
        run.add(served, requests, work.arrivals)
        held.append((pick(asks_at, requests),
                     last_words(served, pick(work.replies, requests), not some_local),
                     pick(totals, requests)))
    caches, bounds = by_reader(who, readers, remote, starts, reach, work.prompts)
    reader_peak = readers_held(*caches, bounds) / reader.capacity
    writer_peak = max((most_held(*w) for w in held), default=0) / writer.capacity
    if reader_peak > 1 or writer_peak > 1:
        return None
    run.memory = {"reader_kv_peak": reader_peak, "writer_kv_peak": writer_peak,
                  "backpressure": 0.0}
    if record:
        run.handed = seen
        run.kv = {("reader", r): watched(list(zip(*(column[lo:hi] for column in caches))))
                  for r, (lo, hi) in enumerate(zip(bounds, bounds[1:])) if lo < hi}
        for w, asks in enumerate(held):
            run.kv[("writer", w)] = watched(list(zip(*asks)))
    return run


def pick(values, requests):
    """values[i] of each request i in `requests`, a list: a slice where they are a range (in
    turn), else an itemgetter's (of two or more: of one it gives the item, not a tuple)."""
    if requests.__class__ is range:
        return values[requests.start:requests.stop:requests.step]
    if len(requests) > 1:
        return list(itemgetter(*requests)(values))
    return [values[i] for i in requests]


def least_loaded(loops, given, ranked, asks_at, reach, by_request):
    """Each request, in the order of asking, to the writer holding the fewest jobs as it asks
    (the lowest index on equal counts): those given to it whose last word comes after then,
    those not yet reached included. A loop is sent its jobs in the order they reach it, each
    once the asks have passed its reach, so that every job it holds has come when it is asked;
    its answer holds until the time it gives, unless it is sent a job (routing.assign's rule)."""
    coming = []  # every writer's jobs given and not yet sent: a heap of (reach, request, writer)
    waiting = [0] * len(loops)  # how many of each writer's are coming
    load = [0] * len(loops)  # what each loop last said it holds, with those coming ...
    until = [-inf] * len(loops)  # ... and until when that holds
    writers = range(len(loops))
    for i in ranked:
        t = asks_at[i]
        while coming and coming[0][0] < t:  # reached before it asks: sent, in reach order
            _, j, w = heappop(coming)
            loops[w].send(by_request[j])
            given[w].append(j)
            waiting[w] -= 1
            until[w] = -inf
        for w in writers:
            if t >= until[w]:
                held, until[w] = loops[w].send(t)
                load[w] = held + waiting[w]
        w = load.index(min(load))
        heappush(coming, (reach[i], i, w))
        waiting[w] += 1
        load[w] += 1
    while coming:
        _, j, w = heappop(coming)
        loops[w].send(by_request[j])
        given[w].append(j)


def last_words(served, replies, remote=False):
    """When each job of a fast loop that kept its marks wrote its last word: a one-word reply's
    first, else the end of its last step, the clock of the loop's last mark before that step
    plus whole steps (watched, from its every clock value), in the loop's own arithmetic.

    remote: its jobs came read (they are taken in the order they reach it, each its first
    word as it comes), so it marks only as it idles, with nothing left to write: a job's mark
    is the last one at or before its first word, as they come (a bisection a mark, not a job)."""
    marks, last_step, step = served.marks, served.last_step, served.step
    if served.clocks is not None:
        steps = Steps("writer", 0, served, ())
        ends = [steps.times(k)[1] if r > 1 else 0.0 for k, r in zip(last_step, replies)]
    elif marks[-1][0] < min(last_step, default=0):  # all after its last mark
        at, clock = marks[-1]  # (a busy writer's: it marks only when it idles)
        ends = list(map(add, repeat(clock), map(mul, map(sub, last_step, repeat(at)),
                                                repeat(step))))
    else:
        at = [k for k, _ in marks]
        clocks = [clock for _, clock in marks]
        if remote:  # each mark's jobs: from the first whose first word is at or after it on
            marked = [0] * len(last_step)  # how many marks begin at each job
            for taken in map(bisect_left, repeat(served.first), clocks[1:]):
                if taken < len(marked):
                    marked[taken] += 1
            mark = list(accumulate(marked))
        else:  # the last mark before its last step
            mark = list(map(sub, map(bisect_left, repeat(at), last_step), repeat(1)))
        ends = list(map(add, map(clocks.__getitem__, mark),
                        map(mul, map(sub, last_step, map(at.__getitem__, mark)), repeat(step))))
    if 1 in replies:
        ends = [first if r == 1 else end for first, r, end in zip(served.first, replies, ends)]
    return ends


def by_reader(who, readers, remote, starts, landings, prompts):
    """The readers' caches, reader by reader, each in the order it read them: (read starts,
    landings, prompts) and where each reader's begin (and the last's ends), from the reader of
    each read (who) and the requests read (remote), in the readers' order of taking. One sort
    (stable) and a list each."""
    if readers == 1:
        return (pick(starts, remote), pick(landings, remote), pick(prompts, remote)), [0, len(who)]
    taken = sorted(range(len(who)), key=who.__getitem__)  # reader by reader, each in order
    if remote.__class__ is not range:
        taken = list(map(remote.__getitem__, taken))
    columns = tuple(pick(values, taken) for values in (starts, landings, prompts))
    return columns, [0, *accumulate(map(who.count, range(readers)))]
