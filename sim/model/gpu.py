"""One GPU serving replies: the lesson's loop, jumping from event to event.

The model's GPU (docs/model.md) walks one writing step at a time. Between two events (a job taken, a reply
ended) every step is alike, so this loop jumps straight over them: its cost grows with the
number of requests, not with the number of words written.

Gaps are kept as a pool of *irregular* gaps (value, count); every other gap is exactly one
step. A gap is irregular when something sat inside it: the first gap of every reply (from
its first word to the step after it was taken), and the gap that every reply already
writing sees across a burst of reads.

The loop is a coroutine (see `loop`), so that a router can hand it jobs one at a time and ask,
between two jobs, how many it still holds (least-loaded routing, routing.py); `serve` hands
it a whole list at once.
"""

from bisect import bisect_right, insort
from functools import partial
from heapq import heappop, heappush
from itertools import repeat
from math import ceil, floor, inf
from operator import itemgetter

from .costs import CHIPS, EPS, SLOTS

A100 = CHIPS["A100"]
END = ((inf, 1, 0),)  # what a loop is sent last: no job arrives at that time


class Served:
    """What one GPU did: per job its first word time and largest gap, plus the gap pool."""

    __slots__ = ("first", "max_gap", "first_gaps", "burst_gaps", "burst_counts", "gaps",
                 "step", "last_step", "marks", "clocks", "passes", "events", "held", "reads_at",
                 "spans")

    def __init__(self, first, max_gap, first_gaps, burst_gaps, burst_counts, gaps, step,
                 last_step, marks, clocks=None, passes=None, events=None):
        self.first = first  # time of each job's first word
        self.max_gap = max_gap  # each job's largest gap (0 if it has a single word)
        self.first_gaps = first_gaps  # irregular gaps, one reply each ...
        self.burst_gaps = burst_gaps  # ... and irregular gaps several replies had ...
        self.burst_counts = burst_counts  # ... and how many replies had each
        self.gaps = gaps  # number of gaps in all: one per word after the first
        self.step = step  # every gap that is not irregular lasts exactly this
        self.last_step = last_step  # the writing step that makes each job's last word
        self.marks = marks  # (step, clock) wherever the clock moved other than by steps, or None
        # Kept only to watch a run (docs/model.md: "Watch it run: the events"): a loop's
        # (steps, clock, job) at every change of its clock, job the one whose read ended
        # there or -1; a chunked GPU's runs of alike steps (clock, length, count, tokens,
        # replies). None otherwise.
        self.clocks = clocks
        self.passes = passes
        # The general loop's (instance.py) record instead: (kind, start, end, job, replies,
        # tokens) of every read and pass, as it walked them.
        self.events = events
        # memory=kv on a fast loop that cannot bind: the most KV tokens it held (chunked.py) or,
        # gpu.loop's, the step count as each of its reads began, from which that follows (peak.py)
        self.held = None
        self.reads_at = None
        # Each job's own gaps, asked only by a measure of some requests (metrics.GapPool.of) or
        # to list them (run.Run.gaps_of): a function giving (each job's first gap, None for
        # a one-word reply; each job's (lo, hi), the shared gaps values[lo:hi] it sat through;
        # values; weights, how many gaps each shared value is to each reply that sat through
        # it, None for one). Every other gap of a job is one step. Set by the loop.
        self.spans = None


def serve(arrivals, replies, reads=None, record=False, chip=A100, slots=SLOTS):
    """Serve jobs in the order given (their arrival order at this GPU).

    arrivals: when each job reaches the GPU; replies: words in each reply (at least one);
    reads: prompt tokens to read for each job (0: none), or None for a writer, whose jobs
    arrive with their first word made. record: also keep the marks from which every word's
    time follows (see timeline.py); off by default, as only the figures need them.
    """
    gpu = loop(chip, slots, record)
    next(gpu)
    gpu.send(list(zip(arrivals, replies, reads or repeat(0))))
    return finish(gpu)


def finish(gpu):
    """End a loop's input and take what it did."""
    try:
        gpu.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the GPU loop did not end")


def loop(chip=A100, slots=SLOTS, record=False, watch=False, memory=False, marked=False):
    """The lesson's GPU as a coroutine. Send it (arrival, reply words, prompt tokens to read,
    0 for none) for each job in the order the jobs reach it, or a list of them at once; send a
    time t (a float) to get how many of its jobs are still in it at t (their last word after
    t) and until when that holds; send None to end it, and the Served is StopIteration's value.

    A job's step is decided only when the next job is known: the GPU takes a job that is
    already there before it writes again (unless it needs a read and the job before did not),
    so each job's "tail" waits for the next message.

    watch (only with record) keeps the clock's every value, (steps done, clock, job whose read
    ended there or -1), so that every step's start and end follow in the loop's own float
    arithmetic: between two entries the clock moved by whole steps, `clock + n * step`. Its
    checks sit inside branches that only counting loops take (record, or a router's), so a
    loop that neither counts nor watches runs exactly the code it ran before.

    memory (memory=kv, where it cannot bind: memory.py) keeps the step count as each read
    begins, from which the most KV tokens its jobs held at once follows once it is done (each
    its prompt and reply from its read's start to its last word's step: peak.reads_held); its
    check sits in the read's branch only. marked keeps its marks without counting, from which
    its last words' times follow (the split's writers with memory=kv)."""
    read_cost, step = chip.read_cost, chip.step
    reads_at = []  # memory: the step count as each read began
    read_at = reads_at.append
    counting = record  # a router's questions need the marks and the ended replies
    first = []
    # per job: its largest gap up to its first step, and the index of the first burst gap it
    # can see after that step (both set as its first step closes; 0 for one-word replies)
    max_gap, since = [], []
    last_step = []  # the step that writes a job's last word
    burst_gaps = []  # the gap of the replies already writing, across each burst of reads
    burst_steps = []  # the step that ended each of those gaps
    first_gaps, burst_counts = [], []
    # the last step of every reply being written (its size = slots in use): a heap, or when
    # counting a sorted list, so that a router's question is a bisection
    ending = []
    ended = []  # last steps of the replies that ended, in order (kept only when counting)
    single = []  # first (and last) word of each one-word reply (kept only when counting)
    batch = []  # jobs taken since the last step that still have words to write
    pending = False  # jobs were taken since the last step
    clock = 0.0
    steps = 0
    batch_clock = 0.0  # the clock when the current batch began
    writing = 0  # replies being written when the current batch began
    marking = record or marked  # marked: its last words' times follow from the marks
    marks = [(0, 0.0)] if marking else None
    clocks = [(0, 0.0, -1)] if watch else None
    mark_clocks = [0.0]
    words = 0
    i = 0  # jobs taken so far; after the first, the last one's step is still to be decided
    p = 0  # prompt tokens the last job taken read
    # Bound once: the loop below runs once per job, and these are most of its work. The lists
    # kept per job grow as jobs arrive and are written by index: in Pyodide (the page) a call
    # to a list's append costs more than twice a store by index, natively about the same (a
    # lesson step's simulations took 3% less time in Pyodide, natively the same).
    push = insort if counting else heappush  # `ending` stays sorted when counting
    first_gaps_add, batch_add = first_gaps.append, batch.append

    message = yield
    while True:
        if message.__class__ is float:  # a router asks: how many jobs are in this GPU then?
            t = message
            # Those whose last word comes after it. Every job sent so far arrived by then and
            # is placed in the schedule; after the last one's read the GPU steps on, one
            # step at a time, at least until then: no job that comes later arrives before.
            m = bisect_right(mark_clocks, t) - 1  # the clock last moved other than by steps
            at_step, at_clock = marks[m]
            done_steps = floor((t - at_clock) / step)
            done_steps = at_step + done_steps if done_steps > 0 else at_step
            if m + 1 < len(marks) and marks[m + 1][0] < done_steps:  # ... and then moved
                done_steps = marks[m + 1][0]  # again: no steps in between
            if steps < done_steps:  # steps still to come end by then (`ending` is sorted)
                waiting = bisect_right(ending, done_steps)
                done = len(ended) + waiting
                later = ending[waiting] if waiting < len(ending) else inf
            else:
                done = bisect_right(ended, done_steps)
                later = ended[done] if done < len(ended) else (ending[0] if ending else inf)
            k = bisect_right(single, t)
            # The answer holds until the next last word, which is no sooner than this (each
            # step after the one in progress lasts a step at least), unless a job comes.
            until = t + (later - done_steps - 1) * step
            if k < len(single) and single[k] < until:
                until = single[k]
            message = yield i - done - k, until
            continue
        if message is None:  # the end: only the last job's tail is left to decide
            jobs = END
        elif message.__class__ is list:  # all of them at once (alternate routing)
            jobs = message
            # set as each job's first step closes; 0 for one-word replies
            max_gap += repeat(0.0, len(jobs))
            since += repeat(0, len(jobs))
            first += repeat(0.0, len(jobs))  # set as each job is taken
            last_step += repeat(0, len(jobs))  # set as each job is taken; 0 for one-word replies
            words += sum(map(itemgetter(1), jobs))  # integers, so the order does not matter
        else:  # one job (a router that counts)
            jobs = (message,)
            max_gap.append(0.0)
            since.append(0)
            first.append(0.0)
            last_step.append(0)
            words += message[1]
        for a, r, q in jobs:
            if i:  # the job before: is this one already there, with a slot free?
                # Taken too before anyone writes, unless it needs a read and the one before
                # did not: a round either reads one prompt, or takes the jobs that arrived
                # with nothing to read and then writes one step (docs/model.md: "One GPU serving").
                if a <= clock + EPS and len(ending) < slots and (p or not q):
                    pending = True
                else:
                    pending = False
                    if ending:  # the step that closes a batch: the only one whose gaps are irregular
                        after = clock + step
                        steps += 1
                        if writing and clock != batch_clock:  # reads sat inside their gap
                            burst_gaps.append(after - batch_clock)
                            burst_steps.append(steps)
                            burst_counts.append(writing)
                        mark = len(burst_gaps)
                        for j in batch:
                            g = after - first[j]
                            first_gaps_add(g)
                            # Its later gaps are one step each, or longer across a burst of reads.
                            max_gap[j] = g if g > step or last_step[j] == steps else step
                            since[j] = mark
                        clock = after
                        if counting:
                            if watch:
                                clocks.append((steps, clock, -1))
                            while ending and ending[0] == steps:
                                ended.append(ending.pop(0))
                        else:
                            while ending and ending[0] == steps:
                                heappop(ending)
                        batch.clear()
            if a == inf:  # the end (END): the last job's tail is decided
                break
            if not pending:  # move the GPU on to the moment it takes job i
                if ending:
                    if a > clock + EPS:  # write until the first step that ends at or after a
                        need = ceil((a - EPS - clock) / step)
                        target = steps + need
                        last = steps
                        if counting:
                            while ending and ending[0] <= target:
                                last = ending.pop(0)
                                ended.append(last)
                            if watch and (ending or last == target):  # as the clock moves below
                                clocks.append((target, clock + need * step, -1))
                        else:
                            while ending and ending[0] <= target:
                                last = heappop(ending)
                        if ending or last == target:
                            clock += need * step
                            steps = target
                        else:  # every reply ended before a: the GPU idles until a
                            steps = last
                            clock = a
                            if marking:
                                marks.append((steps, clock))
                                mark_clocks.append(clock)
                                if watch:
                                    clocks.append((steps, clock, -1))
                    if len(ending) >= slots:  # full: wait for the next reply to end
                        kf = ending[0]
                        clock += (kf - steps) * step
                        steps = kf
                        if counting:
                            if watch:
                                clocks.append((steps, clock, -1))
                            while ending and ending[0] == kf:
                                ended.append(ending.pop(0))
                        else:
                            while ending and ending[0] == kf:
                                heappop(ending)
                elif a > clock + EPS:
                    clock = a
                    if marking:
                        marks.append((steps, clock))
                        mark_clocks.append(clock)
                        if watch:
                            clocks.append((steps, clock, -1))
                batch_clock = clock
                writing = len(ending)
            p = q
            if p:
                if memory:  # admitted as its read starts
                    read_at(steps)
                clock += p * read_cost
                first[i] = clock
                if marking:
                    marks.append((steps, clock))
                    mark_clocks.append(clock)
                    if watch:  # the read began at the entry before
                        clocks.append((steps, clock, i))
            else:
                first[i] = a
            if r > 1:
                last = steps + r - 1
                last_step[i] = last
                batch_add(i)
                push(ending, last)
            elif counting:  # (its last step stays 0) in order: a landed one-word reply taken
                insort(single, first[i])  # after a read made its word before the read's end
            i += 1
        if message is None:
            break
        message = yield

    if burst_gaps:  # a reply's largest gap may be a burst it wrote through
        ends = map(bisect_right, repeat(burst_steps), last_step)  # bursts up to its last word
        for j, lo, hi in zip(range(i), since, ends):
            if lo < hi:
                g = max(burst_gaps[lo:hi])
                if g > max_gap[j]:
                    max_gap[j] = g
    gaps = words - i  # integers: every word after a reply's first has a gap
    served = Served(first, max_gap, first_gaps, burst_gaps, burst_counts, gaps, step,
                    last_step, marks, clocks)
    served.spans = partial(spans, first_gaps, since, burst_steps, last_step, burst_gaps)
    if memory:
        served.reads_at = reads_at
    return served


def spans(first_gaps, since, burst_steps, last_step, burst_gaps):
    """Served.spans of the loop above: a reply's first gap is the next of first_gaps (they
    come in the order the jobs were taken), and it sat through the bursts from `since` (the
    first after its first step) up to its last word's step, one gap each."""
    firsts, spanned = [], []
    k = 0
    for lo, last in zip(since, last_step):
        if last:  # (0: a one-word reply, which has no gap)
            firsts.append(first_gaps[k])
            k += 1
            spanned.append((lo, bisect_right(burst_steps, last)))
        else:
            firsts.append(None)
            spanned.append((0, 0))
    return firsts, spanned, burst_gaps, None
