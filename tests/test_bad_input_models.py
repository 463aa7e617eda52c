"""Bad input for bigger models, GPUs working as one, costs and memory: each refusal through the
API, the command line (exit 2, one line, nothing printed) and the page's URL, which does not
offer these settings yet and says so, keeping the lesson's numbers."""

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


def test_the_url_says_the_page_does_not_offer_them_and_keeps_the_lesson(browser, site):
    page = open_page(browser, site + "?model=70B&tp=3&memory=kv&rps=10")
    try:
        notices = page.text_content("#notices")
        for name, value in (("model", "70B"), ("tp", "3"), ("memory", "kv")):
            assert f"{name}={value} is not on this page yet" in notices
            assert f"using {name}={sim.Settings().as_dict()[name]}" in notices
        assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=10)  # the rest works
        refused = page.evaluate("window.pdsplit.set({model: '405B'}).then(() => null, e => e.message)")
        assert refused and "model=405B is not on this page yet" in refused
        assert page.evaluate("window.pdsplit.settings().rps") == 10
    finally:
        page.context.close()
