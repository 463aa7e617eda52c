"""The page's capacity line: {"type": "capacity"} answers sim.capacity's numbers as they are,
and a line whose every number is one of them (or counted from them), marked as a field."""

import json
import re

import pytest

import sim
from sim.show.page import Page
from sim.show.numbers import fill

FIELD = re.compile(r"\{([^{}]*)\}")
KEY = re.compile(r"capacity\.[a-z_0-9]+")  # as the page's showTemplate finds them


def ask(settings):
    return json.loads(Page().handle(json.dumps({"type": "capacity", "settings": settings})))


def whole(text):
    return int(text.replace(",", ""))


SETTINGS = [
    {},
    {"model": "70B", "tp": 2, "gpus": 4, "readers": 2, "memory": "kv"},
    {"model": "405B", "tp": 8, "gpus": 16, "readers": 8, "reader_gpu": "H200", "writer_gpu": "H200"},
    {"model": "70B", "tp": 2, "reader_tp": 4, "gpus": 8, "readers": 4, "reader_gpu": "H100",
     "reader_power": 0.5, "prompt": 6000, "reply": 400, "chunk": 512},
    {"model": "70B", "tp": 2, "gpus": 4, "readers": 2, "prompt": 30000, "reply": 500},
    {"model": "70B", "tp": 2, "gpus": 4, "readers": 2, "prompt": 50000, "reply": 500},
]


@pytest.mark.parametrize("settings", SETTINGS,
                         ids=lambda s: " ".join(f"{k}={v}" for k, v in s.items()) or "lesson")
def test_the_lines_numbers_are_sim_capacitys(settings):
    reply = ask(settings)
    assert set(reply) == {"capacity", "line", "shown"}
    found = sim.capacity(**settings)
    assert reply["capacity"] == json.loads(json.dumps(found))  # as is
    shown, line = reply["shown"], reply["line"]
    for key in FIELD.findall(line):
        assert KEY.fullmatch(key) and key in shown, key
    s = sim.Settings(**settings)
    need, prompt = s.prompt + s.reply, s.prompt
    assert whole(shown["capacity.need"]) == need and whole(shown["capacity.prompt"]) == prompt
    for pool, parts in found.items():
        for i, part in enumerate(parts):
            k = f"capacity.{pool}" + (f"_{i + 1}" if i else "")
            assert f"{{{k}_instances}}" in line and f"{{{k}_kv}}" in line
            assert whole(shown[f"{k}_instances"]) == part["instances"]
            assert whole(shown[f"{k}_gpus"]) == part["gpus"]
            assert shown[f"{k}_kind"].startswith(part["kind"])
            assert shown[f"{k}_weights"] == f"{part['weights_bytes'] / 1e9:,.1f} GB"
            assert shown[f"{k}_usable"] == f"{part['usable_bytes'] / 1e9:,.1f} GB"
            assert whole(shown[f"{k}_kv"]) == part["kv_tokens"]
            # a reader holds a prompt's cache; the others a request's, prompt and reply
            fit = part["kv_tokens"] // (prompt if pool == "readers" else need)
            assert whole(shown[f"{k}_fit"]) == fit
            assert (f"{{{k}_fit}}" in line) == (fit > 0)
    assert "{" not in fill(line, shown)


def test_the_line_in_words():
    reply = ask({"model": "70B", "tp": 2, "gpus": 4, "readers": 2, "memory": "kv"})
    each = ("2 A100s, each 141.1 GB of weights in 154.6 GB usable, room for 41,233 tokens of "
            "KV: about")
    assert fill(reply["line"], reply["shown"]) == (
        f"Shared: 2 instances × {each} 18 requests of 2,200 tokens each. Split: readers "
        f"1 instance × {each} 20 prompts of 2,000 tokens each; writers 1 instance × {each} 18 "
        "requests of 2,200 tokens each.")
    lesson = ask({})
    assert fill(lesson["line"], lesson["shown"]).startswith(
        "Shared: 2 instances × 1 A100, each 16.1 GB of weights in 77.3 GB usable, room for "
        "467,291 tokens of KV: about 212 requests of 2,200 tokens each. Split: readers 1 "
        "instance × 1 A100,")


def test_two_kinds_in_the_shared_layout_are_said_each():
    reply = ask(SETTINGS[3])
    said = fill(reply["line"], reply["shown"])
    assert said.startswith("Shared and chunked: 2 instances × 2 H100s at 50%, each ")
    assert "; 2 instances × 2 A100s, each " in said
    assert " Split: readers 1 instance × 4 H100s at 50%, each " in said


def test_a_request_too_long_for_any_instance_is_said_so():
    reply = ask(SETTINGS[5])
    said = fill(reply["line"], reply["shown"])
    assert "41,233 tokens of KV: not one request of 50,500 tokens" in said
    assert "41,233 tokens of KV: not one prompt of 50,000 tokens" in said
    reply = ask(SETTINGS[4])
    assert "41,233 tokens of KV: about 1 request of 30,500 tokens." in fill(reply["line"],
                                                                               reply["shown"])


@pytest.mark.parametrize("settings, error", [
    ({"model": "405B"}, "model=405B does not fit: its weights are 811.7 GB"),
    ({"model": "70B", "tp": 2, "gpus": 3}, "gpus=3 is not a multiple of tp=2"),
    ({"speed": 1}, "unknown setting 'speed'"),
])
def test_settings_that_cannot_be_made_get_one_clear_error(settings, error):
    reply = ask(settings)
    assert list(reply) == ["error"] and error in reply["error"]
