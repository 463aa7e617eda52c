"""The split's hand-over: the reader pool, then the KV cache crossing the link to the writers
(spec: "The split, with pools").

Free: any number of caches cross at once (the lesson). Queued: one at a time, in the order
they are ready to go. Whole: a cache goes once its prompt is read. Layer by layer
(Splitwise): each of the LAYERS layers' cache goes as soon as that layer is read, so most
of the crossing hides behind the read. Prompts shorter than `local_below` skip all this:
a writer reads them itself (Dynamo's rule of disaggregating only long prompts).
"""

from .costs import CACHE_PER_TOKEN, CHIPS, LAYERS


def reads(work, s):
    """The reader pool: (start, end) of each request's read, None for a local one. One queue
    in arrival order; each prompt goes to the reader that can start it earliest, the lowest
    index on equal starts, and is read whole."""
    read_cost = CHIPS[s.reader_gpu].read_cost
    free = [0.0] * s.readers  # when each reader is next free
    out = []
    for a, p in zip(work.arrivals, work.prompts):
        if p < s.local_below:
            out.append(None)
            continue
        r, start = 0, (free[0] if free[0] > a else a)
        for k in range(1, s.readers):
            begin = free[k] if free[k] > a else a
            if begin < start:
                r, start = k, begin
        free[r] = end = start + p * read_cost
        out.append((start, end))
    return out


def hand_over(work, s):
    """When each request reaches the writing pool (its first word made, or for a local one
    its prompt still to read), and which requests are local."""
    read_cost = CHIPS[s.reader_gpu].read_cost
    bytes_per_second = s.link * 1e9
    reach = list(work.arrivals)  # local requests reach the writers as they arrive
    local = []
    crossings = []  # (ready to cross, request, read end, crossing time) on a queued link
    for i, (p, read) in enumerate(zip(work.prompts, reads(work, s))):
        local.append(read is None)
        if read is None:
            continue
        start, end = read
        crossing = p * CACHE_PER_TOKEN / bytes_per_second
        if s.link_sharing == "free":
            if s.layerwise:  # the last layer goes when read; the first can't land before T
                reach[i] = max(end + crossing / LAYERS, start + p * read_cost / LAYERS + crossing)
            else:
                reach[i] = end + crossing
        else:  # queued: ready when the whole prompt (or its first layer) is read
            ready = start + p * read_cost / LAYERS if s.layerwise else end
            crossings.append((ready, i, end, crossing))
    crossings.sort()  # by the time ready to go, equal times by request index
    link_free = 0.0
    for ready, i, end, crossing in crossings:  # each holds the link until it has crossed
        go = ready if ready > link_free else link_free
        link_free = max(go + crossing, end + crossing / LAYERS) if s.layerwise else go + crossing
        reach[i] = link_free
    return reach, local
