"""Light on a phone (issue 49): Python ready, and the bytes the host sent, on an emulated phone
and on the desktop, the page against a plain Pyodide boot of the same wheel, in one run.

- The phone: Chromium DevTools' own emulation (20 Mbit/s down, 40 ms latency, the CPU slowed
  4x), a 375 px viewport. The host is the strict one of the tests (docs/course-sites.md's CSP
  and MIME types), which compresses nothing, and counts every byte it sends.
- The page, first visit: a fresh profile. Second visit: a fresh tab in the same profile, at
  another state (what the browser kept is used: the Cache API's copies, and its HTTP cache).
- A plain Pyodide boot: a page of its own beside dist/'s files whose module worker loads
  Pyodide from the same folder, installs the same wheel with micropip and imports the page's
  module, as the page did before its snapshot. Python ready is each page's performance.now()
  at that moment. DevTools' CPU slowdown applies to the pages' main threads, not to their
  workers, where both boot: on the phone it slows what each page does around its worker.

Rounds alternate the ways, fresh profiles each; medians are printed. Run alone:
CHROMIUM=/usr/bin/chromium .venv/bin/python bench/phone_speed.py
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]
from record import note  # noqa: E402
from sim import check  # noqa: E402
from hub_pages import HOSTS, CountingSite  # noqa: E402
from conftest import DIST  # noqa: E402

ARGS = ["--headless", *check.CHROMIUM_ARGS]
PHONE = {"latency": 40, "down": 20e6 / 8, "up": 5e6 / 8, "cpu": 4}  # as issue 49 measured
# what a first visit leaves in the browser's cache for the next (web/downloads.js, web/sw.js)
KEPT = ["pyodide.asm.wasm.gz", "snapshot.bin.gz", "states.json.gz", "pyodide.asm.mjs", "plotly-basic.min.js"]
TARGETS = {"first_ratio": 0.6, "first_mb": 12.0, "second_s": 1.5, "second_largest_kb": 100.0,
           "desktop_ratio": 1 / 2.5}

# A plain Pyodide boot of the page's wheel, in a module worker as the page's own (DevTools'
# CPU slowdown is the main thread's): what the page did before its snapshot.
PLAIN_JS = """const config = JSON.parse(document.getElementById("config").textContent);
const worker = new Worker(new URL(`plain-worker.js?${new URLSearchParams(config)}`, location.href), { type: "module" });
worker.onmessage = () => { window.plainReady = performance.now(); };
"""
PLAIN_WORKER = """const here = new URL(import.meta.url);
const dir = new URL(here.searchParams.get("pyodide"), here).href;
const { loadPyodide } = await import(new URL("pyodide.mjs", dir).href);
const pyodide = await loadPyodide({ indexURL: dir });
await pyodide.loadPackage("micropip");
await pyodide.pyimport("micropip").install.callKwargs(new URL(here.searchParams.get("wheel"), here).href, { deps: false });
pyodide.runPython("import sim.show.page; sim.show.page.Page()");
postMessage("ready");
"""


def plain_page(folder):
    """plain-boot.html and plain-boot.js, served beside dist/'s files (the strict host's CSP
    allows no inline script): the same Pyodide folder and wheel as the page's."""
    page = (DIST / "index.html").read_text()
    config = json.loads(page.split('id="pdsplit-python">', 1)[1].split("</script>", 1)[0])
    html = folder / "plain-boot.html"
    html.write_text('<!doctype html><meta charset="utf-8"><title>plain boot</title>'
                    f'<script type="application/json" id="config">{json.dumps(config)}</script>'
                    '<script type="module" src="plain-boot.js"></script>')
    (folder / "plain-boot.js").write_text(PLAIN_JS)
    (folder / "plain-worker.js").write_text(PLAIN_WORKER)
    HOSTS.update({name: folder / name for name in ("plain-boot.js", "plain-worker.js")},
                 **{"plain-boot.html": html})


def emulate(context, page, phone):
    if not phone:
        return
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": PHONE["latency"], "downloadThroughput": PHONE["down"],
        "uploadThroughput": PHONE["up"]})
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": PHONE["cpu"]})


def visit(context, site, url, phone, plain=False):
    """A new tab: (Python ready in s, MB the host sent, its largest file's KB, files from disk)."""
    page = context.new_page()
    page.set_default_timeout(300_000)
    emulate(context, page, phone)
    site.reset()
    page.goto(url)
    if plain:
        page.wait_for_function("() => window.plainReady !== undefined", polling=100)
        ready, kept = page.evaluate("window.plainReady"), []
    else:
        page.evaluate("window.pdsplit.ready")
        ready = page.evaluate("window.pdsplit.timings.pythonReady")
        kept = page.evaluate("window.pdsplit.python()").get("kept", [])
        # a learner stays longer than the moment the browser takes to store what came (the
        # core, the snapshot, the named states' results, and the two scripts, unpacked)
        page.evaluate("""async (names) => {
            const kept = async () => (await (await caches.open("pdsplit")).keys()).map((r) => new URL(r.url).pathname.split("/").pop());
            for (let i = 0; i < 600; i++) {
                const now = await kept();
                if (names.every((name) => now.includes(name))) return;
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
        }""", KEPT)
    sent = list(site.handler.sent)
    page.close()
    largest = max(sent, key=lambda f: f[1], default=("", 0))
    return {"ready": ready / 1000, "mb": sum(n for _, n in sent) / 1e6, "largest": largest,
            "kept": kept}


def context_for(browser, phone):
    size = {"width": 375, "height": 812} if phone else {"width": 1280, "height": 800}
    return browser.new_context(viewport=size, is_mobile=phone, has_touch=phone)


def rounds(browser, site, count, phone):
    found = {"first": [], "second": [], "plain": []}
    for _ in range(count):
        context = context_for(browser, phone)
        found["first"].append(visit(context, site, site.url + "?rps=7.5", phone))
        found["second"].append(visit(context, site, site.url + "?rps=5", phone))
        context.close()
        context = context_for(browser, phone)
        found["plain"].append(visit(context, site, site.url + "plain-boot.html", phone, plain=True))
        context.close()
    return found


def median(runs, key):
    return statistics.median(r[key] for r in runs)


def report(found, phone):
    where = "phone (20 Mbit/s, 40 ms, CPU 4x)" if phone else "desktop (no emulation)"
    first, second, plain = (median(found[k], "ready") for k in ("first", "second", "plain"))
    ratio = first / plain
    print(f"{where}, medians of {len(found['first'])}:")
    for name, key in (("the page, first visit", "first"), ("the page, second visit", "second"),
                      ("a plain Pyodide boot", "plain")):
        runs = found[key]
        name_, size = max((r["largest"] for r in runs), key=lambda f: f[1])
        print(f"  {name:<24} Python ready {median(runs, 'ready'):5.2f} s, "
              f"{median(runs, 'mb'):5.1f} MB sent (largest file {name_ or '-'} {size / 1e3:,.0f} kB)")
    print(f"  first visit over the plain boot: {ratio:.2f}x")
    label = "phone" if phone else "desktop"
    if phone:
        mb = median(found["first"], "mb")
        largest = max(r["largest"][1] for r in found["second"]) / 1e3
        note("phone_speed", "phone: first visit's Python ready over a plain Pyodide boot's",
             f"{ratio:.2f}x", f"at most {TARGETS['first_ratio']}x", ratio <= TARGETS["first_ratio"])
        note("phone_speed", "phone: first visit's bytes", f"{mb:.1f} MB",
             f"at most {TARGETS['first_mb']:.0f} MB", mb <= TARGETS["first_mb"])
        note("phone_speed", "phone: second visit's Python ready", f"{second:.2f} s",
             f"at most {TARGETS['second_s']} s", second <= TARGETS["second_s"])
        note("phone_speed", "phone: second visit's largest file sent again", f"{largest:,.0f} kB",
             f"at most {TARGETS['second_largest_kb']:.0f} kB", largest <= TARGETS["second_largest_kb"])
    else:
        note("phone_speed", "desktop: Python ready over a plain Pyodide boot's", f"{ratio:.2f}x",
             f"at most {TARGETS['desktop_ratio']:.2f}x", ratio <= TARGETS["desktop_ratio"])
        note("phone_speed", "desktop: second visit's Python ready", f"{second:.2f} s")
    return label


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if not (DIST / "index.html").is_file():
        sys.exit("dist/ is not built: run make build")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        plain_page(Path(tmp))
        site = CountingSite()
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=ARGS)
        try:
            for phone in (True, False):
                report(rounds(browser, site, args.rounds, phone), phone)
        finally:
            browser.close()
            site.close()


if __name__ == "__main__":
    main()
