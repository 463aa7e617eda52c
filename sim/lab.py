"""The lab: runs both layouts for a setting, remembers runs, and scores them.

One object owns the caches: the random draws per (seed, count), and the recent runs keyed
by what they depend on, so that moving only a target re-scores the cached runs, and a sweep
along one axis reuses the draws. The one module global is DEFAULT_LAB, the lab behind the
module-level `compare`.
"""

from collections import OrderedDict
from math import exp, log

from . import layouts
from .metrics import score
from .settings import FIELDS, Settings
from .workload import Draws, Workload


class Lab:
    def __init__(self, budget=1_000_000):
        # Requests the cached runs may hold in all: about 130 bytes each, so ~130 MB at most.
        self.budget = budget
        self.simulations = 0  # layouts actually simulated: lets tests see a cache hit
        self._draws = OrderedDict()  # (seed, requests) -> Draws
        self._runs = OrderedDict()  # key -> Run; key says which layout and what it depends on
        self._held = 0  # requests held by the cached runs
        self._crossovers = OrderedDict()  # link_free(settings) -> crossover findings
        self._bisections = OrderedDict()  # link_free(settings) -> a bisection under way

    def draws(self, seed, requests):
        key = (seed, requests)
        found = self._draws.pop(key, None) or Draws(seed, requests)
        self._draws[key] = found
        while len(self._draws) > 4:
            self._draws.popitem(last=False)
        return found

    def _remember(self, key, make, size):
        """The run cached under key, or make() it; the oldest runs go past the budget."""
        found = self._runs.pop(key, None)
        if found is None:
            found = (make(), size)
            self.simulations += 1
            self._held += size
        self._runs[key] = found
        while self._held > self.budget and len(self._runs) > 1:
            self._held -= self._runs.popitem(last=False)[1][1]
        return found[0]

    def runs(self, s):
        """(shared run, split run) for settings s, simulated only if not cached."""
        base = (s.rps, s.prompt, s.reply, s.seed, s.requests)  # the targets play no part
        work = []

        def workload():  # drawn once, and only if a layout must be simulated
            if not work:
                work.append(Workload(self.draws(s.seed, s.requests), s.rps, s.prompt, s.reply))
            return work[0]

        shared = self._remember(("shared",) + base, lambda: layouts.shared(workload()),
                                s.requests)
        split = self._remember(("split", s.link) + base, lambda: layouts.split(workload(), s.link),
                               s.requests)
        return shared, split

    def compare(self, s):
        """Both layouts' measures for settings s: the JSON of `python -m sim compare --json`."""
        shared, split = self.runs(s)
        return {
            "settings": s.as_dict(),
            "shared": score(shared, s.ttft_target, s.gap_target),
            "split": score(split, s.ttft_target, s.gap_target),
        }

    def sweep(self, s, over, values):
        """compare() along one axis; each point is the compare dict with the value it used."""
        if over not in SWEEPABLE:
            raise ValueError(f"can only sweep over {', '.join(SWEEPABLE)}; got {over!r}")
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

    def crossover(self, s):
        """The link speed below which the split stops beating the shared layout.

        Bisection on a log scale between the link's limits: `link` is the slowest link
        found at which the split's goodput is higher than the shared layout's, `below` the
        fastest at which it is not; they differ by less than one part in a million. If the
        split never (or always) wins, `verdict` says so. It does not depend on s.link."""
        while not self.crossover_step(s):
            pass
        return {"settings": s.as_dict(), **self._crossovers[link_free(s)]}

    def crossover_step(self, s):
        """One simulation further towards s's crossover; True once it is known. The page
        calls this between other work, so a long bisection never holds up new numbers."""
        key = link_free(s)
        if key in self._crossovers:
            return True
        steps = self._bisections.pop(key, None) or self._bisect(s)
        try:
            next(steps)
        except StopIteration as done:
            self._crossovers[key] = done.value
            while len(self._crossovers) > 64:
                self._crossovers.popitem(last=False)
            return True
        self._bisections[key] = steps
        while len(self._bisections) > 4:  # bisections the page started and left
            self._bisections.popitem(last=False)
        return False

    def _bisect(self, s):
        """The bisection, pausing (yield) after each simulation; returns its findings."""
        lo, hi = FIELDS["link"].metadata["limits"]
        shared = self.compare(s)["shared"]["goodput"]

        def split_at(link):
            return self.compare(s.but(link=link))["split"]["goodput"]

        out = {"shared_goodput": shared}
        top = split_at(hi)
        yield
        if top <= shared:
            return {**out, "link": None, "below": hi, "verdict": "never", "split_goodput": top}
        bottom = split_at(lo)
        yield
        if bottom > shared:
            return {**out, "link": lo, "below": None, "verdict": "always",
                    "split_goodput": bottom}
        at_hi = top
        for _ in range(BISECTION_STEPS):
            if hi / lo < 1 + 1e-6:
                break
            mid = exp((log(lo) + log(hi)) / 2)
            at_mid = split_at(mid)
            yield
            if at_mid > shared:
                hi, at_hi = mid, at_mid
            else:
                lo = mid
        return {**out, "link": hi, "below": lo, "verdict": "between", "split_goodput": at_hi}


def link_free(s):
    """What a crossover depends on: every setting but the link."""
    return (s.rps, s.prompt, s.reply, s.ttft_target, s.gap_target, s.requests, s.seed)


SWEEPABLE = ("rps", "prompt", "reply", "link", "ttft_target", "gap_target")
MAX_POINTS = 200  # points in one sweep
SWEEP_WORK = 4_000_000  # points x requests in one sweep: about 20 s at most
BISECTION_STEPS = 40  # halvings of the link range (on a log scale) at the most


# The lab behind `compare` (and `sim.compare`): shared by every call, so a change of only a
# target re-scores a cached run. Bounded like any Lab; like any Lab, not for several threads.
DEFAULT_LAB = Lab()


def compare(**settings):
    """Both layouts for the given settings (defaults for the rest), from DEFAULT_LAB: one
    lab shared by every call, so that changing only a target re-scores the cached runs."""
    return DEFAULT_LAB.compare(Settings.make(**settings))
