"""The one-line embed: docs/course-sites.md's snippet for each kind of site is the same two lines, the
plain HTML one runs (a lazy frame in embed mode, sized to its content, with the author's
colours), and embed mode's URL names are read like settings: a bad value is said, never fatal."""

import re

import pytest

from conftest import BOOT_TIMEOUT, COURSE_SITES, README, Watch, open_page
from pieces import assert_fits_its_frame, assert_native, piece_frame

ONE_LINE = '<div data-pdsplit="?rps=10&show=link"></div>'
SCRIPT = re.compile(r'<script src="([^"]*/embed\.js)" defer></script>')
SITES = ["plain HTML", "MkDocs Material", "Docusaurus MDX", "Jupyter Book", "Quarto"]


def snippet(site):
    """docs/course-sites.md's snippet for a kind of site: the fenced block after <!-- embed: site -->."""
    found = re.search(rf"<!-- embed: {re.escape(site)} -->\n(`{{3,4}})\w+\n(.*?)\n\1\n", COURSE_SITES, re.S)
    assert found, f"docs/course-sites.md has no snippet for {site}"
    return found.group(2)


def test_the_one_line_embed_leads_the_section():
    section = COURSE_SITES.split("## Live pieces in your text", 1)[1]
    first = re.search(r"```html\n(.*?)```", section, re.S).group(1).splitlines()
    assert first[0] == ONE_LINE and SCRIPT.fullmatch(first[1])


def test_the_readme_s_three_lines_are_the_plain_html_snippet():
    """The front door's embed is the very snippet the tests boot below, not a copy that drifts."""
    section = README.split("## On your course page", 1)[1]
    lines = re.search(r"```html\n(.*?)```", section, re.S).group(1).strip()
    assert lines == snippet("plain HTML") and len(lines.splitlines()) == 3


@pytest.mark.parametrize("site", SITES)
def test_each_site_gets_the_same_one_line_embed(site):
    lines = [line.strip() for line in snippet(site).splitlines()]
    assert lines.count(ONE_LINE) == 1
    scripts = [SCRIPT.search(line) for line in lines if "<script" in line]
    assert len(scripts) == 1 and scripts[0], f"{site}: one <script src=.../embed.js defer>"
    # Nothing else in it may be markup of ours: the rest is the site's own syntax or prose.
    assert not [line for line in lines if "data-pdsplit" in line and line != ONE_LINE]


def test_the_plain_html_snippet_runs(browser, site):
    """A course page made of docs/course-sites.md's plain HTML snippet (its script's path pointed at
    dist/): one frame, lazy, in embed mode with the snippet's settings and parts, sized to its
    content, in the colours the author set on the host."""
    context = browser.new_context(viewport={"width": 375, "height": 740})
    course = site.split("/courses/")[0] + "/courses/llm-serving/lesson-7.html"
    html = snippet("plain HTML")
    html = html.replace(SCRIPT.search(html).group(1), site + "embed.js")
    host = ("<!doctype html><html lang=en><title>Lesson 7</title>"
            "<style>[data-pdsplit] { --pdsplit-accent: #7a1f5c; }</style>"
            f"<h1>Lesson 7</h1>{html}<p id=after>next</p>")
    context.route(course, lambda route: route.fulfill(content_type="text/html", body=host))
    page = context.new_page()
    watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        page.goto(course)
        frame = piece_frame(page, 0)
        assert page.locator("iframe.pdsplit-frame").count() == 1
        assert page.get_attribute("iframe.pdsplit-frame", "loading") == "lazy"
        assert page.get_attribute("iframe.pdsplit-frame", "title")
        query = frame.evaluate("Object.fromEntries(new URLSearchParams(location.search))")
        hub = query.pop("hub")  # this page load's hub (embed.js's)
        assert hub and page.locator("iframe.pdsplit-hub").count() == 1
        assert query == {"rps": "10", "show": "link", "embed": "1"}
        settings, charts = assert_native(frame)
        assert settings["rps"] == 10 and charts == ["link"]
        assert not frame.is_visible("#headline") and not frame.is_visible("body > header")
        assert_fits_its_frame(page, 0)
        # The author's --pdsplit-accent became the piece's --accent.
        frame.wait_for_function("""() => {
            const probe = document.createElement('i'); probe.style.color = 'var(--accent)';
            document.body.append(probe); const c = getComputedStyle(probe).color; probe.remove();
            return c === 'rgb(122, 31, 92)'; }""")
        assert watch.console_errors() == []
    finally:
        context.close()


def test_pieces_added_later_are_found(browser, site):
    """A site whose router renders the text after the script ran (Docusaurus, MkDocs
    Material's instant navigation): the element added later still gets its piece."""
    context = browser.new_context(viewport={"width": 375, "height": 740})
    course = site.split("/courses/")[0] + "/courses/llm-serving/later.html"
    host = f'<!doctype html><html lang=en><title>Later</title><script src="{site}embed.js" defer></script><main></main>'
    context.route(course, lambda route: route.fulfill(content_type="text/html", body=host))
    page = context.new_page()
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        page.goto(course)
        page.wait_for_load_state("load")
        assert page.locator("iframe").count() == 0
        page.evaluate("""document.querySelector('main').innerHTML =
            '<p>Rendered later.</p><div data-pdsplit="?show=headline&rps=8"></div>'""")
        frame = piece_frame(page, 0)
        assert frame.evaluate("window.pdsplit.settings().rps") == 8
        assert frame.is_visible("#headline") and not frame.is_visible("#controls")
    finally:
        context.close()


def test_bad_view_values_are_said_and_the_piece_goes_on(browser, site):
    page = open_page(browser, site + "?embed=1&show=link,bogus&theme=purple&controls=link,speed&rps=8", 375, 740)
    try:
        page.evaluate("window.pdsplit.settled()")
        notices = page.text_content("#notices")
        assert page.is_visible("#notices")
        assert ("show=link,bogus: bogus is not a part; the parts are headline, numbers, controls, goodput, "
                "gap, stall, link, prompt, watch, explorer, traffic, rate, economics, verdict, ratio, chips, "
                "know, traces_ratio, memory, footer. Showing link.") in notices
        assert "theme=purple is not one of auto, light, dark; using auto" in notices
        assert ("controls=link,speed: speed is not a slider; the sliders are rps, prompt, reply, link, "
                "ttft_target, gap_target, traffic, arrivals, trace_start.") in notices
        warnings = [text for kind, text in page.watch.console if kind == "warning"]
        assert any("bogus" in w for w in warnings) and any("purple" in w for w in warnings)
        assert page.watch.console_errors() == []
        # what could be used is: the link chart and its slider, native numbers
        assert page.is_visible("#chart-link .main-svg") and page.is_visible("#slider-link")
        assert not page.is_visible("#slider-rps") and not page.is_visible("#chart-gap")
        assert_native(page)
        # the view stays in the URL as the settings change, and the notices stay on screen
        page.evaluate("window.pdsplit.set({rps: 6})")
        page.evaluate("window.pdsplit.settled()")  # and the address bar with them
        query = page.evaluate("Object.fromEntries(new URLSearchParams(location.search))")
        assert query == {"rps": "6", "embed": "1", "show": "link,bogus", "theme": "purple", "controls": "link,speed"}
        assert "bogus is not a part" in page.text_content("#notices")
    finally:
        page.context.close()


def test_a_show_that_names_no_part_shows_every_part(browser, site):
    page = open_page(browser, site + "?show=nothing-here", 1280, 800)
    try:
        page.evaluate("window.pdsplit.settled()")
        assert "show=nothing-here: nothing-here is not a part" in page.text_content("#notices")
        assert "Showing every part." in page.text_content("#notices")
        for selector in ("body > header", "#headline", "#table", "#slider-rps", "#chart-goodput", "#chart-prompt", "footer"):
            assert page.is_visible(selector), selector
    finally:
        page.context.close()


def test_only_what_is_shown_is_worked_out(browser, site):
    page = open_page(browser, site + "?embed=1&show=headline,numbers&rps=8", 375, 740)
    try:
        page.evaluate("window.pdsplit.settled()")  # settles with no chart to draw
        assert page.is_visible("#headline") and page.is_visible("#table")
        assert page.evaluate("['goodput', 'gap', 'stall', 'link', 'prompt'].map(n => window.pdsplit.figure(n))") == [None] * 5
        assert page.locator(".main-svg").count() == 0
        assert_native(page)
        page.evaluate("window.pdsplit.set({rps: 12})")
        page.evaluate("window.pdsplit.settled()")
        assert_native(page)
        assert page.watch.console_errors() == []
    finally:
        page.context.close()


@pytest.mark.parametrize("width", [320, 760])
def test_embed_mode_fits_a_course_column(browser, site, width):
    """Every part, in embed mode, in the narrowest and widest column a course gives it: no
    title, no sideways scroll, no text under 12 px, AA contrast, targets a finger can hit."""
    from test_page_layout import assert_fits

    page = open_page(browser, site + "?embed=1", width, 800)
    try:
        page.evaluate("window.pdsplit.settled()")
        assert not page.is_visible("body > header")
        for selector in ("#headline", "#table", "#slider-gap_target", "#chart-goodput", "#chart-prompt", "#watch-canvas", "footer"):
            assert page.is_visible(selector), selector
        assert_fits(page)
        assert page.watch.console_errors() == []
    finally:
        page.context.close()


def test_show_watch_is_a_piece_of_its_own(browser, site):
    """show=watch: Watch it run alone, its events the native run's, and no chart worked out."""
    import sim
    from sim.show.watch import default_window

    page = open_page(browser, site + "?embed=1&show=watch&rps=6", 375, 740)
    try:
        page.evaluate("window.pdsplit.settled()")
        assert page.is_visible("#watch-canvas") and not page.is_visible("#chart-stall")
        assert page.evaluate("['goodput', 'gap', 'stall', 'link', 'prompt'].map(n => window.pdsplit.figure(n))") == [None] * 5
        page.wait_for_function("document.getElementById('watch').dataset.state === 'current'")
        data = page.evaluate("({...document.getElementById('watch').dataset})")
        lab, s = sim.Lab(), sim.Settings(rps=6)
        t0, t1 = default_window(lab, s)
        assert (float(data["t0"]), float(data["t1"])) == (t0, t1)
        assert data["events"] == " ".join(f"{layout} {len(lab.watch(layout, t0, t1, s))}" for layout in ("shared", "split"))
        assert page.watch.console_errors() == []
    finally:
        page.context.close()


def test_a_piece_runs_one_python_even_on_many_cores(browser, site):
    """On 4 cores the full page adds a figures' worker; a piece of a course page does not (a
    page may hold several pieces, each its own Python)."""
    page = open_page(browser, site + "?embed=1&show=link,prompt&controls=link", 375, 740, cores=4)
    try:
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate("window.pdsplit.memory()").keys() == {"numbers"}
        assert_native(page)
    finally:
        page.context.close()
