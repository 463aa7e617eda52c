"""Watch it run, shown: the window the page opens on, and `python -m sim watch`'s table of the
events (the events themselves are the model's: sim/model/watch.py)."""

from ..workload.draws import sizes
from .report import LAYOUT_WORDS
from .numbers import number, plural, table
from .stall import figure_window, stall_window

WIDTH = 2.0  # seconds: the default window, figure 1's widened around its middle


def default_window(lab, s):
    """(t0, t1): the window figure 1 shows, widened to WIDTH seconds around its middle, and
    moved to start at 0 if it would start before. Figure 1 looks at the first shared GPU of
    the lab's own recorded run; where it has no stall to show, the run's first WIDTH seconds."""
    served, requests = lab.watched("shared", s).run.gpus[0]
    if served.events is not None:  # the general loop's run (instance.py): its first stall
        middle = first_stall(s, served.events)
    else:
        work = lab.workload(s)
        found = stall_window(s, served, [work.prompts[i] for i in requests],
                             [work.replies[i] for i in requests])
        middle = None if found is None else sum(figure_window(served, found)) / 2
    if middle is None:
        return 0.0, WIDTH
    t0 = max(0.0, middle - WIDTH / 2)
    return t0, t0 + WIDTH


def first_stall(s, events):
    """The middle of the first read of a prompt of the set length (of any, if none) that
    stalls replies being written, on a general loop's lane; None if no read stalls any."""
    writing, any_stall = 0, None
    for kind, start, end, _, replies, tokens in events:
        if kind == "step":
            writing = replies
        elif writing:
            if tokens == s.prompt:
                return (start + end) / 2
            any_stall = (start + end) / 2 if any_stall is None else any_stall
    return any_stall


def reads(s):
    """Why a read's tokens are not the prompt setting's, said by Watch it run's lanes: the
    lesson's prompts are half, once or one and a half times it; a trace's are its own. A
    template whose {watch.*} fields the page fills (each number marked), and their texts."""
    if s.traffic != "lesson":
        return "Each read is one of the trace's own prompts, whatever the prompt setting.", {}
    small, middle, large = (number(x) for x in sizes(s.prompt))
    return ("The lesson's prompts are half, once or one and a half times the prompt tokens "
            "set: the reads here are of {watch.small}, {watch.prompt} or {watch.large} "
            "tokens.", {"watch.small": small, "watch.prompt": middle, "watch.large": large})


KINDS = (("read", "read"), ("step", "writing step"), ("cross", "crossing"),
         ("kv", "memory run"))


def watch_table(events, layout, t0, t1):
    """`python -m sim watch`: a line of what the window holds, then a row per event (times in
    seconds to the microsecond, and its length in ms)."""
    counts = ", ".join(plural(sum(e["kind"] == kind for e in events), words)
                       for kind, words in KINDS if (layout == "split" or kind != "cross")
                       and (kind != "kv" or any(e["kind"] == "kv" for e in events)))
    head = (f"{LAYOUT_WORDS[layout]}, from {t0:.6f} s to {t1:.6f} s: "
            f"{plural(len(events), 'event')} ({counts}).")
    if not events:
        return head
    rows = [[e["lane"], e["index"], e["kind"], f"{e['start']:.6f}", f"{e['end']:.6f}",
             f"{(e['end'] - e['start']) * 1e3:.3f}",
             "-" if e["request"] < 0 else e["request"], e["replies"], number(e["tokens"])]
            for e in events]
    return f"{head}\n\n" + table(rows, ["lane", "index", "kind", "start (s)", "end (s)", "ms",
                                        "request", "replies", "tokens"])
