"""The most KV tokens an instance held at once, where memory never binds (memory.py's fast
runs, memory=kv's kv_peak, reader_kv_peak and writer_kv_peak).

Each is worked out once the run is over, from intervals (start, end, tokens): a whole number,
the most that the intervals covering one moment hold, that moment's changes all made (an
interval that ends as it starts holds nothing). Without a Python step per interval, in C (map,
sorted, accumulate), since with room to spare this is all memory=kv adds to a compare.
"""

from itertools import accumulate, compress
from operator import add, itemgetter, le, lt, neg

def most_held(starts, ends, tokens):
    """The most tokens held at once by the intervals (starts[k], ends[k], tokens[k]): once a
    moment's changes are all made (an interval that ends as it starts holds nothing; one that
    ends before it starts, nothing either). Every change in the order of time, at one moment
    the frees first, so that the running total passes through each moment's count and never
    above it: its most."""
    if not all(map(le, starts, ends)):  # an interval that ends before it starts holds nothing
        kept = [k for k, (a, b) in enumerate(zip(starts, ends)) if a < b]
        starts, ends, tokens = ([x[k] for k in kept] for x in (starts, ends, tokens))
    return changes_held(ends + starts, list(map(neg, tokens)) + tokens)


def readers_held(starts, landings, prompts, bounds):
    """The most a reader held, each of its caches from its read's start until it lands: the
    readers' caches reader by reader, each reader's in the order it read them, between two
    consecutive `bounds`.

    A reader starts its reads in order, one after another, and while it reads one the one
    before crosses the link: each has landed by the start of the one after the next. Then, at
    a read's start, it holds that prompt and, if it has not landed yet, the one before: the
    most is over those (at the last of equal starts, all that moment holds; at the others,
    part of it). Else (a slow or queued link) as most_held counts, reader by reader."""
    readers = list(zip(bounds, bounds[1:]))
    if all(map(lt, starts, landings)) and all(  # (each holds its prompt a while)
            all(map(le, landings[lo:hi], starts[lo + 2:hi])) for lo, hi in readers):
        crossing = list(map(lt, starts[1:], landings))  # the one before, as each begins
        for lo in bounds[1:-1]:
            if 0 < lo < len(starts):  # (the one before a reader's first is another's)
                crossing[lo - 1] = False
        return max(max(prompts, default=0), max(map(add, compress(prompts, crossing),
                                                    compress(prompts[1:], crossing)), default=0))
    return max((most_held(starts[lo:hi], landings[lo:hi], prompts[lo:hi]) for lo, hi in readers),
               default=0)


def changes_held(moments, changes):
    """The most of the running total of `changes` taken in the order of their `moments`, equal
    moments in the order given (so frees listed first come first), and at least 0: the sort,
    the reordering and the running total in C."""
    if len(moments) < 2:  # (itemgetter of one index gives the item, not a tuple)
        return max(changes[0], 0) if changes else 0
    order = sorted(range(len(moments)), key=moments.__getitem__)
    return max(max(accumulate(itemgetter(*order)(changes))), 0)


def reads_held(reads_at, last_step, replies, tokens, prompts):
    """The most tokens a fast loop's GPU (gpu.loop with memory) held at once, as it counts
    them: each job its `tokens` from the step count as its read began (reads_at, one entry a
    job that reads, in order) to its last word's step, what has ended by a read's step freed
    before it is admitted; a one-word reply's only as it is read (its only word ends its read).
    A job with no prompt to read holds nothing."""
    if len(reads_at) != len(replies):  # (none in the shared layout: a prompt has a token)
        read = list(map(bool, prompts))
        last_step, replies, tokens = (list(compress(x, read)) for x in (last_step, replies, tokens))
    if 1 not in replies:  # each from its read's step to its last's (frees listed first)
        return changes_held(last_step + reads_at, list(map(neg, tokens)) + tokens)
    moments, changes = [], []  # a one-word reply's tokens freed as soon as they are counted
    ends, freed = [], []
    for at, last, r, t in zip(reads_at, last_step, replies, tokens):
        moments.append(at)
        changes.append(t)
        if r > 1:
            ends.append(last)
            freed.append(-t)
        else:
            moments.append(at)
            changes.append(-t)
    return changes_held(ends + moments, freed + changes)


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


def watched(intervals):
    """[(moment, tokens held from then on)] of intervals, from 0 (for watch's kv events)."""
    changes = [(0.0, 0)]
    held(intervals, changes)
    return changes
