"""Word by word: when each reply's words were written, for a short window of a run.

The engine jumps over runs of identical steps; with `record=True` it keeps a mark wherever
its clock moved other than by whole steps (a read, an idle wait). Step k then happened one
step after the last mark made before it, plus whole steps: no need to walk the run.
"""

from bisect import bisect_left

from .costs import STEP
from .gpu import serve
from .layouts import read_times, shared_gpu_jobs, writer_jobs


def step_times(marks):
    """A function: writing step number -> the time it ended."""
    mark_steps = [k for k, _ in marks]

    def at(k):
        m = bisect_left(mark_steps, k) - 1  # the last mark made before step k
        step, clock = marks[m]
        return clock + (k - step) * STEP

    return at


def words(served, replies, start, end):
    """{job: [times of its words within start..end]} for the jobs writing in that window."""
    at = step_times(served.marks)
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


def shared_gpu(work, gpu=0):
    """One shared GPU's jobs, served with marks: (served, arrivals, prompts, replies)."""
    arrivals, replies, prompts = shared_gpu_jobs(work, gpu)
    return serve(arrivals, replies, read_times(prompts), record=True), arrivals, prompts, replies


def writer(work, link):
    """The split's writer, served with marks: (served, request index of each job, replies)."""
    order, reached, replies = writer_jobs(work, link)
    return serve(reached, replies, record=True), order, replies
