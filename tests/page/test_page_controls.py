"""Sliders by keyboard, the lesson's buttons, and the settings in the URL."""

from urllib.parse import parse_qs, urlparse

import sim
from conftest import open_page


def query(page):
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def assert_address(page, want):
    """The address bar comes to show `want`: it follows the settings once they stop changing."""
    page.wait_for_function("want => JSON.stringify(Object.fromEntries(new URLSearchParams(location.search)))"
                           " === JSON.stringify(want)", arg=want)
    assert query(page) == want


def test_arrow_keys_move_a_slider_and_the_url(lesson):
    lesson.evaluate("window.pdsplit.set({rps: 4, prompt: 2000, reply: 200, link: 25, ttft_target: 0.5, gap_target: 0.1, requests: 600, seed: 7})")
    lesson.focus("#slider-rps")
    lesson.keyboard.press("ArrowRight")
    assert lesson.evaluate("window.pdsplit.settings().rps") == 4.25
    assert_address(lesson, {"rps": "4.25"})
    lesson.wait_for_function("window.pdsplit.result().settings.rps === 4.25")
    assert lesson.evaluate("window.pdsplit.result()") == sim.compare(rps=4.25)
    assert lesson.text_content("#value-rps") == "4.25 req/s"
    lesson.focus("#slider-link")
    for _ in range(2):
        lesson.keyboard.press("ArrowLeft")  # 25 -> 20 -> 15 GB/s on the ladder
    assert_address(lesson, {"rps": "4.25", "link": "15"})
    lesson.wait_for_function("window.pdsplit.result().settings.link === 15")
    assert lesson.evaluate("window.pdsplit.result()") == sim.compare(rps=4.25, link=15)


COUNT_WRITES = """() => {
    window.__writes = 0;
    const write = window.__replaceState = history.replaceState;
    history.replaceState = function (...args) { window.__writes += 1; return write.apply(this, args); };
}"""


def test_the_address_is_written_once_the_settings_stop_changing(lesson):
    # not at every change: Safari refuses more than 100 writes in 30 s, and a drag makes more
    lesson.evaluate("s => window.pdsplit.set(s)", sim.Settings().as_dict())  # an address of defaults: none
    lesson.evaluate("window.pdsplit.settled()")
    lesson.evaluate(COUNT_WRITES)
    try:
        stops, writes = lesson.evaluate("""() => {
            const stops = JSON.parse(document.getElementById('pdsplit-baked').textContent)
                .schema.find(f => f.name === 'rps').slider;
            for (let i = 0; i < 150; i++) window.pdsplit.set({rps: stops[i % stops.length]}).catch(() => {});
            return [stops, window.__writes];
        }""")
        last = stops[149 % len(stops)]
        assert writes == 0
        assert_address(lesson, {"rps": f"{last:g}"})
        assert lesson.evaluate("window.__writes") == 1
        lesson.evaluate("window.pdsplit.settled()")
        assert lesson.evaluate("window.__writes") == 1  # nothing more was waiting
    finally:
        lesson.evaluate("() => { history.replaceState = window.__replaceState; }")


def test_an_address_the_browser_refuses_is_written_later(lesson):
    # Safari's refusal (a SecurityError): the page goes on, and the address is not lost
    lesson.evaluate("s => window.pdsplit.set(s)", sim.Settings().as_dict())
    lesson.evaluate("window.pdsplit.settled()")
    lesson.evaluate("""() => {
        const write = window.__replaceState = history.replaceState;
        window.__refuse = true;
        history.replaceState = function (...args) {
            if (window.__refuse) throw new DOMException("Attempt to use history.replaceState() more than 100 times per 30 seconds", "SecurityError");
            return write.apply(this, args);
        };
    }""")
    try:
        assert lesson.evaluate("window.pdsplit.set({rps: 6}).then(r => r.settings.rps)") == 6
        lesson.evaluate("window.pdsplit.settled()")  # every write of it so far refused
        assert query(lesson) == {}  # still the lesson's defaults' address
        assert lesson.evaluate("window.pdsplit.settings().rps") == 6
        assert lesson.text_content("#value-rps") == "6 req/s"
        assert lesson.evaluate("window.pdsplit.result().settings.rps") == 6
        lesson.evaluate("window.__refuse = false")
        lesson.evaluate("window.pdsplit.settled()")  # it was still waiting: written now
        assert query(lesson) == {"rps": "6"}
    finally:
        lesson.evaluate("() => { history.replaceState = window.__replaceState; }")


def test_lesson_states_are_buttons_and_exact(lesson):
    for label, changes in [("Busy: 10 req/s", {"rps": 10}), ("Slow link: 0.25 GB/s", {"link": 0.25}),
                           ("Short prompts: 200 tokens", {"prompt": 200}), ("Lesson default", {})]:
        lesson.get_by_role("button", name=label).click()
        lesson.wait_for_function(
            "want => JSON.stringify(window.pdsplit.result().settings) === JSON.stringify(want)",
            arg=sim.Settings().but(**changes).as_dict())
        assert lesson.evaluate("window.pdsplit.result()") == sim.compare(**changes)


def test_lesson_states_are_reachable_by_dragging(lesson):
    """10 req/s, 0.25 GB/s and 200 tokens are stops on their sliders, as are the defaults."""
    stops = lesson.evaluate("""() => {
        const s = JSON.parse(document.getElementById('pdsplit-baked').textContent).schema;
        return Object.fromEntries(s.filter(f => f.slider).map(f => [f.name, f.slider]));
    }""")
    assert 10 in stops["rps"] and 0.25 in stops["link"] and 200 in stops["prompt"]
    for name, field in sim.settings.FIELDS.items():
        if field.metadata["slider"]:
            assert field.default in stops[name]
    assert stops["rps"][0] <= 0.25 and stops["rps"][-1] >= 20
    assert stops["prompt"][0] <= 100 and stops["prompt"][-1] >= 8000
    assert stops["reply"][0] <= 10 and stops["reply"][-1] >= 1000
    assert stops["link"][0] <= 0.1 and stops["link"][-1] >= 400
    assert stops["ttft_target"][0] <= 0.1 and stops["ttft_target"][-1] >= 5
    assert stops["gap_target"][0] <= 0.01 and stops["gap_target"][-1] >= 0.5


def test_url_state_opens_exactly(browser, site):
    page = open_page(browser, site + "?rps=10&link=0.25")
    try:
        assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=10, link=0.25)
        assert page.is_hidden("#notices")
    finally:
        page.context.close()


def test_bad_url_values_are_clamped_and_said(browser, site):
    page = open_page(browser, site + "?rps=500&prompt=abc&link=-3&reply=25.5&colour=red&requests=1e9"
                     "&seed=1e20&ttft_target=Infinity&gap_target=0x10", ready=False)
    try:
        notices = page.text_content("#notices")
        assert "rps=500 is above the page's range (0.25 req/s to 320 req/s); using 320 req/s." in notices
        assert "prompt=abc is not a number; using 2,000 tokens." in notices
        assert "link=-3 is below the page's range (0.1 GB/s to 400 GB/s); using 0.1 GB/s." in notices
        assert "reply=25.5 must be a whole number; using 26 words." in notices
        assert 'Unknown setting "colour" ignored' in notices
        assert "requests=1e9 is above the page's range" in notices
        # JavaScript numbers hold every seed the API takes exactly: the top one is the edge
        assert "seed=1e20 is above the page's range (0 to 9,007,199,254,740,991)" in notices
        assert "ttft_target=Infinity is above the page's range (0.1 s to 5 s); using 5 s." in notices
        assert "gap_target=0x10 is not a number; using 100 ms." in notices  # not read as 16
        page.evaluate("window.pdsplit.ready")
        want = dict(rps=320.0, link=0.1, reply=26, requests=6000, seed=2**53 - 1, ttft_target=5.0)
        assert page.evaluate("window.pdsplit.settings()") == sim.Settings().but(**want).as_dict()
        assert page.evaluate("window.pdsplit.result()") == sim.compare(**want)
        assert page.get_attribute("#status", "data-kind") == "info"
        assert page.watch.console_errors() == []
        # the notices were about the URL: the next change of setting takes them away
        page.focus("#slider-rps")
        page.keyboard.press("ArrowLeft")
        assert page.is_hidden("#notices")
    finally:
        page.context.close()


def test_step_buttons_move_one_stop(lesson):
    """On a phone a stop is a few px wide: the - and + buttons step exactly one."""
    lesson.evaluate("window.pdsplit.set({rps: 4, prompt: 2000, reply: 200, link: 25, ttft_target: 0.5, gap_target: 0.1, requests: 600, seed: 7})")
    lesson.get_by_role("button", name="Raise requests a second one stop").click()
    lesson.get_by_role("button", name="Lower link speed one stop").click()
    assert lesson.evaluate("window.pdsplit.settings()") == sim.Settings(rps=4.25, link=20).as_dict()
    lesson.wait_for_function("window.pdsplit.result().settings.link === 20")
    assert lesson.evaluate("window.pdsplit.result()") == sim.compare(rps=4.25, link=20)
    lesson.evaluate("window.pdsplit.set({rps: 20})")
    lesson.get_by_role("button", name="Raise requests a second one stop").click()
    assert lesson.evaluate("window.pdsplit.settings().rps") == 20  # the top stop for 2 GPUs holds
