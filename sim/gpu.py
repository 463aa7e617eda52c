"""One GPU serving replies: the loop of the spec, jumping from event to event.

The spec's GPU walks one writing step at a time. Between two events (a job taken, a reply
ended) every step is alike, so this loop jumps straight over them: its cost grows with the
number of requests, not with the number of words written.

Gaps are kept as a pool of *irregular* gaps (value, count); every other gap is exactly one
step. A gap is irregular when something sat inside it: the first gap of every reply (from
its first word to the step after it was taken), and the gap that every reply already
writing sees across a burst of reads.
"""

from bisect import bisect_right
from heapq import heappop, heappush
from itertools import repeat
from math import ceil, inf

from .costs import SLOTS, STEP


class Served:
    """What one GPU did: per job its first word time and largest gap, plus the gap pool."""

    __slots__ = ("first", "max_gap", "first_gaps", "burst_gaps", "burst_counts", "gaps",
                 "last_step", "marks")

    def __init__(self, first, max_gap, first_gaps, burst_gaps, burst_counts, gaps, last_step,
                 marks):
        self.first = first  # time of each job's first word
        self.max_gap = max_gap  # each job's largest gap (0 if it has a single word)
        self.first_gaps = first_gaps  # the first gap of every reply that has one
        self.burst_gaps = burst_gaps  # gaps across bursts of reads ...
        self.burst_counts = burst_counts  # ... and how many replies had each
        self.gaps = gaps  # number of gaps in all: one per word after the first
        self.last_step = last_step  # the writing step that makes each job's last word
        self.marks = marks  # (step, clock) wherever the clock moved other than by steps, or None


def serve(arrivals, replies, reads=None, record=False):
    """Serve jobs in the order given (their arrival order at this GPU).

    arrivals: when each job reaches the GPU; replies: words in each reply (at least one);
    reads: seconds to read each prompt, or None for a writer, whose jobs arrive with their
    first word made. record: also keep the marks from which every word's time follows
    (see timeline.py); off by default, as only the figures need them.
    """
    n = len(arrivals)
    reading = reads is not None
    first = [0.0] * n
    max_gap = [0.0] * n
    since = [0] * n  # index of the first burst gap a job can see (after its own first step)
    last_step = [0] * n  # the step that writes a job's last word
    burst_gaps = []  # the gap of the replies already writing, across each burst of reads
    burst_steps = []  # the step that ended each of those gaps
    first_gaps, burst_counts = [], []
    ending = []  # heap: last step of every reply being written (its size = slots in use)
    batch = []  # jobs taken since the last step that still have words to write
    pending = False  # jobs were taken since the last step
    clock = 0.0
    steps = 0
    batch_clock = 0.0  # the clock when the current batch began
    writing = 0  # replies being written when the current batch began
    nexts = arrivals[1:]
    nexts.append(inf)
    marks = [(0, 0.0)] if record else None

    for i, a, nxt, r in zip(range(n), arrivals, nexts, replies):
        if not pending:  # move the GPU on to the moment it takes job i
            if ending:
                if a > clock:  # write until the first step that ends at or after a
                    need = ceil((a - clock) / STEP)
                    target = steps + need
                    last = steps
                    while ending and ending[0] <= target:
                        last = heappop(ending)
                    if ending or last == target:
                        clock += need * STEP
                        steps = target
                    else:  # every reply ended before a: the GPU idles until a
                        steps = last
                        clock = a
                        if record:
                            marks.append((steps, clock))
                if len(ending) >= SLOTS:  # full: wait for the next reply to end
                    kf = ending[0]
                    clock += (kf - steps) * STEP
                    steps = kf
                    while ending and ending[0] == kf:
                        heappop(ending)
            elif a > clock:
                clock = a
                if record:
                    marks.append((steps, clock))
            batch_clock = clock
            writing = len(ending)
        if reading:
            clock += reads[i]
            first[i] = clock
            if record:
                marks.append((steps, clock))
        else:
            first[i] = a
        if r > 1:
            batch.append(i)
            last_step[i] = steps + r - 1
            heappush(ending, steps + r - 1)
        if nxt <= clock and len(ending) < SLOTS:
            pending = True  # the next job is taken too before anyone writes
            continue
        pending = False
        if ending:  # the step that closes a batch: the only one whose gaps are irregular
            after = clock + STEP
            if writing and clock != batch_clock:  # reads sat inside their gap
                g = after - batch_clock
                burst_gaps.append(g)
                burst_steps.append(steps + 1)
                burst_counts.append(writing)
            mark = len(burst_gaps)
            for j in batch:
                g = after - first[j]
                first_gaps.append(g)
                # Its later gaps are one step each, or longer across a burst of reads.
                max_gap[j] = g if g > STEP or last_step[j] == steps + 1 else STEP
                since[j] = mark
            clock = after
            steps += 1
            while ending and ending[0] == steps:
                heappop(ending)
            batch.clear()

    if burst_gaps:  # a reply's largest gap may be a burst it wrote through
        ends = map(bisect_right, repeat(burst_steps), last_step)  # bursts up to its last word
        for j, lo, hi in zip(range(n), since, ends):
            if lo < hi:
                g = max(burst_gaps[lo:hi])
                if g > max_gap[j]:
                    max_gap[j] = g
    gaps = sum(replies) - n  # integers: every word after a reply's first has a gap
    return Served(first, max_gap, first_gaps, burst_gaps, burst_counts, gaps, last_step, marks)
