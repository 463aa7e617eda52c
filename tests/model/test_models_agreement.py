"""The engine agrees with the oracle on random settings that include bigger models, GPUs
working as one, roofline costs and KV memory that binds (docs/model.md: "Bigger models, GPUs
working as one, and memory"), value for value: the good and dropped requests exactly, the
times within a microsecond (the engine jumps where the oracle walks, and floats round
differently), the shares memory=kv measures within a billionth, each request by its index
(tests/agreement.py), and the events a run shows.
"""

import random
from operator import sub

import pytest
from hypothesis import HealthCheck, assume, given, settings as hsettings, strategies as st

import oracle
import sim
from agreement import agree
from sim.model import memory, peak
from sim.model.backpressure import Split
from sim.model.instances import check, writer_chip
from sim.model.link import reader_chip
from sim.model.run import Run
from sim.settings import FIELDS, MODELS, TP

SLIDERS = ("rps", "prompt", "reply", "link", "ttft_target", "gap_target")
KINDS = FIELDS["reader_gpu"].metadata["choices"]


def valid(values):
    """The settings, or None if the settings refuse them (an instance cut, mixed or overfull)."""
    try:
        return check(sim.Settings(**values))
    except ValueError:
        return None


def draw(rng):
    """Settings across the new ranges: models and their instances, every GPU kind, both costs,
    memory (twice as often KV as not), with the explorer's and the chips' options besides; 70B
    on pairs of A100s often, where 41,233 tokens an instance make memory bind."""
    while True:
        values = {name: rng.choice(FIELDS[name].metadata["slider"]) for name in SLIDERS}
        model = rng.choice(("8B", "8B", "70B", "70B", "405B"))
        tp = rng.choice(TP[1:] if model != "8B" else TP[:3])
        gpus = tp * rng.randrange(1, 5)
        values.update(
            requests=rng.choice((30, 60, 120)), seed=rng.randrange(2**32), model=model, tp=tp,
            reader_tp=rng.choice((0, 0, 1, 2, 4, 8)), gpus=max(2, gpus),
            costs=rng.choice(("toy", "roofline")), memory=rng.choice(("slots", "kv", "kv")),
            routing=rng.choice(("alternate", "least-loaded")), chunk=rng.choice((0, 0, 512)),
            slots=rng.choice((4, 32, 256, 1024)), local_below=rng.choice((0, 0, 1500)),
            local_queue=rng.choice((0, 0, 2)), layerwise=rng.choice((0, 1)),
            link_sharing=rng.choice(("free", "queued")), reader_gpu=rng.choice(KINDS),
            writer_gpu=rng.choice(KINDS), reader_power=rng.choice((1.0, 1.0, 0.5)))
        values["readers"] = rng.randrange(1, values["gpus"])
        if model == "70B" and rng.random() < 0.5:  # pairs of A100s, long prompts: it binds
            values.update(tp=2, gpus=rng.choice((4, 6, 8)), reader_gpu="A100", writer_gpu="A100",
                          reader_tp=0, prompt=rng.choice((4000, 8000, 30000)),
                          rps=rng.choice((0.5, 1.0, 2.0)))
            values["readers"] = 2 * rng.randrange(1, values["gpus"] // 2)
        found = valid(values)
        if found is not None:
            return found


rng = random.Random(20261204)
CASES = [draw(rng) for _ in range(200)]


@pytest.mark.parametrize("s", CASES, ids=lambda s: f"{s.model}-tp{s.tp}-{s.costs}-{s.memory}-{s.seed}")
def test_random_settings(s):
    agree(s)


def test_the_cases_cover_memory_that_binds():
    """The random cases include what stresses the coupling: requests dropped, writers full,
    readers held back, instances of several GPUs and roofline costs."""
    runs = [sim.Lab().compare(s) for s in CASES if s.memory == "kv"]
    assert sum(r["split"]["dropped"] > 0 for r in runs) >= 5
    assert sum(r["split"]["writer_kv_peak"] > 0.95 for r in runs) >= 10
    assert sum(r["split"]["backpressure"] > 0 for r in runs) >= 5
    assert sum(s.tp > 1 for s in CASES) >= 80 and sum(s.costs == "roofline" for s in CASES) >= 60


ROOM_TO_SPARE = [dict(gpus=8, readers=3, routing=routing, link_sharing=link, layerwise=layerwise,
                      local_queue=queue, seed=seed)
                 for seed, (routing, link, layerwise, queue) in enumerate((
                     ("alternate", "free", 0, 0), ("least-loaded", "free", 0, 0),
                     ("least-loaded", "queued", 0, 2), ("alternate", "queued", 1, 0),
                     ("least-loaded", "free", 1, 2)))]


@pytest.mark.parametrize("values", ROOM_TO_SPARE, ids=lambda v: f"{v['routing']}-{v['seed']}")
def test_several_writers_with_room_to_spare(values):
    """With room to spare and several writers, the split runs on the fast loops (the writers
    chosen as the caches ask, memory.quiet) and agrees with the oracle and with the run walked
    moment by moment (backpressure.Split), which the same settings take where memory binds."""
    s = sim.Settings(memory="kv", **values)
    work = sim.Lab().workload(s)
    reader, writer = reader_chip(s), writer_chip(s)
    writers = (s.gpus - s.readers) // s.tp
    fast = memory.quiet(work, s, reader, writer, s.readers, writers, False)
    assert fast is not None and fast.memory["writer_kv_peak"] < 1
    walked = Split(work, s, reader, writer, s.readers, writers, False).run()
    slow = Run(work.replies)
    for each in walked.writers:
        slow.add(each.served(), each.requests, work.arrivals)
    for mine, theirs in ((fast.ttft, slow.ttft), (fast.max_gap, slow.max_gap)):  # request by request
        assert len(mine) == len(theirs) == s.requests
        assert max(map(abs, map(sub, mine, theirs))) <= 1e-9
    assert fast.memory["writer_kv_peak"] == walked.writer_peak
    assert fast.memory["reader_kv_peak"] == walked.reader_peak and walked.pushed_back == 0
    agree(s)


def test_most_held_is_what_held_counts():
    """The most tokens held at once, counted in one pass over the intervals as they start,
    equals the moment-by-moment count (equal moments netted, an interval that ends as it starts
    holding nothing), whatever the order the intervals come in."""
    rng = random.Random(48)
    for _ in range(400):
        moments = [rng.choice((0.0, 0.5, 1.0, 1.5, 2.0)) + rng.choice((0.0, 0.0, rng.random()))
                   for _ in range(2 * rng.randrange(0, 30))]
        intervals = [(min(a, b), max(a, b), rng.randrange(1, 9))
                     for a, b in zip(moments[::2], moments[1::2])]
        assert peak.most_held(*columns(intervals)) == peak.held(intervals)
        assert peak.most_held(*columns(sorted(intervals))) == peak.held(intervals)


def columns(intervals):
    """(starts, ends, tokens) of (start, end, tokens) intervals, as most_held takes them."""
    return tuple(list(column) for column in zip(*intervals)) if intervals else ([], [], [])


@st.composite
def models_settings(draw_from):
    model = draw_from(st.sampled_from(MODELS))
    tp = draw_from(st.sampled_from(TP))
    gpus = tp * draw_from(st.integers(1, 3))
    values = {name: draw_from(st.sampled_from(FIELDS[name].metadata["slider"])) for name in SLIDERS}
    values.update(
        model=model, tp=tp, gpus=max(2, gpus), readers=draw_from(st.integers(1, max(1, gpus - 1))),
        reader_tp=draw_from(st.sampled_from((0, 1, 2, 4, 8))),
        costs=draw_from(st.sampled_from(("toy", "roofline"))),
        memory=draw_from(st.sampled_from(("slots", "kv"))),
        reader_gpu=draw_from(st.sampled_from(KINDS)), writer_gpu=draw_from(st.sampled_from(KINDS)),
        routing=draw_from(st.sampled_from(("alternate", "least-loaded"))),
        chunk=draw_from(st.sampled_from((0, 256))), slots=draw_from(st.sampled_from((2, 32, 512))),
        layerwise=draw_from(st.sampled_from((0, 1))),
        link_sharing=draw_from(st.sampled_from(("free", "queued"))),
        local_below=draw_from(st.sampled_from((0, 2000))),
        requests=draw_from(st.integers(1, 60)), seed=draw_from(st.integers(0, 2**32)))
    return values


@hsettings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.filter_too_much])
@given(models_settings())
def test_hypothesis_models_settings(values):
    s = valid(values)
    assume(s is not None)
    agree(s)


@pytest.mark.parametrize("s", [s for s in CASES if s.memory == "kv"][:12],
                         ids=lambda s: f"{s.model}-tp{s.tp}-{s.seed}")
def test_watch_agrees(s):
    """Every event of the first 10 s of each layout, memory's kv events among them."""
    for layout in ("shared", "split") + (("chunked",) if s.chunk else ()):
        got = sim.Lab().watch(layout, 0.0, 10.0, s)
        want = oracle.watch(layout, 0.0, 10.0, **s.as_dict())
        assert len(got) == len(want), layout
        for e, o in zip(got, want):
            assert {k: e[k] for k in ("lane", "index", "kind", "request", "replies", "tokens")} == \
                {k: o[k] for k in ("lane", "index", "kind", "request", "replies", "tokens")}
            assert abs(e["start"] - o["start"]) <= 1e-9 and abs(e["end"] - o["end"]) <= 1e-9


TRACES = [  # real traffic with the new settings: Azure's lengths on bigger models, memory binding
    dict(traffic="azure-chat", model="70B", tp=2, gpus=4, readers=2, memory="kv", rps=2.0,
         requests=150),
    dict(traffic="azure-code", model="70B", tp=2, gpus=6, readers=2, memory="kv", rps=1.0,
         requests=150, routing="least-loaded", ttft_target=2.0),
    dict(traffic="azure-chat", costs="roofline", gpus=4, readers=1, chunk=512, rps=6.0,
         requests=150, arrivals="poisson", trace_start=5000),
    dict(traffic="azure-code", model="405B", tp=8, gpus=16, readers=8, reader_gpu="H200",
         writer_gpu="H200", memory="kv", rps=1.0, requests=100, local_below=1000),
]


@pytest.mark.parametrize("values", TRACES, ids=lambda v: f"{v['traffic']}-{v.get('model', '8B')}")
def test_real_traffic_with_the_new_settings(values):
    agree(check(sim.Settings(**values)))
