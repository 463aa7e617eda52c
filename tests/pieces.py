"""What the embedding tests share: booting the pieces of a course page (each a frame of
embed.js), holding each to native Python, and seeing that each fits its frame."""

import json
import time

from conftest import BOOT_TIMEOUT

import sim
from sim.show.figures import FIGURES

# In every document (host and frames): the CSP violations it sees, and a frame's scroll box.
VIOLATIONS = """
    window.__violations = [];
    addEventListener('securitypolicyviolation', e => window.__violations.push(
        [e.effectiveDirective, e.blockedURI, e.sourceFile, e.lineNumber]));
"""


def piece_frame(page, index):
    """The index-th piece's frame, scrolled to (which is what loads it), once it is booted."""
    frame_element = page.locator("iframe.pdsplit-frame").nth(index)
    frame_element.scroll_into_view_if_needed()
    page.wait_for_function("i => document.querySelectorAll('iframe.pdsplit-frame')[i].getAttribute('src')", arg=index)
    frame = frame_element.element_handle().content_frame()
    frame.wait_for_function("() => window.pdsplit !== undefined")
    frame.evaluate("window.pdsplit.ready")
    frame.evaluate("window.pdsplit.settled()")
    return frame


def shown_charts(frame):
    """The charts a piece shows (by the page's names)."""
    return frame.evaluate("""() => Array.from(document.querySelectorAll('.plot'))
        .filter(p => p.getClientRects().length && !p.closest('details:not([open])'))
        .map(p => p.id.replace('chart-', ''))""")


def assert_native(frame):
    """The piece's numbers and every chart it shows are native Python's for its settings."""
    settings = frame.evaluate("window.pdsplit.settings()")
    assert frame.evaluate("window.pdsplit.result()") == sim.compare(**settings)
    s = sim.Settings().but(**settings)
    charts = shown_charts(frame)
    for name in charts:
        drawn = json.loads(json.dumps(FIGURES[name].render(sim.Lab(), s)))
        on_page = frame.evaluate("name => window.pdsplit.figure(name)", name)
        assert on_page is not None, name
        assert {k: on_page[k] for k in drawn} == drawn, name
    return settings, charts


def assert_fits_its_frame(page, index):
    """The frame is as tall as its page, which therefore never scrolls inside, and no wider."""
    frame = page.locator("iframe.pdsplit-frame").nth(index).element_handle().content_frame()
    inside = frame.evaluate("Math.ceil(document.documentElement.getBoundingClientRect().height)")
    page.wait_for_function("([i, h]) => Math.round(document.querySelectorAll('iframe.pdsplit-frame')[i]"
                           ".getBoundingClientRect().height) === h", arg=[index, inside])
    sizes = frame.evaluate("""() => [document.documentElement.scrollHeight, innerHeight,
                                     document.documentElement.scrollWidth, innerWidth]""")
    assert sizes[0] <= sizes[1], f"piece {index} scrolls inside: {sizes[0]} px in {sizes[1]}"
    assert sizes[2] <= sizes[3], f"piece {index} is {sizes[2]} px wide in {sizes[3]}"
    return sizes


def wait_until(condition, page, timeout=BOOT_TIMEOUT / 1000):
    """Wait for something outside the browser (a report the server received): the page's
    event loop turns meanwhile, in short waits, until the condition holds or time is up."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "waited in vain"
        page.wait_for_timeout(50)
