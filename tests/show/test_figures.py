"""The lesson's figures: files up to date, captions true, the same in the browser."""

import json
import re
import struct
import subprocess
import sys

import pytest

from conftest import ROOT

import sim
from sim.model import costs
from sim.show.figures import FIGURES
from sim.show.numbers import ms, percent

sys.path.insert(0, str(ROOT / "figures"))
import export  # noqa: E402

A100 = costs.CHIPS["A100"]  # the lesson's GPU: its read cost and writing step

FILES = ROOT / "figures"


@pytest.fixture(scope="module")
def drawn():
    return {stem: (fig, caption) for stem, fig, caption in export.lesson_figures()}


def test_the_figures(drawn):
    assert sorted(drawn) == sorted(["fig1-stall", "fig2-gap-by-rps", "fig3-goodput-by-link",
                             "fig4-goodput-by-prompt", "fig5-goodput-by-load", "fig6-best-ratio",
                             "fig7-know-your-traffic", "fig8-best-ratio-traces", "fig9-chip-mix",
                             "fig10-bigger-models", "fig11-memory-pushes-back"])


def committed(name, binary=False):
    """A file of figures/ as committed (make build rewrites the working copy), or as it
    stands when this is not a git checkout."""
    done = subprocess.run(["git", "-C", str(ROOT), "show", f"HEAD:figures/{name}"],
                          capture_output=True, text=not binary)
    if done.returncode == 0:
        return done.stdout
    return (FILES / name).read_bytes() if binary else (FILES / name).read_text()


def test_committed_json_is_what_the_code_draws(drawn):
    for stem, (fig, _) in drawn.items():
        assert committed(f"{stem}.json") == export.as_json(fig), f"{stem}.json is stale: make figures"


def test_readme_captions_are_the_code_s(drawn):
    figures = [(stem, fig, caption) for stem, (fig, caption) in drawn.items()]
    assert committed("README.md") == export.readme(figures)


def test_images_are_steady_and_committed(drawn):
    """`make figures` (run by `make test` before the tests) writes the committed bytes again:
    drawing is steady, so a build leaves the checkout clean, and no image is stale."""
    for stem in drawn:
        assert 'id="defs-fig' in (FILES / f"{stem}.svg").read_text()
        for kind in ("svg", "png"):
            name = f"{stem}.{kind}"
            assert (FILES / name).read_bytes() == committed(name, binary=True), f"{name}: make figures"


def test_figure1_stall_is_read_plus_one_step(drawn):
    fig, caption = drawn["fig1-stall"]
    meta = fig["layout"]["meta"]
    read = 2000 * A100.read_cost
    assert meta["read"] == pytest.approx(read, abs=1e-12)
    assert meta["stall"] == pytest.approx(read + A100.step, abs=1e-9)
    # Measured again from the marks drawn: the widest gap of a shared row is the stall.
    rect = fig["layout"]["shapes"][0]
    shared_rows = [t for t in fig["data"] if t["xaxis"] == "x"]
    gaps = [b - a for t in shared_rows for a, b in zip(t["x"], t["x"][1:])
            if a <= rect["x0"] + 1e-9 and b >= rect["x1"] - 1e-9]
    assert gaps and max(gaps) == pytest.approx((read + A100.step) * 1000, abs=1e-6)
    assert f"for {ms(read)}" in caption and f"waits {ms(read + A100.step)}" in caption
    assert ms(read) == "103.0 ms" and ms(read + A100.step) == "110.8 ms"
    # The split's writer, over the same window, never pauses longer than one step but
    # for a reply's first gap (which waits for the step in progress).
    writer_rows = [t for t in fig["data"] if t["xaxis"] == "x2"]
    assert writer_rows
    steps = [b - a for t in writer_rows for a, b in zip(t["x"], t["x"][1:])]
    assert max(steps) < 2 * A100.step * 1000
    assert f"keeps every reply it writes within {ms(max(steps) / 1000)} between" in caption


def test_figure2_caption(drawn):
    _, caption = drawn["fig2-gap-by-rps"]
    lab = sim.Lab()
    assert lab.compare(sim.Settings(rps=3.5))["shared"]["gap_p99"] <= 0.1
    at4 = lab.compare(sim.Settings(rps=4))["shared"]["gap_p99"]
    assert at4 > 0.1
    assert f"passes the 100.0 ms target at 4 req/s ({ms(at4)})" in caption
    assert f"at most {ms(A100.step)}" in caption


def test_figure3_marks_the_bisection_crossover(drawn):
    fig, caption = drawn["fig3-goodput-by-link"]
    cross = sim.Lab().crossover(sim.Settings())
    assert fig["layout"]["meta"]["crossover"] == cross["link"]
    line = next(t for t in fig["data"] if t["name"].startswith("crossover"))
    assert line["x"] == [cross["link"], cross["link"]]
    assert line["name"] == "crossover 0.292 GB/s"  # in the legend: off the steep curve
    assert f"Below {cross['link']:.3g} GB/s" in caption and "0.292" in caption
    assert percent(cross["shared_goodput"]) in caption


def test_figure4_caption(drawn):
    fig, caption = drawn["fig4-goodput-by-prompt"]
    end = sim.compare(prompt=6000)
    assert (f"at 6,000 tokens, shared {percent(end['shared']['goodput'])}, split "
            f"{percent(end['split']['goodput'])}") in caption
    split = next(t for t in fig["data"] if t["name"] == "split")
    assert split["x"][0] == 200 and split["x"][-1] == 6000
    for x, y in zip(split["x"][::7], split["y"][::7]):
        assert y == sim.compare(prompt=x)["split"]["goodput"] * 100


def test_figure7_puts_the_lesson_s_traffic_beside_azure_s(drawn):
    fig, caption = drawn["fig7-know-your-traffic"]
    assert fig["layout"]["meta"]["panels"] == ["lesson", "azure-chat", "azure-code"]
    for traffic, words in (("lesson", "the lesson's traffic"), ("azure-chat", "Azure chat"),
                           ("azure-code", "Azure code")):
        here = sim.compare(traffic=traffic)
        cv = sim.traffic(traffic=traffic)["gap_cv"]
        assert (f"{words} (burstiness {cv:.2f}), shared {percent(here['shared']['goodput'])}, "
                f"split {percent(here['split']['goodput'])}") in caption
    poisson = sim.compare(traffic="azure-code", arrivals="poisson")
    assert (f"Azure code's lengths at the lesson's random spacing: shared "
            f"{percent(poisson['shared']['goodput'])}, split "
            f"{percent(poisson['split']['goodput'])}") in caption
    assert "Azure LLM inference trace 2023, Microsoft Azure, CC-BY 4.0" in caption
    code = [t for t in fig["data"] if t.get("xaxis") == "x3" and t["name"] == "split"][0]
    assert code["x"][8] == 4.0 and code["y"][8] == sim.compare(traffic="azure-code")["split"]["goodput"] * 100


def test_figure8_is_the_best_ratio_of_each_trace(drawn):
    fig, caption = drawn["fig8-best-ratio-traces"]
    chat = sim.ratio(traffic="azure-chat", gpus=8, rps=16.0)
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    assert bars[0]["y"] == [r["goodput"] * 100 for r in chat]
    best = max(chat, key=lambda r: (r["rate"], r["goodput"]))
    assert f"For Azure chat {best['readers']}:{8 - best['readers']} serves most per GPU" in caption
    assert "for Azure code 7:1 serves most per GPU" in caption


def png_size(path):
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_exported_text_is_at_least_12px(drawn):
    for stem, (fig, _) in drawn.items():
        assert png_size(FILES / f"{stem}.png") == (export.WIDTH, fig["layout"]["height"])  # scale 1
        svg = (FILES / f"{stem}.svg").read_text()
        sizes = [float(s) for s in re.findall(r"font-size:\s*([\d.]+)px", svg)]
        assert sizes and min(sizes) >= 12, stem


def test_exported_legends_do_not_cover_data(browser, drawn):
    page = browser.new_page()
    try:
        for stem in drawn:
            page.set_content((FILES / f"{stem}.svg").read_text())
            legend, areas = page.evaluate("""() => [
                document.querySelector('g.legend').getBoundingClientRect().bottom,
                Array.from(document.querySelectorAll('g.bglayer rect.bg, g.gridlayer'),
                           r => r.getBoundingClientRect().top).filter(t => t > 0)]""")
            assert areas and legend <= min(areas) + 1, stem
    finally:
        page.close()


LESSON_PAGE = ("goodput", "gap", "stall", "link", "prompt")  # drawn with the explorer closed


@pytest.mark.parametrize("changes", [{}, {"rps": 10, "prompt": 3000}, {"link": 0.5, "reply": 400}])
def test_browser_figures_equal_native(lesson, changes):
    s = sim.Settings().but(**changes)
    lesson.evaluate("s => window.pdsplit.set(s)", s.as_dict())
    lesson.evaluate("window.pdsplit.settled()")
    lab = sim.Lab()
    for name in LESSON_PAGE:
        drawn = FIGURES[name].render(lab, s)
        shown = lesson.evaluate("name => window.pdsplit.figure(name)", name)
        assert {k: shown[k] for k in drawn} == json.loads(json.dumps(drawn)), name
        assert lesson.text_content(f"#caption-{name}") == drawn["caption"]
        # each number of the caption is marked with its key, its text the simulator's
        marked = lesson.evaluate("""name => Object.fromEntries(Array.from(
            document.querySelectorAll(`#caption-${name} [data-metric]`),
            e => [e.dataset.metric, e.textContent]))""", name)
        assert marked == drawn["shown"] and marked, name


def test_figure10_puts_three_models_side_by_side(drawn):
    """Each panel's lines are its model's runs, and the caption's reach is read off them."""
    from sim.show.models import MODEL_LOADS, MODEL_PANELS
    fig, caption = drawn["fig10-bigger-models"]
    assert fig["layout"]["meta"]["panels"] == ["8B", "70B", "405B"]
    for k, (_, changes, key) in enumerate(MODEL_PANELS):
        runs = [sim.compare(rps=v, **changes) for v in MODEL_LOADS]
        axis = "x" if k == 0 else f"x{k + 1}"
        split = next(d for d in fig["data"] if d["name"] == "split" and d.get("xaxis", "x") == axis)
        assert split["y"] == [r["split"]["goodput"] * 100 for r in runs]
        reach = [v for v, r in zip(MODEL_LOADS, runs) if r["split"]["goodput"] >= 0.9]
        if reach:
            assert f"splitting up to {max(reach):g} req/s" in caption


def test_figure11_says_where_memory_pushes_back(drawn):
    from sim.show.models import MEMORY, MEMORY_LOADS
    fig, caption = drawn["fig11-memory-pushes-back"]
    runs = [sim.compare(rps=v, **MEMORY)["split"] for v in MEMORY_LOADS]
    held = next(d for d in fig["data"] if d["name"] == "readers held back")
    assert held["y"] == [r["backpressure"] * 100 for r in runs]
    first = next(v for v, r in zip(MEMORY_LOADS, runs) if r["backpressure"] > 0)
    assert f"From {first:g} req/s the writers' memory is full" in caption
    slots = [sim.compare(rps=v, **{**MEMORY, "memory": "slots"})["split"] for v in MEMORY_LOADS]
    assert any(s["goodput"] - r["goodput"] > 0.5 for s, r in zip(slots, runs))  # what it costs
