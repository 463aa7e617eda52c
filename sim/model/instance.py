"""An instance whose passes do not all cost the same: the general loop (docs/model.md: "Costs of
an instance", "Memory that pushes back").

The fast loops (gpu.py, chunked.py) jump over runs of alike writing steps, which holds while a
step costs the same whatever the batch: the toy's costs on one GPU. With tp GPUs a pass also
ends with all-reduces that grow with its tokens, and with roofline costs it grows with every
reply's context, so here every pass is walked, one at a time: the lesson's loop (Whole) or the
chunked one (Chunked), each pass's length asked of the instance's Chip. With `memory=kv` a
shared or chunked instance also admits a job only when its prompt and reply fit in its free KV.

Gaps are kept without listing them: pass k ends at `ends[k]`, and a reply written from pass s
to pass e has its first gap (from its first word to the end of pass s) and then the intervals
`ends[k] - ends[k - 1]` for k in s+1 .. e, which every reply in pass k shares. So the pool is
an interval and a count per pass, and each reply's largest gap is a range maximum, found for
all of them at the end in one sweep.

`begin()` and `finish()` take one pass at a time (the split's memory, backpressure.py, drives
its writers so); `advance(until)` runs them in a loop; `holding(t)` answers least-loaded routing.
"""

from bisect import bisect_left, bisect_right, insort
from functools import partial
from heapq import heappop, heappush
from math import inf

from .costs import EPS
from .gpu import Served


class Instance:
    """What both loops share: the jobs given, the passes' ends, the replies being written, the
    memory reserved, and what was done, to measure and to watch."""

    def __init__(self, chip, slots, capacity=None, record=False):
        self.chip, self.slots, self.capacity = chip, slots, capacity  # capacity: KV tokens, or None
        self.clock = 0.0
        self.reach, self.replies, self.prompts, self.reads = [], [], [], []  # of each job given
        self.nxt = 0  # the next job to take
        self.first, self.last = [], []  # each job's first and last word (inf: not yet)
        self.spans, self.spanned = [], []  # (pass of its 2nd word, of its last), job: each reply
        self.ends = [0.0]  # when each pass ended, from pass 1
        self.ending = []  # heap: (last pass, job) of the replies being written
        self.joining = []  # jobs whose first word is made, written from the next pass on
        self.context = 0  # the replies being written: the sum of their contexts
        self.reserved = self.peak = 0  # KV tokens held by admitted jobs, and the most at once
        self.finished = []  # last words made, sorted (least-loaded routing counts them)
        self.pending = None  # the pass begun: (its end, kind, tokens, job)
        self.events = [] if record else None  # (kind, start, end, job, replies, tokens)
        self.kv = [] if record and capacity is not None else None  # (time, tokens reserved)

    # ---- jobs ----

    def give(self, reach, reply, prompt, read=True):
        """A job reaches it at `reach` (jobs come in the order they reach it): a prompt to read
        (read=True), or a landed cache, first word made, with `reply` words in all."""
        self.reach.append(reach)
        self.replies.append(reply)
        self.prompts.append(prompt)
        self.reads.append(read)
        self.first.append(inf)
        self.last.append(inf)
        if not read and reply == 1:  # its only word was made as it landed: it is done then
            self.last[-1] = reach
            insort(self.finished, reach)

    def there(self):
        """The next job to take, if it has reached the instance by its clock (within EPS)."""
        j = self.nxt
        return j if j < len(self.reach) and self.reach[j] <= self.clock + EPS else None

    def writing(self):
        return len(self.ending) + len(self.joining)

    def fits(self, j):
        """Whether job j's whole final context fits in the free KV (always, without memory)."""
        return self.capacity is None or self.reserved + self.prompts[j] + self.replies[j] <= self.capacity

    def admit(self, j):
        """Job j is taken: with memory, it reserves its whole final context until its last word."""
        self.nxt += 1
        if self.capacity is not None:
            self.reserved += self.prompts[j] + self.replies[j]
            if self.reserved > self.peak:
                self.peak = self.reserved
            if self.kv is not None:
                self.kv.append((self.clock, self.reserved))

    def word_one(self, j, at):
        """Job j's first word, at `at`; a one-word reply is done with it."""
        self.first[j] = at
        if self.replies[j] > 1:
            self.joining.append(j)
        elif self.reads[j]:
            self.done(j, at)
        elif self.capacity is not None:  # a landed one-word reply (done as it was given)
            self.free(j, at)

    def done(self, j, at):
        self.last[j] = at
        insort(self.finished, at)
        if self.capacity is not None:
            self.free(j, at)

    def free(self, j, at):
        self.reserved -= self.prompts[j] + self.replies[j]
        if self.kv is not None:
            self.kv.append((at, self.reserved))

    # ---- passes ----

    def join(self):
        """The replies whose first word is made join the slots' writing, from this pass."""
        k = len(self.ends)  # this pass makes their second word
        for j in self.joining:
            heappush(self.ending, (k + self.replies[j] - 2, j))
            self.spans.append((k, k + self.replies[j] - 2))
            self.spanned.append(j)
            self.context += self.prompts[j] + 1
        self.joining.clear()

    def begin_read(self, j):
        """A whole read of job j's prompt: the pass is the read."""
        self.admit(j)
        self.pending = (self.clock + self.chip.read_time(self.prompts[j]), "read", self.prompts[j], j)

    def begin_step(self, duration, tokens=0):
        self.pending = (self.clock + duration, "step", tokens, -1)

    def finish(self):
        """End the pass begun: its words made, its last words freeing their room. Returns the
        jobs whose last word it made (for the split's memory)."""
        end, kind, tokens, job = self.pending
        self.pending = None
        if self.events is not None:
            self.events.append((kind, self.clock, end, job, len(self.ending) if kind == "step" else 0,
                                tokens))
        self.clock = end
        if kind == "read":
            self.word_one(job, end)
            return [] if self.replies[job] > 1 else [job]
        k = len(self.ends)
        self.ends.append(end)
        self.context += len(self.ending)  # every reply written got a word
        out = []
        ending = self.ending
        while ending and ending[0][0] == k:
            _, j = heappop(ending)
            self.context -= self.prompts[j] + self.replies[j]
            self.done(j, end)
            out.append(j)
        self.after_pass(end)
        return out

    def after_pass(self, end):
        """What a loop adds at a pass's end (chunked: prompts read to their end)."""

    def busy(self):
        """Work under way that is not a reply in a slot (chunked: prompts being read)."""
        return False

    def next_start(self):
        """When its next pass can begin: now if it has work, else at the next job's reach, or
        None if it has nothing to do."""
        if self.ending or self.joining or self.busy():
            return self.clock
        if self.nxt < len(self.reach):
            r = self.reach[self.nxt]
            return r if r > self.clock else self.clock
        return None

    def advance(self, until=inf):
        """Every pass that begins before `until` (within EPS of it, it begins at it, as far as
        floats tell), each walked to its end."""
        while True:
            start = self.next_start()
            if start is None or start >= until - EPS:
                return
            self.clock = start
            self.begin()
            self.finish()

    def holding(self, t):
        """Least-loaded routing's question: how many of its jobs have their last word after t
        (every pass that begins before t done), and until when that holds unless it is given a
        job (the end of the pass under way, or for ever if it is idle)."""
        self.advance(t)
        inside = len(self.reach) - bisect_right(self.finished, t)
        if self.clock > t:  # a pass under way at t: its last words come at its end
            return inside, self.clock
        return inside, inf if self.next_start() is None else t

    # ---- what it did ----

    def served(self):
        """Every job to its end; its first words, largest gaps and gap pool, as a Served."""
        self.advance()
        ends = self.ends
        first_gaps = [ends[s] - self.first[j] for (s, _), j in zip(self.spans, self.spanned)]
        starting = [0] * (len(ends) + 1)  # replies whose shared gaps begin at each pass ...
        for s, e in self.spans:
            starting[s + 1] += 1
            starting[e + 1] -= 1  # ... less those whose last pass was before it
        values, counts, running = [], [], 0
        for k in range(1, len(ends)):
            running += starting[k]
            if running:
                values.append(ends[k] - ends[k - 1])
                counts.append(running)
        gaps = len(first_gaps)
        for c in counts:
            gaps += c
        last_pass = [0] * len(self.reach)
        for (_, e), j in zip(self.spans, self.spanned):
            last_pass[j] = e
        served = Served(self.first, self.largest_gaps(first_gaps), first_gaps, values, counts,
                        gaps, self.chip.step, last_pass, None, events=self.events)
        served.spans = partial(spans, ends, self.spans, self.spanned, first_gaps, values,
                               len(self.reach))
        return served

    def largest_gaps(self, first_gaps):
        """Each job's largest gap: its first, or the longest interval among its later passes.
        A range maximum for each reply, swept by their last pass, with a stack of the passes
        whose interval no later pass's reaches."""
        ends, spans = self.ends, self.spans
        out = [0.0] * len(self.reach)
        at, gap = [], []  # the stack: passes in order, their intervals decreasing
        k = 0
        for q in sorted(range(len(spans)), key=lambda q: spans[q][1]):
            s, e = spans[q]
            while k < e:
                k += 1
                g = ends[k] - ends[k - 1]
                while gap and gap[-1] <= g:
                    at.pop()
                    gap.pop()
                at.append(k)
                gap.append(g)
            best = first_gaps[q]
            i = bisect_left(at, s + 1)  # the longest interval of passes s+1 .. e
            if i < len(at) and gap[i] > best:
                best = gap[i]
            out[self.spanned[q]] = best
        return out


def spans(ends, passes, spanned, first_gaps, values, jobs):
    """Served.spans of an instance: a reply written from pass s to pass e has its first gap,
    then one gap in each pass s+1 .. e. The pool keeps a pass's gap only where some reply was
    written in it, so a pass's place among `values` is how many such passes came before it."""
    writing = [0] * (len(ends) + 1)
    for s, e in passes:
        writing[s + 1] += 1
        writing[e + 1] -= 1
    place, running, kept = [0] * (len(ends) + 1), 0, 0
    for k in range(1, len(ends) + 1):
        place[k] = kept
        running += writing[k]
        if running and k < len(ends):
            kept += 1
    firsts, spans_of = [None] * jobs, [(0, 0)] * jobs
    for (s, e), j, g in zip(passes, spanned, first_gaps):
        firsts[j] = g
        spans_of[j] = (place[s + 1], place[s + 1] + e - s)
    return firsts, spans_of, values, None


class Whole(Instance):
    """The lesson's loop: a round either reads one prompt whole, or takes the jobs that have
    arrived with nothing to read and then writes one step (docs/model.md: "One GPU serving")."""

    def begin(self):
        j = self.there()
        if j is not None and self.writing() < self.slots:
            if self.reads[j]:
                if self.fits(j):  # admitted as its read starts; else it waits, and steps go on
                    self.begin_read(j)
                    return
            else:
                while j is not None and not self.reads[j] and self.writing() < self.slots:
                    self.admit(j)
                    self.word_one(j, self.reach[j])  # its first word counts from its landing
                    j = self.there()
        self.join()
        self.begin_step(self.chip.step_time(len(self.ending), self.context))


class Chunked(Instance):
    """The chunked loop: each pass reads up to `chunk` prompt tokens, from the prompts being
    read in order, and writes a word of every reply in a slot (docs/model.md: "One GPU, and
    chunked reading")."""

    def __init__(self, chip, slots, chunk, capacity=None, record=False):
        super().__init__(chip, slots, capacity, record)
        self.chunk = chunk
        self.reading = []  # [job, tokens read so far] of the prompts being read, in order
        self.read_out = []  # prompts the pass under way reads to their end

    def busy(self):
        return bool(self.reading)

    def begin(self):
        j = self.there()  # arrived prompts start being read, in order, while a slot is free
        while j is not None and len(self.reading) + self.writing() < self.slots and self.fits(j):
            self.admit(j)
            self.reading.append([j, 0])
            j = self.there()
        self.join()
        budget, tokens, attention, before = self.chunk, 0, 0, 0
        for r in self.reading:
            if not budget:
                break
            j, read = r
            take = min(budget, self.prompts[j] - read)
            attention += take * (2 * read + take + 1)  # causal attention over what it has read
            before += read
            r[1] = read + take
            budget -= take
            tokens += take
            if r[1] == self.prompts[j]:
                self.read_out.append(j)
        if self.read_out:
            self.reading = self.reading[len(self.read_out):]
        self.begin_step(self.chip.pass_time(tokens, len(self.ending), self.context, attention,
                                            before), tokens)

    def after_pass(self, end):
        for j in self.read_out:  # read to its end: its first word now, written from the next pass
            self.word_one(j, end)
        self.read_out.clear()


def loop(instance):
    """An Instance as a coroutine, like gpu.loop: send jobs (arrival, reply, prompt tokens it
    reads, or 0 for a landed cache, and then the prompt's length where it is not read), one or a
    list at a time, and times (how many jobs it holds then, and until
    when), then None; StopIteration's value is the Served."""
    message = yield
    while message is not None:
        if message.__class__ is float:
            message = yield instance.holding(message)
            continue
        for job in message if message.__class__ is list else (message,):
            # (arrival, reply, prompt tokens it reads: 0 for a landed cache[, its prompt])
            instance.give(job[0], job[1], job[-1] if len(job) > 3 else job[2], read=job[2] > 0)
        message = yield
    return instance.served()
