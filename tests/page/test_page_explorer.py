"""The "Go further" panel: closed, the lesson's page; open, a control for every explorer
setting, a third layout, DistServe's goodput and the best ratio, all equal to native runs."""

import json
import random

import pytest

import sim
from sim.show.figures import FIGURES
from sim.show.numbers import shown
from sim.settings import CHIPS, FIELDS
from sim.show.states import group

from conftest import open_page
from test_page_layout import assert_fits
from test_page_results import BARE_NUMBERS

EXPLORER = [name for name, f in FIELDS.items() if f.metadata["group"] == "explorer"]


@pytest.fixture(scope="module")
def explorer(browser, site):
    """One booted page with the panel open (a URL that sets an explorer setting opens it)."""
    page = open_page(browser, site + "?routing=least-loaded")
    yield page
    page.context.close()


def on_screen(page):
    """Every number the page shows for the layouts, as {data-metric: text}."""
    return dict(page.evaluate("""() => Array.from(document.querySelectorAll(
        '[data-metric^="shared."], [data-metric^="split."], [data-metric^="chunked."]'),
        e => [e.dataset.metric, e.textContent])"""))


def explorer_visible(page, keys):
    return any(page.is_visible(f'[data-metric="{key}"]') for key in keys)


def equal_native(page, settings, ratio=True):
    """The page's result, every layout's numbers as text, the rate goodput (as the API gives
    it and as the page words it) and the best ratio equal a native run's, value for value."""
    full = sim.Settings().but(**settings).as_dict()
    page.evaluate("s => window.pdsplit.set(s)", full)
    page.evaluate("window.pdsplit.settled()")
    native = sim.compare(**full)
    assert page.evaluate("window.pdsplit.result()") == native
    want = shown(native)
    texts = on_screen(page)
    chunked = [key for key in texts if key.startswith("chunked.")]  # a column, there or not
    assert explorer_visible(page, chunked) == ("chunked" in native)
    for key, text in texts.items():
        if key in want:
            assert text == want[key], key
        else:  # a column of a layout these settings do not have, or memory=kv's rows: folded away
            assert not explorer_visible(page, [key]), key
            assert not key.startswith(("shared.", "split.")) or text == "", key
    assert page.evaluate("window.pdsplit.rate()") == sim.rate(**full)
    rate_words = FIGURES["rate"].render(sim.model.lab.DEFAULT_LAB, sim.Settings(**full))
    page.wait_for_function("want => window.pdsplit.figure('rate')?.caption === want",
                           arg=rate_words["caption"])
    for key, text in rate_words["shown"].items():
        assert page.text_content(f'#caption-rate [data-metric="{key}"]') == text
    if ratio:
        assert page.evaluate("window.pdsplit.ratio()") == sim.ratio(**full)


def test_closed_by_default_the_page_is_the_lesson_s(browser, site):
    page = open_page(browser, site)
    try:
        assert page.evaluate("document.getElementById('explorer').open") is False
        for name in EXPLORER:  # its controls are there, folded away
            assert page.locator(f'[data-setting="{name}"]').first.is_hidden()
        assert page.is_hidden('th.chunked') and page.is_hidden('[data-metric="chunked.goodput"]')
        labels = page.evaluate("Array.from(document.querySelectorAll('#sliders label'), l => l.textContent)")
        assert labels[:4] == ["Requests a second", "Prompt tokens", "Reply length", "Link speed"]
        assert page.evaluate("window.pdsplit.figure('rate')") is None  # not worked out while closed
    finally:
        page.context.close()


def test_a_url_with_an_explorer_setting_opens_it(explorer):
    assert explorer.evaluate("document.getElementById('explorer').open") is True
    for name in EXPLORER:
        control = explorer.locator(f'[data-setting="{name}"]').first
        assert control.is_visible(), name
        help_text = explorer.text_content(f"#help-{name}")
        assert len(help_text) > 40 and help_text.endswith("."), name


EXPLORER_STATES = group("explorer")  # each claimed result worked out, as the build does


@pytest.mark.parametrize("name, label, changes", EXPLORER_STATES, ids=[s[0] for s in EXPLORER_STATES])
def test_named_states_equal_native(explorer, name, label, changes):
    explorer.get_by_role("button", name=label).click()
    want = sim.Settings().but(**changes).as_dict()
    explorer.wait_for_function(
        "want => JSON.stringify(window.pdsplit.result()?.settings) === JSON.stringify(want)", arg=want)
    equal_native(explorer, changes)


def random_explorer_settings(rng):
    gpus = rng.choice((2, 3, 4, 6, 8))
    settings = {name: rng.choice(FIELDS[name].metadata["slider"])
                for name in ("rps", "prompt", "reply", "link", "chunk", "slots", "local_below",
                             "attainment")}
    settings.update(gpus=gpus, readers=rng.randint(1, gpus - 1),
                    routing=rng.choice(("alternate", "least-loaded")),
                    link_sharing=rng.choice(("free", "queued")), layerwise=rng.choice((0, 1)),
                    reader_gpu=rng.choice(CHIPS), writer_gpu=rng.choice(CHIPS),
                    seed=rng.randrange(2**32))
    return settings


rng = random.Random(20261129)
RANDOM = [random_explorer_settings(rng) for _ in range(10)]


@pytest.mark.parametrize("changes", RANDOM, ids=[f"random{k}" for k in range(len(RANDOM))])
def test_random_explorer_settings_equal_native(explorer, changes):
    equal_native(explorer, changes)


def test_random_settings_span_every_option():
    for name in ("routing", "link_sharing", "layerwise", "reader_gpu", "writer_gpu"):
        assert len({s[name] for s in RANDOM}) >= 2, name
    assert len({s["gpus"] for s in RANDOM}) >= 3 and any(s["chunk"] for s in RANDOM)


def test_every_number_in_the_open_panel_is_marked(explorer):
    explorer.evaluate("window.pdsplit.set({chunk: 256, gpus: 4, readers: 3})")
    explorer.evaluate("window.pdsplit.settled()")
    bare, marked = explorer.evaluate(BARE_NUMBERS)
    assert bare == [], bare
    prefixes = {key.split(".")[0] for key in marked}
    assert {"chunked", "rate", "ratio", "settings"} <= prefixes


def test_readers_never_exceed_gpus_minus_one(explorer):
    explorer.evaluate("window.pdsplit.set({gpus: 6, readers: 5})")
    explorer.evaluate("window.pdsplit.set({gpus: 3})")
    assert explorer.evaluate("window.pdsplit.settings().readers") == 2
    assert explorer.get_attribute("#slider-readers", "max") == "1"  # stops 1 and 2 only
    assert explorer.text_content("#value-readers") == "2 GPUs"
    assert "leaves no writer" in explorer.text_content("#notices")
    explorer.click("#slider-readers + button.step")  # + at the top adds a GPU with the reader
    assert explorer.evaluate("window.pdsplit.settings()")["readers"] == 3
    assert explorer.evaluate("window.pdsplit.settings()")["gpus"] == 4
    assert "the split needs a writer" in explorer.text_content("#note-readers")
    explorer.select_option("#choice-routing", "alternate")
    explorer.wait_for_function("window.pdsplit.settings().routing === 'alternate'")


def test_chunked_is_everywhere_the_others_are(explorer):
    s = sim.Settings(chunk=512, gpus=3, readers=2)
    explorer.evaluate("s => window.pdsplit.set(s)", s.as_dict())
    explorer.evaluate("window.pdsplit.settled()")
    assert "reading prompts 512 tokens a step" in explorer.text_content("#headline")
    assert explorer.is_visible('#table [data-metric="chunked.goodput"]')
    assert explorer.locator('#misses [data-metric="chunked.missed_both"]').count() == 1
    colours = {}
    for chart in ("goodput", "gap"):
        traces = explorer.evaluate(f"window.pdsplit.figure('{chart}').figure.data")
        colours = {t["name"]: t["line"]["color"] for t in traces if t["name"] in ("shared", "split", "chunked")}
        assert set(colours) == {"shared", "split", "chunked"}
        assert len(set(colours.values())) == 3
    lab = sim.Lab()
    for name in ("goodput", "gap", "rate", "ratio"):
        drawn = json.loads(json.dumps(FIGURES[name].render(lab, s)))
        on_page = explorer.evaluate("name => window.pdsplit.figure(name)", name)
        assert {k: on_page[k] for k in drawn} == drawn, name
        assert explorer.text_content(f"#caption-{name}") == drawn["caption"]
    headline = explorer.evaluate("""() => ['shared', 'split', 'chunked'].map(l =>
        getComputedStyle(document.querySelector(`#headline [data-metric="${l}.goodput"]`)).color)""")
    assert len(set(headline)) == 3


@pytest.mark.parametrize("width, height", [(375, 740), (1280, 800)])
def test_open_panel_fits_phones_and_laptops(browser, site, artifacts, width, height):
    page = open_page(browser, site + "?chunk=512&gpus=3&readers=2", width, height)
    try:
        page.evaluate("window.pdsplit.settled()")
        page.evaluate("document.getElementById('explorer').scrollIntoView()")
        page.screenshot(path=str(artifacts / f"explorer-{width}x{height}.png"), full_page=True)
        assert page.locator("#explorer-controls select").count() == 5
        assert page.locator("#traffic-controls select").count() == 2  # the traffic, its arrivals
        assert_fits(page)
        assert page.watch.console_errors() == []
    finally:
        page.context.close()
