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
from itertools import repeat
from math import inf
from operator import add, le, mul, sub

from . import gpu
from . import layouts
from .peak import most_held, reader_held, watched
from .watch import Steps


def quiet(work, s, reader, writer, writers, record):
    """The split's run if memory never binds in it: each reader's caches, held from their read's
    start until they land, and each writer's jobs, each held from when it asks (its read's end,
    its first layer's, or its arrival if read locally) to its last word, never above their room.
    None if they would be (or if a request could never fit)."""
    totals = list(map(add, work.prompts, work.replies))  # what a writer holds for each
    if max(work.prompts, default=0) > reader.capacity or max(totals, default=0) > writer.capacity:
        return None
    seen = {}
    order, _, jobs = layouts.writer_jobs(work, s, seen)
    starts, _, who = seen["reads"]
    reach, n = seen["reach"], len(seen["reach"])
    remote = range(n)  # the requests the readers read, in order
    asks_at = seen["ready"]  # when each asks: a remote cache as it could go on a free link ...
    some_local = None in starts
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
    run, held = layouts.Run(), []
    for loop, requests in zip(loops, given):
        served = gpu.finish(loop)
        run.add(served, pick(work.arrivals, requests))
        run.gpus.append((served, requests))
        held.append((pick(asks_at, requests), last_words(served, pick(work.replies, requests)),
                     pick(totals, requests)))
    readers = by_reader(who, remote, starts, reach, work.prompts)
    reader_peak = max((reader_held(*r) for r in readers), default=0) / reader.capacity
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


def pick(values, requests):
    """values[i] of each request i in `requests` (a slice where they are a range: in turn)."""
    if requests.__class__ is range:
        return values[requests.start:requests.stop:requests.step]
    return list(map(values.__getitem__, requests))


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


def by_reader(who, remote, starts, landings, prompts):
    """Each reader's caches, (read starts, landings, prompts) in the order it read them, from
    the reader of each read (who) and the requests read (remote), in the readers' order of
    taking: reader by reader, one sort (stable) and slices."""
    if not who:
        return []
    if max(who) == 0:
        return [(pick(starts, remote), pick(landings, remote), pick(prompts, remote))]
    taken = sorted(range(len(who)), key=who.__getitem__)  # reader by reader, each in order
    if remote.__class__ is not range:
        taken = list(map(remote.__getitem__, taken))
    columns = [list(map(values.__getitem__, taken)) for values in (starts, landings, prompts)]
    out, k = [], 0
    for r in range(max(who) + 1):
        count = who.count(r)
        out.append(tuple(column[k:k + count] for column in columns))
        k += count
    return out
