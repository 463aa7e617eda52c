"""make bench (page): the built page in headless Chromium, on this machine.

Time to first numbers and to Python ready (from navigation), then slider-to-numbers and
slider-to-charts latency over 60 keyboard changes that each ask for a new setting (six
sliders in turn, one step each, ten rounds), median and p95; and the size of dist/.
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

LISTEN = """() => {
    const b = window.__bench = {down: [], numbers: [], charts: []};
    document.addEventListener('keydown', () => b.down.push(performance.now()), true);
    addEventListener('pdsplit:numbers', e => e.detail.source === 'python' && b.numbers.push([performance.now(), e.detail.key]));
    addEventListener('pdsplit:charts', e => e.detail.source === 'python' && b.charts.push([performance.now(), e.detail.key]));
}"""

CURRENT_KEY = """() => {
    const s = window.pdsplit.settings();
    const names = JSON.parse(document.getElementById('pdsplit-baked').textContent).schema.map(f => f.name);
    return names.map(n => s[n]).join('|');
}"""


def p95(values):
    values = sorted(values)
    return values[-(-95 * len(values) // 100) - 1]


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
        to_numbers, to_charts = [], []
        for _ in range(ROUNDS):
            for name in SLIDERS:
                page.focus(f"#slider-{name}")
                page.keyboard.press("ArrowRight")
                key = page.evaluate(CURRENT_KEY)
                page.wait_for_function(
                    "key => __bench.charts.some(([, k]) => k === key)", arg=key)
                b = page.evaluate("window.__bench")
                down = b["down"][-1]
                to_numbers.append(next(t for t, k in b["numbers"] if k == key) - down)
                to_charts.append(next(t for t, k in b["charts"] if k == key) - down)
        browser.close()
    server.shutdown()
    files = [f for f in DIST.rglob("*") if f.is_file()]
    size = sum(f.stat().st_size for f in files)
    print("page, in headless Chromium on this machine:")
    print(f"  first numbers on screen: {timings['firstNumbers']:7.0f} ms after navigation (baked in)")
    print(f"  Python ready:            {timings['pythonReady']:7.0f} ms after navigation")
    print(f"  slider -> numbers: median {statistics.median(to_numbers):6.1f} ms, "
          f"p95 {p95(to_numbers):6.1f} ms ({len(to_numbers)} changes)")
    print(f"  slider -> charts:  median {statistics.median(to_charts):6.1f} ms, "
          f"p95 {p95(to_charts):6.1f} ms")
    print(f"  dist/: {size / 1e6:.1f} MB in {len(files)} files")


if __name__ == "__main__":
    main()
