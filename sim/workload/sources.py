"""Where a setting's requests come from (docs/model.md: "Real traffic"): the lesson's draws (draws.py), a
trace shipped with the simulator (azure.py) or a trace of your own (tracefile.py), through a
window (window.py).

A lab keeps one Sources: the windows and Poisson spacings it made, so that the rate
goodput's bisection and a sweep along the load make each once, and the last trace of your own
it was given, so that `traffic=own` goes on meaning it (the page loads a file once). A trace is
given beside the settings (`trace=`), never in them: Settings stay small and hashable.
"""

from collections import OrderedDict

from ..settings import Settings
from . import azure
from .tracefile import read
from .window import Window, poisson, poisson_spacings

OWN_NEEDS_A_TRACE = ("traffic=own needs a trace of your own: trace= in the API (a path, a text, "
                     "or what sim.read_trace gives), or --trace FILE on the command line")
KEPT = 4  # windows (and spacings) a lab keeps: a figure's panels, and the one before


def settings_with(settings, trace):
    """The Settings of a module-level call (sim.compare, ...). trace= means traffic=own, and
    traffic=own needs a trace given with it, not one an earlier call left behind."""
    if trace is None and settings.get("traffic") == "own":
        raise ValueError(OWN_NEEDS_A_TRACE)
    if trace is not None and settings.get("traffic", "own") != "own":
        raise ValueError(f"trace= means traffic=own; got traffic={settings['traffic']!r} as well")
    return Settings.make(**settings)


class Sources:
    def __init__(self):
        self.own = None  # the last trace of your own given (trace=)
        self._windows = OrderedDict()  # (which trace, start, count) -> Window
        self._spacings = OrderedDict()  # (seed, count) -> Poisson spacings at rate 1

    def given(self, s, trace=None):
        """The settings that a trace given beside them makes (trace= means traffic=own). The
        trace is read and its window checked before it is kept: a refusal changes nothing."""
        if trace is None:
            return s
        if s.traffic not in ("lesson", "own"):
            raise ValueError(f"trace= means traffic=own; got traffic={s.traffic!r} as well")
        found = read(trace)
        s = s.but(traffic="own")
        self._window(found, s)
        self.own = found
        return s

    def trace(self, s):
        """The trace settings s replay, or None for the lesson's draws."""
        if s.traffic == "lesson":
            return None
        if s.traffic == "own":
            if self.own is None:
                raise ValueError(OWN_NEEDS_A_TRACE)
            return self.own
        return azure.trace(s.traffic)

    def key(self, s):
        """Which requests settings s have, as a cache key (the load apart): None for the
        lesson's draws, whose settings say it all; for a trace, which trace (a digest of the
        rows of your own), the window and the arrivals. `prompt` and `reply` play no part."""
        if s.traffic == "lesson":
            return None
        which = ("own", self.trace(s).digest) if s.traffic == "own" else s.traffic
        return (which, s.trace_start, s.requests, s.arrivals,
                s.seed if s.arrivals == "poisson" else None)

    def requests(self, s):
        """The requests of a trace's window at settings s."""
        window = self._window(self.trace(s), s)
        if s.arrivals == "recorded":
            return window.requests(window.recorded(s.rps))
        return window.requests(poisson(self._spacings_of(s.seed, s.requests), s.rps))

    def recorded_rps(self, s):
        """The mean rate at which the window of a trace was recorded, req/s (its requests
        after the first over the seconds from its first to its last): what arrivals=recorded
        scales to s.rps. None for the lesson's draws, or a window all at one moment."""
        if s.traffic == "lesson":
            return None
        span = self._window(self.trace(s), s.but(arrivals="poisson")).taus[-1]
        return (s.requests - 1) / span if span > 0 else None

    def _window(self, trace, s):
        key = (trace.digest if s.traffic == "own" else s.traffic, s.trace_start, s.requests)
        found = self._windows.get(key) or Window(trace, s.trace_start, s.requests)
        if s.arrivals == "recorded":
            found.recorded(1.0)  # refuses a window whose requests all arrive at one moment
        return kept(self._windows, key, lambda: found)  # kept only once it is known good

    def _spacings_of(self, seed, count):
        return kept(self._spacings, (seed, count), lambda: poisson_spacings(seed, count))


def kept(store, key, make):
    """store[key], made if missing; the least recently used go past KEPT."""
    found = store.pop(key, None) or make()
    store[key] = found
    while len(store) > KEPT:
        store.popitem(last=False)
    return found
