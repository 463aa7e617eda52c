"""The page's chart "Memory over time": the KV cache the split's readers hold and its writers
have reserved, over the whole run, against their capacity, with the stretches in which the
readers were held back shaded (docs/model.md: "Memory that pushes back").

Everything drawn is read off the lab's one recorded run of the split (`Lab.watched`, the run
that Watch it run plays, cached with it), never simulated a second time:

- each pool's series is the sum over its instances of their `kv` events (sim.watch's, the
  runs of equal tokens of each lane), as a step function with a point at every moment any of
  its lanes changes (a lane holds nothing after its last change, as its events say);
- the held-back stretches are the moments the run counted as backpressure: a prompt waited in
  the readers' queue while a reader was idle. The walk (backpressure.Split) keeps only their
  total; each stretch follows exactly from what it keeps of every read (the queue, each read's
  reader, start and end) and the arrivals: at each moment, after its changes, prompts wait if
  more have joined the queue than have started, and a reader idles if fewer reads are under
  way than there are readers. Neither changes between moments, so the stretches are the
  walk's, and their lengths add up to its backpressure.

With memory=slots (or where the split has no kv events) the figure has no traces, and its
caption says what to set.
"""

from bisect import bisect_right
from functools import partial
from math import fsum

from ..model.instances import capacity
from ..model.watch import Intervals
from .charts import SPLIT, TARGET, base_layout
from .numbers import ms, number, percent, tag

POOLS = (("readers", "reader"), ("writers", "writer"))  # (pool, its lanes in sim.watch)
GAP = 0.12  # of the plot's height, between the two panels
BAND = 0.18  # the opacity of a held-back stretch's band


def kv_needs(lab, s):
    """The split's recorded run (one piece), with memory=kv; nothing otherwise."""
    if s.memory != "kv":
        return []
    return [partial(lab.watched, "split", lab.given(s))]


def pool_series(watched, lane):
    """(t, tokens): the tokens a pool's lanes hold together, from 0, at every moment any of
    them changes (each value holds until the next moment), from their kv events."""
    change = {}
    for part in watched.lanes:
        if not isinstance(part, Intervals):
            continue
        for start, name, _, end, kind, _, _, tokens in part.events:
            if kind == "kv" and name == lane:
                change[start] = change.get(start, 0) + tokens
                change[end] = change.get(end, 0) - tokens
    t, tokens, held = [], [], 0
    for moment in sorted(change):
        held += change[moment]
        t.append(moment)
        tokens.append(held)
    return t, tokens


def held_back(walked, arrivals):
    """[[from, to]]: the stretches in which a prompt waited in the readers' queue while a reader
    was idle (the run's backpressure), from the walk's reads (see the module's doc)."""
    if walked is None:  # memory never bound (quiet.py): nothing waited for it
        return []
    change = {}  # moment -> [prompts joining the queue less those leaving, reads begun less ended]
    for i in walked.queue:
        for moment, queued, reading in ((arrivals[i], 1, 0), (walked.start[i], -1, 1),
                                        (walked.end[i], 0, -1)):
            found = change.setdefault(moment, [0, 0])
            found[0] += queued
            found[1] += reading
    readers = len(walked.reading)
    out, since, queued, reading = [], None, 0, 0
    for moment in sorted(change):
        queued += change[moment][0]
        reading += change[moment][1]
        waits = queued > 0 and reading < readers
        if waits and since is None:
            since = moment
        elif not waits and since is not None:
            out.append([since, moment])
            since = None
    return out


def mean_during(series, stretches):
    """The mean over time of what a step series (t, tokens) holds during the stretches
    [from, to) (nothing before its first point; after its last, what the last says: nothing)."""
    t, tokens = series
    areas, lengths = [], []
    for start, end in stretches:
        k = bisect_right(t, start) - 1  # the point whose value holds at `start` (-1: none yet)
        at = start
        while at < end:
            until = min(end, t[k + 1]) if k + 1 < len(t) else end
            held = tokens[k] if k >= 0 else 0
            areas.append((until - at) * held)
            lengths.append(until - at)
            at, k = until, k + 1
    length = fsum(lengths)
    return fsum(areas) / length if length > 0 else 0.0


def memory_series(lab, s):
    """The chart's numbers, the split's recorded run and its instances' memory (None with
    memory=slots): each pool's series and capacity, the held-back stretches, the run's end."""
    if s.memory != "kv":
        return None
    s = lab.given(s)
    watched = lab.watched("split", s)
    found = capacity(s)
    meta = {}
    for pool, lane in POOLS:
        t, tokens = pool_series(watched, lane)
        part = found[pool][0]
        meta[pool] = {"t": t, "tokens": tokens, "capacity": part["instances"] * part["kv_tokens"]}
    meta["held_back"] = held_back(watched.run.pushed, watched.arrivals)
    meta["end"] = watched.end()
    return meta, watched.run, found


def kv_chart(lab, s):
    """The chart "Memory over time" and its caption (sim.show.figures: "kv")."""
    made = memory_series(lab, s)
    if made is None or not (made[0]["readers"]["t"] or made[0]["writers"]["t"]):
        return empty(s, made and made[1])
    meta, run, found = made
    end = meta["end"]
    layout = base_layout("seconds", "")
    layout["height"] = 600
    height = (1 - GAP) / 2
    layout["xaxis"] = {**layout["xaxis"], "anchor": "y2", "range": [0, end]}
    data = []
    for k, (pool, _) in enumerate(POOLS):
        suffix = "" if k == 0 else "2"
        top = 1 - k * (height + GAP)
        series, room = meta[pool], meta[pool]["capacity"]
        peak = max(series["tokens"], default=0)
        words = ("readers hold", "writers reserve")[k]
        layout[f"yaxis{suffix}"] = {**layout["yaxis"], "anchor": "x",
                                    "domain": [max(top - height, 0.0), top],
                                    "range": [0, max(room, peak) * 1.08],
                                    "title": {"text": f"{words} (KV tokens)"}}
        axes = {"xaxis": "x", "yaxis": f"y{suffix}"}
        data.append({"type": "scatter", "mode": "lines", "name": words, "x": series["t"],
                     "y": series["tokens"], "line": {"color": SPLIT, "width": 2, "shape": "hv"},
                     "showlegend": False, **axes,
                     "hovertemplate": f"%{{x:.2f}} s: %{{y:,}} tokens<extra>{words}</extra>"})
        data.append({"type": "scatter", "mode": "lines", "name": "capacity", "x": [0, end],
                     "y": [room, room], "line": {"color": TARGET, "width": 1.5, "dash": "dash"},
                     "legendgroup": "capacity", "showlegend": k == 0, **axes,
                     "hovertemplate": f"{room:,} tokens<extra>{pool}' capacity</extra>"})
    top = layout["yaxis"]["range"][1]
    layout["shapes"] = [{"type": "rect", "xref": "x", "yref": "y", "x0": a, "x1": b, "y0": 0,
                         "y1": top, "fillcolor": TARGET, "opacity": BAND, "line": {"width": 0},
                         "layer": "below"} for a, b in meta["held_back"]]
    if meta["held_back"]:  # the bands' legend entry
        data.append({"type": "scatter", "mode": "markers", "name": "readers held back",
                     "x": [None], "y": [None], "hoverinfo": "skip",
                     "marker": {"symbol": "square", "size": 12, "color": TARGET,
                                "opacity": BAND * 2}})
    layout["meta"] = meta
    return {"data": data, "layout": layout}, caption(s, meta, run, found)


def instances_words(s, found):
    """"70B on 2 A100s an instance, 1 reader and 1 writer instance", tagged; where the readers'
    instances differ from the writers', each pool's GPUs."""
    readers, writers = found["readers"][0], found["writers"][0]
    r, w = readers["instances"], writers["instances"]

    def gpus(part, key):
        n = part["gpus"]
        return f"{tag(key, number(n))} {kinds(part['kind'], part['power'], n)}"

    model, said_r, said_w = (tag("kv.model", s.model), tag("kv.readers", number(r)),
                             tag("kv.writers", number(w)))
    if (readers["gpus"], readers["kind"], readers["power"]) == (
            writers["gpus"], writers["kind"], writers["power"]):
        return (f"{model} on {gpus(writers, 'kv.tp')} an instance, {said_r} reader and {said_w} "
                f"writer instance{'' if r == w == 1 else 's'}")
    return (f"{model}, {said_r} reader instance{'' if r == 1 else 's'} of "
            f"{gpus(readers, 'kv.reader_tp')} and {said_w} writer instance{'' if w == 1 else 's'}"
            f" of {gpus(writers, 'kv.tp')}")


def kinds(kind, power, n):
    """n GPUs of a kind, named: "A100", "H100s", "A100s at 50%"."""
    return kind + ("" if n == 1 else "s") + ("" if power == 1.0 else f" at {power:.0%}")


def seconds(x):
    """A stretch's length: "12.3 s", or "0.8 ms" below a second."""
    return ms(x) if x < 1 else f"{x:,.1f} s"


def caption(s, meta, run, found):
    readers, writers = meta["readers"], meta["writers"]
    most = [max(readers["tokens"], default=0), max(writers["tokens"], default=0)]
    text = (f"{instances_words(s, found)}: the readers held at most "
            f"{tag('kv.reader_peak', number(most[0]))} tokens of KV cache "
            f"({tag('kv.reader_share', percent(most[0] / readers['capacity']))} of their "
            f"{tag('kv.reader_capacity', number(readers['capacity']))}), the writers reserved at "
            f"most {tag('kv.writer_peak', number(most[1]))} "
            f"({tag('kv.writer_share', percent(most[1] / writers['capacity']))} of their "
            f"{tag('kv.writer_capacity', number(writers['capacity']))})")
    if run.dropped:
        text += (f"; {tag('kv.dropped', number(run.dropped))} request"
                 f"{' never fits and was' if run.dropped == 1 else 's never fit and were'} "
                 f"dropped")
    text += ". "
    stretches = meta["held_back"]
    if not stretches:
        return text + ("The readers were never held back: no prompt waited while a reader was "
                       "idle.")
    lengths = [b - a for a, b in stretches]
    share = fsum(lengths) / meta["end"] if meta["end"] > 0 else 0.0
    work = run.pushed.work  # the requests the readers read: the most room one of them needs
    need = max(work.prompts[i] + work.replies[i] for i in run.pushed.queue)
    mean = mean_during((writers["t"], writers["tokens"]), stretches) / writers["capacity"]
    return text + (
        f"The readers were held back (shaded) for {tag('kv.held_back', percent(share))} of the "
        f"run, in {tag('kv.stretches', number(len(stretches)))} "
        f"stretch{'' if len(stretches) == 1 else 'es'}, the longest "
        f"{tag('kv.longest', seconds(max(lengths)))}: a prompt waited while a reader sat idle, "
        "with no room for it beside the caches it held until they crossed, and a cache crosses "
        "only once a writer has room for its prompt and whole reply (up to "
        f"{tag('kv.need', number(need))} tokens here). Meanwhile the writers had "
        f"{tag('kv.writer_mean', percent(mean))} of their room reserved, on average.")


def empty(s, run=None):
    """No traces: memory is counted only with memory=kv (or, with it, the split held none)."""
    layout = base_layout("seconds", "KV tokens")
    layout["meta"] = {}
    if s.memory != "kv":
        return {"data": [], "layout": layout}, (
            "Memory is counted only with KV memory (memory=kv): set Memory to KV under Go "
            "further's bigger models and memory, and this chart shows the KV cache the split's "
            "readers hold and its writers reserve over the run, against what they can hold.")
    if run is not None and run.dropped:
        return {"data": [], "layout": layout}, (
            f"No request fits the split's instances at these settings: all "
            f"{tag('kv.dropped', number(run.dropped))} were dropped, so its memory holds nothing "
            "over the run.")
    return {"data": [], "layout": layout}, "The split's memory holds nothing over this run."
