"""Framed in a course site as docs/course-sites.md shows: the frame grows to the lesson's height."""

import re

from conftest import BOOT_TIMEOUT, ROOT, Watch

EMBED = re.search(r"## The whole page in one frame, by hand.*?```html\n(.*?)```",
                  (ROOT / "docs" / "course-sites.md").read_text(), re.S).group(1)


def test_readme_embed_fits_the_frame_to_the_lesson(browser, site):
    context = browser.new_context(viewport={"width": 375, "height": 740})
    course = site.split("/courses/")[0] + "/courses/llm-serving/lesson-7.html"
    frame_src = re.search(r'src="([^"]+)"', EMBED).group(1)
    host = EMBED.replace(frame_src, site + "?" + frame_src.split("?")[1])
    context.route(course, lambda route: route.fulfill(
        content_type="text/html", body=f"<!doctype html><h1>Lesson 7</h1>{host}<p id=after>next</p>"))
    page = context.new_page()
    watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        page.goto(course)
        lesson = page.frame_locator("iframe.pdsplit")
        frame = page.wait_for_selector("iframe.pdsplit").content_frame()
        frame.wait_for_function("window.pdsplit && window.pdsplit.settings().rps === 10")
        frame.evaluate("window.pdsplit.ready")
        frame.evaluate("window.pdsplit.settled()")
        inside = frame.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
        page.wait_for_function("h => document.querySelector('iframe.pdsplit').getBoundingClientRect().height === h",
                               arg=inside)
        assert inside > 1500  # a phone-wide lesson is taller than the frame's first guess
        assert frame.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
        assert lesson.locator("#headline").text_content().startswith("Within both targets")
        assert watch.console_errors() == []
    finally:
        context.close()
