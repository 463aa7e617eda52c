"""Figure 9, the chip mix (chips-and-rules.md): its numbers are the economics of each mix, it
says which prices it used, and the page bakes it and draws it, a slice at a time."""

import json
from math import fsum

import pytest

import build
import sim
from sim.show.chips import MIXES, mixes
from sim.show.figures import FIGURES
from sim.show.page import Page

FIGURE = FIGURES["chips"]
AT = sim.Settings().but(**FIGURE.settings)  # gpus=8 readers=4 rps=16: the spec's


@pytest.fixture(scope="module")
def drawn():
    lab = sim.Lab()
    return lab, FIGURE.render(lab, AT)


def test_it_is_drawn_at_the_spec_s_economics_settings():
    assert FIGURE.number == 9 and FIGURE.settings == {"gpus": 8, "readers": 4, "rps": 16.0}
    kinds = [(m.reader_gpu, m.writer_gpu, m.reader_power, m.writer_power) for *_, m in mixes(AT)]
    assert kinds == [("A100", "A100", 1.0, 1.0), ("H100", "A100", 1.0, 1.0),
                     ("H100", "H100", 1.0, 1.0), ("H100", "H100", 1.0, 0.5)]


def test_its_bars_are_the_economics_of_each_mix_on_one_scale_per_measure(drawn):
    lab, out = drawn
    fig = out["figure"]
    found = [sim.economics(**m.as_dict()) for *_, m in mixes(AT)]
    assert out["result"] == dict(zip([key for key, *_ in MIXES], found))
    bars = {(t["name"], t["yaxis"]): t for t in fig["data"]}
    assert set(bars) == {(layout, axis) for layout in ("shared", "split") for axis in ("y", "y2")}
    for (layout, axis), trace in bars.items():
        measure = "per_dollar" if axis == "y" else "per_kwh"
        assert trace["y"] == [e[layout][measure] for e in found]
        assert trace["x"] == [label for _, label, _, _ in MIXES]  # every mix side by side
        top = fig["layout"]["yaxis" if axis == "y" else "yaxis2"]["range"]
        assert top[0] == 0 and max(trace["y"]) <= top[1]  # one scale from 0 for every bar
    assert fig["layout"]["barmode"] == "group"


def test_the_caption_gives_the_runs_numbers_and_the_prices(drawn):
    _, out = drawn
    caption = out["caption"]
    assert "at the example prices (A100 $1.30, H100 $3.00 an hour)" in caption
    assert "the datasheet TDPs (A100 400 W, H100 700 W)" in caption
    # the spec's economics table, mix by mix (the split's good requests per $ and per kWh)
    assert ("The split, per dollar and per kWh: A100s alone 13,056 and 42,432; H100s reading for "
            "A100s (Splitwise-HA) 15,893 and 62,126; H100s alone 20,793 and 89,112; H100s with "
            "the writers capped at 50% 20,793 and 118,816.") in caption
    assert "split with H100s alone and H100s with the writers capped at 50% (20,793)" in caption
    assert "split with H100s with the writers capped at 50% (118,816)" in caption
    assert "keeps the split's rate goodput at 17.3 req/s per GPU" in caption
    assert "from 5,600 to 4,200 W" in caption
    assert out["shown"]["chips.split_per_kwh"] == "118,816"
    note = out["figure"]["layout"]["annotations"][0]["text"]
    assert note == "$ an hour: A100 1.30, H100 3.00 (example prices)"


def test_given_prices_are_said_and_used():
    lab = sim.Lab()
    s = AT.but(writer_price=1.1)  # A100 writers: every A100 of the mixes at $1.10
    out = FIGURE.render(lab, s)
    assert "at A100 $1.10 an hour (given) and H100 $3.00 an hour (the example price)" in out["caption"]
    assert out["figure"]["layout"]["annotations"][0]["text"] == \
        "$ an hour: A100 1.10 (given), H100 3.00 (example)"
    assert out["figure"]["layout"]["meta"]["prices"] == [[1.1, 1.1], [3.0, 1.1], [3.0, 3.0], [3.0, 3.0]]
    assert out["result"]["a100"]["split"]["price_per_hour"] == fsum([1.1] * 8)
    assert out["result"]["ha"]["split"]["price_per_hour"] == fsum([3.0] * 4 + [1.1] * 4)


def test_its_pieces_leave_the_drawing_only_cached_runs():
    lab = sim.Lab()
    s = sim.Settings(requests=200, gpus=3, readers=1, chunk=256)
    for piece in FIGURE.needs(lab, s):
        piece()
    before = lab.simulations
    out = FIGURE.render(lab, s)
    assert lab.simulations == before
    assert {t["name"] for t in out["figure"]["data"]} == {"shared", "split", "chunked"}


def test_the_page_bakes_and_draws_it_a_slice_at_a_time():
    assert FIGURE.page is True
    assert "chips" in build.PAGE_FIGURES
    assert all(FIGURES[name].page for name in build.PAGE_FIGURES)
    assert "chips" in {r.get("name") for r in build.snapshot_requests()}  # the snapshot's too
    page = Page()  # sim.show.page answers for it like any figure, a slice at a time
    request = {"type": "figure", "name": "chips", "settings": {"requests": 100}, "part": 0}
    reply = json.loads(page.handle(json.dumps(request)))
    while "figure" not in reply:
        reply = json.loads(page.handle(json.dumps(dict(request, part=reply["next"]))))
    assert reply["caption"] == FIGURE.render(sim.Lab(), sim.Settings(requests=100))["caption"]
