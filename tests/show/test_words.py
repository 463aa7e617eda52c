"""Every sentence the page writes is true for the settings shown: the introduction, the
captions (which name every layout a chart shows), values in the singular, and the load axis,
which reaches as far as the slider and is sampled where the curves bend."""

import pytest

import sim
from sim.check.expected import setting_text
from sim.show.curves import BEND, EXPLORER_RPS, POINTS, REFINE, load_top
from sim.show.figures import FIGURES
from sim.show.report import intro
from sim.show.numbers import fill


def sentences(**settings):
    templates, texts = intro(sim.Settings(**settings))
    return {name: fill(template, texts) for name, template in templates.items()}


def test_the_introduction_is_the_lessons_at_two_gpus():
    assert sentences() == {"gpus": "Two GPUs serve a language model.",
                           "split": "one GPU only reads, the other only writes"}
    assert sentences(chunk=512)["gpus"] == "Two GPUs serve a language model."


@pytest.mark.parametrize("gpus, readers, split", [
    (3, 2, "2 GPUs only read, the other one only writes"),
    (4, 1, "one GPU only reads, the other 3 only write"),
    (5, 2, "2 GPUs only read, the other 3 only write"),
    (3, 1, "one GPU only reads, the other 2 only write"),
])
def test_the_introduction_follows_the_gpus(gpus, readers, split):
    said = sentences(gpus=gpus, readers=readers)
    assert said == {"gpus": f"{gpus} GPUs serve a language model.", "split": split}


SHOWN = [{}, {"chunk": 512}, {"gpus": 3, "readers": 2, "chunk": 512}, {"gpus": 4, "chunk": 256, "rps": 12.0}]


@pytest.mark.parametrize("settings", SHOWN, ids=lambda s: " ".join(f"{k}={v}" for k, v in s.items()) or "lesson")
def test_each_caption_names_every_layout_its_chart_shows(settings):
    lab, s = sim.Lab(), sim.Settings(**settings)
    for name in ("goodput", "gap", "link", "prompt", "stall"):
        drawn = FIGURES[name].render(lab, s)
        layouts = {t["name"] for t in drawn["figure"]["data"]} & {"shared", "split", "chunked"}
        missing = [layout for layout in sorted(layouts) if layout not in drawn["caption"]]
        assert missing == [], (name, drawn["caption"])


def test_figure4_names_the_chunked_layout_and_which_serves_most():
    lab = sim.Lab()
    caption = FIGURES["prompt"].render(lab, sim.Settings(gpus=3, readers=2, chunk=512))["caption"]
    end = lab.compare(sim.Settings(gpus=3, readers=2, chunk=512, prompt=6000))
    assert f"chunked {end['chunked']['goodput'] * 100:.1f}%" in caption
    assert caption.endswith("chunked serves the most there.")


@pytest.mark.parametrize("name, value, text", [
    ("readers", 1, "1 GPU"), ("gpus", 2, "2 GPUs"), ("slots", 1, "1 reply"), ("slots", 32, "32 replies"),
    ("prompt", 2000, "2,000 tokens"), ("rps", 1.0, "1 req/s"), ("gap_target", 0.001, "1 ms"),
])
def test_values_read_in_the_singular_at_one(name, value, text):
    assert setting_text(name, value) == text


def goodput_curves(settings):
    fig = FIGURES["goodput"].render(sim.Lab(), sim.Settings(**settings))["figure"]
    return {t["name"]: (t["x"], t["y"]) for t in fig["data"] if t["name"] in ("shared", "split", "chunked")}


def test_the_lessons_load_axis_is_the_lessons():
    for x, _ in goodput_curves({"rps": 4.25}).values():
        assert x == sorted(set(POINTS["rps"]) | {4.25})
    assert load_top(2) == 20


def test_the_explorers_load_axis_reaches_the_slider_and_bends_where_goodput_does():
    curves = goodput_curves({"gpus": 3, "readers": 2, "chunk": 512})
    (x, _), *_ = curves.values()
    grid = [v * 3 / 2 for v in EXPLORER_RPS]
    assert x[-1] == load_top(3) == 30 and set(grid) <= set(x)
    added = sorted(set(x) - set(grid) - {4.0})
    assert 0 < len(added) <= REFINE
    # each point added lies half way between two that differed by more than BEND; and unless
    # REFINE ran out, no two neighbours differ by more than that any more
    steepest = max(abs(a - b) / 100 for _, y in curves.values() for a, b in zip(y, y[1:]))
    assert len(added) == REFINE or steepest <= BEND
    before = goodput_curves({"gpus": 3, "readers": 2, "chunk": 512, "rps": 5.0})
    assert [v for v in next(iter(before.values()))[0] if v != 5.0] == [v for v in x if v != 4.0]


def test_the_load_axis_bends_to_the_settings():
    a = next(iter(goodput_curves({"gpus": 4}).values()))[0]
    b = next(iter(goodput_curves({"gpus": 4, "prompt": 6000}).values()))[0]
    assert a != b  # where goodput falls depends on the prompts
