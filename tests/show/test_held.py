"""The page's chart "Memory over time" (sim/show/held.py, FIGURES["kv"]): each pool's series is
the sum of sim.watch's `kv` events over its lanes, its peaks are compare's, and its held-back
bands add up to compare's backpressure (models-and-memory.md: "What is measured")."""

import json
import random
import time
from bisect import bisect_right
from math import fsum

import pytest

import sim
from sim.model.lab import Lab
from sim.model.watch import LONGEST
from sim.settings import Settings
from sim.show.figures import FIGURES
from sim.show.page import Page
from sim.show.numbers import percent

KV = FIGURES["kv"]
# the spec's rows with memory=kv that hold a lesson for this chart: the writers full; the
# readers held back for two thirds of the run
FULL = {"memory": "kv", "model": "70B", "tp": 2, "gpus": 4, "readers": 2, "slots": 1024,
        "rps": 2, "link_sharing": "queued", "layerwise": 1, "ttft_target": 2}
HELD = {"memory": "kv", "prompt": 30000, "reply": 500, "model": "70B", "tp": 2, "gpus": 4,
        "readers": 2, "rps": 0.2, "ttft_target": 10}


def random_settings(rng):
    """memory=kv settings whose instances can be made: several of each pool, now and then."""
    while True:
        model = rng.choice(["8B", "8B", "70B"])
        tp = rng.choice([1, 2]) if model == "8B" else rng.choice([2, 4])
        reader_tp = rng.choice([0, 0, tp, 2 * tp])
        rtp = reader_tp or tp
        readers = rtp * rng.choice([1, 2])
        gpus = readers + tp * rng.choice([1, 2])
        s = dict(memory="kv", model=model, tp=tp, reader_tp=reader_tp, gpus=gpus, readers=readers,
                 prompt=rng.choice([2000, 8000, 20000]), reply=rng.choice([200, 800]),
                 rps=rng.choice([0.5, 2.0, 6.0]), slots=rng.choice([32, 256, 1024]),
                 link_sharing=rng.choice(["free", "queued"]), layerwise=rng.choice([0, 1]),
                 routing=rng.choice(["alternate", "least-loaded"]),
                 local_below=rng.choice([0, 0, 1500]), costs=rng.choice(["toy", "roofline"]),
                 requests=200)
        try:
            sim.capacity(**s)
        except ValueError:
            continue
        return s


SETTINGS = [FULL, HELD, {"memory": "kv"}] + [random_settings(random.Random(k)) for k in range(5)]


def drawn(settings):
    out = KV.render(Lab(), Settings.make(**settings))
    return out, out["figure"]["layout"]["meta"]


def kv_events(settings, end):
    """Every kv event of the split's run, from sim.watch's windows over [0, end]."""
    found, t0 = set(), 0.0
    while t0 < end:
        t1 = min(t0 + LONGEST, end)
        for e in sim.watch("split", t0, t1, **settings):
            if e["kind"] == "kv":
                found.add((e["lane"], e["index"], e["start"], e["end"], e["tokens"]))
        t0 = t1
    return found


def summed(events, lane):
    """{moment any lane of the pool changes: the tokens its lanes hold together from then}."""
    runs = {}
    for name, index, start, end, tokens in events:
        if name == lane:
            runs.setdefault(index, []).append((start, end, tokens))
    moments = sorted({t for each in runs.values() for start, end, _ in each for t in (start, end)})
    out = {}
    for t in moments:
        total = 0
        for each in runs.values():
            each.sort()
            k = bisect_right([start for start, _, _ in each], t) - 1
            if k >= 0 and t < each[k][1]:  # the lane's run that covers t (none: it holds 0)
                total += each[k][2]
        out[t] = total
    return out


@pytest.mark.parametrize("settings", SETTINGS)
def test_the_series_are_the_sums_of_the_watched_kv_events(settings):
    out, meta = drawn(settings)
    events = kv_events(settings, meta["end"])
    assert events
    for pool, lane in (("readers", "reader"), ("writers", "writer")):
        series = meta[pool]
        assert dict(zip(series["t"], series["tokens"])) == summed(events, lane)
        assert len(series["t"]) == len(series["tokens"]) and series["t"] == sorted(series["t"])
        name = "readers hold" if pool == "readers" else "writers reserve"
        trace = next(d for d in out["figure"]["data"] if d["name"] == name)
        assert (trace["x"], trace["y"]) == (series["t"], series["tokens"])
        assert trace["line"]["shape"] == "hv"
    assert max(e[3] for e in events) <= meta["end"]


@pytest.mark.parametrize("settings", SETTINGS)
def test_capacity_and_peaks_are_compares(settings):
    _, meta = drawn(settings)
    result = sim.compare(**settings)["split"]
    found = sim.capacity(**settings)
    events = kv_events(settings, meta["end"])
    for pool, lane in (("readers", "reader"), ("writers", "writer")):
        part = found[pool][0]
        room = part["kv_tokens"]
        assert meta[pool]["capacity"] == part["instances"] * room
        # the pool together never holds more than its instances can ...
        assert max(meta[pool]["tokens"], default=0) <= meta[pool]["capacity"]
        # ... and its fullest instance, as a share of its own C, is compare's kv_peak
        most = max((e[4] for e in events if e[0] == lane), default=0)
        assert most / room == result[f"{lane}_kv_peak"]
        if part["instances"] == 1:
            assert max(meta[pool]["tokens"]) / meta[pool]["capacity"] == result[f"{lane}_kv_peak"]


@pytest.mark.parametrize("settings", SETTINGS)
def test_the_held_back_bands_add_up_to_the_backpressure(settings):
    out, meta = drawn(settings)
    result = sim.compare(**settings)["split"]
    bands = meta["held_back"]
    assert fsum(b - a for a, b in bands) / meta["end"] == pytest.approx(
        result["backpressure"], rel=1e-12, abs=1e-15)
    flat = [t for band in bands for t in band]
    assert flat == sorted(flat) and all(a < b for a, b in bands)  # apart, in order
    assert not bands or (bands[0][0] >= 0 and bands[-1][1] <= meta["end"])
    shapes = out["figure"]["layout"].get("shapes", [])
    assert [[s["x0"], s["x1"]] for s in shapes] == bands
    # in every band a reader lane is idle (no read of its own covers the band's middle)
    readers = sim.capacity(**settings)["readers"][0]["instances"]
    for a, b in bands[:50]:
        middle = (a + b) / 2
        t0 = max(0.0, middle - 1e-9)
        busy = {e["index"] for e in sim.watch("split", t0, middle + 1e-9, **settings)
                if e["lane"] == "reader" and e["kind"] == "read"
                and e["start"] <= middle < e["end"]}
        assert len(busy) < readers


def test_the_spec_rows_caption():
    out, meta = drawn(FULL)
    result = sim.compare(**FULL)["split"]
    assert meta["held_back"] == [] and result["backpressure"] == 0
    caption = out["caption"]
    assert caption.startswith("70B on 2 A100s an instance, 1 reader and 1 writer instance: the "
                               "readers held at most 13,000 tokens of KV cache (31.5% of their "
                               "41,233), the writers reserved at most 41,200 (99.9% of their "
                               "41,233).")
    assert "never held back" in caption
    assert out["shown"]["kv.reader_share"] == percent(result["reader_kv_peak"])
    assert out["shown"]["kv.writer_share"] == percent(result["writer_kv_peak"])

    out, meta = drawn(HELD)
    result = sim.compare(**HELD)["split"]
    shown = out["shown"]
    bands = meta["held_back"]
    assert shown["kv.held_back"] == percent(result["backpressure"]) == "65.8%"
    assert shown["kv.reader_share"] == percent(result["reader_kv_peak"]) == "72.8%"
    assert shown["kv.dropped"] == f"{result['dropped']:,}" == "201"
    assert shown["kv.stretches"] == f"{len(bands):,}"
    assert shown["kv.longest"] == f"{max(b - a for a, b in bands):,.1f} s"
    assert out["caption"].count(". ") <= 2  # two or three sentences


@pytest.mark.parametrize("settings", [{}, {"rps": 10}, {"memory": "slots", "model": "70B", "tp": 2,
                                                         "gpus": 4, "readers": 2}])
def test_without_kv_memory_it_is_empty_and_says_what_to_set(settings):
    out, meta = drawn(settings)
    assert out["figure"]["data"] == [] and meta == {}
    assert "memory=kv" in out["caption"] and "Memory to KV" in out["caption"]
    assert KV.needs(Lab(), Settings.make(**settings)) == []


def test_every_request_dropped_is_empty_too():
    settings = {**HELD, "prompt": 100000}  # halved, 50,000 tokens: more than a reader holds
    out, meta = drawn(settings)
    assert out["figure"]["data"] == [] and "all 600 were dropped" in out["caption"]


@pytest.mark.parametrize("settings", [FULL, HELD, {}])
def test_the_page_boundary_renders_it(settings):
    page, part = Page(), 0
    while True:
        reply = json.loads(page.handle(json.dumps({"type": "figure", "name": "kv",
                                                   "settings": settings, "part": part})))
        assert "error" not in reply
        if "figure" in reply:
            break
        part = reply["next"]
    want = json.loads(json.dumps(KV.render(Lab(), Settings.make(**settings))))
    assert {k: reply[k] for k in want} == want
    # the page's Watch it run shares the recorded run: watching the split simulates nothing
    if settings.get("memory") != "kv":
        return
    before = page.lab.simulations
    page.handle(json.dumps({"type": "watch", "layout": "split", "t0": 0, "t1": 2,
                            "settings": settings}))
    assert page.lab.simulations == before


def test_it_is_the_pages_own_chart():
    assert KV.page and KV.number is None and KV.slug is None


def test_it_draws_at_the_pages_largest_count_in_well_under_a_second():
    lab, s = Lab(), Settings.make(**HELD, requests=6000)
    for piece in KV.needs(lab, s):
        piece()
    began = time.perf_counter()
    out = KV.render(lab, s)
    assert time.perf_counter() - began < 1.0
    assert out["figure"]["layout"]["meta"]["held_back"]
