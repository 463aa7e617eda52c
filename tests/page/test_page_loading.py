"""While Python starts (its snapshot held back here), the status line says what is true at
each moment: baked numbers for exactly these settings are not called stale, numbers for an
earlier setting are greyed and said to be, and the learner's own settings stay readable."""

import sim
from conftest import BOOT_TIMEOUT, Watch
from sim.show.report import shown
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
        page.goto(site)
        page.wait_for_function("() => window.pdsplit && document.getElementById('headline').textContent.includes('98.7%')")
        assert held, "the snapshot was asked for"
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
