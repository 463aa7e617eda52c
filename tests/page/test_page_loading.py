"""While Python starts (its snapshot held back here), the status line says what is true at
each moment: baked numbers for exactly these settings are not called stale, numbers for an
earlier setting are greyed and said to be, and the learner's own settings stay readable."""

import json

import sim
from conftest import BOOT_TIMEOUT, Watch
from sim.show.figures import FIGURES
from sim.show.numbers import shown
from test_page_themes import LOW_CONTRAST

STATUS = "() => document.getElementById('status').textContent"
STALE = "() => document.body.classList.contains('stale')"


def test_the_status_line_agrees_with_what_is_greyed_while_python_starts(browser, site):
    held = []
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route("**/snapshot.bin.gz*", lambda route: held.append(route))  # answered at the end
    page = context.new_page()
    page.watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        # (on a first visit the worker starts once the page's service worker serves it)
        with context.expect_event("request", lambda request: "snapshot.bin.gz" in request.url):
            page.goto(site)
        page.wait_for_function("() => window.pdsplit && document.getElementById('headline').textContent.includes('98.7%')")
        assert "worked out for these settings when this page was built" in page.evaluate(STATUS)
        assert not page.evaluate(STALE)

        page.focus("#slider-rps")
        page.keyboard.press("ArrowRight")  # 4.25 req/s: not baked, so the numbers are 4's
        page.wait_for_function("() => document.body.classList.contains('stale')")
        assert "the numbers shown (dimmed) are for an earlier setting" in page.evaluate(STATUS)
        assert page.text_content("#value-rps") == "4.25 req/s"
        ink = page.evaluate("getComputedStyle(document.querySelector('.slider label')).color")
        assert page.evaluate("getComputedStyle(document.getElementById('value-rps')).color") == ink
        greyed = page.evaluate("getComputedStyle(document.querySelector('#headline [data-metric]')).color")
        assert greyed != ink
        assert page.evaluate(LOW_CONTRAST)["low"] == []  # greyed, and still 4.5:1

        page.get_by_role("button", name="Busy: 10 req/s").click()  # baked: exact at once
        page.wait_for_function("() => !document.body.classList.contains('stale')")
        assert "worked out for these settings when this page was built" in page.evaluate(STATUS)
        assert page.text_content('#headline [data-metric="split.goodput"]') == shown(sim.compare(rps=10))["split.goodput"]

        for route in held:
            route.continue_()
        page.evaluate("window.pdsplit.ready")
        assert "every number here is now computed in your browser" in page.evaluate(STATUS)
        assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=10)
    finally:
        context.close()


def test_the_controls_and_numbers_do_not_wait_for_the_charts_library(browser, site):
    """Plotly (1.2 MB) held back: the text, the baked numbers and the sliders are there and
    work, Python's numbers come, and the status line says the charts follow; once Plotly has
    come, the charts are drawn for the settings of the moment (issue 49: at 10 Mbit/s, the
    sliders used to stay blank until Plotly had shared the line with Python's download)."""
    held = []
    context = browser.new_context(viewport={"width": 375, "height": 740})
    context.route("**/plotly-basic.min.js*", lambda route: held.append(route))
    page = context.new_page()
    page.watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        # start.js asks for Plotly once the worker runs
        with context.expect_event("request", lambda request: "plotly-basic.min.js" in request.url):
            page.goto(site, wait_until="domcontentloaded")
        page.wait_for_function("() => window.pdsplit && document.getElementById('headline').textContent.includes('98.7%')")
        assert held and page.evaluate("typeof Plotly") == "undefined"
        assert "The charts follow as soon as their library has loaded." in page.evaluate(STATUS)
        page.focus("#slider-rps")
        page.keyboard.press("ArrowRight")  # 4.25 req/s
        assert page.text_content("#value-rps") == "4.25 req/s"
        page.evaluate("window.pdsplit.ready")
        page.wait_for_function("() => window.pdsplit.result().settings.rps === 4.25")
        assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=4.25)
        assert page.query_selector("#chart-goodput .main-svg") is None  # nothing drawn yet
        assert "The charts follow" in page.evaluate(STATUS)
        for route in held:
            route.continue_()
        page.evaluate("window.pdsplit.settled()")
        assert page.query_selector("#chart-goodput .main-svg") is not None
        # what the chart shows is the native figure for these settings, at its width
        figure = page.evaluate("window.pdsplit.figure('goodput')")
        native = json.loads(json.dumps(FIGURES["goodput"].render(sim.Lab(), sim.Settings(rps=4.25))))
        assert figure["figure"] == native["figure"] and figure["caption"] == native["caption"]
        drawn = page.evaluate("document.getElementById('chart-goodput').data.map((t) => t.y)")
        assert drawn == [trace["y"] for trace in native["figure"]["data"]]
        assert "The charts follow" not in page.evaluate(STATUS)
        assert page.watch.console_errors() == []
    finally:
        context.close()
