"""make bench (stages): figures 7 and 9 filling in, a panel or a mix at a time.

They come last in the figures' lane and take longest to work out, so the page shows each
panel or mix as soon as it is done (Figure.stages). At the explorer's settings with Azure
chat chosen, on one worker (a device of two cores, as this machine), CHANGES changes of the
request count, each a setting not seen before: from the change, each figure's first stage on
screen and the whole figure, median and p95; and the same figure worked out natively from a
fresh lab, for scale. There is no target: the closing note of issue 23 compares these with
the page before stages, which drew each figure only whole.
"""

import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import note  # noqa: E402
from page_speed import launch, new_page, p95, serve  # noqa: E402

import sim  # noqa: E402
from sim.show.figures import FIGURES  # noqa: E402

START = "?gpus=4&readers=2&chunk=512&routing=least-loaded&traffic=azure-chat"
CHANGES = 8
REQUESTS = [500, 700, 400, 800, 450, 650, 550, 750]  # each new: nothing is cached
STAGED = ("chips", "know")  # figure 9, figure 7: the order of the lane

# Each draw of figures 7 and 9: when, and whether it is a stage (the note under the chart
# says that more follow) or the whole figure.
DRAWS = """
    window.__stages = [];
    let real;
    Object.defineProperty(window, "Plotly", { configurable: true, get: () => real, set(plotly) {
        real = plotly;
        const react = plotly.react;
        plotly.react = function (chart, ...rest) {
            const drawn = react.call(this, chart, ...rest);
            if (chart.id === "chart-know" || chart.id === "chart-chips") {
                const at = performance.now();
                queueMicrotask(() => window.__stages.push({ name: chart.id.slice(6), at,
                    stage: chart.parentElement.querySelector(".filling")?.classList.contains("on") ?? false }));
            }
            return drawn;
        };
    } });
"""


def change(page, requests):
    """ms from a change of the request count to each staged figure's first stage and whole."""
    began = page.evaluate("""(requests) => {
        window.__stages.length = 0;
        window.pdsplit.set({requests});
        return performance.now();
    }""", requests)
    page.evaluate("window.pdsplit.settled()")
    draws = page.evaluate("window.__stages")
    took = {}
    for name in STAGED:
        mine = [d for d in draws if d["name"] == name]
        first = next((d["at"] for d in mine if d["stage"]), None)  # a stage may not be needed
        whole = [d["at"] for d in mine if not d["stage"]][-1]
        took[name] = (None if first is None else first - began, whole - began)
    return took, page.evaluate("window.pdsplit.settings()")


def native(name, settings):
    began = time.perf_counter()
    FIGURES[name].render(sim.Lab(), sim.Settings.make(**settings))
    return (time.perf_counter() - began) * 1000


def main():
    server = serve()
    with sync_playwright() as p:
        browser = launch(p)
        page = new_page(browser, 2)  # two cores: one worker computes everything
        page.context.add_init_script(DRAWS)
        page.set_default_timeout(180_000)
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/{START}")
        page.evaluate("window.pdsplit.ready")
        page.evaluate("window.pdsplit.settled()")
        runs = [change(page, n) for n in REQUESTS[:CHANGES]]
        browser.close()
    server.shutdown()
    print(f"Figures 7 and 9 in stages ({START[1:]}, one worker; {CHANGES} changes of the "
          "request count), ms from the change:")
    for name, words in (("chips", "figure 9 (chips)"), ("know", "figure 7 (traffic)")):
        firsts = [took[name][0] for took, _ in runs if took[name][0] is not None]
        wholes = [took[name][1] for took, _ in runs]
        work = [native(name, settings) for _, settings in runs]
        first = (f"first stage median {statistics.median(firsts):6.0f}, p95 {p95(firsts):6.0f}"
                 if firsts else "no stage")
        note("stage_speed", f"{words}: first stage and whole, medians from a change",
             (f"{statistics.median(firsts):.0f} ms, " if firsts else "no stage, ")
             + f"{statistics.median(wholes):.0f} ms (natively {statistics.median(work):.0f} ms)")
        print(f"  {words:<19} {first} ({len(firsts)} of {len(runs)} changes); whole median "
              f"{statistics.median(wholes):6.0f}, p95 {p95(wholes):6.0f}; natively, whole, median "
              f"{statistics.median(work):5.0f}")


if __name__ == "__main__":
    main()
