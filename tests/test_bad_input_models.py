"""Bad input for bigger models, GPUs working as one, costs and memory: each refusal through the
API, the command line (exit 2, one line, nothing printed) and the page's URL and
window.pdsplit.set, which say what did not fit and what the page uses instead (the nearest
settings that hang together: web/settings.js, fit), and run those."""

import subprocess
import sys

import pytest

import sim
from conftest import ROOT, open_page

REFUSED = [  # (settings, words the one message must have)
    (dict(gpus=3, tp=2), ["gpus=3", "tp=2"]),
    (dict(gpus=8, readers=2, reader_tp=4), ["readers=2", "reader_tp=4"]),
    (dict(gpus=8, readers=3, tp=2, reader_tp=1), ["gpus - readers = 5", "tp=2"]),
    (dict(gpus=8, readers=2, tp=4, reader_tp=2, reader_gpu="H100"), ["gpus - readers = 6", "tp=4"]),
    (dict(model="70B"), ["model=70B", "141.1 GB", "77.3 GB", "smallest tp that holds it on A100s is 2"]),
    (dict(model="405B", tp=8, gpus=16, readers=8), ["model=405B", "811.7 GB", "no instance of up to 8 A100s"]),
    (dict(tp=3), ["tp must be one of 1, 2, 4, 8 GPUs", "got"]),
    (dict(reader_tp=5), ["reader_tp must be one of 0, 1, 2, 4, 8 GPUs", "5"]),
    (dict(model="13B"), ["model must be one of 8B, 70B, 405B"]),
    (dict(costs="exact"), ["costs must be one of toy, roofline"]),
    (dict(memory="pages"), ["memory must be one of slots, kv"]),
]


def flags(settings):
    return [part for name, value in settings.items()
            for part in ("--" + name.replace("_", "-"), str(value))]


@pytest.mark.parametrize("settings, words", REFUSED, ids=str)
def test_the_api_refuses_with_one_message(settings, words):
    for call in (sim.compare, sim.capacity, sim.rate):
        with pytest.raises(ValueError) as refused:
            call(**settings)
        for word in words:
            assert word in str(refused.value)


@pytest.mark.parametrize("settings, words", REFUSED, ids=str)
def test_the_command_line_refuses_with_exit_2(settings, words):
    for command in ("compare", "capacity"):
        done = subprocess.run([sys.executable, "-m", "sim", command, *flags(settings)],
                              capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("python -m sim: error: ")
        for word in words:
            assert word in done.stderr


def test_what_would_fit_is_allowed():
    """The refusal's advice holds: the smallest tp it names does fit."""
    assert sim.capacity(model="70B", tp=2, gpus=4, readers=2)["writers"][0]["kv_tokens"] == 41_233
    assert sim.compare(model="70B", tp=2, gpus=4, readers=2, requests=30)["split"]["requests"] == 30


# (URL, words each notice must have, the settings the page then runs)
URLS = [
    ("?model=70B&tp=3&memory=kv&rps=10",
     ["tp=3 is not one of 1, 2, 4, 8; using 4", "readers=1 is not a multiple of 4", "gpus=2"],
     dict(model="70B", tp=4, gpus=8, readers=4, memory="kv", rps=10)),
    ("?model=70B&rps=10",
     ["model=70B does not fit", "141.1 GB", "77.3 GB", "using tp=2", "readers=1", "gpus=2"],
     dict(model="70B", tp=2, gpus=4, readers=2, rps=10)),
    ("?model=405B&rps=10", ["model=405B does not fit", "811.7 GB", "no instance of up to 8 A100s",
                            "using model=8B"], dict(rps=10)),
    ("?gpus=8&readers=3&tp=2&rps=10", ["readers=3 is not a multiple of 2", "using 4"],
     dict(gpus=8, readers=4, tp=2, rps=10)),
    ("?gpus=8&readers=2&tp=4&reader_tp=2&reader_gpu=H100&rps=10",
     ["readers=2 is not a multiple of 4", "using 4"],
     dict(gpus=8, readers=4, tp=4, reader_tp=2, reader_gpu="H100", rps=10)),
    ("?memory=pages&costs=exact&rps=10", ["memory=pages is not one of slots, kv; using slots",
                                          "costs=exact is not one of toy, roofline; using toy"],
     dict(rps=10)),
]


@pytest.mark.parametrize("url, words, runs", URLS, ids=[u for u, _, _ in URLS])
def test_the_url_says_what_did_not_fit_and_runs_what_does(browser, site, url, words, runs):
    page = open_page(browser, site + url)
    try:
        notices = page.text_content("#notices")
        for word in words:
            assert word in notices
        page.evaluate("window.pdsplit.ready")
        assert page.evaluate("window.pdsplit.result()") == sim.compare(**runs)  # the rest works
        for name, value in runs.items():
            assert page.evaluate(f"window.pdsplit.settings()[{name!r}]") == value
    finally:
        page.context.close()


def test_set_fits_what_does_not_fit_and_says_so(browser, site):
    page = open_page(browser, site + "?rps=10")
    try:
        page.evaluate("window.pdsplit.ready")
        page.evaluate("window.pdsplit.set({model: '405B'})")
        assert "no instance of up to 8 A100s holds it; using model=8B" in page.text_content("#notices")
        assert page.evaluate("window.pdsplit.settings().model") == "8B"
        refused = page.evaluate("window.pdsplit.set({tp: 'two'}).then(() => null, e => e.message)")
        assert refused is None and "tp=two is not a number" in page.text_content("#notices")
        assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=10)
    finally:
        page.context.close()
