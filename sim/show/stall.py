"""Figure 1: a read stalls a shared GPU, while the split's writer goes on writing. Drawn from a
run recorded with the marks from which every word's time follows (timeline.py).

With the lesson's model, one GPU an instance, the toy's costs and slots alone (the settings of
docs/model.md's "Bigger models, GPUs working as one, and memory" at their defaults) every
writing step lasts the same, and a fresh run's marks give every word (Marked). Otherwise steps
differ (all-reduces that grow with the batch, costs that grow with the context) or memory may
hold a read back: then the figure reads the lab's run recorded to be watched, every step and
read as the loop walked them (timeline.Lane), so its words are those sim.watch gives.
"""

from ..model.instances import chip
from ..settings import Settings
from .charts import SHARED, SPLIT, base_layout, word_marks
from .numbers import an, ms, number, plural, tag
from .timeline import Lane, shared_gpu, step_times, words, writer

CANDIDATES = 200  # figure 1 looks for its read among the first shared GPU's first jobs
HEADROOM = 1.9  # rows of room above the top row of words, for the read's label
BEFORE, AFTER = 6, 10  # writing steps figure 1 shows before its read and after it
# The settings whose defaults make every writing step alike (with the lesson's other settings):
# at them, figure 1 is drawn from a fresh run's marks, as it always was.
ALIKE = ("model", "tp", "reader_tp", "costs", "memory")
LESSON = Settings()


class Marked:
    """A fast loop's GPU, one writing step alike, from a run's marks (timeline.step_times)."""

    def __init__(self, s, served, replies, prompts=None):
        self.served, self.replies, self.prompts = served, replies, prompts
        self.slots, self.step = s.slots, served.step
        self.at = step_times(served.marks, served.step)
        self.read_cost = chip(s, 0).read_cost  # the first GPU's kind: reader_gpu, in every layout

    def read(self, j, p):
        """Job j's read of its p tokens: (start, end)."""
        return self.served.first[j] - p * self.read_cost, self.served.first[j]

    def since(self, j):
        """The first job that may still be writing as job j is read."""
        return max(0, j - 4 * self.slots)

    def lone(self, taken, start, end):
        """Whether the read ran from the end of step `taken` to the start of the next."""
        at = self.at
        return abs(at(taken) - start) < 1e-9 and abs(at(taken + 1) - (end + self.step)) < 1e-9

    def window(self, taken, start, end):
        """BEFORE steps before the read and AFTER steps after it."""
        return start - BEFORE * self.step, end + AFTER * self.step

    def after(self, taken):
        """How long the writing step after the read lasted."""
        return self.step

    def words(self, start, end):
        return words(self.served, self.replies, start, end)


class Walked(Lane):
    """An instance of the lab's run recorded to be watched: every step and read as walked."""

    def read(self, j, p):
        return self.reads.get(j, (None, None))

    def since(self, j):
        return 0

    def lone(self, taken, start, end):
        return (start is not None and 1 <= taken < self.count and abs(self.end(taken) - start) < 1e-9
                and abs(self.times(taken + 1)[0] - end) < 1e-9)

    def window(self, taken, start, end):
        return (self.times(max(1, taken - BEFORE + 1))[0],
                self.end(min(self.count, taken + AFTER)))

    def after(self, taken):
        begun, ended = self.times(taken + 1)
        return ended - begun


def alike(s):
    """Whether every writing step of the settings lasts the same: figure 1 as it always was."""
    return all(getattr(s, name) == getattr(LESSON, name) for name in ALIKE)


def stall_window(s, served, prompts, replies, lane=None):
    """Pick the read to show: a lone read of a prompt of the set length, over the most replies.
    lane: the instance's steps and reads (Marked, from served's marks, if not given)."""
    lane = lane or Marked(s, served, replies)
    best = None
    for j, (p, r) in enumerate(zip(prompts[:CANDIDATES], replies)):
        if p != s.prompt or r < 2:
            continue
        taken = served.last_step[j] - r + 1  # the step count when its read began
        start, end = lane.read(j, p)
        if not lane.lone(taken, start, end):
            continue
        writing = sum(1 for k in range(lane.since(j), j)
                      if replies[k] > 1 and served.last_step[k] - replies[k] + 1 <= taken
                      < served.last_step[k])
        if writing and (best is None or writing > best[0]):
            best = (writing, j, start, end)
    return best


def figure_window(served, found):
    """Figure 1's window, (t0, t1) in seconds, around the read stall_window found (at the
    settings whose steps are alike)."""
    _, _, start, end = found
    return start - BEFORE * served.step, end + AFTER * served.step


def first_instance(lab, s):
    """The first shared instance's steps and reads (Marked or Walked), and the read figure 1
    shows on it (stall_window's, or None)."""
    if alike(s):
        served, _, prompts, replies = shared_gpu(lab.workload(s), s)
        lane = Marked(s, served, replies, prompts)
    else:
        lane = Walked(lab.watched("shared", s), lab.workload(s))
    return lane, stall_window(s, lane.served, lane.prompts, lane.replies, lane)


def figure_span(lab, s):
    """Figure 1's window, (t0, t1) in seconds, at any settings; None if it has no stall to show."""
    lane, found = first_instance(lab, s)
    if found is None:
        return None
    _, j, start, end = found
    return lane.window(lane.served.last_step[j] - lane.replies[j] + 1, start, end)


def stall(lab, s):
    """Figure 1: a read stalls a shared GPU; the split's writer goes on writing."""
    work = lab.workload(s)  # the lesson's draws, or a trace's window
    lane, found = first_instance(lab, s)
    served, replies = lane.served, lane.replies
    one = s.tp == 1  # a GPU an instance: the lesson's words
    gpus = "" if one else f" ({tag('stall.tp', number(s.tp))} GPUs)"
    shared_name = "shared GPU" if one else "shared instance"
    writer_name = "split's writer" if one else "split's first writer instance"
    layout = base_layout("ms from the window's start", "reply",
                         xaxis={"domain": [0, 0.47], "title": {"text": f"{shared_name}: ms"}},
                         yaxis={"showticklabels": False, "title": {"text": "replies being written"}},
                         xaxis2={"domain": [0.53, 1], "anchor": "y2", "fixedrange": True,
                                 "title": {"text": f"{writer_name}: ms"}, "zeroline": False,
                                 "tickfont": {"size": 12}, "gridcolor": "#e5e5e5"},
                         yaxis2={"anchor": "x2", "showticklabels": False, "fixedrange": True,
                                 "zeroline": False, "gridcolor": "#e5e5e5"})
    if found is None:
        layout["meta"] = {"stall": None}
        return {"data": [], "layout": layout}, (
            f"No {tag('stall.prompt', number(s.prompt))}-token read on the first {shared_name}"
            f"{gpus} overlaps a reply being written at these settings, so there is no stall to "
            f"show.")
    _, j, start, end = found
    taken = served.last_step[j] - replies[j] + 1
    t0, t1 = lane.window(taken, start, end)
    data = []
    stall_gap = None
    shared_words = lane.words(t0, t1)
    for row, (k, times) in enumerate(sorted(shared_words.items(), key=lambda kv: kv[1][0])):
        before = [t for t in times if t <= start]
        after = [t for t in times if t > end]
        if k != j and before and after and stall_gap is None:
            stall_gap = after[0] - before[-1]
        data.append(word_marks(times, t0, row, SHARED, "x", "y", shared_name, row == 0))
    if alike(s):
        w_served, _, w_replies = writer(work, s)
        writes = words(w_served, w_replies, t0, t1)
        which = "which never reads"
    else:
        w_lane = Lane(lab.watched("split", s), work)
        writes = w_lane.words(t0, t1)
        which = reading(w_lane, t0, t1)
    writer_words = sorted(writes.values(), key=lambda ts: ts[0])
    for row, times in enumerate(writer_words):
        data.append(word_marks(times, t0, row, SPLIT, "x2", "y2", writer_name, row == 0))
    writer_gap = max((b - a for ts in writer_words for a, b in zip(ts, ts[1:])), default=None)
    read_from, read_to = (start - t0) * 1000, (end - t0) * 1000  # ms into the window
    layout["shapes"] = [{"type": "rect", "xref": "x", "yref": "paper", "x0": read_from,
                         "x1": read_to, "y0": 0, "y1": 1, "fillcolor": "rgba(217,95,2,0.15)",
                         "line": {"width": 0}, "layer": "below"}]
    # The label sits in a strip kept free above the top row of words, so that it never runs
    # over a word, however narrow the read's band (a short read, a fast chip) or the screen.
    top = max(len(shared_words), len(writer_words)) - 1
    for axis in ("yaxis", "yaxis2"):
        layout[axis]["range"] = [-0.8, top + HEADROOM]
    layout["annotations"] = [{"xref": "x", "yref": "y", "x": (read_from + read_to) / 2,
                              "y": top + 0.6, "yanchor": "bottom", "showarrow": False,
                              "text": f"read {ms(end - start)}", "font": {"size": 13}}]
    layout["meta"] = {"stall": stall_gap, "read": end - start, "start": t0, "end": t1}
    writing = (f"keeps every reply it writes within {tag('stall.writer_gap', ms(writer_gap))} "
               f"between two words" if writer_gap is not None else "has no reply to write")
    # With steps alike, the stall is the read and one step; else the step after the read is
    # its own length, said as the run gives it.
    step = (f"one {tag('stall.step', ms(lane.after(taken)))} step" if alike(s) else
            f"the {tag('stall.step', ms(lane.after(taken)))} step after it")
    caption = (f"{tag('stall.at', f'{t0:.1f} s')} into the run, the first {shared_name}{gpus} "
               f"reads {an('stall.prompt', s.prompt)}-token prompt for "
               f"{tag('stall.read', ms(end - start))} and writes nothing meanwhile: every reply "
               f"it is writing waits {tag('stall.gap', ms(stall_gap))} between two words (the "
               f"read plus {step}). Over the same {tag('stall.window', ms(t1 - t0))}, the "
               f"{writer_name}{gpus}, {which}, {writing}.")
    return {"data": data, "layout": layout}, caption


def reading(lane, t0, t1):
    """What the split's writer reads itself (local prompts: local_below, local_queue): "which
    never reads", or what it read in [t0, t1]."""
    if not lane.reads:
        return "which never reads"
    n = sum(1 for start, end in lane.reads.values() if end > t0 and start < t1)
    if not n:
        return "which reads no prompt of its own in that time"
    return f"which reads {tag('stall.writer_reads', plural(n, 'local prompt'))} itself in that time"
