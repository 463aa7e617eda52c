"""Figures 1 and 9 at the settings of docs/model.md's "Bigger models, GPUs working as one, and
memory" (models-and-memory.md): the spec's figure settings and a few others.

Figure 1 draws the words of a run whose steps need not be alike: each word must be where the
lab's recorded run (the one sim.watch gives events of) puts it, and the caption's numbers must
be that run's. Figure 9 draws the mixes of chips the simulator allows and says why it leaves
any other out; its pieces and stages agree with what it draws.
"""

import json

import pytest

import sim
from sim.model.costs import EPS
from sim.model.instances import check
from sim.show import chips
from sim.show.figures import FIGURES
from sim.show.page import Page
from sim.show.numbers import ms
from sim.show.stall import AFTER, BEFORE, figure_span

# The spec's table "Figures a faithful simulator gives" (600 requests, seed 7).
SPEC = [
    {"memory": "kv"},
    {"costs": "roofline"},
    {"costs": "roofline", "prompt": 16000, "reply": 100, "rps": 0.5, "ttft_target": 2},
    {"model": "70B", "tp": 2, "gpus": 8, "readers": 4, "reader_tp": 4, "reader_gpu": "H100",
     "rps": 4, "ttft_target": 1},
    {"model": "405B", "tp": 8, "gpus": 16, "readers": 8, "reader_gpu": "H200",
     "writer_gpu": "H200", "rps": 2, "ttft_target": 2, "gap_target": 0.2},
    {"memory": "kv", "model": "70B", "tp": 2, "gpus": 4, "readers": 2, "slots": 1024, "rps": 2,
     "link_sharing": "queued", "layerwise": 1, "ttft_target": 2},
    {"memory": "kv", "local_below": 1500, "model": "70B", "tp": 2, "gpus": 6, "readers": 2,
     "slots": 512, "rps": 2, "ttft_target": 2},
    {"memory": "kv", "prompt": 30000, "reply": 500, "model": "70B", "tp": 2, "gpus": 4,
     "readers": 2, "rps": 0.2, "ttft_target": 10},
]
OTHERS = [
    {"costs": "roofline", "gpus": 4, "readers": 2},
    {"tp": 2, "gpus": 4, "readers": 2},
    {"tp": 2, "gpus": 4, "readers": 2, "local_below": 2500},  # the writer reads local prompts
    {"model": "70B", "tp": 4, "gpus": 8, "readers": 4},
    {"memory": "kv", "model": "70B", "tp": 2, "gpus": 4, "readers": 2, "rps": 2, "slots": 1024},
    {"reader_tp": 2, "gpus": 4, "readers": 2},  # a GPU an instance, but readers of two
]
SETTINGS = SPEC + OTHERS


def label(changes):
    return " ".join(f"{k}={v}" for k, v in changes.items())


@pytest.fixture(scope="module")
def lab():
    return sim.Lab()


def expected_rows(lab, s, layout, lane, t0, t1):
    """Each reply's words in [t0, t1] on the lane's instance 0, from the recorded run's own
    answers: its first word (watched.requests) and then the end of every step of its instance
    that starts at its first word or later, up to its last word (sim.watch's events). (A
    word at t0 itself is drawn: a window's events and requests begin with those that end after
    t0, so they are asked of a window a little wider.)"""
    wider = max(0.0, t0 - 1e-3)
    steps = [e for e in lab.watch(layout, wider, t1, s)
             if e["kind"] == "step" and e["lane"] == lane and e["index"] == 0]
    rows = []
    for r in lab.watched(layout, s).requests(wider, t1):
        if r["lane"] != lane or r["index"] != 0:
            continue
        times = [r["first"]] if t0 <= r["first"] <= t1 else []
        times += [e["end"] for e in steps
                  if e["start"] >= r["first"] - EPS and e["end"] <= r["last"] and t0 <= e["end"] <= t1]
        if times:
            rows.append(times)
    return sorted(rows, key=lambda ts: ts[0])


def drawn_rows(fig, xaxis, t0):
    return [t["x"] for t in fig["data"] if t["xaxis"] == xaxis]


def as_x(rows, t0):
    return [[(t - t0) * 1000 for t in times] for times in rows]


@pytest.mark.parametrize("changes", SETTINGS, ids=label)
def test_figure_1_draws_every_word_where_the_recorded_run_has_it(lab, changes):
    s = sim.Settings(**changes)
    out = FIGURES["stall"].render(lab, s)
    fig, caption = out["figure"], out["caption"]
    meta = fig["layout"]["meta"]
    one = s.tp == 1
    shared_name = "first shared GPU" if one else f"first shared instance ({s.tp} GPUs)"
    if meta["stall"] is None:  # (the spec's last row: no lone read of 30,000 tokens to show)
        assert fig["data"] == []
        assert caption == (f"No {s.prompt:,}-token read on the {shared_name} overlaps a reply "
                           "being written at these settings, so there is no stall to show.")
        return
    t0, t1 = meta["start"], meta["end"]
    shared = expected_rows(lab, s, "shared", "gpu", t0, t1)
    writer = expected_rows(lab, s, "split", "writer", t0, t1)
    assert shared and writer
    # exactly, the same floats (rows in the order of their first words; equal ones in any)
    assert sorted(drawn_rows(fig, "x", t0)) == sorted(as_x(shared, t0))
    assert sorted(drawn_rows(fig, "x2", t0)) == sorted(as_x(writer, t0))

    # The read shown is one of the run's, lone: a step ends as it starts, the next starts as
    # it ends, and the window holds BEFORE steps before it and AFTER after it, no more.
    events = lab.watch("shared", t0, t1, s)
    steps = [e for e in events if e["kind"] == "step" and e["lane"] == "gpu" and e["index"] == 0]
    reads = [e for e in events if e["kind"] == "read" and e["lane"] == "gpu" and e["index"] == 0
             and (e["start"] - t0) * 1000 == fig["layout"]["shapes"][0]["x0"]]
    assert len(reads) == 1
    read = reads[0]
    assert read["tokens"] == s.prompt and read["end"] - read["start"] == meta["read"]
    before = [e for e in steps if e["end"] <= read["start"] + EPS]
    after = [e for e in steps if e["start"] >= read["end"] - EPS]
    assert before[-1]["end"] == read["start"] and after[0]["start"] == read["end"]
    assert len(before) == BEFORE and before[0]["start"] == t0
    assert len(after) == AFTER and after[-1]["end"] == t1
    assert meta["stall"] == after[0]["end"] - before[-1]["end"]

    # The caption's numbers are the run's.
    step_after = after[0]["end"] - after[0]["start"]
    writer_gap = max(b - a for ts in writer for a, b in zip(ts, ts[1:]))
    assert caption.startswith(f"{t0:.1f} s into the run, the {shared_name} reads a")
    assert f"-token prompt for {ms(meta['read'])} and writes nothing meanwhile" in caption
    assert (f"waits {ms(meta['stall'])} between two words (the read plus the {ms(step_after)} "
            "step after it)") in caption
    assert f"Over the same {ms(t1 - t0)}, the " in caption
    assert f"within {ms(writer_gap)} between two words." in caption
    writer_name = "split's writer" if one else f"split's first writer instance ({s.tp} GPUs)"
    assert f"the {writer_name}, which " in caption
    if not (s.local_below or s.local_queue):
        assert "which never reads" in caption
    else:  # (the writer reads short prompts itself: the caption says how many, here)
        local = [e for e in lab.watch("split", t0, t1, s) if e["kind"] == "read"
                 and e["lane"] == "writer" and e["index"] == 0]
        said = (f"which reads {len(local)} local prompt{'' if len(local) == 1 else 's'} itself"
                if local else "which reads no prompt of its own")
        assert f"{said} in that time" in caption or "which never reads" in caption
    names = {t["name"] for t in fig["data"]}
    assert names == ({"shared GPU: a word", "split's writer: a word"} if one else
                     {"shared instance: a word", "split's first writer instance: a word"})


def test_the_writer_that_reads_local_prompts_says_so(lab):
    s = sim.Settings(tp=2, gpus=4, readers=2, local_below=2500)
    caption = FIGURES["stall"].render(lab, s)["caption"]
    assert "which reads 1 local prompt itself in that time" in caption


def test_with_every_new_setting_at_its_default_figure_1_is_the_lessons():
    out = FIGURES["stall"].render(sim.Lab(), sim.Settings())
    assert out["caption"] == (
        "66.3 s into the run, the first shared GPU reads a 2,000-token prompt for 103.0 ms and "
        "writes nothing meanwhile: every reply it is writing waits 110.8 ms between two words "
        "(the read plus one 7.9 ms step). Over the same 229.0 ms, the split's writer, which "
        "never reads, keeps every reply it writes within 10.5 ms between two words.")


@pytest.mark.parametrize("changes", [{}, {"rps": 10.0}, {"gpus": 4, "readers": 2}], ids=label)
def test_at_the_lessons_settings_the_marks_give_the_recorded_runs_words(lab, changes):
    """(The marks' arithmetic is not the loop's own to the last bit: within a nanosecond.)"""
    s = sim.Settings(**changes)
    fig = FIGURES["stall"].render(lab, s)["figure"]
    t0, t1 = fig["layout"]["meta"]["start"], fig["layout"]["meta"]["end"]
    for xaxis, layout, lane in (("x", "shared", "gpu"), ("x2", "split", "writer")):
        got = sorted(drawn_rows(fig, xaxis, t0))
        want = sorted(as_x(expected_rows(lab, s, layout, lane, t0, t1), t0))
        assert [len(r) for r in got] == [len(r) for r in want]
        assert all(g == pytest.approx(w, abs=1e-6) for g, w in zip(got, want))  # ms: a ns


def refused_keys(s):
    out = []
    for key, _, _, m in chips.mixes(s):
        try:
            check(m)
        except ValueError:
            out.append(key)
    return out


@pytest.mark.parametrize("changes", SETTINGS, ids=label)
def test_figure_9_leaves_out_exactly_the_mixes_the_simulator_refuses(changes):
    lab = sim.Lab()
    s = sim.Settings(**changes).but(requests=100)  # (which mixes run does not depend on it)
    figure = FIGURES["chips"]
    refused = refused_keys(s)
    kept = [(key, label_, m) for key, label_, _, m in chips.mixes(s) if key not in refused]
    pieces = figure.needs(lab, s)
    assert len(pieces) == sum(chips.steps_of(m) for *_, m in kept)
    assert len(figure.stages(lab, s)) == max(len(kept) - 1, 0)
    for piece in pieces:
        piece()
    out = figure.render(lab, s)
    meta = out["figure"]["layout"]["meta"]
    assert meta["mixes"] == [key for key, *_ in kept]
    assert meta.get("left_out", []) == refused
    assert list(out["result"]) == [key for key, *_ in kept]
    for trace in out["figure"]["data"]:
        assert trace["x"] == [label_ for _, label_, _ in kept]
    if refused:
        assert ("Left out, as the simulator refuses" in out["caption"]
                or out["caption"].startswith("None of the 4 mixes"))


def test_figure_9_with_no_mix_that_fits_says_why_in_the_refusals_words():
    s = sim.Settings(**SPEC[4])  # 405B on 8 H200s an instance: no 8 A100s or H100s hold it
    out = FIGURES["chips"].render(sim.Lab(), s)
    assert out["figure"]["data"] == [] and out["result"] == {}
    assert out["figure"]["layout"]["meta"]["left_out"] == ["a100", "ha", "h100", "capped"]
    assert out["caption"] == (
        "None of the 4 mixes of A100s and H100s can run at these settings, so there is nothing "
        "to draw: A100s alone, because 405B's weights (811.7 GB) do not fit an instance of 8 A100s "
        "(618.5 GB usable); H100s reading for A100s (Splitwise-HA), H100s alone and H100s with the "
        "writers capped at 50%, because 405B's weights (811.7 GB) do not fit an instance of 8 "
        "H100s (618.5 GB usable).")
    with pytest.raises(ValueError) as refusal:  # the simulator's own words
        check(chips.mixes(s)[0][3])
    assert ("its weights are 811.7 GB, and an instance (tp=8) of 8 A100s may use 618.5 GB"
            in str(refusal.value))
    assert FIGURES["chips"].needs(sim.Lab(), s) == [] and FIGURES["chips"].stages(sim.Lab(), s) == []


def test_figure_9_draws_the_mixes_left_and_says_which_it_left_out(monkeypatch):
    """One mix refused, the others allowed (with 80 GiB A100s and H100s the model's fit refuses
    all four or none: here the capped mix is refused as a 70B on one GPU would be)."""
    with pytest.raises(ValueError) as refusal:
        check(sim.Settings(model="70B"))
    real = chips.check

    def refuse_capped(m):
        if m.writer_power == chips.CAP:
            raise ValueError(str(refusal.value))
        return real(m)

    monkeypatch.setattr(chips, "check", refuse_capped)
    lab, s = sim.Lab(), sim.Settings(requests=100)
    figure = FIGURES["chips"]
    assert len(figure.needs(lab, s)) == 3 * chips.steps_of(s)
    assert len(figure.stages(lab, s)) == 2
    out = figure.render(lab, s)
    assert out["figure"]["layout"]["meta"]["mixes"] == ["a100", "ha", "h100"]
    assert out["figure"]["layout"]["meta"]["left_out"] == ["capped"]
    assert "Capping the H100 writers" not in out["caption"]
    assert out["caption"].endswith(
        "Left out, as the simulator refuses it at these settings: H100s with the writers capped at "
        "50%, because 70B's weights (141.1 GB) do not fit an instance of 1 A100 (77.3 GB usable).")
    sketch = figure.stages(lab, s)[0][1]()  # a stage draws the mixes allowed, in their places
    assert all(t["x"] == [label_ for _, label_, *_ in chips.MIXES[:3]] for t in sketch["data"])


def ask(page, request):
    return json.loads(page.handle(json.dumps(request)))


@pytest.mark.parametrize("changes", SETTINGS, ids=label)
def test_the_page_draws_figure_1_at_the_new_settings(changes):
    reply = ask(Page(), {"type": "figure", "name": "stall", "settings": changes, "part": 0})
    assert "error" not in reply and reply["figure"]["layout"]["meta"]
    assert reply["caption"] == FIGURES["stall"].render(sim.Lab(), sim.Settings(**changes))["caption"]


@pytest.mark.parametrize("changes", [SPEC[4], {**SPEC[1], "requests": 100}], ids=label)
def test_the_page_draws_figure_9_at_the_new_settings(changes):
    page = Page()
    request = {"type": "figure", "name": "chips", "settings": changes, "part": 0}
    reply = ask(page, request)
    while "figure" not in reply:
        assert "error" not in reply
        reply = ask(page, dict(request, part=reply["next"]))
    assert reply["caption"] == FIGURES["chips"].render(sim.Lab(), sim.Settings(**changes))["caption"]


@pytest.mark.parametrize("changes", [{}, SPEC[1], SPEC[3], SPEC[7]], ids=lambda c: label(c) or "lesson")
def test_figure_span_is_figure_1s_window(lab, changes):
    s = sim.Settings(**changes)
    meta = FIGURES["stall"].render(lab, s)["figure"]["layout"]["meta"]
    span = figure_span(lab, s)
    assert span == (None if meta["stall"] is None else (meta["start"], meta["end"]))
