"""The lab: runs both layouts for a setting, remembers runs, and scores them.

One object owns the caches: the random draws per (seed, count), a trace's windows and
Poisson spacings, and the recent runs keyed by what they depend on, so that moving only a
target re-scores the cached runs, and a sweep along one axis reuses the draws. The one module
global is DEFAULT_LAB, the lab behind the module-level `compare`.

Where the requests come from is the workload layer's (sim/workload/): the lesson's draws, a
shipped Azure trace, or a trace of your own, given beside the settings (`trace=`), since
Settings stay small and hashable. A lab remembers the last trace it was given, so that
`traffic=own` goes on meaning it (the page loads a file once).
"""

from collections import OrderedDict
from math import sqrt

from ..settings import FIELDS, NAMES
from ..workload.draws import Draws, Workload
from ..workload.sources import Sources, settings_with
from ..workload.summary import summary
from . import crossover
from . import economics as money
from . import layouts
from .instances import allowed, check
from .keys import WORKLOAD, but, depends, prices
from .layouts import layouts_of
from .metrics import measure, score
from .watch import WEIGHT, Watched, known, window


class Lab:
    def __init__(self, budget=1_000_000, watch_budget=None):
        # Requests the cached runs may hold in all: about 130 bytes each, so ~130 MB at most.
        self.budget = budget
        # Recorded runs (to watch) weigh WEIGHT a request: with a watch_budget they have a
        # cache of their own, so that watching evicts no other run; else they share the runs'.
        self.watch_budget, self._watched, self._watched_held = watch_budget, OrderedDict(), 0
        self.simulations = 0  # layouts actually simulated: lets tests see a cache hit
        self._draws = OrderedDict()  # (seed, requests) -> Draws
        self._runs = OrderedDict()  # key -> Run; key says which layout and what it depends on
        self._held = 0  # requests held by the cached runs
        self._workload = (None, None)  # the last setting's requests: its layouts share them
        self._found = OrderedDict()  # (finding, settings it depends on) -> crossover, rates ...
        self._underway = OrderedDict()  # the same -> a finding's steps under way
        # a trace's windows and Poisson spacings, and the last trace of your own it was given
        self.sources = Sources()

    def draws(self, seed, requests):
        key = (seed, requests)
        found = self._draws.pop(key, None) or Draws(seed, requests)
        self._draws[key] = found
        while len(self._draws) > 4:
            self._draws.popitem(last=False)
        return found

    def _remember(self, key, make, size, own=False):
        """The run cached under key, or make() it, weighing size(it); the oldest runs go past
        the budget (own: a recorded run, in its cache of its own, past the watch_budget)."""
        runs, budget = (self._watched, self.watch_budget) if own else (self._runs, self.budget)
        held = "_watched_held" if own else "_held"
        found = runs.pop(key, None)
        if found is None:
            made = make()
            found = (made, size(made))
            self.simulations += 1
            setattr(self, held, getattr(self, held) + found[1])
        runs[key] = found
        while getattr(self, held) > budget and len(runs) > 1:
            setattr(self, held, getattr(self, held) - runs.popitem(last=False)[1][1])
        return found[0]

    def run(self, layout, s):
        """One layout's run for settings s, simulated only if not cached."""
        key = (layout,) + depends(layout, s, self.sources.key(s))
        return self._remember(key, lambda: measured(getattr(layouts, layout)(self.workload(s), s)),
                              lambda run: weight(run, s.requests))

    def workload(self, s):
        """The requests for settings s, made once for all the layouts that need them."""
        source = self.sources.key(s)
        key = tuple(getattr(s, name) for name in WORKLOAD) if source is None else source + (s.rps,)
        if self._workload[0] != key:
            self._workload = (key, self.sources.requests(s) if source else
                              Workload(self.draws(s.seed, s.requests), s.rps, s.prompt, s.reply))
        return self._workload[1]

    @property
    def own(self):
        """The last trace of your own this lab was given: what traffic=own replays."""
        return self.sources.own

    def given(self, s, trace=None):
        """The settings that a trace given beside them makes (trace= means traffic=own); the
        lab keeps the trace only once it is read and its window fits. Settings whose instances
        cannot be made are refused here (instances.check), before anything is simulated."""
        return check(self.sources.given(s, trace))

    def traffic(self, s, trace=None):
        """What the traffic of settings s looks like (docs/model.md: "What the traffic looks like")."""
        s = self.given(s, trace)
        return summary(self.workload(s), self.sources.trace(s))

    def finding(self, kind, s, *names):
        """A finding's cache key: every setting but these (and which trace of your own)."""
        key = kind + but(s, *names)
        return key + (self.sources.key(s),) if s.traffic == "own" else key

    def watch(self, layout, t0, t1, s, trace=None):
        """Every event of one layout's run that overlaps [t0, t1] seconds: the JSON of
        `python -m sim watch --json` (docs/model.md: "Watch it run: the events")."""
        s = self.given(s, trace)
        t0, t1 = window(t0, t1)
        return self.watched(layout, s).events(t0, t1)

    def watched(self, layout, s):
        """One layout's run for settings s, recorded to be watched; cached with the runs."""
        key = ("watched", known(layout, layouts_of(s))) + depends(layout, s, self.sources.key(s))
        work = self.workload(s)
        return self._remember(key, lambda: Watched(layout, getattr(layouts, layout)(
            work, s, record=True), work),
            lambda watched: weight(watched.run, WEIGHT * s.requests), self.watch_budget is not None)

    def runs(self, s):
        """{layout: run} for settings s: shared and split, and chunked when s.chunk > 0."""
        return {layout: self.run(layout, s) for layout in layouts_of(s)}

    def prepare(self, layout, s):  # a chart's piece: a run simulated (unless cached), measured
        measure(self.run(layout, s))

    def goodput(self, layout, s):
        """One layout's goodput for settings s, from its run (cached)."""
        return score(self.run(layout, s), s.ttft_target, s.gap_target)["goodput"]

    def compare(self, s, trace=None):
        """Every layout's measures for settings s: the JSON of `python -m sim compare --json`."""
        s = self.given(s, trace)
        return {"settings": s.as_dict(), **{layout: score(run, s.ttft_target, s.gap_target)
                                            for layout, run in self.runs(s).items()}}

    def sweep(self, s, over, values, trace=None):
        """compare() along one axis; each point is the compare dict with the value it used."""
        if over not in SWEEPABLE:
            raise ValueError(f"can only sweep over {', '.join(SWEEPABLE)}; got {over!r}")
        s = self.given(s, trace)
        if s.traffic != "lesson" and over in ("prompt", "reply"):
            raise ValueError(f"with a trace (traffic={s.traffic}) every request has the trace's "
                             f"own {over} length, so {over} has no effect: sweep over another "
                             "setting, or use traffic=lesson")
        if not 1 <= len(values) <= MAX_POINTS:
            raise ValueError(f"a sweep takes 1 to {MAX_POINTS} values; got {len(values)}")
        if len(values) * s.requests > SWEEP_WORK:
            raise ValueError(f"a sweep of {len(values)} values at {s.requests:,} requests each "
                             f"is too long: values x requests may be at most {SWEEP_WORK:,}")
        return {
            "settings": s.as_dict(),
            "over": over,
            "points": [{"value": getattr(p, over), **self.compare(p)}
                       for p in (s.but(**{over: v}) for v in values)],
        }

    def crossover(self, s, trace=None):
        """The link speed below which the split stops beating the shared layout.

        Bisection on a log scale between the link's limits: `link` is the slowest link
        found at which the split's goodput is higher than the shared layout's, `below` the
        fastest at which it is not; they differ by less than one part in a million. If the
        split never (or always) wins, `verdict` says so. It does not depend on s.link."""
        s = self.given(s, trace)
        return {"settings": s.as_dict(), **self.find(*self._crossover(s))}

    def crossover_step(self, s):
        """One simulation further towards s's crossover; True once it is known. The page
        calls this between other work, so a long bisection never holds up new numbers."""
        return self.find_step(*self._crossover(s))

    def _crossover(self, s):
        return self.finding(("crossover",), s, "link"), lambda: crossover.bisect(self, s)

    def rate(self, s, trace=None):
        """DistServe's goodput of each layout: the most requests a second per GPU at which at
        least s.attainment of requests are good (docs/model.md: "What is measured, further")."""
        return self.find(*self._rate(self.given(s, trace)))

    def rate_step(self, s):
        """One simulation further towards s's rate goodputs; True once they are known."""
        return self.find_step(*self._rate(s))

    def _rate(self, s):
        return self.finding(("rate",), s, "rps"), lambda: self._rates(s)

    def economics(self, s, trace=None):
        """Each layout's rate goodput and what it buys: good requests per dollar and per kWh
        of its GPUs (docs/model.md: "Price and power")."""
        return self.find(*self._economics(self.given(s, trace)))

    def economics_step(self, s):
        """One simulation further towards s's economics; True once they are known. The
        simulations are the rate goodput's, so a change of price alone simulates nothing."""
        return self.find_step(*self._economics(s))

    def _economics(self, s):
        def make():
            rates = yield from self._rates(s)
            return money.economics(rates, s)
        return self.finding(("economics",), s, "rps") + prices(s), make

    def ratio(self, s, trace=None):
        """The split's goodput and rate goodput for every number of readers of s.gpus that its
        instances allow (s's own readers count need not be one of them)."""
        s = self.sources.given(s, trace)
        if not any(allowed(s, readers=r) for r in range(1, s.gpus)):
            check(s)  # no ratio can be made: say why
        return self.find(*self._ratio(s))

    def ratio_step(self, s):
        """One simulation further towards s's best ratio; True once it is known."""
        return self.find_step(*self._ratio(s))

    def _ratio(self, s):
        return ("ratio",) + but(s, "readers"), lambda: self._ratios(s)

    def find(self, key, make):
        """The finding `key`, made by the generator `make()` (which pauses, yields, after
        each simulation, and returns the finding), worked out whole if it is not known."""
        while not self.find_step(key, make):
            pass
        return self._found[key]

    def find_step(self, key, make):
        """Take the finding `key` one simulation further; True once it is known. Findings
        are cached, and so are the steps of those under way (a few), so that the page can
        take several a piece at a time, between other work."""
        if key in self._found:
            self._found.move_to_end(key)
            return True
        steps = self._underway.pop(key, None) or make()
        try:
            next(steps)
        except StopIteration as done:
            self._found[key] = done.value
            while len(self._found) > 256:
                self._found.popitem(last=False)
            return True
        self._underway[key] = steps
        while len(self._underway) > 4:  # findings the page started and left
            self._underway.popitem(last=False)
        return False

    def _rates(self, s):
        out = {}
        for layout in layouts_of(s):
            out[layout] = yield from self._rate_of(layout, s)
        return out

    def _rate_of(self, layout, s):
        """The model's bisection on a log scale, pausing (yield) after each simulation."""
        key = self.finding(("rate of", layout), s, "rps")
        if key in self._found:
            return self._found[key]
        lo, hi = RATE_RANGE

        def holds(rps):
            return self.goodput(layout, s.but(rps=rps)) >= s.attainment

        if not holds(lo):
            found = 0.0
        else:
            yield
            if holds(hi):
                found = hi / s.gpus
            else:
                for _ in range(RATE_STEPS):
                    yield
                    mid = sqrt(lo * hi)
                    lo, hi = (mid, hi) if holds(mid) else (lo, mid)
                found = lo / s.gpus
        self._found[key] = found
        return found

    def _ratios(self, s):
        out = []
        for readers in range(1, s.gpus):
            if not allowed(s, readers=readers):  # an instance cut in two, or kinds mixed
                continue
            r = s.but(readers=readers)
            goodput = self.goodput("split", r)
            yield
            rate = yield from self._rate_of("split", r)
            out.append({"readers": readers, "goodput": goodput, "rate": rate})
        return out


def measured(run):
    """A run measured as it is made, so cached without its gaps (metrics.measure)."""
    measure(run)  # (every run a lab keeps is scored, and so measured, sooner or later anyway)
    return run


def weight(run, requests):
    """What a run holds, in the budget's units (about a request's measures, ~130 bytes): its
    requests, and the gaps it keeps one by one, about 32 bytes each (four to a unit). Where
    a step's cost grows with its context (roofline, memory=kv) no gap is the regular step's,
    so every step is kept: 70B's replies of 800 words keep ~80 a request, and counted as a
    request each, a page's runs grew past the 2 GB a browser's Python can address. A run the
    lab caches to score is measured first and keeps none (measured); a recorded run (to
    watch) keeps them."""
    kept = len(run.first_gaps) + len(run.burst_gaps) + len(run.burst_counts)
    return requests + kept // 4


SWEEPABLE = tuple(name for name in NAMES if not FIELDS[name].metadata["choices"])
MAX_POINTS = 200  # points in one sweep
SWEEP_WORK = 4_000_000  # points x requests in one sweep: about 20 s at most
RATE_RANGE = (0.01, 1000.0)  # requests a second the rate goodput's bisection searches
RATE_STEPS = 30  # its halvings (docs/model.md)


# The lab behind `compare` (and `sim.compare`): shared by every call, so a change of only a
# target re-scores a cached run. Bounded like any Lab; like any Lab, not for several threads.
DEFAULT_LAB = Lab()


def compare(trace=None, **settings):
    """Both layouts for the given settings (defaults for the rest), from DEFAULT_LAB: one
    lab shared by every call, so that changing only a target re-scores the cached runs.
    trace: a trace of your own (sim.read_trace's, a path or a text), for traffic=own."""
    return DEFAULT_LAB.compare(settings_with(settings, trace), trace)


def rate(trace=None, **settings):
    """{layout: DistServe's rate goodput, req/s per GPU} for the given settings."""
    return DEFAULT_LAB.rate(settings_with(settings, trace), trace)


def ratio(trace=None, **settings):
    """[{"readers", "goodput", "rate"}] of the split for readers = 1 .. gpus-1."""
    return DEFAULT_LAB.ratio(settings_with(settings, trace), trace)


def economics(trace=None, **settings):
    """{layout: {"rate", "price_per_hour", "watts", "per_dollar", "per_kwh"}} for the given
    settings: the rate goodput, and the good requests it serves per dollar and per kWh."""
    return DEFAULT_LAB.economics(settings_with(settings, trace), trace)


def watch(layout, t0, t1, trace=None, **settings):
    """[{"lane", "index", "kind", "start", "end", "request", "replies", "tokens"}]: every event
    of one layout's run that overlaps [t0, t1] seconds, for the given settings
    (docs/model.md: "Watch it run: the events")."""
    return DEFAULT_LAB.watch(layout, t0, t1, settings_with(settings, trace), trace)


def traffic(trace=None, **settings):
    """What the requests of the given settings look like: the traffic summary
    (docs/model.md: "What the traffic looks like")."""
    return DEFAULT_LAB.traffic(settings_with(settings, trace), trace)
