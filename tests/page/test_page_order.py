"""What a change asks of the page's one worker, in which order, and what it dims: the
numbers first, then the two main charts, and only then the other figures (which would
otherwise slow the main charts); nothing is dimmed at the change itself, and what is still
stale a while later is."""

import pytest

from conftest import open_page

# Every request the page sends to a worker, in order: [type, figure name or null].
REQUESTS = """
    window.__requests = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
        window.__requests.push([message?.type, message?.name ?? null]);
        return post.call(this, message, ...rest);
    };
"""
MAIN = {"goodput", "gap"}
# And in one log, as they happen: each request sent, each reply heard (before the page hears
# it), each draw of a chart.
LOG = """
    window.__log = [];
    const Real = Worker;
    window.Worker = class extends Real {
        constructor(...args) {
            super(...args);
            window.__worker = this;
            this.addEventListener("message", (e) => window.__log.push(
                ["reply", e.data?.id, (e.data?.result?.also ?? []).map((more) => more.name)]));
        }
    };
    const send = Worker.prototype.postMessage;
    Real.prototype.postMessage = function (message, ...rest) {
        window.__log.push(["send", message?.id, message?.budget ?? 0, message?.type, message?.name ?? null,
                           Boolean(message?.sketch), Boolean(message?.follows)]);
        return send.call(this, message, ...rest);
    };
    let plotly;
    Object.defineProperty(window, "Plotly", { configurable: true, get: () => plotly, set(real) {
        plotly = real;
        const react = real.react;
        real.react = function (chart, ...rest) {
            window.__log.push(["draw", chart.id]);
            return react.call(this, chart, ...rest);
        };
    } });
"""


def logged(page, change):
    """The log of one change of settings, from the change until the page has settled."""
    page.evaluate("window.pdsplit.settled()")
    page.evaluate("window.__log.length = 0")
    page.evaluate("s => window.pdsplit.set(s)", change)
    page.evaluate("window.pdsplit.settled()")
    return page.evaluate("window.__log")


@pytest.fixture(scope="module")
def one_worker(browser, site):
    """A booted page on a device of two cores: one worker computes everything."""
    page = open_page(browser, site, cores=2, script=REQUESTS + LOG)
    page.evaluate("window.pdsplit.settled()")
    assert list(page.evaluate("window.pdsplit.memory()")) == ["numbers"]
    yield page
    page.context.close()


@pytest.mark.parametrize("change", [{"prompt": 2400}, {"reply": 250}, {"link": 10}])
def test_the_numbers_then_the_main_charts_then_the_figures(one_worker, change):
    page = one_worker
    page.evaluate("window.__requests.length = 0")
    page.evaluate("s => window.pdsplit.set(s)", change)
    page.evaluate("window.pdsplit.settled()")
    asked = [tuple(r) for r in page.evaluate("window.__requests") if r[0] in ("compare", "figure")]
    assert asked[0] == ("compare", None)
    figures = [name for kind, name in asked[1:]]
    assert "compare" not in [kind for kind, _ in asked[1:]]
    last_main = max(i for i, name in enumerate(figures) if name in MAIN)
    first_other = min(i for i, name in enumerate(figures) if name not in MAIN)
    assert last_main < first_other, figures
    assert {"stall", "link", "prompt"} <= set(figures)


def test_nothing_dims_at_a_change_and_what_is_slow_dims_later(one_worker):
    page = one_worker
    # In the same task as the change, before any reply: nothing is dimmed yet.
    dimmed = page.evaluate("""() => {
        window.pdsplit.set({requests: 6000, seed: 4242});
        return Array.from(document.querySelectorAll('.pending'), e => e.id);
    }""")
    assert dimmed == []
    # 6,000 requests: the main charts take seconds, so after 0.25 s they are dimmed ...
    page.wait_for_function("document.getElementById('chart-goodput').classList.contains('pending')")
    # ... and with them their captions, whose numbers are the same earlier settings' ...
    assert page.evaluate("['caption-goodput', 'caption-gap'].filter(id => !document.getElementById(id).classList.contains('pending'))") == []
    # ... until they are drawn for these settings; once settled nothing is dimmed.
    page.evaluate("window.pdsplit.settled()")
    assert page.evaluate("Array.from(document.querySelectorAll('.pending'), e => e.id)") == []
    page.evaluate("window.pdsplit.set({requests: 600, seed: 7})")
    page.evaluate("window.pdsplit.settled()")


def test_the_worker_computes_the_next_piece_while_a_chart_is_drawn(one_worker):
    """A reply's next request goes to the worker before the reply is drawn (a draw takes
    ~10 to 40 ms here, and the worker would wait for it): while a main chart is drawn, a
    request is under way (sent between the reply the draw shows and the draw, or with the
    request before, to follow it), for pieces until the chart's sketch or whole is done.
    Only the last reply has none: it brings both main charts whole (the gap chart's runs are
    the goodput chart's), drawn one after the other in the same task, and the figures, on
    this one worker, wait for the main charts."""
    log = logged(one_worker, {"prompt": 1700, "reply": 230})
    draws = [i for i, (kind, what, *_) in enumerate(log)
             if kind == "draw" and what.removeprefix("chart-") in MAIN]
    assert len(draws) >= 4  # each main chart's sketch, then each whole
    heard = [max(j for j in range(i) if log[j][0] == "reply") for i in draws]
    # the last two draws: both charts whole, from one reply, with nothing between them
    assert heard[-1] == heard[-2] and log[heard[-1]][2] == ["gap"], log[heard[-2]:draws[-1] + 1]
    assert [log[i][1] for i in draws[-2:]] == ["chart-goodput", "chart-gap"]
    assert not [entry for entry in log[heard[-1]:draws[-1]] if entry[0] == "send"]
    answered = {entry[1]: j for j, entry in enumerate(log) if entry[0] == "reply"}
    for i in draws[:-2]:
        under_way = [entry for j, entry in enumerate(log[:i]) if entry[0] == "send" and answered.get(entry[1], len(log)) > i]
        assert under_way, log[:i + 1]
        # for more than one slice: the main thread could not ask for the next one while it draws
        assert all(entry[2] > 0 for entry in under_way), log[:i + 1]


def test_a_newer_setting_goes_to_the_worker_at_once_and_the_older_request_hands_back(one_worker):
    """A figure request runs on until its chart's sketch or whole is done, and a newer
    setting does not wait for it: its numbers go to the worker at once, and the worker,
    between two slices, hears them and hands the older request back unfinished."""
    page = one_worker
    page.evaluate("window.pdsplit.settled()")
    # 6,000 requests: the main charts take seconds, so a request for them is under way
    page.evaluate("window.pdsplit.set({requests: 6000, seed: 5151})")
    page.wait_for_function("""() => window.__log.filter(e => e[0] === 'send' && e[3] === 'figure').length >= 2""")
    page.evaluate("window.__log.length = 0")
    page.evaluate("window.pdsplit.set({requests: 600, seed: 7})")
    page.evaluate("window.pdsplit.settled()")
    log = page.evaluate("window.__log")
    compare = next(entry for entry in log if entry[0] == "send" and entry[3] == "compare")
    # sent before any reply was heard: the older request was still under way
    assert log.index(compare) < min(i for i, entry in enumerate(log) if entry[0] == "reply"), log[:6]
    # and the numbers' reply is the first heard, the older request's just after
    replies = [entry[1] for entry in log if entry[0] == "reply"]
    assert replies.index(compare[1]) <= 1, (compare, replies[:4])


def test_a_request_running_on_hands_back_when_a_newer_one_comes(one_worker):
    """At the worker: a figure request for up to a minute of pieces, then a compare sent
    just after it. The compare is answered first, between two slices, and the figure
    request comes back with what it had done, short of its sketch or whole."""
    page = one_worker
    page.evaluate("window.pdsplit.settled()")
    settings = {**page.evaluate("window.pdsplit.settings()"), "seed": 626262, "requests": 3000}
    replies = page.evaluate("""(settings) => new Promise((resolve) => {
        const worker = window.__worker, heard = [];
        worker.addEventListener("message", function listen(e) {
            if (e.data?.id !== 987001 && e.data?.id !== 987002) return;
            heard.push(e.data);
            if (heard.length === 2) { worker.removeEventListener("message", listen); resolve(heard); }
        });
        worker.postMessage({id: 987001, type: "figure", name: "goodput", part: 0, budget: 60000, settings});
        worker.postMessage({id: 987002, type: "compare", settings: {...settings, seed: 626263}});
    })""", settings)
    assert [r["id"] for r in replies] == [987002, 987001]
    assert "result" in replies[0] and "shared" in replies[0]["result"]["result"]
    figure = replies[1]["result"]
    assert "figure" not in figure and "sketch" not in figure
    assert 0 < figure["next"] < figure["parts"]


def test_the_first_chart_is_asked_for_with_the_numbers(one_worker):
    """The first main chart's request goes to the worker with the numbers', not once their
    reply is heard: the worker answers the numbers in a few ms, and the main thread, busy
    with the key and then the numbers, would leave it waiting. It asks for more than one
    slice, since the main thread is busy meanwhile; and the numbers still come first."""
    log = logged(one_worker, {"prompt": 1900, "reply": 210})
    sends = [entry for entry in log if entry[0] == "send" and entry[3] in ("compare", "figure")]
    assert sends[0][3] == "compare" and sends[1][3] == "figure", sends[:2]
    compare = sends[0][1]
    heard = next(i for i, entry in enumerate(log) if entry[0] == "reply" and entry[1] == compare)
    assert log.index(sends[1]) < heard, log[:heard + 1]
    assert sends[1][2] > 0, sends[1]


def test_a_sketch_comes_back_at_once_even_within_a_budget(one_worker):
    """The worker, asked for pieces for up to a minute, still answers as soon as the sketch
    is done, so that the chart moves at once (not once the whole figure is)."""
    page = one_worker
    page.evaluate("window.pdsplit.settled()")
    reply = page.evaluate("""(settings) => new Promise((resolve) => {
        const worker = window.__worker, id = 987654;
        worker.addEventListener("message", function heard(e) {
            if (e.data?.id !== id) return;
            worker.removeEventListener("message", heard);
            resolve(e.data);
        });
        worker.postMessage({id, type: "figure", name: "goodput", part: 0, sketch: true, budget: 60000, settings});
    })""", {**page.evaluate("window.pdsplit.settings()"), "seed": 424242})
    result = reply["result"]
    assert "sketch" in result and "figure" not in result
    assert result["next"] < result["parts"]


def test_a_sketch_request_is_followed_by_the_next_so_the_worker_goes_straight_on(one_worker):
    """The gap chart's sketch (drawn from runs the goodput chart's sketch simulated) takes
    the worker a few ms, and it then waited, about 5 ms a step here, for the main thread to
    draw the goodput sketch and ask for more. So the sketch's request goes with the next
    step's, the goodput chart whole, sent to follow it: the worker goes on to it at once.
    The whole request is under way before the gap sketch's reply is heard."""
    log = logged(one_worker, {"prompt": 2100, "reply": 190})
    sends = {entry[1]: (i, entry) for i, entry in enumerate(log) if entry[0] == "send" and entry[3] == "figure"}
    gap_sketch = next((i, e) for i, e in sends.values() if e[4] == "gap" and e[5])
    whole = next((i, e) for i, e in sends.values() if e[4] == "goodput" and not e[5])
    assert whole[1][6], ("the whole request follows the sketch's", whole)
    assert whole[0] == gap_sketch[0] + 1, log[gap_sketch[0]:whole[0] + 1]
    heard = next(i for i, entry in enumerate(log) if entry[0] == "reply" and entry[1] == gap_sketch[1][1])
    assert whole[0] < heard
    # and it is not what ended the sketch's request: that one came back with its sketch
    draws = [entry[1] for entry in log[heard:] if entry[0] == "draw"]
    assert draws[0] == "chart-gap", log[heard:heard + 4]


WORKER_REPLIES = """([requests, count]) => new Promise((resolve) => {
    const worker = window.__worker, heard = [], ids = requests.map((r) => r.id);
    worker.addEventListener("message", function listen(e) {
        if (!ids.includes(e.data?.id)) return;
        heard.push(e.data);
        if (heard.length === count) { worker.removeEventListener("message", listen); resolve(heard); }
    });
    for (const request of requests) worker.postMessage(request);
})"""


def test_a_request_that_follows_waits_for_the_one_before_and_does_not_end_it(one_worker):
    """At the worker: a sketch's request for up to a minute of pieces, then the same chart's
    rest sent to follow it. The sketch comes back first, done (a newer request would have
    ended it short), and then the rest, whole, from where the sketch left off."""
    page = one_worker
    page.evaluate("window.pdsplit.settled()")
    settings = {**page.evaluate("window.pdsplit.settings()"), "seed": 737373, "requests": 3000}
    sketch, whole = page.evaluate(WORKER_REPLIES, [[
        {"id": 988001, "type": "figure", "name": "goodput", "part": 0, "sketch": True, "budget": 60000, "settings": settings},
        {"id": 988002, "type": "figure", "name": "goodput", "part": 0, "budget": 60000, "follows": True, "settings": settings},
    ], 2])
    assert [sketch["id"], whole["id"]] == [988001, 988002]
    assert "sketch" in sketch["result"] and 0 < sketch["result"]["next"] < sketch["result"]["parts"]
    assert "figure" in whole["result"] and whole["result"]["next"] == whole["result"]["parts"]


def test_a_request_that_follows_ends_with_nothing_done_when_a_newer_one_comes(one_worker):
    """At the worker: a figure request, one to follow it, then a compare for newer settings.
    The compare is answered first; the figure request comes back short; the one that
    followed, which was waiting, comes back at once with nothing done: its settings are left."""
    page = one_worker
    page.evaluate("window.pdsplit.settled()")
    settings = {**page.evaluate("window.pdsplit.settings()"), "seed": 747474, "requests": 3000}
    replies = page.evaluate(WORKER_REPLIES, [[
        {"id": 989001, "type": "figure", "name": "goodput", "part": 0, "budget": 60000, "settings": settings},
        {"id": 989002, "type": "figure", "name": "gap", "part": 3, "budget": 60000, "follows": True, "settings": settings},
        {"id": 989003, "type": "compare", "settings": {**settings, "seed": 747475}},
    ], 3])
    assert [r["id"] for r in replies] == [989003, 989001, 989002]
    assert "shared" in replies[0]["result"]["result"]
    assert "figure" not in replies[1]["result"] and 0 < replies[1]["result"]["next"] < replies[1]["result"]["parts"]
    assert replies[2]["result"] == {"next": 3}
