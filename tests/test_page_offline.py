"""Nothing leaves 127.0.0.1, the console stays clean, and numbers come before Python."""

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
        assert any(u.endswith(".whl") for u in watch.requests)  # the wheel came from us
        assert watch.console_errors() == []
    finally:
        context.close()


def test_baked_numbers_and_charts_before_python(browser, site):
    page = open_page(browser, site, ready=False)
    try:
        page.wait_for_function("!Number.isNaN(window.pdsplit.timings.firstNumbers)")
        timings = page.evaluate("window.pdsplit.timings")
        assert timings["firstNumbers"] < 1000  # ms after navigation began
        if timings["pythonReady"] == timings["pythonReady"]:  # not NaN: Python beat us
            assert timings["firstNumbers"] < timings["pythonReady"]
        assert page.evaluate("window.pdsplit.result()") == sim.compare()
        assert page.locator("#chart-goodput .main-svg").count() > 0
        page.evaluate("window.pdsplit.ready")
        assert "computed in your browser" in page.text_content("#status")
    finally:
        page.context.close()


def test_sliders_move_while_python_boots_and_latest_wins(browser, site):
    page = open_page(browser, site, ready=False)
    try:
        page.focus("#slider-reply")
        for _ in range(5):
            page.keyboard.press("ArrowRight")  # 200 -> 250 words, perhaps before Python is up
        assert page.evaluate("window.pdsplit.settings().reply") == 250
        page.evaluate("window.pdsplit.ready")
        assert page.evaluate("window.pdsplit.result()") == sim.compare(reply=250)
        # A burst of settings: only the last may end up on screen.
        last = page.evaluate("""async () => {
            const shown = [];
            addEventListener('pdsplit:numbers', e => shown.push(e.detail.key));
            const promises = [2, 3, 5, 6, 7].map(rps => window.pdsplit.set({rps}).catch(e => e.message));
            const outcomes = await Promise.all(promises);
            return {outcomes: outcomes.map(o => typeof o === 'string' ? o : o.settings.rps), shown};
        }""")
        assert last["outcomes"][-1] == 7
        assert all(o in ("superseded by newer settings", 7) or o == 2 for o in last["outcomes"])
        assert last["shown"][-1].startswith("7|")
        assert page.evaluate("window.pdsplit.result()") == sim.compare(reply=250, rps=7)
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate("window.pdsplit.figure('gap').figure.data[0].x").count(7.0) == 1
    finally:
        page.context.close()
