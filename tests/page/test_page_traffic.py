"""Know your traffic on the page: Azure's traces and a file of one's own, read by the page's
Python in the worker and never sent anywhere, kept in the browser; what the traffic looks like,
the verdict, figures 7 and 8; every number equal to a native run."""

import json
import random
import subprocess
import sys

import pytest

import sim
from conftest import DIST, ROOT, open_page
from sim.show.figures import FIGURES
from sim.show.page import TRACE_FILE_BYTES
from sim.show.numbers import shown
from sim.show.states import group
from sim.workload.tracefile import read_text
from test_page_explorer import on_screen
from test_page_layout import SMALL_TARGETS, assert_fits
from test_page_results import BARE_NUMBERS

# A request log of one's own, in the plain form the spec names.
OWN = "arrival_s,prompt_tokens,reply_tokens\n" + "".join(
    f"{k * 0.31 + (k % 7) * 0.05:.2f},{300 + (k * 7919) % 3500},{5 + (k * 104729) % 400}\n" for k in range(900))

# Each refusal the spec names, as a learner's file would hold it, and words its notice says.
BAD = [
    ("empty.csv", "", "empty"),
    ("header.csv", "arrival_s,prompt_tokens,reply_tokens\n", "no data rows"),
    ("column.csv", "arrival_s,prompt_tokens\n0,10\n", "reply tokens"),
    ("time.csv", "arrival_s,prompt_tokens,reply_tokens\n0,10,5\nsoon,10,5\n", "line 3"),
    ("mixed.csv", "arrival_s,prompt_tokens,reply_tokens\n0,10,5\n2023-11-16 18:17:03,10,5\n", "line 3"),
    ("order.csv", "arrival_s,prompt_tokens,reply_tokens\n2,10,5\n1,10,5\n", "earlier"),
    ("count.csv", "arrival_s,prompt_tokens,reply_tokens\n0,ten,5\n", "line 2"),
    ("json.jsonl", '{"timestamp": 0, "input_length": 5}\n', "line 1"),
]


def full(changes):
    return sim.Settings().but(**changes).as_dict()


@pytest.fixture(scope="module")
def traffic_page(browser, site):
    """One booted page with the panel open (a URL that sets a traffic setting opens it)."""
    page = open_page(browser, site + "?traffic=azure-chat")
    page.evaluate("window.pdsplit.settled()")
    yield page
    page.context.close()


def caption_numbers(page, name):
    return page.evaluate("""(name) => Object.fromEntries(Array.from(
        document.querySelectorAll(`#caption-${name} [data-metric]`), e => [e.dataset.metric, e.textContent]))""", name)


def equals_native(page, settings, trace=None):
    """The page's result, its numbers, traffic(), the traffic's words, the verdict and figures
    7 and 8 (while a trace is chosen) equal a native run's."""
    page.evaluate("window.pdsplit.settled()")
    native = sim.Lab()
    s = native.given(sim.Settings(**settings), trace)
    assert page.evaluate("window.pdsplit.result()") == native.compare(s)
    want = shown(native.compare(s))
    for key, text in on_screen(page).items():
        if key in want:
            assert text == want[key], key
    assert page.evaluate("window.pdsplit.traffic()") == json.loads(json.dumps(native.traffic(s)))
    names = ["traffic", "verdict"] + (["know", "traces_ratio"] if s.traffic != "lesson" else [])
    for name in names:
        assert caption_numbers(page, name) == FIGURES[name].render(native, s)["shown"], name
    if s.traffic != "lesson":  # the trace sets the lengths: its sliders say so, with its medians
        t = native.traffic(s)
        assert page.text_content("#value-prompt") == f"set by the trace: median {t['prompt_p50']:,} tokens"
        assert page.text_content("#value-reply") == f"set by the trace: median {t['reply_p50']:,} words"


TRAFFIC_STATES = group("traffic")  # each claimed result worked out, as the build does


@pytest.mark.parametrize("name, label, changes", TRAFFIC_STATES, ids=[n for n, _, _ in TRAFFIC_STATES])
def test_each_named_traffic_state_is_a_button_and_exact(traffic_page, name, label, changes):
    traffic_page.get_by_role("button", name=label, exact=True).click()
    traffic_page.wait_for_function("w => JSON.stringify(window.pdsplit.settings()) === JSON.stringify(w)",
                                   arg=full(changes))
    equals_native(traffic_page, full(changes))


def random_trace_settings(rng):
    traffic = rng.choice(("azure-chat", "azure-code"))
    gpus = rng.choice((2, 3, 4))
    return full({"traffic": traffic, "arrivals": rng.choice(("recorded", "poisson")),
                 "trace_start": rng.randrange(0, 8000), "gpus": gpus, "readers": rng.randint(1, gpus - 1),
                 "rps": rng.choice((2.0, 4.0, 6.0, 9.0)), "chunk": rng.choice((0, 512))})


RANDOM = [random_trace_settings(random.Random(k)) for k in range(6)]


@pytest.mark.parametrize("settings", RANDOM, ids=lambda s: f"{s['traffic']}-{s['arrivals']}-{s['trace_start']}-{s['gpus']}gpus")
def test_random_trace_settings_equal_native(traffic_page, settings):
    traffic_page.evaluate("s => window.pdsplit.set(s)", settings)
    equals_native(traffic_page, settings)
    assert traffic_page.is_visible("#chart-know") and traffic_page.is_visible("#chart-traces_ratio")
    assert traffic_page.is_visible("#traffic-attribution")
    assert traffic_page.is_disabled("#slider-prompt") and traffic_page.is_disabled("#slider-reply")


def test_with_the_lessons_traffic_the_section_shows_the_toy(traffic_page):
    traffic_page.evaluate("s => window.pdsplit.set(s)", full({"traffic": "lesson"}))
    equals_native(traffic_page, full({"traffic": "lesson"}))
    assert traffic_page.is_hidden("#chart-know") and traffic_page.is_hidden("#traffic-attribution")
    assert traffic_page.is_hidden("#slider-trace_start") and traffic_page.is_enabled("#slider-prompt")
    bare, _ = traffic_page.evaluate(BARE_NUMBERS)
    assert bare == [], bare


def own_page(browser, site, query="?traffic=azure-code", script=None):
    """A page in a fresh context (its own IndexedDB) that counts what it asks the network for
    and what it hands its workers."""
    page = open_page(browser, site + query, script=script or HANDED)
    page.evaluate("window.pdsplit.settled()")
    return page


# Every message a worker is handed that carries a file, counted (a refused file is never handed).
HANDED = """
    window.__handed = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
        if (message && message.file) window.__handed.push([message.type, message.file.size]);
        return post.call(this, message, ...rest);
    };
"""


def test_a_file_of_ones_own_equals_the_command_line_and_is_sent_nowhere(browser, site, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(OWN)
    page = own_page(browser, site)
    try:
        before = len(page.watch.requests)
        page.set_input_files("#trace-file", str(path))
        page.wait_for_function("window.pdsplit.settings().traffic === 'own'")
        page.evaluate("window.pdsplit.settled()")
        settings = page.evaluate("window.pdsplit.settings()")
        flags = [arg for name, value in settings.items() if name not in ("traffic",)
                 for arg in (f"--{name.replace('_', '-')}", str(value))]
        done = subprocess.run([sys.executable, "-m", "sim", "compare", "--trace", str(path), *flags, "--json"],
                              cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert page.evaluate("window.pdsplit.result()") == json.loads(done.stdout)
        equals_native(page, settings, trace=read_text(OWN, "mine.csv"))
        assert "mine.csv" in page.text_content("#choice-traffic")
        # read in the worker, by the page's Python: handed over as it is, and no request made
        assert page.evaluate("window.__handed") == [["trace", path.stat().st_size]]
        # no request for it: whatever the page asked for meanwhile is one of its own files
        asked = [url.split("?")[0][len(site):] for url in page.watch.requests[before:]]
        assert all(url and (DIST / url).is_file() for url in asked), asked
        assert [url for url in page.watch.requests if not url.startswith(site)] == []
        # a reload keeps it: the workers read it back from the browser's store
        page.reload()
        page.evaluate("window.pdsplit.ready")
        page.evaluate("window.pdsplit.settled()")
        assert page.evaluate("window.pdsplit.settings()") == settings
        assert page.evaluate("window.pdsplit.result()") == json.loads(done.stdout)
        assert page.is_hidden("#notices")
    finally:
        page.context.close()


def test_load_trace_and_traffic_in_the_contract(browser, site):
    page = own_page(browser, site, "?gpus=3&readers=2")
    try:
        summary = page.evaluate("t => window.pdsplit.loadTrace(t)", OWN)
        settings = page.evaluate("window.pdsplit.settings()")
        assert settings["traffic"] == "own" and settings["gpus"] == 3
        native = sim.Lab()
        s = native.given(sim.Settings(**settings), read_text(OWN, "your trace"))
        assert summary == json.loads(json.dumps(native.traffic(s)))
        assert page.evaluate("window.pdsplit.result()") == native.compare(s)
        refused = page.evaluate("window.pdsplit.loadTrace('x,y\\n1,2\\n').then(() => 'loaded', e => e.message)")
        assert "time" in refused and "x,y" not in page.text_content("#choice-traffic")
        assert page.evaluate("window.pdsplit.result()") == native.compare(s)  # nothing changed
    finally:
        page.context.close()


def test_each_bad_file_says_why_and_changes_nothing(browser, site, tmp_path):
    page = own_page(browser, site)
    try:
        before = page.evaluate("window.pdsplit.result()")
        for name, text, said in BAD:
            path = tmp_path / name
            path.write_text(text)
            page.set_input_files("#trace-file", str(path))
            page.wait_for_function("n => document.getElementById('trace-notices').textContent.includes(n)", arg=name)
            notice = page.text_content("#trace-notices")
            assert said in notice, (name, notice)
            assert page.get_attribute("#trace-notices", "role") == "alert" and page.is_visible("#trace-notices")
            assert page.evaluate("window.pdsplit.result()") == before
            assert page.evaluate("window.pdsplit.settings().traffic") == "azure-code"
    finally:
        page.context.close()


def test_a_file_over_the_limit_is_refused_before_it_is_read(browser, site, tmp_path):
    path = tmp_path / "week.csv"
    with open(path, "wb") as f:  # just past the limit: a header, then one long run of rows
        f.write(b"arrival_s,prompt_tokens,reply_tokens\n")
        f.truncate(TRACE_FILE_BYTES + 1)
    page = own_page(browser, site)
    try:
        before = page.evaluate("window.pdsplit.result()")
        page.set_input_files("#trace-file", str(path))
        page.wait_for_function("() => document.getElementById('trace-notices').textContent.includes('was not read')")
        assert "the page reads files up to 50.0 MB" in page.text_content("#trace-notices")
        assert page.evaluate("window.__handed") == []  # never handed to the worker, so never read
        assert page.evaluate("window.pdsplit.result()") == before
    finally:
        page.context.close()


def test_a_url_asking_for_a_file_this_browser_lacks_says_so_and_uses_the_lessons(browser, site):
    page = open_page(browser, site + "?traffic=own&gpus=3")
    try:
        page.evaluate("window.pdsplit.settled()")
        assert "asks for a file of your own, which this browser does not have" in page.text_content("#notices")
        settings = page.evaluate("window.pdsplit.settings()")
        assert settings == full({"gpus": 3})
        assert page.evaluate("window.pdsplit.result()") == sim.compare(gpus=3)
    finally:
        page.context.close()


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
def test_the_traffic_section_fits_and_is_pictured(browser, site, artifacts, width, height):
    page = open_page(browser, site + "?traffic=azure-code", width, height)
    try:
        page.evaluate("window.pdsplit.settled()")
        assert_fits(page)
        assert page.evaluate(SMALL_TARGETS) == []
        page.evaluate("document.fonts.ready")
        # pictured as it reads, without the numbers that stay in view at the top over it
        page.add_style_tag(content="#headline, #glance { position: static !important; }")
        page.locator("#traffic").screenshot(path=str(artifacts / f"traffic-{width}x{height}.png"))
    finally:
        page.context.close()


def test_a_course_piece_shows_the_traffic_and_its_controls(browser, site):
    page = open_page(browser, site + "?embed=1&show=traffic&controls=traffic&traffic=azure-chat", 375, 740)
    try:
        page.evaluate("window.pdsplit.settled()")
        assert page.is_visible("#chart-traffic") and page.is_visible("#choice-traffic")
        assert page.is_visible("#trace-file") and page.is_hidden("#choice-arrivals")
        assert page.is_hidden("#chart-goodput") and page.is_hidden("#explorer-controls")
        native = sim.Lab()
        s = sim.Settings(traffic="azure-chat")
        assert caption_numbers(page, "traffic") == FIGURES["traffic"].render(native, s)["shown"]
    finally:
        page.context.close()


def test_the_verdict_gives_way_at_once_and_keeps_its_room(traffic_page):
    # what follows it does not move (and need not be painted again) while it is worked out;
    # on a phone, where the verdict takes more lines than the words that stand in for it
    size = traffic_page.viewport_size
    traffic_page.set_viewport_size({"width": 375, "height": 740})
    try:
        traffic_page.evaluate("s => window.pdsplit.set(s)", full({"traffic": "azure-chat"}))
        traffic_page.evaluate("window.pdsplit.settled()")
        before = traffic_page.evaluate("document.getElementById('caption-verdict').offsetHeight")
        said = traffic_page.text_content("#caption-verdict")
        waiting = traffic_page.evaluate("""(s) => {
            window.pdsplit.set(s);  // shown at once, before Python answers
            const verdict = document.getElementById('caption-verdict');
            const kept = verdict.style.minHeight, height = verdict.offsetHeight;
            verdict.style.minHeight = "";  // the waiting words alone take less room
            const alone = verdict.offsetHeight;
            verdict.style.minHeight = kept;
            return {text: verdict.textContent, height, alone, key: verdict.dataset.key};
        }""", full({"traffic": "azure-chat", "rps": 6.0}))
        assert waiting["text"] == "Working it out for these settings, after the numbers and the charts…" != said
        assert waiting["height"] == before > waiting["alone"] and waiting["key"] == ""
        equals_native(traffic_page, full({"traffic": "azure-chat", "rps": 6.0}))  # the verdict too
        assert traffic_page.evaluate("document.getElementById('caption-verdict').style.minHeight") == ""
    finally:
        traffic_page.set_viewport_size(size)
