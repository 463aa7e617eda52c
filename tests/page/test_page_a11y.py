"""An accessibility scan, axe-core (from npm, put into the page by the test only, never into
dist/): no serious or critical violation in the full page, in embed mode and in the example
course page, in both themes."""

import pytest

from conftest import BOOT_TIMEOUT, ROOT, Watch, state_query
from test_page_watch import MID_READ

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"

# axe's own frames handling is off: each piece is scanned as the page it is (below), and the
# host is scanned with its frames as frames (titled, in its flow).
SCAN = """async () => {
    const results = await axe.run(document, {iframes: false, resultTypes: ['violations']});
    return results.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => ({id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary)}));
}"""

CASES = [  # what is scanned, the reader's preference
    ("", "light"),
    ("", "dark"),
    ("?chunk=512&gpus=3&readers=2", "dark"),  # the Go further panel open, a third layout
    ("?traffic=azure-code", "light"),  # the Traffic section, a trace chosen, figures 7 and 8
    ("?traffic=azure-chat&arrivals=poisson", "dark"),
    ("?embed=1&show=traffic&controls=traffic,trace_start", "light"),
    ("?embed=1&show=headline,controls", "light"),
    ("?embed=1&show=headline,controls", "dark"),
    ("?embed=1&show=link&controls=link&rps=10", "light"),
    ("?embed=1&show=gap&controls=rps&theme=dark", "light"),
    ("?embed=1&show=watch", "light"),  # Watch it run, its events on screen, mid-read
    ("?embed=1&show=watch&chunk=512", "dark"),
    # the models' section open, memory=kv: its controls, capacity line, rows and memory chart
    ("?" + state_query("memory-pushes-back"), "dark"),
    ("?embed=1&show=memory&" + state_query("memory-pushes-back"), "light"),
    ("?embed=1&show=watch&" + state_query("memory-pushes-back"), "light"),  # its KV bars
    ("embed-example.html", "light"),
    ("embed-example.html", "dark"),
]


@pytest.fixture(scope="session")
def axe_source():
    if not AXE.is_file():
        pytest.fail("node_modules/axe-core is missing: run `npm ci` (make test does)")
    return AXE.read_text()


@pytest.mark.parametrize("target, prefers", CASES, ids=[f"{t or 'page'}-{p}" for t, p in CASES])
def test_no_serious_accessibility_violation(browser, site, axe_source, target, prefers):
    context = browser.new_context(viewport={"width": 375, "height": 740}, color_scheme=prefers)
    page = context.new_page()
    watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    try:
        page.goto(site + target)
        if target.endswith(".html"):  # the host: its pieces loaded and settled
            for index in range(page.locator("iframe.pdsplit-frame").count()):
                page.locator("iframe.pdsplit-frame").nth(index).scroll_into_view_if_needed()
                page.wait_for_function("i => document.querySelectorAll('iframe.pdsplit-frame')[i].getAttribute('src')", arg=index)
                frame = page.locator("iframe.pdsplit-frame").nth(index).element_handle().content_frame()
                frame.wait_for_function("() => window.pdsplit !== undefined")
                frame.evaluate("window.pdsplit.settled()")
        else:
            page.evaluate("window.pdsplit.settled()")
        if "show=watch" in target:  # its events on screen, the playhead past the target in a read
            page.wait_for_function("document.getElementById('watch').dataset.state === 'current'")
            page.evaluate(MID_READ)
        page.add_script_tag(content=axe_source)
        violations = page.evaluate(SCAN)
        assert violations == [], "\n".join(f"{v['impact']} {v['id']}: {v['help']}\n  " + "\n  ".join(v["nodes"]) for v in violations)
        assert watch.console_errors() == []
    finally:
        context.close()


def test_the_scan_finds_what_it_should(browser, site, axe_source):
    """The scan is not blind: a button with no name and grey-on-white text are found."""
    page = browser.new_page()
    try:
        page.goto(site + "?embed=1&show=headline")
        page.evaluate("""() => {
            const b = document.createElement('button'); document.body.append(b);
            const p = document.createElement('p'); p.textContent = 'faint'; p.style.color = '#ccc';
            document.body.append(p);
        }""")
        page.add_script_tag(content=axe_source)
        assert {v["id"] for v in page.evaluate(SCAN)} >= {"button-name", "color-contrast"}
    finally:
        page.close()
