"""make bench (page): the built page in headless Chromium, on this machine.

Time to first numbers and to Python ready (from navigation), then slider-to-numbers,
slider-to-charts (the two main charts) and slider-to-settled (every figure too) latency over
60 keyboard changes that each ask for a new setting (six sliders in turn, one step each, ten
rounds), median and p95, against the targets; then the same after quick drags (eight stops
as fast as the keyboard sends them, the latency counted from the last); and the size of dist/.
"""

import functools
import http.server
import os
import statistics
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SLIDERS = ("rps", "prompt", "reply", "link", "ttft_target", "gap_target")
ROUNDS = 10
DRAGS, DRAG_STOPS = 10, 8
TARGETS = {"numbers": 50.0, "charts": 300.0}  # ms, p95 (the page issue's targets)

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
    return line


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve():
    handler = functools.partial(Quiet, directory=str(DIST))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    server = serve()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    args=ARGS)
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        page.set_default_timeout(120_000)
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
        browser.close()
    server.shutdown()
    files = [f for f in DIST.rglob("*") if f.is_file()]
    size = sum(f.stat().st_size for f in files)
    print("page, in headless Chromium on this machine:")
    print(f"  first numbers on screen: {timings['firstNumbers']:7.0f} ms after navigation (baked in)")
    print(f"  Python ready:            {timings['pythonReady']:7.0f} ms after navigation")
    print(f"  {len(steps)} single steps:")
    print(summary("slider -> numbers:", steps, "numbers"))
    print(summary("slider -> charts:", steps, "charts"))
    print(summary("slider -> settled:", steps, "settled"))
    print(f"  {len(drags)} quick drags of {DRAG_STOPS} stops (from the last stop):")
    print(summary("drag -> numbers:", drags, "numbers"))
    print(summary("drag -> charts:", drags, "charts"))
    print(summary("drag -> settled:", drags, "settled"))
    print(f"  dist/: {size / 1e6:.1f} MB in {len(files)} files")


if __name__ == "__main__":
    main()
