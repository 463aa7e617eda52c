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
            this.addEventListener("message", (e) => window.__log.push(["reply", e.data?.id]));
        }
    };
    const send = Worker.prototype.postMessage;
    Real.prototype.postMessage = function (message, ...rest) {
        window.__log.push(["send", message?.id, message?.budget ?? 0, message?.type]);
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
    ~30 ms here, and the worker would wait for it): between the reply a main chart's draw
    shows and the draw, a request is sent. Only the last draw has none: the figures, on this
    one worker, wait for the main charts."""
    page = one_worker
    page.evaluate("window.__log.length = 0")
    page.evaluate("window.pdsplit.set({prompt: 1700, reply: 230})")
    page.evaluate("window.pdsplit.settled()")
    log = page.evaluate("window.__log")
    draws = [i for i, (kind, what, *_) in enumerate(log)
             if kind == "draw" and what.removeprefix("chart-") in MAIN]
    assert len(draws) >= 4  # each main chart's sketch, then each whole
    for i in draws[:-1]:
        heard = max(j for j in range(i) if log[j][0] == "reply")
        sent = [entry for entry in log[heard + 1:i] if entry[0] == "send"]
        assert sent, log[heard:i + 1]
        # for more than one slice: the main thread could not ask for the next one while it draws
        assert all(entry[2] > 0 for entry in sent), log[heard:i + 1]
    # a piece asked for with no draw under way is one slice, so that newer settings come in soon
    figures = [entry[2] for entry in log if entry[0] == "send" and entry[3] == "figure"]
    assert figures.count(0) > len(draws), figures


def test_the_first_chart_is_asked_for_with_the_numbers(one_worker):
    """The first main chart's request goes to the worker with the numbers', not once their
    reply is heard: the worker answers the numbers in a few ms, and the main thread, busy
    with the key and then the numbers, would leave it waiting. It asks for more than one
    slice, since the main thread is busy meanwhile; and the numbers still come first."""
    page = one_worker
    page.evaluate("window.pdsplit.settled()")
    page.evaluate("window.__log.length = 0")
    page.evaluate("window.pdsplit.set({prompt: 1900, reply: 210})")
    page.evaluate("window.pdsplit.settled()")
    log = page.evaluate("window.__log")
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
