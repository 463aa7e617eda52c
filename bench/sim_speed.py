"""make bench (simulator): the engine against the step-by-step oracle, in one run.

Each repeat draws fresh, distinct settings (a new seed too, so nothing is cached), times
the oracle and the engine on them back to back, and keeps the ratio; the speed-up printed
is the median of those interleaved ratios. Then the time of one compare at 600, 6,000 and
60,000 requests and of a 20-point sweep over requests a second.
"""

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import oracle  # noqa: E402
import sim  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def distinct_settings(rng, requests):
    return dict(rps=rng.uniform(1, 8), prompt=rng.randrange(500, 4001),
                reply=rng.randrange(100, 301), link=10 ** rng.uniform(0, 2),
                ttft_target=rng.uniform(0.3, 2), gap_target=rng.uniform(0.05, 0.2),
                requests=requests, seed=rng.randrange(2**32))


def speedup(requests, repeats, rng):
    ratios, engine = [], []
    for _ in range(repeats):
        kw = distinct_settings(rng, requests)
        t_oracle = timed(lambda: oracle.compare(**kw))
        t_engine = timed(lambda: sim.Lab().compare(sim.Settings(**kw)))  # nothing cached
        ratios.append(t_oracle / t_engine)
        engine.append(t_engine)
    return statistics.median(ratios), min(ratios), statistics.median(engine)


def median_time(fn, repeats):
    return statistics.median(timed(fn) for _ in range(repeats))


def main():
    rng = random.Random(1)
    print("simulator: engine vs step-by-step oracle (median of interleaved repeats, "
          "distinct settings each)")
    for requests, repeats in ((600, 41), (6000, 7)):
        ratio, worst, t = speedup(requests, repeats, rng)
        print(f"  {requests:>6,} requests: {ratio:5.1f}x faster (lowest {worst:.1f}x), "
              f"engine {t * 1e3:.2f} ms")
    print("one compare at the defaults (fresh lab):")
    for requests, repeats in ((600, 41), (6000, 11), (60000, 3)):
        t = median_time(lambda: sim.Lab().compare(sim.Settings(requests=requests)), repeats)
        print(f"  {requests:>6,} requests: {t * 1e3:8.2f} ms")
    values = [0.25 + k for k in range(20)]
    t = median_time(lambda: sim.Lab().sweep(sim.Settings(), "rps", values), 7)
    print(f"a 20-point sweep over requests a second (600 requests each): {t * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
