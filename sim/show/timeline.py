"""Word by word: when each reply's words were written, for a short window of a run.

The engine jumps over runs of identical steps; with `record=True` it keeps a mark wherever
its clock moved other than by whole steps (a read, an idle wait). Step k then happened one
step after the last mark made before it, plus whole steps: no need to walk the run.

That holds where every writing step lasts the same (one GPU, the toy's costs). Elsewhere (tp
GPUs to an instance, roofline costs, a KV memory that may bind) steps differ and the general
loop keeps no marks: there a lane of the run recorded to be watched (the lab's, as sim.watch
has it: Lane) gives every step's start and end and every read, as the loop walked them.
"""

from bisect import bisect_left

from ..model.layouts import shared, split


def step_times(marks, step):
    """A function: writing step number -> the time it ended, on a GPU of that step."""
    mark_steps = [k for k, _ in marks]

    def at(k):
        m = bisect_left(mark_steps, k) - 1  # the last mark made before step k
        mark, clock = marks[m]
        return clock + (k - mark) * step

    return at


def words(served, replies, start, end, at=None):
    """{job: [times of its words within start..end]} for the jobs writing in that window.
    at: writing step number -> when it ended (default: from the marks, step_times)."""
    if at is None:
        at = step_times(served.marks, served.step)
    out = {}
    for j, (first, last, r) in enumerate(zip(served.first, served.last_step, replies)):
        if first > end or (r > 1 and at(last) < start) or (r == 1 and first < start):
            continue
        times = [first] if first >= start else []
        for k in range(last - r + 2, last + 1):
            t = at(k)
            if t > end:
                break
            if t >= start:
                times.append(t)
        if times:
            out[j] = times
    return out


def shared_gpu(work, s, gpu=0):
    """One shared GPU's jobs, served with marks: (served, arrivals, prompts, replies)."""
    served, requests = shared(work, s, record=True).gpus[gpu]
    return (served, [work.arrivals[i] for i in requests], [work.prompts[i] for i in requests],
            [work.replies[i] for i in requests])


def writer(work, s, gpu=0):
    """One of the split's writers, served with marks: (served, request index of each job,
    replies)."""
    served, requests = split(work, s, record=True).gpus[gpu]
    return served, requests, [work.replies[i] for i in requests]


class Lane:
    """One writing instance of a run recorded to be watched (sim.model.watch.Watched: the
    lab's, whose events sim.watch gives), for any settings: its jobs and their words, its
    writing steps (from 1) and its reads, each at the time the run gives it."""

    def __init__(self, watched, work, index=0):
        _, _, self.steps, self.served, self.requests = watched.writing[index]
        self.prompts = [work.prompts[i] for i in self.requests]
        self.replies = [work.replies[i] for i in self.requests]
        self.count = self.steps.count  # its writing steps in all
        self.reads = reads(self.served)

    def times(self, k):
        """Writing step k's start and end (1 <= k <= count)."""
        return self.steps.times(k)

    def end(self, k):
        return self.steps.times(k)[1]

    def words(self, start, end):
        """{job: [times of its words within start..end]}, as words() gives them."""
        return words(self.served, self.replies, start, end, self.end)


def reads(served):
    """{job: (start, end)} of every prompt an instance read whole, from its record: the
    general loop's events, or a fast loop's every clock value (a read is the move from one
    value to the next)."""
    if served.events is not None:
        return {job: (start, end) for kind, start, end, job, _, _ in served.events
                if kind == "read" and job >= 0}
    clocks = served.clocks
    return {j: (clocks[n - 1][1], clock) for n, (_, clock, j) in enumerate(clocks) if j >= 0}
