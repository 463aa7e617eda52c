"""Chunked reading (chunked prefill): a GPU that reads prompts a chunk at a time between its
writing steps, so that no reply waits long for a read (docs/model.md: "One GPU, and chunked reading").

Each step reads up to `chunk` prompt tokens, from the prompts being read in order, and
writes one word of every reply in a slot. One pass over the weights does both, so a step
lasts as long as the slower of its two costs: max(writing step, tokens x read cost) (a
roofline), where every reply written counts as one token read.

Between events (an arrival, a prompt read to its end, a reply ended) every step is alike,
so the loop does them at once: its cost grows with the number of requests, not with the
number of words written or chunks read.
"""

from bisect import bisect_left, bisect_right
from collections import deque
from functools import partial
from heapq import heappop, heappush
from math import ceil, inf

from .costs import EPS
from .gpu import Served


class ChunkedGpu:
    """One GPU of the chunked layout, given jobs in the order they reach it."""

    def __init__(self, chip, slots, chunk, record=False, memory=False):
        self.read_cost, self.step = chip.read_cost, chip.step
        self.slots, self.chunk = slots, chunk
        self.clock = 0.0
        self.steps = 0  # steps done
        self.arrivals, self.replies, self.prompts = [], [], []  # of each job given
        self.first = []  # each job's first word, once its prompt is read
        self.first_step = []  # the step at whose end that first word came
        self.last_step = []  # the step that writes its last word (0: a one-word reply)
        self.waiting = deque()  # jobs given, not yet being read
        self.reading = deque()  # [job, tokens left] of the prompts being read, in order
        self.read_left = 0  # tokens left to read in all of them
        self.ending = []  # heap: the last step of each reply being written
        self.finished = []  # time of each last word, in order (for least-loaded routing)
        self.gap_values, self.gap_counts = [], []  # gaps longer than one step: (value, count)
        # runs of steps longer than one writing step, for each reply's largest gap
        # (their lengths are gap_values)
        self.long_from, self.long_to = [], []
        # only to watch the run (docs/model.md: "Watch it run: the events"): each run of alike
        # steps as it is done, (clock before it, a step's length, steps, tokens read in each,
        # replies written in each)
        self.passes = [] if record else None
        # memory=kv where it cannot bind (layouts.with_memory): the KV tokens held, each job
        # its prompt and reply from the start of its read to its last word, and the most
        self.memory, self.to_free, self.held, self.most = memory, [], 0, 0

    def take(self, a, r, p):
        """A job arrives at a with an r-word reply and a p-token prompt."""
        if self.clock < a - EPS:
            self.advance(a)  # steps that begin before a are done without it
        self.waiting.append(len(self.arrivals))
        self.arrivals.append(a)
        self.replies.append(r)
        self.prompts.append(p)
        self.first.append(inf)
        self.first_step.append(0)
        self.last_step.append(0)

    def holding(self, t):
        """How many of its jobs have their last word after t (no job given later arrives
        before t, so every step that begins before t is already certain), and a time until
        which that holds unless it is given a job: every step lasts a writing step at least,
        so no reply being written ends sooner, and no prompt still to read can have its
        reply's last word (at least one step after its read begins) sooner; a last word
        already made after t (in the step in progress at t) comes first."""
        self.advance(t)
        replies = self.replies
        later = self.ending[0] - self.steps if self.ending else inf
        for j in self.waiting:
            if replies[j] < later:
                later = replies[j]
        for j, _ in self.reading:
            if replies[j] < later:
                later = replies[j]
        finished = self.finished
        done = bisect_right(finished, t)
        until = self.clock + later * self.step
        if done < len(finished) and finished[done] < until:
            until = finished[done]
        return len(self.arrivals) - done, until

    def advance(self, until):
        """Do every step that begins before `until`. (The GPU's state is kept in locals
        while it runs: this is the engine's inner loop.)"""
        step, chunk, read_cost, slots = self.step, self.chunk, self.read_cost, self.slots
        arrivals, replies, prompts = self.arrivals, self.replies, self.prompts
        reading, waiting, ending, finished = self.reading, self.waiting, self.ending, self.finished
        clock, steps, read_left = self.clock, self.steps, self.read_left
        passes = self.passes
        recording = passes is not None
        stop = until - EPS  # a step that begins after this begins at `until`, as far as floats tell
        while True:
            # Arrived prompts start being read, in order, while a slot is free.
            while waiting and arrivals[waiting[0]] <= clock + EPS \
                    and len(reading) + len(ending) < slots:
                j = waiting.popleft()
                reading.append([j, prompts[j]])
                read_left += prompts[j]
                if self.memory:
                    self.admit(j, steps)
            if not reading and not ending:  # idle until the next arrival
                if waiting and arrivals[waiting[0]] < until:
                    clock = arrivals[waiting[0]]  # (it is more than EPS away)
                    continue
                break
            if clock >= stop:
                break
            writing = len(ending)
            tokens = chunk if read_left > chunk else read_left
            d = (tokens + writing) * read_cost
            if d < step:
                d = step
            # How many steps just like this one: until `until`, a reply's end, the step
            # that reads the first prompt to its end, or an arrival that can start.
            m = ceil((stop - clock) / d) if until < inf else inf
            if ending and ending[0] - steps < m:
                m = ending[0] - steps
            if reading:
                unread = (reading[0][1] - 1) // chunk or 1  # steps that leave it unread
                if unread < m:
                    m = unread
            if waiting and len(reading) + writing < slots:
                wait = ceil((arrivals[waiting[0]] - EPS - clock) / d)
                if wait < m:
                    m = wait if wait > 1 else 1
            # m steps of d seconds, each reading `tokens` and writing `writing` replies
            if writing and d != step:  # gaps of one step are counted from the words
                self.gap_values.append(d)
                self.gap_counts.append(writing * m)
                self.long_from.append(steps + 1)
                self.long_to.append(steps + m)
            if recording:
                passes.append((clock, d, m, tokens, writing))
            clock += m * d
            steps += m
            if tokens:
                read_left -= m * tokens
                if m > 1:  # all from the first prompt, which is left unfinished
                    reading[0][1] -= m * tokens
                else:
                    while tokens and reading:
                        job = reading[0]
                        if job[1] > tokens:
                            job[1] -= tokens
                            break
                        tokens -= job[1]
                        reading.popleft()
                        # Read: its first word now, its others from the next step on.
                        j = job[0]
                        self.first[j] = clock
                        self.first_step[j] = steps
                        if replies[j] > 1:
                            self.last_step[j] = steps + replies[j] - 1
                            heappush(ending, steps + replies[j] - 1)
                        else:
                            finished.append(clock)
                        if self.memory:  # free at its last word
                            heappush(self.to_free,
                                     (steps + replies[j] - 1, prompts[j] + replies[j]))
            while ending and ending[0] == steps:  # replies ended
                heappop(ending)
                finished.append(clock)
        self.clock, self.steps, self.read_left = clock, steps, read_left

    def admit(self, j, steps):
        """Job j starts being read: what has ended by now is free, and it holds its prompt and
        reply until its last word."""
        while self.to_free and self.to_free[0][0] <= steps:
            self.held -= heappop(self.to_free)[1]
        self.held += self.prompts[j] + self.replies[j]
        if self.held > self.most:
            self.most = self.held

    def served(self):
        """Serve every job to its end; what it did, in the lesson's terms."""
        self.advance(inf)
        max_gap = []
        for s0, last in zip(self.first_step, self.last_step):
            if not last:
                max_gap.append(0.0)
                continue
            # its largest gap: the longest step among those that wrote it
            lo, hi = bisect_left(self.long_to, s0 + 1), bisect_right(self.long_from, last)
            g = max(self.gap_values[lo:hi]) if lo < hi else 0.0
            max_gap.append(g if g > self.step else self.step)
        words = 0
        for r in self.replies:
            words += r
        served = Served(self.first, max_gap, [], self.gap_values, self.gap_counts,
                        words - len(self.replies), self.step, self.last_step, None,
                        passes=self.passes)
        served.spans = partial(spans, self.first_step, self.last_step, self.long_from,
                               self.long_to, self.gap_values)
        if self.memory:
            served.held = self.most
        return served


def spans(first_step, last_step, long_from, long_to, gap_values):
    """Served.spans of a chunked GPU: no first gap stands apart (a reply's first gap is a
    step of the loop like the others), and a reply sat through every run of long steps
    between its first word's step and its last's, each as many gaps as the run has steps."""
    spanned = [(bisect_left(long_to, s0 + 1), bisect_right(long_from, last)) if last else (0, 0)
               for s0, last in zip(first_step, last_step)]
    weights = [b - a + 1 for a, b in zip(long_from, long_to)]
    return [None] * len(first_step), spanned, gap_values, weights


def loop(chip, slots, chunk, record=False, memory=False):
    """A ChunkedGpu as a coroutine, like gpu.loop: send jobs (arrival, reply, prompt), one or
    a list at a time, and times (how many jobs it holds then, and until when), then None;
    StopIteration's value is the Served. record: keep its passes, to watch the run."""
    gpu = ChunkedGpu(chip, slots, chunk, record, memory)
    message = yield
    while message is not None:
        if message.__class__ is float:
            message = yield gpu.holding(message)
            continue
        for job in message if message.__class__ is list else (message,):
            gpu.take(*job)
        message = yield
    return gpu.served()
