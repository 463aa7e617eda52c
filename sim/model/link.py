"""The split's hand-over: the reader pool, then the KV cache crossing the link to the writers
(docs/model.md: "The split, with pools").

Free: any number of caches cross at once (the lesson). Queued: one at a time, in the order
they are ready to go. Whole: a cache goes once its prompt is read. Layer by layer
(Splitwise): each of the model's layers' cache goes as soon as that layer is read, so most
of the crossing hides behind the read. Prompts shorter than `local_below` skip all this:
a writer reads them itself (Dynamo's rule of disaggregating only long prompts); and so do
prompts that arrive while at least `local_queue` prompts wait for a reader (the rest of
Dynamo's rule, docs/model.md: "Price and power").
"""

from itertools import compress, islice, repeat
from operator import add, is_not, le

from .costs import instance
from .instances import reader_tp


def reads(work, s, who=None):
    """The reader pool: when each request's read starts and ends (None for a local one). One
    queue in arrival order; each prompt goes to the reader that can start it earliest, the
    lowest index on equal starts, and is read whole. who: a list to which the reader of each
    prompt it reads is added, in order (to watch the run), or None.

    A prompt is local (read by a writer) when it is shorter than local_below, or when
    local_queue > 0 and, at its arrival, at least local_queue of the prompts sent to the
    readers before it start being read strictly after that arrival (they wait for a reader).
    Those starts never decrease (each prompt starts no sooner than the one before it: it
    arrives no sooner, and the earliest free reader is free no sooner), so the prompts still
    waiting are the last ones sent: an index that moves past those that have started, as
    the arrivals go on, counts them in one pass."""
    took = per_prompt(work.prompts, reader_chip(s).read_time)
    local_below, local_queue = s.local_below, s.local_queue
    readers = s.readers // reader_tp(s)  # reader instances
    free = [0.0] * readers  # when each is next free
    others = range(1, readers)
    # (None for a local prompt; written by index: in Pyodide, the page's Python, a call to a
    # list's append costs more than twice a store by index)
    starts, ends = [None] * len(work.prompts), [None] * len(work.prompts)
    reader = [None] * len(work.prompts)  # (stored as it goes: a store costs next to nothing)
    sent = []  # the starts of the prompts sent to the readers, in order (local_queue only)
    started = 0  # of them, how many start at or before the latest arrival
    i = -1  # the request's index
    for a, p, d in zip(work.arrivals, work.prompts, took):
        i += 1
        if local_queue:
            while started < len(sent) and sent[started] <= a:
                started += 1
            waiting = len(sent) - started
        if p < local_below or (local_queue and waiting >= local_queue):
            continue
        r, start = 0, (free[0] if free[0] > a else a)
        for k in others:
            begin = free[k] if free[k] > a else a
            if begin < start:
                r, start = k, begin
        free[r] = ends[i] = start + d
        starts[i] = start
        reader[i] = r
        if local_queue:
            sent.append(start)
    if who is not None:
        who += compress(reader, map(is_not, starts, repeat(None)))
    return starts, ends


def reader_chip(s):
    """The split's reader instances: reader_tp GPUs of kind reader_gpu, capped at reader_power."""
    return instance(s.reader_gpu, s.reader_power, s.model, reader_tp(s), s.costs)


def per_prompt(prompts, cost):
    """cost(p) of every prompt, worked out once for each length (a workload has three)."""
    return list(map({p: cost(p) for p in set(prompts)}.__getitem__, prompts))


def hand_over(work, s, seen=None):
    """When each request reaches the writing pool (its first word made, or for a local one
    its prompt still to read), and which requests are local.

    seen: a dict to watch the run in (docs/model.md: "Watch it run: the events"), or None. It
    is given "reads": (starts, ends, reader of each read), "departs": when each cache starts
    to cross (None for a local one), "ready": when each could go on a free link (its read's end,
    or its first layer's; None for a local one), and "reach"."""
    chip = reader_chip(s)
    bytes_per_second = s.link * 1e9
    cache, layers = chip.model.cache, chip.model.layers  # the model's cache per token, and layers
    one = s.readers // reader_tp(s) == 1  # one reader instance reads them all
    who = None if seen is None or one else []
    starts, ends = reads(work, s, who)
    if seen is not None and one:
        who = [0] * (len(ends) - ends.count(None))
    # the crossing time of each cache; local requests reach the writers as they arrive
    crossing = per_prompt(work.prompts, lambda p: p * cache / bytes_per_second)
    # layer by layer, a cache may go once its first layer is read (its read / layers)
    first_layer = (per_prompt(work.prompts, lambda p: chip.read_time(p) / layers) if s.layerwise
                   else repeat(0.0))
    departs = None
    if seen is not None:  # free: a whole cache goes as its read ends, layer by layer with the first
        ready = ends  # whole: as its read ends (the same list, never written)
        if s.layerwise:
            ready = [end if end is None else start + f
                     for f, start, end in zip(first_layer, starts, ends)]
        # a queued link moves some departures later (below): then they are a list of their own
        departs = list(ready) if s.link_sharing == "queued" else ready
        seen.update(reads=(starts, ends, who), departs=departs, ready=ready)
    if s.link_sharing == "free" and not s.layerwise and s.local_below == 0 \
            and s.local_queue == 0:  # the lesson's
        reach = list(map(add, ends, crossing))
        if seen is not None:
            seen["reach"] = reach
        return reach, [False] * len(ends)
    local = [end is None for end in ends]
    reach = list(work.arrivals)
    if seen is not None:
        seen["reach"] = reach
    queue = []  # (ready to cross, request) on a queued link
    for i, (f, start, end) in enumerate(zip(first_layer, starts, ends)):
        if end is None:
            continue
        if s.link_sharing == "queued":  # ready when the whole prompt (or a layer) is read
            queue.append((start + f if s.layerwise else end, i))
        elif s.layerwise:  # the last layer goes when read; the first can't land before T
            reach[i] = max(end + crossing[i] / layers, start + f + crossing[i])
        else:
            reach[i] = end + crossing[i]
    queue.sort()  # by the time ready to go, equal times by request index
    link_free = 0.0
    for ready, i in queue:  # each holds the link until it has crossed
        go = ready if ready > link_free else link_free
        link_free = go + crossing[i]
        if s.layerwise:
            link_free = max(link_free, ends[i] + crossing[i] / layers)
        reach[i] = link_free
    if seen is not None:  # each went when it was ready or, if later, once the one before had landed
        link_free = 0.0
        for ready, i in queue:
            departs[i] = ready if ready > link_free else link_free
            link_free = reach[i]
    return reach, local


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
