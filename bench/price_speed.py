"""make bench (price): the page with its "Go further" panel open, from a change of price to
the good requests per dollar on screen.

At Splitwise-HA's named state (8 GPUs, 3 H100 readers, 5 A100 writers, 16 req/s), a new price
is typed into the readers' price field, CHANGES times, each a price not seen before: the
milliseconds from the key to the per-dollar sentence beside the rate goodput saying it. A price
changes no simulation, so from the second change on this is the page's own path (the numbers,
the main charts, then the rate goodput and the economics in the figures' lane, all from runs
Python has cached): their median and p95. The first change is noted apart: a named state's
link shows the runs the build made, and Python makes none of them (for the models' states
that took minutes), so the first change of price is when this browser first simulates them.
"""

import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import note  # noqa: E402
from page_speed import booted, launch, p95, serve  # noqa: E402

START = "?gpus=8&readers=3&rps=16&reader_gpu=H100"  # Splitwise-HA's state: opens the panel
CHANGES = 12

LISTEN = """() => {
    const b = window.__price = {down: [], said: []};
    document.getElementById('price-reader_price').addEventListener('keydown', () => b.down.push(performance.now()), true);
    new MutationObserver(() => b.said.push([performance.now(), document.getElementById('caption-economics').textContent]))
        .observe(document.getElementById('caption-economics'), {childList: true, subtree: true, characterData: true});
}"""


def change(page, price):
    """Type a new price (its last key timed); ms from that key to the sentence that says it."""
    page.fill("#price-reader_price", f"{price:.2f}"[:-1])  # all but the last digit ...
    page.press("#price-reader_price", f"{price:.2f}"[-1])  # ... which is the change timed
    said = f"at ${price:.2f} an hour each (given)"
    page.wait_for_function("said => __price.said.some(([t, text]) => text.includes(said) && t >= __price.down.at(-1))",
                           arg=said)
    b = page.evaluate("window.__price")
    down = b["down"][-1]
    return next(t for t, text in b["said"] if said in text and t >= down) - down


def main():
    server = serve()
    url = f"http://127.0.0.1:{server.server_address[1]}/{START}"
    with sync_playwright() as p:
        browser = launch(p)
        page = booted(browser, url)
        page.evaluate(LISTEN)
        runs = [change(page, 2.05 + 0.1 * k) for k in range(CHANGES)]
        browser.close()
    server.shutdown()
    first, rest = runs[0], runs[1:]
    note("price_speed", "a typed price to the per-dollar numbers, the first after the state's link "
         "(its runs not yet simulated here)", f"{first:.0f} ms")
    note("price_speed", "a typed price to the per-dollar numbers, p95 of the changes after it",
         f"{p95(rest):.0f} ms")
    print(f"price page (panel open, {START[1:]}): price typed to the per-dollar numbers: the first "
          f"change {first:.0f} ms (the state's runs simulated then); the {len(rest)} after it: "
          f"median {statistics.median(rest):.0f} ms, p95 {p95(rest):.0f} ms")


if __name__ == "__main__":
    main()
