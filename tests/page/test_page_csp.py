"""A strict host: dist/embed-example.html (a course page with three pieces) served under a
sub-path with exactly the docs/course-sites.md's Content-Security-Policy and MIME types (nosniff). Every
piece boots from its snapshot, is lazy, shows native Python's numbers, fits its frame at 375
and 1280 px, and nothing is refused: no violation in the host, the frames or the workers."""

import pytest

from conftest import BOOT_TIMEOUT, DIST, Watch, readme_mime_types, state_query
from pieces import VIOLATIONS, assert_fits_its_frame, assert_native, piece_frame, wait_until

# The example's pieces: the parts each shows, and its sliders (embed-example.html).
PIECES = [
    ({"headline"}, ["rps", "prompt", "reply", "link", "ttft_target", "gap_target"], []),
    (set(), ["link"], ["link"]),
    (set(), ["rps"], ["gap"]),
]


def test_the_readme_types_cover_every_file_in_dist():
    types = readme_mime_types()
    missing = {p.suffix for p in DIST.rglob("*") if p.is_file()} - set(types)
    assert not missing, f"docs/course-sites.md's MIME table lacks {missing}"


@pytest.mark.parametrize("width", [375, 1280])
def test_the_example_course_page_under_the_strict_csp(browser, strict_site, width):
    context = browser.new_context(viewport={"width": width, "height": 800})
    context.add_init_script(VIOLATIONS)
    page = context.new_page()
    watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        page.goto(strict_site.url + "embed-example.html")
        # Lazy: a piece more than 600 px below the screen has no page yet (so no Python). The
        # observer reports after the frames are made, so wait (in one look at the page, so
        # that where a frame is and whether it has a page are seen together) until every
        # near piece has its page; the far one must still have none.
        far = page.wait_for_function("""() => {
            const frames = Array.from(document.querySelectorAll('iframe.pdsplit-frame'));
            const seen = frames.map(f => [f.getBoundingClientRect().top > innerHeight + 600, f.getAttribute('src')]);
            return frames.length === 3 && seen.every(([isFar, src]) => isFar || src !== null) && seen;
        }""").json_value()
        assert any(is_far for is_far, _ in far), "the example should have a piece below the fold"
        for is_far, src in far:
            assert src is None if is_far else src is not None
        for index, (parts, sliders, charts) in enumerate(PIECES):
            frame = piece_frame(page, index)
            assert frame.evaluate("window.pdsplit.python().boot") == "snapshot"
            assert frame.evaluate("new URLSearchParams(location.search).get('embed')") == "1"
            assert not frame.is_visible("body > header")  # no title, no introduction
            assert frame.is_visible("#headline") == ("headline" in parts)
            visible = frame.evaluate("""() => Array.from(document.querySelectorAll('#sliders input'))
                .filter(e => e.getClientRects().length).map(e => e.id.replace('slider-', ''))""")
            assert visible == sliders
            settings, drawn = assert_native(frame)
            assert drawn == charts
            # Plotly's own rules came from vendor/plotly.css, not from a <style> it made
            if charts:
                assert frame.evaluate("getComputedStyle(document.querySelector('.main-svg')).position") == "absolute"
            assert frame.evaluate("document.querySelectorAll('style').length") == 0
        assert page.locator("iframe.pdsplit-frame").nth(1).element_handle().content_frame().evaluate(
            "window.pdsplit.settings().rps") == 10
        for index in range(len(PIECES)):
            assert_fits_its_frame(page, index)
        assert watch.console_errors() == []
        for index in range(len(PIECES)):
            frame = page.locator("iframe.pdsplit-frame").nth(index).element_handle().content_frame()
            assert frame.evaluate("window.__violations") == []
        assert page.evaluate("window.__violations") == []
        # The reports do reach the test: a deliberate violation in the host comes through.
        # Any earlier one (the frames', their workers') was sent when it happened, before it.
        page.evaluate("document.body.setAttribute('style', 'outline: 0')")
        control = lambda r: r.get("violated-directive") == "style-src-attr" and r.get("document-uri", "").endswith("/embed-example.html")
        wait_until(lambda: any(map(control, strict_site.reports)), page)
        assert [r for r in strict_site.reports if not control(r)] == []
    finally:
        strict_site.reports.clear()
        context.close()


def test_the_memory_chart_as_a_piece_under_the_strict_csp(browser, strict_site):
    """Memory over time, a piece of its own for course sites (show=memory), at 'Memory pushes
    back': drawn, native Python's, themed as asked, and nothing refused."""
    import sim
    from sim.show.figures import FIGURES

    context = browser.new_context(viewport={"width": 375, "height": 740})
    context.add_init_script(VIOLATIONS)
    page = context.new_page()
    watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        page.goto(strict_site.url + "?embed=1&show=memory&theme=dark&" + state_query("memory-pushes-back"))
        page.evaluate("window.pdsplit.ready")
        page.evaluate("window.pdsplit.settled()")
        assert page.is_visible("#chart-kv") and not page.is_visible("#chart-goodput")
        s = sim.Settings.make(**page.evaluate("window.pdsplit.settings()"))
        assert page.evaluate("window.pdsplit.figure('kv').caption") == FIGURES["kv"].render(sim.Lab(), s)["caption"]
        assert page.evaluate("document.querySelectorAll('#chart-kv .main-svg').length") > 0  # Plotly drew it
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert page.evaluate("window.__violations") == [] and strict_site.reports == []
        assert watch.console_errors() == []
    finally:
        strict_site.reports.clear()
        context.close()


def test_vendor_plotly_css_is_what_plotly_would_add(browser, site):
    """vendor/plotly.css, read out of the bundle by the build, holds exactly the rules Plotly
    adds itself where it may (no CSP, no opt-out element), in the same order."""
    page = browser.new_page()
    try:
        page.goto(site + "vendor/plotly.css")  # same origin as the files, no page of ours
        rules = page.evaluate("""async () => {
            const load = (tag, attrs) => new Promise((resolve, reject) => {
                const e = Object.assign(document.createElement(tag), attrs);
                e.onload = () => resolve(e); e.onerror = reject; document.head.append(e);
            });
            const texts = sheet => Array.from(sheet.cssRules, r => r.cssText);
            await load('script', {src: 'plotly-basic.min.js'});
            const added = texts(document.getElementById('plotly.js-style-global').sheet);
            const file = await load('link', {rel: 'stylesheet', href: 'plotly.css'});
            return {added, file: texts(file.sheet)};
        }""")
        assert len(rules["added"]) > 50
        assert rules["file"] == rules["added"]
    finally:
        page.close()
