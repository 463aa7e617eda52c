"""Figure 1: a read stalls a shared GPU, while the split's writer goes on writing. Drawn from a
fresh run with the marks from which every word's time follows (timeline.py)."""

from ..model.layouts import chip
from .charts import SHARED, SPLIT, base_layout, word_marks
from .report import an, ms, number, tag
from .timeline import shared_gpu, step_times, words, writer

CANDIDATES = 200  # figure 1 looks for its read among the first shared GPU's first jobs
HEADROOM = 1.9  # rows of room above the top row of words, for the read's label
BEFORE, AFTER = 6, 10  # writing steps figure 1 shows before its read and after it


def stall_window(s, served, prompts, replies):
    """Pick the read to show: a lone read of a prompt of the set length, over the most replies."""
    at = step_times(served.marks, served.step)
    read_cost = chip(s, 0).read_cost  # the first GPU's kind: reader_gpu, in every layout
    best = None
    for j, (p, r) in enumerate(zip(prompts[:CANDIDATES], replies)):
        if p != s.prompt or r < 2:
            continue
        taken = served.last_step[j] - r + 1  # the step count when its read began
        start, end = served.first[j] - p * read_cost, served.first[j]
        lone = abs(at(taken) - start) < 1e-9 and abs(at(taken + 1) - (end + served.step)) < 1e-9
        if not lone:
            continue
        writing = sum(1 for k in range(max(0, j - 4 * s.slots), j)
                      if replies[k] > 1 and served.last_step[k] - replies[k] + 1 <= taken
                      < served.last_step[k])
        if writing and (best is None or writing > best[0]):
            best = (writing, j, start, end)
    return best


def figure_window(served, found):
    """Figure 1's window, (t0, t1) in seconds, around the read stall_window found."""
    _, _, start, end = found
    return start - BEFORE * served.step, end + AFTER * served.step


def stall(lab, s):
    """Figure 1: a read stalls a shared GPU; the split's writer goes on writing."""
    work = lab.workload(s)  # the lesson's draws, or a trace's window
    served, arrivals, prompts, replies = shared_gpu(work, s)
    found = stall_window(s, served, prompts, replies)
    layout = base_layout("ms from the window's start", "reply",
                         xaxis={"domain": [0, 0.47], "title": {"text": "shared GPU: ms"}},
                         yaxis={"showticklabels": False, "title": {"text": "replies being written"}},
                         xaxis2={"domain": [0.53, 1], "anchor": "y2", "fixedrange": True,
                                 "title": {"text": "split's writer: ms"}, "zeroline": False,
                                 "tickfont": {"size": 12}, "gridcolor": "#e5e5e5"},
                         yaxis2={"anchor": "x2", "showticklabels": False, "fixedrange": True,
                                 "zeroline": False, "gridcolor": "#e5e5e5"})
    if found is None:
        layout["meta"] = {"stall": None}
        return {"data": [], "layout": layout}, (
            f"No {tag('stall.prompt', number(s.prompt))}-token read on the first shared GPU "
            f"overlaps a reply being written at these settings, so there is no stall to show.")
    _, j, start, end = found
    t0, t1 = figure_window(served, found)
    data = []
    stall_gap = None
    shared_words = words(served, replies, t0, t1)
    for row, (k, times) in enumerate(sorted(shared_words.items(), key=lambda kv: kv[1][0])):
        before = [t for t in times if t <= start]
        after = [t for t in times if t > end]
        if k != j and before and after and stall_gap is None:
            stall_gap = after[0] - before[-1]
        data.append(word_marks(times, t0, row, SHARED, "x", "y", "shared GPU", row == 0))
    w_served, _, w_replies = writer(work, s)
    writer_words = sorted(words(w_served, w_replies, t0, t1).values(), key=lambda ts: ts[0])
    for row, times in enumerate(writer_words):
        data.append(word_marks(times, t0, row, SPLIT, "x2", "y2", "split's writer", row == 0))
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
    caption = (f"{tag('stall.at', f'{t0:.1f} s')} into the run, the first shared GPU reads "
               f"{an('stall.prompt', s.prompt)}-token prompt for "
               f"{tag('stall.read', ms(end - start))} and writes nothing meanwhile: every reply "
               f"it is writing waits {tag('stall.gap', ms(stall_gap))} between two words (the "
               f"read plus one {tag('stall.step', ms(served.step))} step). Over the same "
               f"{tag('stall.window', ms(t1 - t0))}, the split's writer, which never reads, "
               f"{writing}.")
    return {"data": data, "layout": layout}, caption
