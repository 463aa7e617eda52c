"""make bench (Watch it run on the page): the built page in headless Chromium, on this machine.

- Frames while the section plays at real time for 10 s (it starts again at the window's end):
  the share of frames longer than 1.5 frame budgets (the budget: the median frame, the
  display's rate), from requestAnimationFrame's times. Target: under 5%.
- sim.watch for the default 2 s window in the page, each layout: with its run recorded first
  (a seed the page has not run) and with the recorded run cached; median of a few.
- The numbers' worker's wasm memory after one window move and after 50 (within 1.5 times).

    python bench/watch_speed.py [--seconds S] [--moves N]
"""

import argparse
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import note  # noqa: E402
from page_speed import booted, launch, served  # noqa: E402
LONG_FRAMES = 0.05
MEMORY_GROWTH = 1.5

# requestAnimationFrame's times while the section plays; Play again at the window's end.
FRAMES = """seconds => new Promise(done => {
    const times = [], play = document.getElementById('watch-play');
    const frame = now => {
        times.push(now);
        if (play.getAttribute('aria-pressed') === 'false') play.click();
        if (now - times[0] < seconds * 1000) requestAnimationFrame(frame);
        else { if (play.getAttribute('aria-pressed') === 'true') play.click(); done(times); }
    };
    requestAnimationFrame(frame);
})"""
TIMED = """async ([layout, seed, t0]) => {
    await window.pdsplit.set({seed});
    const began = performance.now();
    await window.pdsplit.watch(layout, t0, t0 + 2);
    const fresh = performance.now() - began;
    const again = performance.now();
    await window.pdsplit.watch(layout, t0 + 2, t0 + 4);
    return [fresh, performance.now() - again];
}"""
CURRENT = "() => document.getElementById('watch').dataset.state === 'current'"




def move(page, button):
    """Move the window by its width; once its events are on screen."""
    before = page.evaluate("document.getElementById('watch').dataset.t0")
    page.click(button)
    page.wait_for_function(f"() => document.getElementById('watch').dataset.t0 !== {before!r} && ({CURRENT})()")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--moves", type=int, default=50)
    args = parser.parse_args(argv)
    server, base = served()
    ok = True
    with sync_playwright() as pw:
        browser = launch(pw)
        page = booted(browser, base)
        page.locator("#watch").scroll_into_view_if_needed()
        page.wait_for_function(CURRENT)
        page.select_option("#watch-speed", "1")
        times = page.evaluate(FRAMES, args.seconds)
        frames = [b - a for a, b in zip(times, times[1:])]
        budget = statistics.median(frames)
        long = sum(f > 1.5 * budget for f in frames) / len(frames)
        ok &= long < LONG_FRAMES
        note("watch_speed", "frames longer than 1.5 budgets, playing at real time", f"{long:.1%}",
             f"under {LONG_FRAMES:.0%}", long < LONG_FRAMES)
        print(f"Watch it run, playing at real time for {args.seconds:g} s: {len(frames)} frames, budget "
              f"{budget:.1f} ms (the median frame); {long:.1%} longer than 1.5 budgets (target under "
              f"{LONG_FRAMES:.0%}); longest {max(frames):.1f} ms")

        t0 = float(page.evaluate("document.getElementById('watch').dataset.t0"))
        for layout in ("shared", "split"):
            fresh, cached = zip(*(page.evaluate(TIMED, [layout, 100 + 10 * k + (layout == "split"), t0]) for k in range(5)))
            note("watch_speed", f"pdsplit.watch('{layout}'), 2 s window, recorded first / cached, medians",
                 f"{statistics.median(fresh):.0f} / {statistics.median(cached):.0f} ms")
            print(f"pdsplit.watch('{layout}') for a 2 s window (600 requests): {statistics.median(fresh):.0f} ms "
                  f"with its run recorded first, {statistics.median(cached):.0f} ms cached (median of 5)")
        page.evaluate("window.pdsplit.set({seed: 7})")
        page.evaluate("window.pdsplit.settled()")
        page.wait_for_function(CURRENT)

        move(page, "#watch-later")
        one = page.evaluate("window.pdsplit.memory()")["numbers"]
        forward = True
        for _ in range(args.moves - 1):
            if page.is_disabled("#watch-later" if forward else "#watch-earlier"):
                forward = not forward
            move(page, "#watch-later" if forward else "#watch-earlier")
        many = page.evaluate("window.pdsplit.memory()")["numbers"]
        ok &= many <= MEMORY_GROWTH * one
        note("watch_speed", f"the numbers' worker's memory, {args.moves} window moves over one",
             f"x{many / one:.2f}", f"within x{MEMORY_GROWTH}", many <= MEMORY_GROWTH * one)
        print(f"The numbers' worker's memory: {one / 2**20:.1f} MB after one window move, "
              f"{many / 2**20:.1f} MB after {args.moves} ({many / one:.2f}x; target within {MEMORY_GROWTH}x)")
        browser.close()
    server.shutdown()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
