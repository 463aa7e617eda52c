"""Word by word: when each reply's words were written, for a short window of a run.

The engine jumps over runs of identical steps; with `record=True` it keeps a mark wherever
its clock moved other than by whole steps (a read, an idle wait). Step k then happened one
step after the last mark made before it, plus whole steps: no need to walk the run.
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


def words(served, replies, start, end):
    """{job: [times of its words within start..end]} for the jobs writing in that window."""
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
