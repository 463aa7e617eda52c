"""make bench (simulator): the engine against the step-by-step oracle, in one run.

Each repeat draws fresh, distinct settings (a new seed too, so nothing is cached), times
the oracle and the engine on them back to back (three times each, alternately, keeping each
side's fastest), and keeps the ratio; the speed-up printed is the median of those ratios:
on the lesson's settings, and on the explorer's (chunked reading, four GPUs, least-loaded
routing). Then the time of one compare at 600, 6,000 and 60,000 requests, of a 20-point
sweep over requests a second, of sim.rate at the defaults, of sim.ratio for 8 GPUs, and of
sim.economics for 8 GPUs (docs/model.md's "Price and power" settings, each layout's rate
bisection).

Then watching a run (docs/model.md: "Watch it run: the events"): sim.watch for a 2 s window
at the defaults, for each layout (the chunked one at chunk=512), in a fresh lab (the run
simulated and recorded) and again with the recorded run cached.

Then real traffic (docs/model.md: "Real traffic"): a compare of a 600-request window of each
Azure trace against the lesson's compare at the same settings, as the median ratio of
interleaved timings (a fresh lab each, the traces' parsing cached; target within 1.2x); parsing
each shipped trace once; and a 1,000,000-row file read to a 600-request window at its end: its
time, and its peak memory (tracemalloc, in a run of its own, since tracing slows it down).

Last, a compare with memory=kv against memory=slots at the same settings, where memory never
binds (target within 1.2x) and where it binds (no target); where it never binds, also the share
of the kv compare spent working out what each instance held, and of that, the peaks' sweeps.
"""

import gzip
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from math import inf
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

import oracle  # noqa: E402
from record import note  # noqa: E402
import sim  # noqa: E402
from sim.model import memory as memory_module, quiet  # noqa: E402  (their names timed below)
from sim.show.watch import default_window  # noqa: E402
from sim.workload import azure  # noqa: E402
from sim.workload.tracefile import read, read_path  # noqa: E402

oracle.DATA = ROOT / "sim" / "workload" / "data"


# Each side is timed this many times on each setting, alternately, and its fastest time kept
# (as timeit does): one timing on this machine can be 20% off the next for the same work.
TRIES = 3


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def distinct_settings(rng, requests):
    return dict(rps=rng.uniform(1, 8), prompt=rng.randrange(500, 4001),
                reply=rng.randrange(100, 301), link=10 ** rng.uniform(0, 2),
                ttft_target=rng.uniform(0.3, 2), gap_target=rng.uniform(0.05, 0.2),
                requests=requests, seed=rng.randrange(2**32))


def explorer_settings(rng, requests):
    """The issue's explorer settings (chunk=512 gpus=4 readers=2 routing=least-loaded rps=8),
    each repeat on fresh draws (a new seed) and a prompt and reply of its own."""
    return dict(chunk=512, gpus=4, readers=2, routing="least-loaded", rps=8.0,
                prompt=rng.randrange(1500, 2501), reply=rng.randrange(150, 251),
                requests=requests, seed=rng.randrange(2**32))


def speedup(requests, repeats, rng, draw=distinct_settings):
    ratios, engine = [], []
    for _ in range(repeats):
        kw = draw(rng, requests)
        t_oracle = t_engine = inf
        for _ in range(TRIES):  # alternately, so that a slow spell of the machine hits both
            t_oracle = min(t_oracle, timed(lambda: oracle.compare(**kw)))
            t_engine = min(t_engine, timed(lambda: sim.Lab().compare(sim.Settings(**kw))))  # nothing cached
        ratios.append(t_oracle / t_engine)
        engine.append(t_engine)
    return statistics.median(ratios), min(ratios), statistics.median(engine)


def median_time(fn, repeats):
    return statistics.median(timed(fn) for _ in range(repeats))


def main():
    rng = random.Random(1)
    print("simulator: engine vs step-by-step oracle (median of interleaved repeats, "
          "distinct settings each)")
    for label, draw, target in (("lesson", distinct_settings, 40), ("explorer", explorer_settings, 15)):
        print(f"  {label} settings (target at least {target}x):")
        for requests, repeats in ((600, 21), (6000, 5)):
            ratio, worst, t = speedup(requests, repeats, rng, draw)
            met = "met" if ratio >= target else "NOT met"
            print(f"    {requests:>6,} requests: {ratio:5.1f}x faster (lowest {worst:.1f}x), "
                  f"engine {t * 1e3:.2f} ms  ({met})")
            note("sim_speed", f"engine over the oracle, {label}'s settings, {requests:,} requests",
                 f"{ratio:.1f}x", f"at least {target}x", ratio >= target)
    print("one compare at the defaults (fresh lab):")
    for requests, repeats in ((600, 41), (6000, 11), (60000, 3)):
        t = median_time(lambda: sim.Lab().compare(sim.Settings(requests=requests)), repeats)
        print(f"  {requests:>6,} requests: {t * 1e3:8.2f} ms")
    values = [0.25 + k for k in range(20)]
    t = median_time(lambda: sim.Lab().sweep(sim.Settings(), "rps", values), 7)
    print(f"a 20-point sweep over requests a second (600 requests each): {t * 1e3:.1f} ms")
    t = median_time(lambda: sim.Lab().rate(sim.Settings()), 5)
    print(f"sim.rate at the defaults (fresh lab): {t * 1e3:.0f} ms (target under 1 s)")
    note("sim_speed", "sim.rate at the defaults, fresh lab", f"{t * 1e3:.0f} ms", "under 1 s", t < 1)
    t = median_time(lambda: sim.Lab().ratio(sim.Settings(gpus=8, rps=16.0)), 3)
    print(f"sim.ratio at gpus=8 rps=16 (fresh lab): {t * 1e3:.0f} ms")
    economics = sim.Settings(gpus=8, readers=4, rps=16.0, reader_gpu="H100")
    t = median_time(lambda: sim.Lab().economics(economics), 5)
    print(f"sim.economics at gpus=8 readers=4 reader_gpu=H100 (fresh lab): {t * 1e3:.0f} ms")
    watching()
    real_traffic(rng)
    memory()


# docs/model.md's figures of memory that binds: 70B on pairs of A100s, a queued link crossed
# layer by layer, room for 1,024 replies a step (memory alone limits the writer)
BINDS = dict(model="70B", tp=2, gpus=4, readers=2, slots=1024, rps=2.0, link_sharing="queued",
             layerwise=1, ttft_target=2.0)


def memory(repeats=7):
    """memory=kv against memory=slots at the same settings, each a fresh lab, alternately: where
    memory cannot bind (the lesson's defaults) kv runs the fast loops and should cost nothing
    more; where it binds (BINDS), the readers, link and writers are walked together."""
    print("memory=kv against memory=slots at the same settings (fresh labs, medians):")
    for words, settings, target in (
            ("the lesson's defaults (memory never binds)", {}, 1.2),
            ("8 GPUs, 3 readers, 5 writers in turn (memory never binds)",
             {"gpus": 8, "readers": 3}, 1.2),
            ("8 GPUs, 3 readers, 5 writers least-loaded (memory never binds)",
             {"gpus": 8, "readers": 3, "routing": "least-loaded"}, 1.2),
            ("70B on pairs of A100s (memory binds)", BINDS, None)):
        kv, slots = [], []
        for _ in range(repeats):
            slots.append(timed(lambda: sim.Lab().compare(sim.Settings(**settings))))
            kv.append(timed(lambda: sim.Lab().compare(sim.Settings(memory="kv", **settings))))
        ratio = statistics.median(kv) / statistics.median(slots)
        met = "" if target is None else f"  ({'met' if ratio <= target else 'NOT met'}: target within {target}x)"
        print(f"  {words}: kv {statistics.median(kv) * 1e3:.1f} ms, slots "
              f"{statistics.median(slots) * 1e3:.1f} ms: {ratio:.2f}x{met}")
        note("sim_speed", f"a compare with memory=kv over memory=slots, {words}", f"{ratio:.2f}x",
             "" if target is None else f"within {target}x", None if target is None else ratio <= target)
        if target is not None:  # where the time over memory=slots goes
            spent = [measuring(settings) for _ in range(repeats)]
            own, sweeps = (statistics.median(x) / statistics.median(slots) for x in zip(*spent))
            print(f"    of which working out what was held: {own:.2f}x of the slots compare, its "
                  f"sweeps alone {sweeps:.2f}x (a {target}x target leaves {target - 1:.2f}x for all "
                  "that memory=kv adds)")
            note("sim_speed", f"memory=kv working out what was held (peak.py's sweeps, the writers' "
                 f"last words, the readers' caches in order) over the memory=slots compare, {words}",
                 f"{own:.2f}x (the sweeps {sweeps:.2f}x)")


# What memory=kv adds where memory never binds, besides its runs: working out, once they are
# done, the most each instance held (sim/model/peak.py, quiet.py). The sweeps: every start and
# end of a hold in the order of time, and their running total; the rest puts them in order.
SWEEPS = ((memory_module, "reads_held"), (quiet, "readers_held"), (quiet, "most_held"))
ORDERING = ((quiet, "by_reader"), (quiet, "last_words"))


def measuring(settings):
    """Seconds that one memory=kv compare (a fresh lab) spends working out what was held, and
    of those, in the sweeps (none of these functions calls another through these names)."""
    spent = {"sweeps": 0.0, "ordering": 0.0}

    def timing(fn, kind):
        def timed_fn(*args):
            start = time.perf_counter()
            try:
                return fn(*args)
            finally:
                spent[kind] += time.perf_counter() - start
        return timed_fn

    saved = [(module, name, getattr(module, name), kind)
             for kind, named in (("sweeps", SWEEPS), ("ordering", ORDERING)) for module, name in named]
    for module, name, fn, kind in saved:
        setattr(module, name, timing(fn, kind))
    try:
        sim.Lab().compare(sim.Settings(memory="kv", **settings))
    finally:
        for module, name, fn, _ in saved:
            setattr(module, name, fn)
    return spent["sweeps"] + spent["ordering"], spent["sweeps"]


def watching(repeats=21):
    """sim.watch for the page's default window (figure 1's, widened to 2 s) at the defaults."""
    s = sim.Settings(chunk=512)
    t0, t1 = default_window(sim.Lab(), s)
    print(f"sim.watch for a 2 s window at the defaults ({t0:.2f} to {t1:.2f} s; chunked: chunk=512):")
    for layout in ("shared", "split", "chunked"):
        fresh = median_time(lambda: sim.Lab().watch(layout, t0, t1, s), repeats)
        lab = sim.Lab()
        events = len(lab.watch(layout, t0, t1, s))
        cached = median_time(lambda: lab.watch(layout, t0, t1, s), repeats)
        print(f"  {layout:<8} {events} events: {fresh * 1e3:.2f} ms in a fresh lab, "
              f"{cached * 1e3:.2f} ms with its recorded run cached")


def real_traffic(rng, repeats=21, rows=1_000_000, window=600):
    print("real traffic:")
    for name in azure.FILES:
        azure.trace(name)  # parsed once, as a process does: the compares below reuse it
    for name in azure.FILES:
        ratios, times = [], []
        for _ in range(repeats):  # a new seed for the lesson, a new window of the trace
            lesson = sim.Settings(seed=rng.randrange(2**32))
            trace = sim.Settings(traffic=name, trace_start=rng.randrange(8000))
            t_lesson = t_trace = inf
            for _ in range(TRIES):
                t_lesson = min(t_lesson, timed(lambda: sim.Lab().compare(lesson)))
                t_trace = min(t_trace, timed(lambda: sim.Lab().compare(trace)))
            ratios.append(t_trace / t_lesson)
            times.append(t_trace)
        ratio = statistics.median(ratios)
        note("sim_speed", f"a compare of a {window}-request window of {name}, over the lesson's",
             f"{ratio:.2f}x", "within 1.2x", ratio <= 1.2)
        print(f"  a compare of a {window}-request window of {name}: {ratio:.2f}x the lesson's "
              f"compare at the same settings (highest {max(ratios):.2f}x), "
              f"{statistics.median(times) * 1e3:.2f} ms  ({'met' if ratio <= 1.2 else 'NOT met'}: "
              f"target within 1.2x)")
    for name in azure.FILES:
        packed = azure.packed(name)
        t = median_time(lambda: read(gzip.decompress(packed), name=name), 5)
        print(f"  parsing {name} once ({azure.trace(name).usable:,} requests, "
              f"{len(packed) / 1e3:.0f} kB gzipped): {t * 1e3:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "million.csv"
        with open(path, "w") as f:
            f.write("arrival_s,prompt_tokens,reply_tokens\n")
            f.writelines(f"{k * 0.25:.2f},{100 + k * 7919 % 6000},{1 + k * 104_729 % 500}\n"
                         for k in range(rows))
        keep = (rows - window, rows)
        t = timed(lambda: read_path(path, keep=keep))
        tracemalloc.start()
        trace = read_path(path, keep=keep)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert len(trace) == window and trace.usable == rows
        note("sim_speed", f"a {rows:,}-row file read to a {window}-request window at its end",
             f"{t:.2f} s, peak {peak / 1e6:.2f} MB")
        print(f"  a {rows:,}-row file ({path.stat().st_size / 1e6:.0f} MB) read to a "
              f"{window}-request window at its end: {t:.2f} s, peak memory {peak / 1e6:.2f} MB "
              f"(tracemalloc)")


if __name__ == "__main__":
    main()
