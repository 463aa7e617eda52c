"""Watch it run: every event of one layout's run in a window of time
(docs/model.md: "Watch it run: the events").

The events are read off the engine's own run, recorded (the layouts' record=True), never
simulated a second time. Lanes are instances (with tp = 1, GPUs). The general loop
(instance.py) records its reads and passes as it walks them (Recorded), and with `memory=kv`
every lane but the link also shows what it holds: `kv` events, the runs of equal tokens. A GPU's loop keeps each value its clock took (Served.clocks):
between two of them the clock moved by whole writing steps, `clock + n * step`, so every
step's start and end follow in the loop's own float arithmetic, and a read is the move from
one value to the next. A reply written from step k0 to step k1 is in its GPU's slots in each
of those steps, so a step's replies are a count of such ranges. A chunked GPU keeps its runs
of alike steps (Served.passes); the split's readers and link keep their times
(Run.handed, from link.hand_over).

Only the lanes' events that overlap a window are made, so a window of a long run costs about
its own events (bisections find where it begins).
"""

from bisect import bisect_left, bisect_right
from math import isfinite

from .costs import EPS

LONGEST = 10.0  # seconds: the longest window (and a nanosecond, EPS: t0 + 10 may round above)
# A recorded run's weight in a lab's budget, per request: it holds every value of every GPU's
# clock, about 900 bytes a request where a run holds about 130.
WEIGHT = 8


def known(layout, layouts):
    """The layout, if the settings have it (`layouts`: theirs), or one clear ValueError."""
    if layout not in layouts:
        chunked = "" if "chunked" in layouts else " (chunked needs chunk above 0)"
        raise ValueError(f"the layouts at these settings are {', '.join(layouts)}{chunked}; "
                         f"got {layout!r}")
    return layout


def window(t0, t1):
    """The window [t0, t1] in seconds, or one clear ValueError."""
    for name, t in (("t0", t0), ("t1", t1)):
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not isfinite(t):
            raise ValueError(f"{name} must be a number of seconds; got {t!r}")
    if t0 < 0:
        raise ValueError(f"a window starts at 0 s or later; got t0 = {t0!r}")
    if t1 <= t0:
        raise ValueError(f"a window ends after it starts (t1 above t0); got t0 = {t0!r}, "
                         f"t1 = {t1!r}")
    if t1 - t0 > LONGEST + EPS:
        raise ValueError(f"a window lasts at most {LONGEST:g} s; got {t1 - t0:g} s "
                         f"(t0 = {t0!r}, t1 = {t1!r})")
    return float(t0), float(t1)


class Intervals:
    """A lane's events other than writing steps, (start, lane, index, end, kind, request,
    replies, tokens), sorted by start. None lasts longer than the longest, so those that
    end after t0 start after t0 less it."""

    def __init__(self, events):
        self.events = sorted(events)
        self.starts = [e[0] for e in self.events]
        self.longest = max((e[3] - e[0] for e in self.events), default=0.0)

    def within(self, t0, t1):
        lo = bisect_left(self.starts, t0 - self.longest - 1.0)  # (a second's margin for rounding)
        hi = bisect_left(self.starts, t1)
        return [e for e in self.events[lo:hi] if e[3] > t0]


class Steps:
    """One GPU loop's writing steps (gpu.loop's), from every value its clock took."""

    def __init__(self, lane, index, served, replies):
        self.lane, self.index, self.step = lane, index, served.step
        self.at = [k for k, _, _ in served.clocks]  # steps done when the clock took each value
        self.clock = [c for _, c, _ in served.clocks]
        first, last = [], []  # the steps that write each reply's second word and its last
        for k1, r in zip(served.last_step, replies):
            if r > 1:
                first.append(k1 - r + 2)
                last.append(k1)
        self.first, self.last = sorted(first), sorted(last)
        self.count = self.last[-1] if last else 0  # steps in all: there are none with no reply

    def times(self, k):
        """Step k's start and end: the clock's last value before it, plus whole steps."""
        m = bisect_right(self.at, k - 1) - 1
        clock, n = self.clock[m], k - 1 - self.at[m]
        return clock + n * self.step, clock + (n + 1) * self.step

    def within(self, t0, t1):
        lo, hi = 1, self.count + 1  # the first step that ends after t0 (ends grow with k)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.times(mid)[1] > t0:
                hi = mid
            else:
                lo = mid + 1
        out = []
        for k in range(lo, self.count + 1):
            start, end = self.times(k)
            if start >= t1:
                break
            # the replies whose writing began by step k, less those that ended before it
            replies = bisect_right(self.first, k) - bisect_left(self.last, k)
            out.append((start, self.lane, self.index, end, "step", -1, replies, 0))
        return out


class Passes:
    """One chunked GPU's steps, from its runs of alike steps (chunked.ChunkedGpu)."""

    def __init__(self, lane, index, passes):
        self.lane, self.index, self.passes = lane, index, passes
        self.ends = [clock + m * d for clock, d, m, _, _ in passes]  # as its clock moved
        self.before, done = [], 0  # steps done before each run
        for _, _, m, _, _ in passes:
            self.before.append(done)
            done += m
        self.count = done

    def times(self, k):
        """Step k's start and end (from 1), in the arithmetic of `within`."""
        n = bisect_right(self.before, k - 1) - 1
        clock, d = self.passes[n][0], self.passes[n][1]
        q = k - 1 - self.before[n]
        return clock + q * d, clock + (q + 1) * d

    def within(self, t0, t1):
        out = []
        for n in range(bisect_right(self.ends, t0), len(self.passes)):
            clock, d, m, tokens, replies = self.passes[n]
            if clock >= t1:
                break
            q = max(0, int((t0 - clock) / d) - 1)  # no pass before this one ends after t0
            while q < m:
                start, end = clock + q * d, clock + (q + 1) * d
                if start >= t1:
                    break
                if end > t0:
                    out.append((start, self.lane, self.index, end, "step", -1, replies, tokens))
                q += 1
        return out


class Recorded:
    """A general loop's lane (instance.py): its reads and passes as it walked them."""

    def __init__(self, lane, index, events, requests):
        steps = [(start, end) for kind, start, end, _, _, _ in events if kind == "step"]
        self.starts, self.ends = [s for s, _ in steps], [e for _, e in steps]
        self.count = len(steps)
        self.intervals = Intervals((start, lane, index, end, kind, requests[job] if job >= 0 else -1,
                                    replies, tokens)
                                   for kind, start, end, job, replies, tokens in events)

    def times(self, k):
        """Pass k's start and end (from 1)."""
        return self.starts[k - 1], self.ends[k - 1]

    def within(self, t0, t1):
        return self.intervals.within(t0, t1)


def kv_runs(lane, index, changes):
    """A lane's `kv` events: from its (time, tokens held after it) changes, in time order, the
    maximal runs of equal tokens from 0 to its last change (changes that cancel out at one
    moment make no boundary; nothing after the last change)."""
    held_at = {}
    for t, tokens in changes:  # the tokens held once each moment's changes are all made
        held_at[t] = tokens
    runs, start, held = [], 0.0, 0
    for t, tokens in held_at.items():
        if tokens == held:
            continue
        if t > start:
            runs.append((start, lane, index, t, "kv", -1, 0, held))
        start, held = t, tokens
    return Intervals(runs)


class Watched:
    """One layout's recorded run, ready to be watched: `events(t0, t1)`."""

    def __init__(self, layout, run, work):
        self.run = run
        self.lanes = []  # what finds each lane's events in a window: Intervals, Steps, Passes
        self.arrivals, self.words = work.arrivals, work.replies
        self.read_at = {}  # request -> when its read began (a shared GPU's, a reader's, a local one)
        self.writing = []  # (lane, index, Steps or Passes, Served, requests) of each writing GPU
        if layout == "split" and run.pushed is not None:  # memory=kv: backpressure.Split's walk
            walked = run.pushed
            reads, crossings = [], []
            for i, r in enumerate(walked.reader_of):
                if r is not None:
                    self.read_at[i] = walked.start[i]
                    reads.append((walked.start[i], "reader", r, walked.end[i], "read", i, 0,
                                  work.prompts[i]))
                    crossings.append((walked.departs[i], "link", 0, walked.land[i], "cross", i, 0, 0))
            self.lanes += [Intervals([e for e in reads if e[2] == r]) for r in range(len(walked.held))]
            self.lanes.append(Intervals(crossings))
            self.gpus("writer", run.gpus, work)
        elif layout == "split":
            starts, ends, who = run.handed["reads"]
            departs, reach = run.handed["departs"], run.handed["reach"]
            reads, crossings = [], []
            for i, (start, end) in enumerate(zip(starts, ends)):
                if end is not None:  # read by a reader (in arrival order), then across the link
                    r = who[len(reads)]
                    self.read_at[i] = start
                    reads.append((start, "reader", r, end, "read", i, 0, work.prompts[i]))
                    crossings.append((departs[i], "link", 0, reach[i], "cross", i, 0, 0))
            self.lanes += [Intervals([e for e in reads if e[2] == r])
                           for r in range(max(who, default=-1) + 1)]
            self.lanes.append(Intervals(crossings))
            self.gpus("writer", run.gpus, work)
        elif layout == "chunked" and run.gpus and run.gpus[0][0].events is None:
            for g, (served, requests) in enumerate(run.gpus):
                self.lanes.append(Passes("gpu", g, served.passes))
                self.writing.append(("gpu", g, self.lanes[-1], served, requests))
        else:
            self.gpus("gpu", run.gpus, work)
        if run.kv:  # memory=kv: what each lane held, but the link's
            self.lanes += [kv_runs(lane, k, changes) for (lane, k), changes in run.kv.items()]

    def gpus(self, lane, gpus, work):
        """The lanes of gpu.loop's GPUs: their writing steps, and their whole reads (a shared
        GPU's; a writer's local ones)."""
        for g, (served, requests) in enumerate(gpus):
            if served.events is not None:  # the general loop's record
                self.lanes.append(Recorded(lane, g, served.events, requests))
                self.writing.append((lane, g, self.lanes[-1], served, requests))
                for kind, start, _, job, _, _ in served.events:
                    if kind == "read" and job >= 0:
                        self.read_at[requests[job]] = start
                continue
            self.lanes.append(Steps(lane, g, served, [work.replies[i] for i in requests]))
            self.writing.append((lane, g, self.lanes[-1], served, requests))
            clocks = served.clocks
            for n, (_, _, j) in enumerate(clocks):
                if j >= 0:
                    self.read_at[requests[j]] = clocks[n - 1][1]
            self.lanes.append(Intervals(  # a read, from the clock's value before it to its end
                (clocks[n - 1][1], lane, g, clock, "read", requests[j], 0,
                 work.prompts[requests[j]]) for n, (_, clock, j) in enumerate(clocks) if j >= 0))

    def events(self, t0, t1):
        """Every event that overlaps [t0, t1] (ends after t0, starts before t1), ordered by
        start, lane, index, end."""
        found = []
        for lane in self.lanes:
            found += lane.within(t0, t1)
        found.sort(key=KV_LAST)
        return [{"lane": lane, "index": index, "kind": kind, "start": start, "end": end,
                 "request": request, "replies": replies, "tokens": tokens}
                for start, lane, index, end, kind, request, replies, tokens in found]

    def end(self):
        """When the run's last word is written (seconds): no event ends later."""
        return max((max(served.first, default=0.0) if not steps.count else
                    max(steps.times(steps.count)[1], max(served.first))
                    for _, _, steps, served, _ in self.writing), default=0.0)

    def requests(self, t0, t1):
        """What the events leave out and the page needs at a playhead, for every request that
        arrived before t1 and whose last word comes after t0: its arrival, when its read
        began (None on the chunked layout, whose GPUs read prompts a chunk at a time), the lane
        and index of the GPU that writes it, its first and last words' times, and `word`, its
        last word at t0 or before (None if its first comes after t0). Between t0 and t1 a
        reply's other words are the ends of its GPU's steps that start at its first word or
        later: every step of a GPU writes a word of each reply in its slots."""
        out = []
        for lane, index, steps, served, requests in self.writing:
            k_t0 = last_ending(steps, t0)  # the GPU's last step that ended by t0 (0: none)
            for j, i in enumerate(requests):
                if self.arrivals[i] >= t1:
                    continue
                first, k1 = served.first[j], served.last_step[j]
                last = steps.times(k1)[1] if self.words[i] > 1 else first
                if last <= t0:
                    continue
                word = None
                if first <= t0:
                    word = first
                    if k_t0 and steps.times(k_t0)[0] >= first - EPS:
                        word = steps.times(k_t0)[1]
                out.append({"request": i, "arrival": self.arrivals[i],
                            "read": self.read_at.get(i), "lane": lane, "index": index,
                            "first": first, "last": last, "word": word})
        out.sort(key=lambda r: r["request"])
        return out


def KV_LAST(event):
    """The events' order: start, lane, index, end, and on a full tie a lane's kv event after its
    reads and steps."""
    return event[:4] + (event[4] == "kv",) + event[4:]


def last_ending(steps, t):
    """The last of a GPU's steps to end at t or before (0 if none did)."""
    lo, hi = 0, steps.count  # steps' ends grow with k
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if steps.times(mid)[1] <= t:
            lo = mid
        else:
            hi = mid - 1
    return lo
