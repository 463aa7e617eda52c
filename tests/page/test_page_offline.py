"""Nothing leaves 127.0.0.1, the console stays clean, and numbers come before Python."""

import re
from urllib.parse import urlparse

import sim
from conftest import open_page


def test_no_request_leaves_localhost_and_no_console_error(browser, site):
    context = browser.new_context()
    blocked = []

    def guard(route):  # anything not on our server is refused and remembered
        if urlparse(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    context.add_init_script("Object.defineProperty(navigator, 'hardwareConcurrency', {get: () => 4});")  # 2 workers
    page = context.new_page()
    from conftest import Watch
    watch = Watch(context, page)
    page.set_default_timeout(90_000)
    try:
        page.goto(site + "?prompt=4000")
        page.evaluate("window.pdsplit.ready")
        page.evaluate("window.pdsplit.set({rps: 8})")
        page.evaluate("window.pdsplit.settled()")
        assert blocked == []
        hosts = {urlparse(u).hostname for u in watch.requests if not u.startswith("data:")}
        assert hosts == {"127.0.0.1"}
        # Python booted from the build's snapshot, from us (a plain boot's wheel: test_page_heal),
        # and each big file came once: the figures' worker got both from the first worker
        paths = [urlparse(u).path for u in watch.requests]
        assert sum(p.endswith("/snapshot.bin.gz") for p in paths) == 1
        assert sum(p.endswith("/pyodide.asm.wasm.gz") for p in paths) == 1  # packed, unpacked as it came
        assert not any(p.endswith("/pyodide.asm.wasm") for p in paths)
        assert page.evaluate("window.pdsplit.memory()").keys() == {"numbers", "figures"}
        # after a redeploy nothing cached may mix with new files: each URL names its version
        # (?v= the build's content hash, or Pyodide's own version folder), but the service
        # worker's, whose URL stays (the browser checks it for a new version on every visit)
        for u in watch.requests:
            url = urlparse(u)
            if url.scheme == "http" and url.path not in (urlparse(site).path, urlparse(site).path + "sw.js"):
                assert "v=" in url.query or re.search(r"/pyodide/\d+\.\d+\.\d+/", url.path), u
        assert watch.console_errors() == []
    finally:
        context.close()


def test_baked_numbers_and_charts_before_python(browser, site):
    context = browser.new_context()
    context.add_init_script("""
        window.__shown = [];
        for (const kind of ['numbers', 'charts', 'settled'])
            addEventListener('pdsplit:' + kind, e => window.__shown.push([kind, e.detail.source]));
    """)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(site)
        assert page.text_content("#headline").endswith("splitting them serves 98.7%.")  # in the HTML
        page.evaluate("window.pdsplit.ready")
        # the baked figures settle too, in their turn: Python's numbers may come before the last
        # of them when Plotly came late (they then wait for it, and Python does not)
        page.wait_for_function("window.__shown.some(([kind, source]) => kind === 'settled' && source === 'baked')")
        shown = page.evaluate("window.__shown")
        baked = [kind for kind, source in shown if source == "baked"]
        assert shown[0] == ["numbers", "baked"] and baked == ["numbers", "charts", "settled"], shown
        assert ["numbers", "python"] in shown
        for kind in ("numbers", "charts", "settled"):  # each kind shown baked before Python's
            python = [k for k, (seen, source) in enumerate(shown) if seen == kind and source == "python"]
            assert not python or shown.index([kind, "baked"]) < python[0], shown
        timings = page.evaluate("window.pdsplit.timings")
        assert timings["firstNumbers"] < timings["pythonReady"]
        assert page.evaluate("window.pdsplit.result()") == sim.compare()
        assert "computed in your browser" in page.text_content("#status")
    finally:
        context.close()


def test_sliders_move_while_python_boots_and_latest_wins(browser, site):
    page = open_page(browser, site, ready=False)
    try:
        page.focus("#slider-reply")
        for _ in range(5):
            page.keyboard.press("ArrowRight")  # 200 -> 250 words, perhaps before Python is up
        assert page.evaluate("window.pdsplit.settings().reply") == 250
        page.evaluate("window.pdsplit.ready")
        # Python may have been up before the keys (a snapshot boots in a second): `ready` then
        # came with the defaults' numbers, and the keys' follow it
        page.wait_for_function("window.pdsplit.result()?.settings.reply === 250")
        assert page.evaluate("window.pdsplit.result()") == sim.compare(reply=250)
        # A burst of settings: only the last may end up on screen.
        last = page.evaluate("""async () => {
            const shown = [];
            addEventListener('pdsplit:numbers', e => shown.push(e.detail.key));
            const promises = [2, 3, 5, 6, 7].map(rps => window.pdsplit.set({rps}).catch(e => e.message));
            const outcomes = await Promise.all(promises);
            return {outcomes: outcomes.map(o => typeof o === 'string' ? o : o.settings.rps), shown};
        }""")
        # All five are asked in one tick, before any reply: the first four are superseded
        # before their numbers can come back, and only the last setting reaches the screen.
        assert last["outcomes"] == ["superseded by newer settings"] * 4 + [7]
        assert last["shown"] and all(key.startswith("7|") for key in last["shown"])
        assert page.evaluate("window.pdsplit.result()") == sim.compare(reply=250, rps=7)
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate("window.pdsplit.figure('gap').figure.data[0].x").count(7.0) == 1
    finally:
        page.context.close()
