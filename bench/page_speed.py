"""make bench (page): the built page in headless Chromium, on this machine.

- Boots: fresh browser contexts, alternately booting from the snapshot and plainly (the
  snapshot refused, as a page without one), each opening a URL state that is not baked:
  Python ready and first numbers, medians, the snapshot's against the plain boot's.
- Time to first numbers and to Python ready (from navigation) at the default state, then
  slider-to-numbers, slider-to-charts (the two main charts) and slider-to-settled (every
  figure too) latency over 60 keyboard changes that each ask for a new setting (six sliders
  in turn, one step each, ten rounds), median and p95, against the targets; then the same
  after quick drags (eight stops as fast as the keyboard sends them, the latency counted
  from the last).
- Memory: each worker's wasm memory after 10, 500 and 1,000 random changes of the sliders.
- The size of dist/.

    python bench/page_speed.py [--boots N] [--cores N] [--changes N]

--cores N makes the page see N cores (navigator.hardwareConcurrency): from 4 up it runs a
second worker for the figures, alongside the first; below, one worker does everything.
"""

import argparse
import functools
import http.server
import os
import random
import statistics
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
from record import note  # noqa: E402
from sim import check  # noqa: E402

DIST = ROOT / "dist"
ARGS = ["--headless", *check.CHROMIUM_ARGS]  # the flags `python -m sim check` uses
SLIDERS = ("rps", "prompt", "reply", "link", "ttft_target", "gap_target")
ROUNDS = 10
DRAGS, DRAG_STOPS = 10, 8
# ms, p95: numbers (the page issue's), the two main charts and every figure (issue 10's)
TARGETS = {"numbers": 50.0, "charts": 150.0, "settled": 500.0}
UNBAKED = "?rps=7.5&prompt=3000"  # a URL state the build did not bake
BOOT_TARGETS = {"ready": 1500.0, "first": 1600.0, "ratio": 1 / 3}  # ms, ms, snapshot/plain
MEMORY_GROWTH = 1.5  # at most, from 10 changes to 1,000

LISTEN = """() => {
    const b = window.__bench = {down: [], numbers: [], charts: [], settled: []};
    document.addEventListener('keydown', () => b.down.push(performance.now()), true);
    for (const kind of ['numbers', 'charts', 'settled'])
        addEventListener('pdsplit:' + kind, e => e.detail.source === 'python' && b[kind].push([performance.now(), e.detail.key]));
}"""

CURRENT_KEY = """() => {
    const s = window.pdsplit.settings();
    const names = JSON.parse(document.getElementById('pdsplit-baked').textContent).schema.map(f => f.name);
    return names.map(n => s[n]).join('|');
}"""

CORES = "Object.defineProperty(navigator, 'hardwareConcurrency', {{get: () => {}}});"


def p95(values):
    values = sorted(values)
    return values[-(-95 * len(values) // 100) - 1]


def latencies(page, presses):
    """Press the keys, wait for every figure of the setting reached; ms from the last key
    to its numbers, its main charts and its last figure."""
    for press in presses:
        press()
    key = page.evaluate(CURRENT_KEY)
    # only what came after the last key counts: a drag may revisit an earlier setting
    page.wait_for_function(
        "key => __bench.settled.some(([t, k]) => k === key && t >= __bench.down.at(-1))", arg=key)
    b = page.evaluate("window.__bench")
    down = b["down"][-1]
    return {kind: next(t for t, k in b[kind] if k == key and t >= down) - down
            for kind in ("numbers", "charts", "settled")}


def summary(label, runs, kind):
    values = [r[kind] for r in runs]
    line = f"  {label:<19} median {statistics.median(values):6.1f} ms, p95 {p95(values):6.1f} ms"
    if kind in TARGETS:
        met = "met" if p95(values) < TARGETS[kind] else "NOT met"
        line += f"  (target p95 < {TARGETS[kind]:.0f} ms: {met})"
        note("page_speed", f"{label.rstrip(':')} p95 ({len(values)} steps)", f"{p95(values):.1f} ms",
             f"under {TARGETS[kind]:.0f} ms", p95(values) < TARGETS[kind])
    return line


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a context closed mid-download
            super().handle_error(request, client_address)


def serve():
    handler = functools.partial(Quiet, directory=str(DIST))
    server = Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def launch(playwright):
    """Headless Chromium with the checker's flags: $CHROMIUM, else Debian's."""
    return playwright.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=ARGS)


def booted(browser, url, script=None, timeout=180_000):
    """A new page at url (with `script` run before the page's own), once every chart is drawn."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(timeout)
    if script:
        page.add_init_script(script)
    page.goto(url)
    page.evaluate("window.pdsplit.ready")
    page.evaluate("window.pdsplit.settled()")
    return page


def served():
    """dist/ served on a free port of this machine: the server, and the page's URL."""
    server = serve()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def new_page(browser, cores, snapshot=True):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    if cores:
        context.add_init_script(CORES.format(cores))
    if not snapshot:  # as a page without one: the worker boots plainly
        context.route("**/snapshot.bin.gz*", lambda route: route.fulfill(status=404, body="none"))
    page = context.new_page()
    page.set_default_timeout(120_000)
    return page


def boots(browser, url, count, cores):
    """Fresh contexts, alternately from the snapshot and plainly, at a state not baked."""
    found = {"snapshot": [], "plain": []}
    for _ in range(count):
        for how in found:
            page = new_page(browser, cores, snapshot=how == "snapshot")
            page.goto(url + UNBAKED)
            page.evaluate("window.pdsplit.ready")
            info = page.evaluate("window.pdsplit.python()")
            assert info["boot"] == how, info
            found[how].append({**page.evaluate("window.pdsplit.timings"), "worker": info["seconds"] * 1000})
            page.context.close()
    return found


def boot_lines(found):
    median = {how: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for how, runs in found.items()}
    snap, plain = median["snapshot"], median["plain"]
    ratio = snap["pythonReady"] / plain["pythonReady"]
    n = len(found["snapshot"])
    ok = snap["pythonReady"] < BOOT_TARGETS["ready"] and ratio <= BOOT_TARGETS["ratio"]
    note("page_speed", "Python ready from the snapshot, median after navigation",
         f"{snap['pythonReady']:.0f} ms", f"under {BOOT_TARGETS['ready']:.0f} ms",
         snap["pythonReady"] < BOOT_TARGETS["ready"])
    note("page_speed", "Python ready, the snapshot's boot over a plain boot's", f"{ratio:.2f}",
         "at most 1/3", ratio <= BOOT_TARGETS["ratio"])
    note("page_speed", "first numbers from the snapshot, median after navigation",
         f"{snap['firstNumbers']:.0f} ms", f"under {BOOT_TARGETS['first']:.0f} ms",
         snap["firstNumbers"] < BOOT_TARGETS["first"])
    return [
        f"  boots, {n} fresh contexts each, at {UNBAKED} (not baked); medians, ms after navigation:",
        f"    Python ready:  from the snapshot {snap['pythonReady']:6.0f}, plainly {plain['pythonReady']:6.0f}"
        f"  (ratio {ratio:.2f}; target < {BOOT_TARGETS['ready']:.0f} ms and <= 1/3: {'met' if ok else 'NOT met'})",
        f"    first numbers: from the snapshot {snap['firstNumbers']:6.0f}, plainly {plain['firstNumbers']:6.0f}"
        f"  (target < {BOOT_TARGETS['first']:.0f} ms: {'met' if snap['firstNumbers'] < BOOT_TARGETS['first'] else 'NOT met'})",
        f"    the worker's own boot: from the snapshot {snap['worker']:6.0f}, plainly {plain['worker']:6.0f}",
    ]


def random_changes(page, count, rng, every_settled):
    """Random slider settings, each awaited until its numbers are on screen, and every
    `every_settled`-th until every figure is drawn too."""
    stops = page.evaluate("""() => Object.fromEntries(JSON.parse(document.getElementById('pdsplit-baked')
        .textContent).schema.filter(f => f.slider).map(f => [f.name, f.slider]))""")
    for i in range(count):
        page.evaluate("s => window.pdsplit.set(s)", {name: rng.choice(values) for name, values in stops.items()})
        if (i + 1) % every_settled == 0:
            page.evaluate("window.pdsplit.settled()")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boots", type=int, default=5, help="fresh contexts for each way of booting")
    parser.add_argument("--cores", type=int, default=0,
                        help="the cores the page sees (default: this machine's); from 4, two workers")
    parser.add_argument("--changes", type=int, default=1000, help="random changes for the memory figure")
    args = parser.parse_args(argv)
    cores = args.cores
    server = serve()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    rng = random.Random(10)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    args=ARGS)
        found = boots(browser, url, args.boots, cores)
        page = new_page(browser, cores)
        page.goto(url)
        page.evaluate("window.pdsplit.ready")
        page.evaluate("window.pdsplit.settled()")
        timings = page.evaluate("window.pdsplit.timings")
        page.evaluate(LISTEN)
        steps = []
        for _ in range(ROUNDS):
            for name in SLIDERS:
                page.focus(f"#slider-{name}")
                steps.append(latencies(page, [lambda: page.keyboard.press("ArrowRight")]))
        drags = []
        for i in range(DRAGS):
            page.evaluate("i => window.pdsplit.set({rps: 1, seed: 100 + i})", i)  # nothing cached
            page.evaluate("window.pdsplit.settled()")
            page.focus("#slider-rps")
            drags.append(latencies(page, [lambda: page.keyboard.press("ArrowRight")] * DRAG_STOPS))
        workers = page.evaluate("window.pdsplit.memory()")  # one key a worker
        page.context.close()
        page = new_page(browser, cores)  # memory: a fresh page
        page.goto(url)
        page.evaluate("window.pdsplit.ready")
        random_changes(page, 10, rng, every_settled=1)
        memory = [page.evaluate("window.pdsplit.memory()")]
        half = args.changes // 2
        for count in (half - 10, args.changes - half):  # halfway too: where the caches are full
            random_changes(page, count, rng, every_settled=25)
            page.evaluate("window.pdsplit.settled()")
            memory.append(page.evaluate("window.pdsplit.memory()"))
        browser.close()
    server.shutdown()
    files = [f for f in DIST.rglob("*") if f.is_file()]
    size = sum(f.stat().st_size for f in files)
    seen = f"the page sees {cores} cores" if cores else f"{os.cpu_count()} cores"
    print(f"page, in headless Chromium on this machine ({seen}: "
          f"{'two workers, the figures alongside' if len(workers) == 2 else 'one worker'}):")
    print(f"  first numbers on screen: {timings['firstNumbers']:7.0f} ms after navigation (baked in)")
    print(f"  Python ready:            {timings['pythonReady']:7.0f} ms after navigation")
    for line in boot_lines(found):
        print(line)
    print(f"  {len(steps)} single steps:")
    print(summary("slider -> numbers:", steps, "numbers"))
    print(summary("slider -> charts:", steps, "charts"))
    print(summary("slider -> settled:", steps, "settled"))
    print(f"  {len(drags)} quick drags of {DRAG_STOPS} stops (from the last stop):")
    print(summary("drag -> numbers:", drags, "numbers"))
    print(summary("drag -> charts:", drags, "charts"))
    print(summary("drag -> settled:", drags, "settled"))
    growth = max(memory[-1][name] / memory[0][name] for name in memory[0])  # the worker that grew most
    workers = ", ".join(f"{name}' worker " + " -> ".join(f"{m[name] / 1e6:.1f}" for m in memory) + " MB"
                        for name in memory[0])
    print(f"  wasm memory after 10, {args.changes // 2:,} and {args.changes:,} random changes: {workers}; "
          f"from 10 to {args.changes:,}, at most x{growth:.2f} "
          f"(target <= x{MEMORY_GROWTH} each: {'met' if growth <= MEMORY_GROWTH else 'NOT met'})")
    print(f"  dist/: {size / 1e6:.1f} MB in {len(files)} files")
    note("page_speed", f"wasm memory from 10 to {args.changes:,} random changes", f"x{growth:.2f}",
         f"at most x{MEMORY_GROWTH}", growth <= MEMORY_GROWTH)
    note("page_speed", "dist/", f"{size / 1e6:.1f} MB in {len(files)} files")


if __name__ == "__main__":
    main()
