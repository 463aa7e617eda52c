"""make bench (traffic on the page): the built page in headless Chromium, on this machine.

- A change of traffic, the lesson's to Azure chat, from the choice to the new numbers on
  screen: median and p95 over a dozen changes (each at another load, so each is simulated).
- The numbers' worker's wasm memory after one change of traffic and after twenty (Azure chat
  and code, both arrivals, other windows): within 1.5 times.
- A file of one's own of about 10 MB, from picking it to its numbers on screen.

    python bench/traffic_speed.py [--changes N] [--megabytes M]
"""

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import note  # noqa: E402
from page_speed import booted, launch, p95, served  # noqa: E402
MEMORY_GROWTH = 1.5

# From a change of the choice (or the file input) to the numbers of the settings it made.
LISTEN = """() => {
    const b = window.__bench = {changed: [], numbers: []};
    document.addEventListener('change', () => b.changed.push(performance.now()), true);
    addEventListener('pdsplit:numbers', e => e.detail.source === 'python' && b.numbers.push([performance.now(), e.detail.key]));
}"""
SINCE_CHANGE = """() => {
    const b = window.__bench, at = b.changed.at(-1);
    const after = b.numbers.filter(([t]) => t >= at);
    return after.length ? after[0][0] - at : null;
}"""




def numbers_after(page):
    page.wait_for_function("() => window.__bench.numbers.some(([t]) => t >= window.__bench.changed.at(-1))",
                           timeout=120_000)
    return page.evaluate(SINCE_CHANGE)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=12)
    parser.add_argument("--megabytes", type=float, default=10.0)
    args = parser.parse_args(argv)
    server, base = served()
    with sync_playwright() as pw:
        browser = launch(pw)
        page = booted(browser, base + "?traffic=lesson")
        page.evaluate(LISTEN)
        took = []
        for k in range(args.changes):
            page.evaluate("r => window.pdsplit.set({traffic: 'lesson', rps: r})", 3.0 + k * 0.25)
            page.evaluate("window.pdsplit.settled()")
            page.select_option("#choice-traffic", "azure-chat")
            took.append(numbers_after(page))
            page.evaluate("window.pdsplit.settled()")
        note("traffic_speed", "the lesson's traffic to Azure chat, choice to numbers, p95",
             f"{p95(took):.1f} ms")
        print(f"traffic: the lesson's to Azure chat, choice to numbers: median "
              f"{statistics.median(took):.1f} ms, p95 {p95(took):.1f} ms ({len(took)} changes)")

        page.evaluate("window.pdsplit.set({traffic: 'azure-code'})")
        page.evaluate("window.pdsplit.settled()")
        one = page.evaluate("window.pdsplit.memory()")["numbers"]
        for k in range(20):
            changes = {"traffic": ("azure-chat", "azure-code")[k % 2],
                       "arrivals": ("recorded", "poisson")[k // 2 % 2], "trace_start": 300 * k}
            page.evaluate("s => window.pdsplit.set(s)", changes)
            page.evaluate("window.pdsplit.settled()")
        twenty = page.evaluate("window.pdsplit.memory()")["numbers"]
        growth = twenty / one
        note("traffic_speed", "the numbers' worker's memory, twenty changes of traffic over one",
             f"x{growth:.2f}", f"at most x{MEMORY_GROWTH}", growth <= MEMORY_GROWTH)
        print(f"memory, the numbers' worker: {one / 1e6:.1f} MB after one change of traffic, "
              f"{twenty / 1e6:.1f} MB after twenty (x{growth:.2f}; "
              f"{'met' if growth <= MEMORY_GROWTH else 'NOT met'}: at most x{MEMORY_GROWTH})")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "mine.csv"
            rows = int(args.megabytes * 1e6 / 24)
            with open(path, "w") as f:
                f.write("arrival_s,prompt_tokens,reply_tokens\n")
                f.writelines(f"{k * 0.05:.2f},{100 + k * 7919 % 6000},{2 + k * 104_729 % 500}\n" for k in range(rows))
            size = path.stat().st_size
            page.set_input_files("#trace-file", str(path))
            ms = numbers_after(page)
            note("traffic_speed", f"a file of one's own, {size / 1e6:.1f} MB, picked to numbers",
                 f"{ms / 1000:.2f} s")
            print(f"a file of one's own, {size / 1e6:.1f} MB ({rows:,} rows): picked to numbers "
                  f"{ms / 1000:.2f} s")

        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
