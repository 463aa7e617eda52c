"""In the browser the page's numbers are the native simulator's, value for value and as text."""

import random

import pytest

import sim
from sim.show.numbers import number, shown
from sim.settings import FIELDS
from sim.show.states import STATES

SLIDERS = [name for name, f in FIELDS.items() if f.metadata["slider"] and f.metadata["group"] == "lesson"]


def random_slider_settings(rng):
    return {name: rng.choice(FIELDS[name].metadata["slider"]) for name in SLIDERS}


rng = random.Random(11)
CASES = [dict(changes) for _, _, changes in STATES]
CASES += [random_slider_settings(rng) for _ in range(12)]
CASES += [dict(random_slider_settings(rng), seed=rng.randrange(10**6), requests=rng.choice((50, 1000)))
          for _ in range(3)]


@pytest.mark.parametrize("changes", CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
def test_page_equals_native(lesson, changes):
    full = sim.Settings().but(**changes).as_dict()
    result = lesson.evaluate("s => window.pdsplit.set(s)", full)
    native = sim.compare(**full)
    assert result == native
    assert lesson.evaluate("window.pdsplit.result()") == native
    texts = lesson.evaluate("""() => Array.from(
        document.querySelectorAll('[data-metric^="shared."], [data-metric^="split."]'),
        e => [e.dataset.metric, e.textContent])""")
    want = shown(native)
    assert len(texts) >= 10
    for key, text in texts:  # (memory=kv's rows are there, empty, with memory=slots)
        assert text == want.get(key, ""), key
    for name, text, folded in lesson.evaluate("""() => Array.from(
            document.querySelectorAll('[data-metric^="settings."]'),
            e => [e.dataset.metric.split('.')[1], e.textContent, Boolean(e.closest('[hidden]'))])"""):
        if folded:  # a control that does nothing here (the trace's window, with the lesson's traffic)
            continue
        meta = FIELDS[name].metadata
        factor, unit = meta["shown"]
        x = full[name] * factor
        if name == "reader_tp" and x == 0:  # the readers' tp as the writers': it says so, and how many
            tp = full["tp"]
            assert text == f"as the writers' ({number(tp)} GPU{'' if tp == 1 else 's'})"
            continue
        assert text == f"{number(x)} {unit or (meta['one'] if x == 1 else meta['unit'])}"  # 1 GPU, 2 GPUs
    headline = lesson.text_content("#headline")
    assert want["shared.goodput"] in headline and want["split.goodput"] in headline


def test_lesson_default_headline(lesson):
    lesson.evaluate("window.pdsplit.set({rps: 4, prompt: 2000, reply: 200, link: 25, ttft_target: 0.5, gap_target: 0.1, requests: 600, seed: 7})")
    assert lesson.text_content("#headline") == (
        "Within both targets, sharing the two GPUs serves 13.5% of requests; splitting them serves 98.7%.")


def test_set_refuses_unknown_names(lesson):
    message = lesson.evaluate("window.pdsplit.set({speed: 3}).then(() => 'resolved', e => e.message)")
    assert message.startswith('unknown setting "speed"')


# Digits outside headings, buttons, status lines, the plots and [data-metric] elements.
BARE_NUMBERS = """() => {
        // #announce: the headline again, hidden, for screen readers
        // .said: a note of what the page did with a setting, by its control, as #notices are
        // option: a choice's name; #trace-notices: what was said of a file, as #notices are
        // .live: Watch it run's readouts at its playhead (the clock, the counts and the gap),
        // on purpose outside the data-metric contract: they are a moment the learner moves,
        // not a settled number `python -m sim check` could hold to a native run (the tests
        // hold them to sim.watch's events instead: test_page_watch.py)
        // #model-controls .help: the models' help names them (8B, Llama 3.1, tp's "0: as many
        // as the writers'") and quotes the spec's ranges: the settings' own words, not results
        const skip = "h1, h2, button, option, #status, #notices, #trace-notices, #announce, .said, .live, .plot, .name, script, [data-metric], #model-controls .help";
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const bare = [];
        for (let node; (node = walker.nextNode());) {
            if (/(^|[^a-z0-9])\\d/i.test(node.nodeValue) && !node.parentElement.closest(skip)) bare.push(node.nodeValue);
        }
        return [bare, Array.from(document.querySelectorAll("[data-metric]"), e => e.dataset.metric)];
    }"""


def test_every_number_shown_is_marked(lesson):
    """Outside headings, buttons, status lines and the plots' own axes, no digit stands
    outside an element marked data-metric: CI can find every number the page shows.
    (Names such as p50, p99 or Llama-3-8B are not numbers.)"""
    lesson.evaluate("window.pdsplit.set({rps: 10, link: 0.25})")
    lesson.evaluate("window.pdsplit.settled()")
    bare, marked = lesson.evaluate(BARE_NUMBERS)
    assert bare == [], bare
    prefixes = {key.split(".")[0] for key in marked}
    assert {"shared", "split", "settings", "costs", "stall", "gap", "link", "prompt"} <= prefixes
