"""The page's service worker (web/sw.js) serves the two big scripts, Pyodide's JavaScript core
and Plotly, from their gzipped copies, from the first visit on, on a strict host that
compresses nothing, and keeps them for the next visit: each way in gives native Python's
numbers. With service workers blocked or missing, or a gzipped copy missing or corrupt, the
plain file is fetched, as before there was a service worker. What it keeps is named by its
content, so a later build is never served an earlier one's file."""

from urllib.parse import urlparse

import pytest

import sim
from conftest import BOOT_TIMEOUT, DIST
from hub_pages import CountingSite

SCRIPT = "pyodide.asm.mjs"
PACKED = f"{SCRIPT}.gz"
PLOTLY = "plotly-basic.min.js"
SCRIPTS = {SCRIPT, PLOTLY}
PACKED_SCRIPTS = {f"{name}.gz" for name in SCRIPTS}


@pytest.fixture(scope="module")
def counting():
    site = CountingSite()
    yield site
    site.close()


def visit(context, site, query=""):
    """A new tab in `context`, booted, and the files the host sent it whole."""
    page = context.new_page()
    page.set_default_timeout(BOOT_TIMEOUT)
    site.reset()
    page.goto(site.url + query)
    page.evaluate("window.pdsplit.ready")
    return page, [name for name, size in site.handler.sent if size]


def served(page):
    return page.evaluate("Boolean(navigator.serviceWorker?.controller)")


def test_the_first_visit_gets_the_core_packed_and_the_second_from_the_browser(browser, counting):
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page, sent = visit(context, counting, "?prompt=800")
        assert served(page)
        assert all(sent.count(name) == 1 for name in PACKED_SCRIPTS) and not SCRIPTS & set(sent), sent
        assert page.evaluate("window.pdsplit.python()")["boot"] == "snapshot"
        assert page.evaluate("window.pdsplit.result()") == sim.compare(prompt=800)
        page.evaluate("window.pdsplit.settled()")
        assert page.query_selector("#chart-goodput .main-svg") is not None  # Plotly, unpacked, drew
        # it keeps them, unpacked, in the page's one cache (downloads.js's), by their plain URLs
        kept = page.evaluate("""async () => (await (await caches.open('pdsplit')).keys()).map((r) => r.url)""")
        assert {urlparse(u).path.rsplit("/", 1)[-1] for u in kept} >= SCRIPTS, kept
        assert page.evaluate("caches.keys()") == ["pdsplit"]
        page.close()

        again, sent = visit(context, counting, "?rps=10")  # a fresh tab, the same profile
        assert served(again)
        assert not (SCRIPTS | PACKED_SCRIPTS) & set(sent), sent  # from the browser's disk
        assert again.evaluate("window.pdsplit.result()") == sim.compare(rps=10)
        again.evaluate("window.pdsplit.settled()")
        assert again.query_selector("#chart-goodput .main-svg") is not None
        assert counting.reports == []  # under the strict CSP, nothing refused
    finally:
        context.close()


def test_with_service_workers_blocked_the_plain_core_is_imported(browser, counting):
    context = browser.new_context(service_workers="block")
    try:
        page, sent = visit(context, counting, "?reply=300")
        assert not served(page)
        assert all(sent.count(name) == 1 for name in SCRIPTS) and not PACKED_SCRIPTS & set(sent), sent
        assert page.evaluate("window.pdsplit.python()")["boot"] == "snapshot"
        assert page.evaluate("window.pdsplit.result()") == sim.compare(reply=300)
    finally:
        context.close()


@pytest.mark.parametrize("answer", [{"status": 404, "body": "gone"},
                                    {"status": 200, "body": b"\x1f\x8b\x08\x00 cut short"}],
                         ids=["missing", "corrupt"])
def test_without_a_good_packed_core_the_plain_one_is_imported(browser, counting, answer):
    context = browser.new_context()
    context.route(f"**/{PACKED}", lambda route: route.fulfill(**answer))
    try:
        page, sent = visit(context, counting, "?gpus=6")
        assert served(page)
        assert sent.count(SCRIPT) == 1 and f"{PLOTLY}.gz" in sent and PLOTLY not in sent, sent
        assert page.evaluate("window.pdsplit.python()")["boot"] == "snapshot"
        assert page.evaluate("window.pdsplit.result()") == sim.compare(gpus=6)
    finally:
        context.close()


def test_without_service_workers_in_the_browser_the_page_works_as_before(browser, counting):
    context = browser.new_context()
    context.add_init_script("Object.defineProperty(Navigator.prototype, 'serviceWorker', {get: () => undefined});")
    try:
        page, sent = visit(context, counting, "?link=5")
        assert all(sent.count(name) == 1 for name in SCRIPTS) and not PACKED_SCRIPTS & set(sent), sent
        assert page.evaluate("window.pdsplit.result()") == sim.compare(link=5)
    finally:
        context.close()


def test_the_service_worker_answers_only_for_the_two_scripts(browser, counting):
    """Every other file comes from the network as if there were none; dist/ holds the gzipped
    copy beside each of the two."""
    for name in SCRIPTS:
        (plain,) = DIST.glob(f"**/{name}")
        assert (plain.parent / f"{name}.gz").is_file()
    context = browser.new_context()
    responses = []
    context.on("response", lambda r: responses.append((urlparse(r.url).path.rsplit("/", 1)[-1], r.from_service_worker)))
    try:
        visit(context, counting)
        assert {name for name, mine in responses if mine} == SCRIPTS, responses
    finally:
        context.close()


def test_an_older_builds_scripts_are_never_served_and_are_deleted(browser, counting):
    """What the service worker kept is keyed by URLs that name their content: an older build's
    Plotly (another ?v=) and an older Pyodide's core (another version folder) are never
    served to this build, and once it has booted, its worker deletes them."""
    context = browser.new_context()
    try:
        page, _ = visit(context, counting)
        old = [counting.url + "vendor/plotly-basic.min.js?v=000000000000",
               counting.url + "pyodide/0.0.1/pyodide.asm.mjs"]
        page.evaluate("""async (old) => {
            const cache = await caches.open("pdsplit");
            for (const url of old)
                await cache.put(url, new Response("self.stale = true;", {headers: {"Content-Type": "text/javascript"}}));
        }""", old)
        page.close()

        again, _ = visit(context, counting, "?rps=6")
        again.evaluate("window.pdsplit.settled()")
        assert again.evaluate("typeof Plotly") == "object" and again.evaluate("self.stale") is None
        assert again.evaluate("window.pdsplit.result()") == sim.compare(rps=6)
        assert again.evaluate("""async (old) => {
            for (let i = 0; i < 1200; i++) {
                const kept = (await (await caches.open("pdsplit")).keys()).map((r) => r.url);
                if (!old.some((url) => kept.includes(url))) return true;
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
            return false;
        }""", old)
    finally:
        context.close()
