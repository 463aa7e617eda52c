"""The page's side of its one boundary with JavaScript: a JSON request in, a JSON reply out.

The web worker holds one `Page` and passes every message to `handle`:
  {"type": "compare", "settings": {...}}
      -> {"result": <python -m sim compare --json>, "shown": {data-metric: text}, "headline": str}
  {"type": "figure", "name": "goodput"|"gap"|"stall"|"link"|"prompt"|... (any of
   sim.show.figures.FIGURES, the page's own and those with page=False alike), "settings": {...},
   "part": k}
      -> {"parts": n, "next": k2}: pieces k..k2-1 of the n the figure needs were
         simulated (for about SLICE seconds), so the page can ask for a newer setting
         first; once every piece is done the reply also holds "figure" (a Plotly dict),
         "caption" (text), and the caption as "template" and "shown", as for the headline.
      With "sketch": true, a chart that has a sketch (sim.show.figures: Figure.sketch) replies
      with "sketch" too (a Plotly dict of the chart at fewer points, each exact) as soon as
      the sketch's pieces are simulated, or, if they were all done already (the other main
      chart's sketch simulated them), as soon as one more piece needs simulating, so that
      the page shows it at once and asks for the rest from "next"; a chart whose pieces are
      all done comes whole, without a sketch. Without it, a figure drawn in stages (Figure.stages:
      figure 9, mix after mix) replies with "sketch" at the end of each stage it simulated,
      the figure so far, and the page asks for the rest from "next" as before.
      With "told": [help replies' "points"], points that the page's second worker simulated
      (below) are taken first: their pieces simulate nothing.
  {"type": "help", "name": "goodput"|"gap", "settings": {...}, "done": k, "main": part}
      -> {"points": "<JSON: [compare results]>", "done": k2, "left": m}: a second worker (on
         a device with the cores for it) simulates the chart's points for the first, for
         about SLICE seconds a request, from the end of their order backwards, the sketch's
         apart, while the first works from the front (it has done `main` pieces); the page
         hands the points on to the first as "told". They travel as JSON text, so that the
         first reads back exactly what the second wrote (JavaScript would write 1.0 as 1).
         `done` counts the points of that order gone through, `left` those still to do
         (none: stop asking).
  {"type": "traffic", "settings": {...}}
      -> sim.traffic's summary of the settings' requests (docs/model.md: "What the traffic looks like")
  {"type": "watch", "layout": "shared"|"split"|"chunked", "t0": s, "t1": s, "settings": {...}}
      -> {"t0", "t1", "events": <sim.watch's list>}: every event of the layout's run that
         overlaps the window (docs/model.md: "Watch it run: the events"); without t0 and t1,
         the default window (figure 1's, widened to 2 s: show/watch.py), and the reply says which;
         also "requests", what the page shows at a playhead beyond the events (Watched.requests),
         and "end", when the run's last word is written (how far the window may move); with
         memory=kv also "capacity", {lane: [each instance's KV capacity C in tokens]}
  {"type": "trace", "text": "<a trace file's text>", "name": "<its file name>"}
      -> {"trace": {"name", "trace_requests", "left_out", "recorded"}} ("recorded": the mean
         rate of its requests as recorded, "2.78", or null): the page's lab keeps it, and
         every request with "traffic": "own" replays it from then on
  {"type": "capacity", "settings": {...}}
      -> {"capacity": <python -m sim capacity --json>, "line": str, "shown": {key: text}}:
         each pool's instances and the memory they hold (docs/model.md: "Memory of an
         instance"), and the page's line that says so, a template with {capacity.*} fields
         filled from "shown", as for the headline (sim.show.capacity.capacity_line)
  {"type": "patience", "settings": {...}}
      -> {"patience": x}: how many times its usual deadline a request at these settings may
         take (x >= 1; see `patience`): the worker asks it before each request that has
         settings, and tells the page, whose watch over the worker waits that much longer
Bad requests get {"error": "<one clear line>"}; nothing else escapes (a bad trace keeps the one
before it).
"""

import json
from collections import OrderedDict
from time import perf_counter

from ..model.instances import capacity
from ..model.lab import Lab
from ..model.layouts import layouts_of
from ..model.instances import chip
from ..model.watch import WEIGHT, window
from ..settings import FIELDS, Settings
from ..workload.tracefile import read_text
from ..workload.window import taus
from .capacity import capacity_line
from .figures import FIGURES
from .report import headline, intro
from .numbers import ms, number, rate, shown
from .watch import default_window, reads

# What the page's cached runs may hold, in lab.weight's units (a request, or four kept gaps):
# enough for every run of the largest figure at the page's largest count (figure 4: 31
# prompts, 2 layouts, 6,000 requests and their gaps, 522,853 units at prompt 8,000 and 20
# a second), so that its last request draws from cached runs instead of simulating again;
# about 50 MB in Pyodide.
BUDGET = 600_000
# Recorded runs (to watch) have a bound of their own, so that watching never evicts the runs
# the figures need: the three layouts at the page's largest count (6,000 requests, weighed
# WEIGHT each), about 16 MB in Pyodide. A new setting's recorded runs take the old ones' place.
WATCH_BUDGET = 3 * WEIGHT * 6_000
# The work the page's deadlines were set for (web/python.js, DEADLINES): a compare of two
# layouts at the page's largest count, whose fast loops take a request at a time.
USUAL_WORK = 2 * FIELDS["requests"].metadata["page"][1]
SLICE = 0.010  # seconds of simulation per figure request, so a new setting waits little
TOLD = 256  # points told by the other worker that the page's lab keeps: a few charts' worth
# The largest trace file the page reads (the page refuses a larger one before reading it): a
# browser tab holds the file's text and its requests, and a phone has little memory to spare.
TRACE_FILE_BYTES = 50 * 10**6


class Told(Lab):
    """The page's lab, which may also be told the points that the page's other worker
    simulated for a chart ("help"): compare() of a told setting is the other worker's, and
    the chart's pieces for it simulate nothing. Both workers run this very simulator in the
    same Python, so a told point holds the numbers this lab would have found itself."""

    def __init__(self):
        super().__init__(budget=BUDGET, watch_budget=WATCH_BUDGET)
        self.told = OrderedDict()  # settings -> compare result, the newest TOLD of them

    def tell(self, told):
        """Take the points of help replies ("told": a list of their JSON texts), all of them
        checked before any is taken."""
        if not isinstance(told, list) or not all(isinstance(text, str) for text in told):
            raise ValueError("told points are a list of help replies' points (JSON text)")
        taken = [told_point(point) for text in told for point in points_of(text)]
        for s, point in taken:
            self.told[s] = point
            self.told.move_to_end(s)
        while len(self.told) > TOLD:
            self.told.popitem(last=False)

    def compare(self, s, trace=None):
        found = self.told.get(s) if trace is None else None
        return found if found is not None else super().compare(s, trace)

    def prepare(self, layout, s):
        if s not in self.told:
            super().prepare(layout, s)


class Page:
    def __init__(self):
        self.lab = Told()
        # The pieces (and stages) of the figures asked for lately, by (name, settings): a figure
        # is asked for again and again, a slice at a time, and listing its pieces is not free.
        self._pieces = OrderedDict()

    def handle(self, text):
        try:
            request = json.loads(text)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
            return json.dumps(self.answer(request))
        except ValueError as e:  # bad settings, bad JSON, unknown type: say which
            return json.dumps({"error": str(e)})

    def answer(self, request):
        kind = request.get("type")
        settings = request.get("settings", {})
        if not isinstance(settings, dict):
            raise ValueError("settings must be an object of name: value")
        s = Settings.make(**settings)
        if kind == "compare":
            return compare_message(self.lab, s)
        if kind == "figure":
            self.lab.tell(request.get("told", []))
            return self.figure(request.get("name"), s, request.get("part", 0),
                               request.get("sketch", False))
        if kind == "help":
            return self.help(request.get("name"), s, request.get("done", 0), request.get("main", 0))
        if kind == "traffic":
            return self.lab.traffic(s)
        if kind == "trace":
            return self.trace(request.get("text"), request.get("name"))
        if kind == "watch":
            return watch_message(self.lab, s, request)
        if kind == "capacity":
            return capacity_message(s)
        if kind == "patience":
            return {"patience": patience(self.lab, s)}
        raise ValueError(f"unknown request type {kind!r}; known: compare, figure, help, "
                         "traffic, trace, watch, capacity, patience")

    def trace(self, text, name):
        """A trace of the learner's own, for traffic=own from now on."""
        if not isinstance(text, str) or not isinstance(name, (str, type(None))):
            raise ValueError("a trace request gives the file's text, and its name if any")
        found = read_text(text, name)
        self.lab.sources.own = found
        # the mean rate it was recorded at (the page says it beside the load it is replayed at)
        span = taus(found.clock, [found.times[0], found.times[-1]])[-1]
        recorded = rate((found.usable - 1) / span) if span > 0 else None
        return {"trace": {"name": found.name, "trace_requests": found.usable,
                          "left_out": found.left_out, "recorded": recorded}}

    def figure(self, name, s, part, sketch=False):
        if name not in FIGURES:
            raise ValueError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
        figure = FIGURES[name]
        # its stages too, where it has them: listing them lists the pieces again (figure 7)
        listed = self._pieces.pop((name, s), None) or (
            figure.needs(self.lab, s), dict(figure.stages(self.lab, s)) if figure.stages else {})
        self._pieces[name, s] = listed
        pieces, stages = listed
        while len(self._pieces) > len(FIGURES):
            self._pieces.popitem(last=False)
        whole_number("part", part, len(pieces))
        if not isinstance(sketch, bool):
            raise ValueError(f"sketch must be true or false; got {sketch!r}")
        needed, drawing = figure.sketch(self.lab, s) if sketch and figure.sketch else (None, None)
        if sketch:  # a figure drawn in stages shows them only when asked for whole
            stages = {}
        began, simulations, start = perf_counter(), self.lab.simulations, part
        while part < len(pieces):  # simulate pieces for about SLICE seconds, then hand back
            pieces[part]()
            part += 1
            if part == len(pieces):
                break
            # The sketch as soon as its pieces are done and something was simulated: at
            # once if they took simulating, else after the first piece that does (while the
            # pieces are cached the rest may be too, and then the whole chart is as quick:
            # no sketch to draw). A stage likewise, at its end.
            over = perf_counter() - began > SLICE
            ready = needed is not None and part >= needed
            simulated = self.lab.simulations > simulations
            if ready and (over or simulated):
                return {"parts": len(pieces), "next": part, "sketch": drawing()}
            # (a stage's last pieces may be no-ops, its finding done: a request that starts
            # past the first piece follows one cut short by simulating)
            if part in stages and (simulated or start > 0):
                return {"parts": len(pieces), "next": part, "sketch": stages[part]()}
            if over:
                return {"parts": len(pieces), "next": part}
        return {"parts": len(pieces), "next": part, **figure.render(self.lab, s)}

    def help(self, name, s, done, main):
        """Points of chart `name` simulated for the page's first worker (see the module doc)."""
        if name not in FIGURES:
            raise ValueError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
        spread = FIGURES[name].spread
        ordered, sketched = spread(self.lab, s) if spread and s.traffic != "own" else ([], 0)
        # the rest's points backwards: the sketch's are the first worker's (it simulates them
        # in one request, to draw them soon, so points told meanwhile would come too late)
        order = list(range(len(ordered) - 1, sketched - 1, -1))
        whole_number("done", done, len(order))
        whole_number("main", main)
        # what the first worker has done, and the point it is on (this load's, with the numbers)
        passed = main // len(layouts_of(s)) + 1

        def wanted(i):
            return i >= passed and ordered[i] != s

        points, began = [], perf_counter()
        while done < len(order) and (not points or perf_counter() - began < SLICE):
            i = order[done]
            done += 1
            if wanted(i):
                points.append(self.lab.compare(ordered[i]))
        return {"points": json.dumps(points), "done": done, "left": sum(map(wanted, order[done:]))}


def patience(lab, s):
    """How many times its usual deadline (web/python.js) a request at settings s may take:
    1 unless it may simulate more than those deadlines were set for (USUAL_WORK). The fast
    loops take a request at a time; but where a step's cost grows with its context
    (costs=roofline), or with its replies (tp > 1: the all-reduce grows with the batch), or
    memory may bind (memory=kv), a run is walked a writing step at a time, and a step writes
    at least one word: at most the longest reply's words a request, in each layout (32 GPUs
    at tp=2, 6,000 replies of 900 words: a compare took 3.3 s natively here, 0.01 s at tp=1).
    A figure's runs keep the settings' requests and replies. (Natively here,
    a word walked costs no more than a request on the fast loops: ~2.5 µs a layout at the
    worst, 70B on two A100s with 16,000-token prompts and 1,000-word replies, which leave room
    for two replies at once, against ~3 µs at the toy's heaviest settings on the page.)"""
    per = 1
    if s.costs == "roofline" or s.memory == "kv" or s.tp > 1:
        per = s.reply if s.traffic == "lesson" else max(lab.workload(s).replies, default=1)
    return max(1, len(layouts_of(s)) * s.requests * per / USUAL_WORK)


def whole_number(what, value, top=None):
    """Refuse a count that is not a whole number from 0 (to top, if given)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (
            top is not None and value > top):
        raise ValueError(f"{what} must be a whole number from 0"
                         + (f" to {top}" if top is not None else "") + f"; got {value!r}")


def points_of(text):
    """The compare results of a help reply's points."""
    try:
        points = json.loads(text)
    except ValueError:
        raise ValueError("told points are a help reply's points, as JSON text; got "
                         f"{text[:40]!r}") from None
    if not isinstance(points, list):
        raise ValueError("told points are a list of compare results")
    return points


def told_point(point):
    """(settings, compare result) of a told point, checked."""
    given = point.get("settings") if isinstance(point, dict) else None
    if not isinstance(given, dict):
        raise ValueError("a told point is a compare result, with its settings")
    try:
        s = Settings.make(**given)
    except ValueError as e:
        raise ValueError(f"a told point's settings: {e}") from None
    if s.traffic == "own" or set(point) != {"settings", *layouts_of(s)} or not all(
            isinstance(point[layout], dict) for layout in layouts_of(s)):
        raise ValueError("a told point holds the settings and each layout's measures, "
                         "for the lesson's traffic or a shipped trace")
    return s, point


def compare_message(lab, s):
    """What the page shows for settings s: the result, its numbers as text, the headline."""
    result = lab.compare(s)
    template, texts = headline(s, result)  # (with memory=kv, how many never fit)
    sentences, intro_texts = intro(s)
    sentences["reads"], read_texts = reads(s)  # Watch it run's: why a read is not the setting
    intro_texts.update(read_texts)
    if s.traffic != "lesson":  # the lengths are the trace's: its sliders say so, with its medians
        t = lab.traffic(s)
        texts["settings.prompt"] = f"set by the trace: median {number(t['prompt_p50'])} tokens"
        texts["settings.reply"] = f"set by the trace: median {number(t['reply_p50'])} words"
        texts["settings.trace_start"] = (f"requests {number(s.trace_start)} to "
                                         f"{number(s.trace_start + s.requests - 1)} of "
                                         f"{number(t['trace_requests'])}")
    return {"result": result, "shown": {**shown(result), **texts, **intro_texts},
            "headline": template, "intro": sentences}


def capacity_message(s):
    """Each pool's instances and their memory (sim.capacity's, as is), and the line that says
    so. A model its instances cannot hold is refused (a ValueError: {"error": ...})."""
    found = capacity(s)
    line, texts = capacity_line(found, s)
    return {"capacity": found, "line": line, "shown": texts}


def watch_message(lab, s, request):
    """The events of one layout in the window asked for, or in the default window."""
    layout, t0, t1 = request.get("layout"), request.get("t0"), request.get("t1")
    if (t0 is None) != (t1 is None):
        raise ValueError("a watch request gives the window's t0 and t1, or neither (the "
                         "default window)")
    lab.watched(layout, s)  # the layout checked (and its run recorded) first
    t0, t1 = window(*(default_window(lab, s) if t0 is None else (t0, t1)))
    watched = lab.watched(layout, s)
    out = {"t0": t0, "t1": t1, "events": lab.watch(layout, t0, t1, s),
           "requests": watched.requests(t0, t1), "end": watched.end()}
    if s.memory == "kv":  # what each lane's kv events are measured against
        out["capacity"] = lane_capacity(s)
    return out


def lane_capacity(s):
    """{lane: [C of instance 0, 1, ...]}: the KV tokens each of a watch's lanes holds at most,
    "gpu" the shared and chunked instances (of the readers' kind first), "reader" and "writer"
    the split's (docs/model.md: "Memory of an instance")."""
    found = capacity(s)
    lanes = {"gpu": "shared", "reader": "readers", "writer": "writers"}
    return {lane: [part["kv_tokens"] for part in found[pool] for _ in range(part["instances"])]
            for lane, pool in lanes.items()}


def footer():
    """The footer's numbers, keyed as their data-metric attributes: the build writes them
    into the page, and `python -m sim check` expects them there."""
    lesson = Settings()
    gpu = chip(lesson, 0)  # the lesson's GPU, as the simulator makes it
    return {
        "costs.read_cost": f"{gpu.read_cost * 1e6:.3f} µs",
        "costs.step": ms(gpu.step),
        "costs.slots": str(lesson.slots),
        "costs.cache": f"{gpu.model.cache:,} B",
        "defaults.requests": f"{lesson.requests:,}",
        "limits.trace_file": f"{TRACE_FILE_BYTES // 10**6} MB",
    }
