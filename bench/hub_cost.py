"""make bench (hub): what a course page with N live pieces costs, in one run, on this machine.

For 1, 3 and 6 pieces (the first N of tests/page/six-pieces.html's) and for index.html alone,
each in a fresh browser context (an empty cache) served by the tests' strict host (the
docs/course-sites.md's CSP, dist/ under a sub-path), which counts every byte it sends:

- bytes: everything the page downloaded;
- wasm memory: the size of every Python's wasm memory, added up over the page's Pythons (one,
  the hub's, for a page of pieces);
- time: from navigation until every piece (or the page) has its numbers and charts from
  Python; the pieces are all near the screen at once (a tall window), so they load together.

Each as a ratio to the page alone, and the pieces' too without the hub (no BroadcastChannel:
each piece its own Python), as before issue 21. The hub's 6 pieces should take at most 1.3x
the wasm memory of its 1.

    python bench/hub_cost.py [--runs N]
"""

import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]
from record import note  # noqa: E402
from sim import check  # noqa: E402
from hub_pages import HOSTS, SNAPSHOT, WASM, CountingSite  # noqa: E402

ARGS = ["--headless", *check.CHROMIUM_ARGS]  # the flags `python -m sim check` uses
TIMEOUT = 180_000  # ms
MEMORY_6_OVER_1 = 1.3  # at most, with the hub
PIECES = re.findall(r'<div data-pdsplit="([^"]*)"></div>', HOSTS["six-pieces.html"].read_text())
EVERY_PIECE_SETTLED = """async () => {
    const frames = Array.from(document.querySelectorAll('iframe.pdsplit-frame'));
    await Promise.all(frames.map(async (f) => {
        while (!f.contentWindow || !f.contentWindow.pdsplit) await new Promise((r) => setTimeout(r, 20));
        await f.contentWindow.pdsplit.ready;
        await f.contentWindow.pdsplit.settled();
    }));
    return performance.now();
}"""
ALONE_SETTLED = "async () => { await window.pdsplit.ready; await window.pdsplit.settled(); return performance.now(); }"
# every distinct Python's wasm memory, once: the hub's is shared by all its pieces
MEMORY = """async () => {
    const frames = Array.from(document.querySelectorAll('iframe.pdsplit-frame'), (f) => f.contentWindow);
    const pythons = new Map();
    for (const w of frames.length ? frames : [window]) {
        const info = w.pdsplit.python();
        const key = info.hub ? `${info.hub}/${info.worker}` : pythons.size + Math.random();
        pythons.set(key, (await w.pdsplit.memory()).numbers);
    }
    return [...pythons.values()];
}"""


def host(n):
    """A course page with the first n pieces, as the strict host serves it beside dist/'s files."""
    pieces = "\n".join(f'<p>Piece {i + 1}.</p>\n<div data-pdsplit="{q}"></div>' for i, q in enumerate(PIECES[:n]))
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{n} pieces</title>'
            f'<link rel="icon" href="favicon.svg"><script src="embed.js" defer></script></head>'
            f"<body>{pieces}</body></html>")


def measure(browser, site, n, hub=True):
    """One fresh context: (bytes, [wasm memory of each Python], ms until settled, downloads of the wasm)."""
    context = browser.new_context(viewport={"width": 375, "height": 8000})
    if not hub:
        context.add_init_script("delete window.BroadcastChannel;")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    site.reset()
    try:
        if n == 0:
            page.goto(site.url + "index.html")
            ms = page.evaluate(ALONE_SETTLED)
        else:
            # served by the host, not routed: Playwright's routing turns the browser's cache off
            page.goto(site.url + f"bench-{n}-pieces.html")
            ms = page.evaluate(EVERY_PIECE_SETTLED)
        return site.bytes(), page.evaluate(MEMORY), ms, site.downloads(WASM), site.downloads(SNAPSHOT)
    finally:
        context.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of each, their medians shown")
    args = parser.parse_args()
    pages = tempfile.TemporaryDirectory()
    for n in (1, 3, 6):
        HOSTS[f"bench-{n}-pieces.html"] = Path(pages.name) / f"bench-{n}-pieces.html"
        HOSTS[f"bench-{n}-pieces.html"].write_text(host(n))
    site = CountingSite()
    rows = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=ARGS)
            for label, n, hub in [("index.html alone", 0, True), ("1 piece", 1, True), ("3 pieces", 3, True),
                                  ("6 pieces", 6, True), ("3 pieces, no hub", 3, False), ("6 pieces, no hub", 6, False)]:
                runs = [measure(browser, site, n, hub) for _ in range(args.runs)]
                rows[label] = (statistics.median(r[0] for r in runs), statistics.median(sum(r[1]) for r in runs),
                               statistics.median(r[2] for r in runs), len(runs[0][1]), runs[0][3], runs[0][4])
            browser.close()
    finally:
        site.close()
        pages.cleanup()
    base = rows["index.html alone"]
    print(f"A course page with N pieces, against index.html alone (medians of {args.runs} run(s); "
          "fresh context each, strict host, sub-path):")
    print(f"{'':20} {'bytes':>12} {'x':>6} {'wasm MB':>8} {'x':>6} {'Pythons':>7} {'wasm/snapshot sent':>18} {'ready s':>8} {'x':>6}")
    for label, (sent, memory, ms, pythons, wasm, snapshot) in rows.items():
        print(f"{label:20} {sent:>12,.0f} {sent / base[0]:>6.2f} {memory / 2**20:>8.1f} {memory / base[1]:>6.2f} "
              f"{pythons:>7} {f'{wasm} / {snapshot}':>18} {ms / 1000:>8.1f} {ms / base[2]:>6.2f}")
    ratio = rows["6 pieces"][1] / rows["1 piece"][1]
    print(f"wasm memory, 6 pieces over 1 with the hub: {ratio:.2f}x (at most {MEMORY_6_OVER_1}x: "
          f"{'ok' if ratio <= MEMORY_6_OVER_1 else 'OVER'})")
    note("hub_cost", "wasm memory, 6 pieces over 1, with the hub", f"{ratio:.2f}x",
         f"at most {MEMORY_6_OVER_1}x", ratio <= MEMORY_6_OVER_1)
    for label in ("3 pieces", "6 pieces"):
        sent, memory, ms = rows[label][:3]
        note("hub_cost", f"{label} over index.html alone: bytes, wasm memory, ready",
             f"{sent / base[0]:.2f}x, {memory / base[1]:.2f}x, {ms / base[2]:.2f}x")
    write_table(rows)
    return 0 if ratio <= MEMORY_6_OVER_1 else 1


COURSE_SITES = ROOT / "docs" / "course-sites.md"


def write_table(rows):
    """docs/course-sites.md's table of what N pieces cost, from this run (between its markers)."""
    base = rows["index.html alone"]
    lines = ["<!-- hub-cost -->",
             "| page | downloaded | × | wasm memory | × | Pythons | ready | × |",
             "|---|---|---|---|---|---|---|---|"]
    for label, (sent, memory, ms, pythons, _, _) in rows.items():
        name = "`index.html` alone" if label == "index.html alone" else label
        lines.append(f"| {name} | {sent / 1e6:.1f} MB | {sent / base[0]:.2f} | {memory / 2**20:.0f} MB | "
                     f"{memory / base[1]:.2f} | {pythons} | {ms / 1000:.1f} s | {ms / base[2]:.2f} |")
    text = COURSE_SITES.read_text()
    start, end = text.index("<!-- hub-cost -->"), text.index("<!-- /hub-cost -->")
    COURSE_SITES.write_text(text[:start] + "\n".join(lines) + "\n" + text[end:])


if __name__ == "__main__":
    sys.exit(main())
