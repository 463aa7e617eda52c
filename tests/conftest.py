"""Shared fixtures. The browser tests serve dist/ (from `make build`) under a sub-path, as a
course site would, and drive Debian's Chromium (or $CHROMIUM) through pytest-playwright."""

import functools
import http.server
import json
import os
import re
import shutil
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import settings as hypothesis_settings

import oracle
from lanes import pytest_xdist_make_scheduler  # noqa: F401 (a hook: how make test shares the tests)
from sim import check

# The same examples on every run, so CI is repeatable; HYPOTHESIS_PROFILE=explore for fresh ones.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
ARTIFACTS = ROOT / "test-artifacts"
SUBPATH = "/courses/llm-serving/pdsplit/"  # the page must work from any path
CHROMIUM_ARGS = ["--headless", *check.CHROMIUM_ARGS]  # the flags `python -m sim check` uses
BOOT_TIMEOUT = 90_000  # ms: Pyodide boots in about 5 s here, far longer on a loaded machine
oracle.DATA = ROOT / "sim" / "workload" / "data"  # the traces the project ships: data, not code


def remember_the_oracle():
    """The oracle's rate goodputs, worked out once per session (in each test worker) for a
    layout and settings: a bisection walks ~32 runs of every step, and several tests ask for
    the same ones (the spec's rate at the defaults, the economics priced from it, the best
    ratio's rows). The oracle itself stays plain: this wraps its function from outside, and
    its own calls (rate, ratio, economics) find the wrapper by name. A rate of a trace of
    one's own is worked out each time."""
    rate_of = oracle.rate_of

    @functools.cache
    def known(layout, settings):
        return rate_of(layout, dict(settings))

    def remembered(layout, o, trace=None):
        if trace is not None:
            return rate_of(layout, o, trace)
        return known(layout, tuple(sorted(o.items())))

    oracle.rate_of = remembered


remember_the_oracle()


def pytest_itemcollected(item):
    """Every test that needs a browser or the built page is marked `browser`, so that the fast
    loop can leave them out: pytest -m "not browser".

    Run in parallel (`make test`), the browser's files stay whole, in two lanes: tests/lanes.py."""
    if {"browser", "page", "site", "lesson", "strict_site"} & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.browser)


def chromium():
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail("no Chromium: run `make test`, which finds or installs one")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": chromium(), "args": CHROMIUM_ARGS}


class SubPathHandler(http.server.SimpleHTTPRequestHandler):
    """Serves dist/ under SUBPATH only, and counts what was asked for."""

    def translate_path(self, path):
        if not path.startswith(SUBPATH):
            return str(DIST / "__not_here__")
        return super().translate_path("/" + path[len(SUBPATH):])

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a context closed during a download (the figures' worker's, say)
        super().handle_error(request, client_address)


def baked():
    """What index.html bakes for app.js (#pdsplit-baked), its named states whole: those whose
    results are in the states' file (build.py, write_states) given them back."""
    page = (DIST / "index.html").read_text()
    data = json.loads(re.search(r'id="pdsplit-baked">(.*?)</script>', page, re.S).group(1))
    whole = {state["name"]: state for state in json.loads((DIST / "states.json").read_text())}
    data["states"] = [{**state, **whole.get(state["name"], {})} for state in data["states"]]
    return data


def hold_snapshot_until(context, name):
    """Hold Python's snapshot download in `context` until the page calls window.<name>() (an
    init script says when): what the page shows before Python comes first, whatever the order
    of the downloads."""
    held, released = [], []

    def snapshot(route):
        if released:
            route.continue_()
        else:
            held.append(route)

    def release():
        released.append(True)
        for route in held:
            route.continue_()
        held.clear()

    context.expose_function(name, release)
    context.route("**/snapshot.bin.gz*", snapshot)


@pytest.fixture(scope="session")
def site():
    if not (DIST / "index.html").is_file():
        pytest.fail("dist/ is not built: run `make test` (it builds first) or `make build`")
    handler = functools.partial(SubPathHandler, directory=str(DIST))
    server = Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}{SUBPATH}"
    server.shutdown()


class Watch:
    """Every request and console message of a browser context."""

    def __init__(self, context, page):
        self.requests, self.console, self.errors = [], [], []
        context.on("request", lambda r: self.requests.append(r.url))
        page.on("console", lambda m: self.console.append((m.type, m.text)))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def console_errors(self):
        return [text for kind, text in self.console if kind == "error"] + self.errors


def state_query(name):
    """The query of a named state's link: its settings that differ from the defaults."""
    from sim.settings import FIELDS, Settings
    from sim.show.states import found
    changes = next(changes for _, n, _, changes in found() if n == name)
    full = Settings().but(**changes).as_dict()
    return "&".join(f"{k}={v}" for k, v in full.items() if v != FIELDS[k].default)


def open_page(browser, url, width=1280, height=800, ready=True, cores=None, script=None):
    """A page in a fresh context; `cores` is what navigator.hardwareConcurrency says (from 4
    up the page runs a second worker for the figures); `script` runs in it before the page's."""
    context = browser.new_context(viewport={"width": width, "height": height})
    if cores:
        context.add_init_script(f"Object.defineProperty(navigator, 'hardwareConcurrency', {{get: () => {cores}}});")
    if script:
        context.add_init_script(script)
    page = context.new_page()
    page.watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    page.goto(url)
    if ready:
        page.evaluate("window.pdsplit.ready")
    return page


@pytest.fixture(scope="session")
def lesson(browser, site):
    """One booted page shared by the tests that only set settings and read results."""
    page = open_page(browser, site)
    yield page
    page.context.close()


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# ---- a strict host: docs/course-sites.md's CSP and MIME types, as a course site might serve dist/ ----

README = (ROOT / "README.md").read_text()
# what a course author reads: the embeds, the CSP and MIME types, the frame, the check's recipe
COURSE_SITES = (ROOT / "docs" / "course-sites.md").read_text()
CSP_REPORTS = "/csp-reports"  # where the strict host hears of violations (report-uri)


def readme_csp():
    """The Content-Security-Policy docs/course-sites.md tells hosts dist/ works under."""
    return re.search(r"<!-- csp -->\n```\n(.+?)\n```", COURSE_SITES).group(1)


def readme_mime_types():
    """{".wasm": "application/wasm", ...}: docs/course-sites.md's table of what a host must send."""
    table = COURSE_SITES.split("<!-- mime -->\n", 1)[1].split("<!-- /mime -->", 1)[0]
    types = {}
    for row in table.splitlines()[2:]:
        files, kind = [cell.strip() for cell in row.strip("|").split("|")]
        for ext in re.findall(r"`(\.\w+)`", files):
            types[ext] = kind.strip("`")
    return types


class StrictHandler(SubPathHandler):
    """dist/ with exactly docs/course-sites.md's CSP (and a report-uri, to hear of any violation) and
    its MIME types, with nosniff so that browsers hold the page to them."""

    policy = ""
    types = {}
    reports = []

    def guess_type(self, path):
        return self.types.get(Path(str(path)).suffix, "application/octet-stream")

    def end_headers(self):
        self.send_header("Content-Security-Policy", f"{self.policy}; report-uri {CSP_REPORTS}")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == CSP_REPORTS:
            self.reports.append(json.loads(body)["csp-report"])
        self.send_response(204)
        self.end_headers()


@pytest.fixture(scope="session")
def strict_site():
    """A strict host serving dist/ under SUBPATH: its URL, and the violations reported."""
    if not (DIST / "index.html").is_file():
        pytest.fail("dist/ is not built: run `make test` (it builds first) or `make build`")
    handler_class = type("Strict", (StrictHandler,), {
        "policy": readme_csp(), "types": readme_mime_types(), "reports": []})
    server = Server(("127.0.0.1", 0), functools.partial(handler_class, directory=str(DIST)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield SimpleNamespace(url=f"http://127.0.0.1:{server.server_address[1]}{SUBPATH}",
                          reports=handler_class.reports, policy=handler_class.policy)
    server.shutdown()
