"""Bigger models, tensor-parallel instances, roofline costs and KV memory (models-and-memory.md):
every figure the spec gives, to the digit shown, and the rules it states, checked through each
implementation's public functions.

The spec ends with a table of "figures a faithful simulator gives" (600 requests, seed 7), a
"Costs, worked" paragraph and, in "Memory of an instance", five KV capacities. Each is checked
here against every entry of IMPLEMENTATIONS: the oracle (tests/oracle.py, written from the
specs alone) and the engine (sim/), through adapters to the oracle's shapes. Besides the figures: memory=kv where
memory never binds is memory=slots, number for number; costs=toy with tp=1 are today's costs,
bit for bit; nothing is ever held above an instance's capacity; every request is served or
dropped; every refusal the spec lists is refused; and small runs worked out by hand (traces of
three to five requests) pin the order of events: a reader holds a prompt until it lands, a
writer admits a cache at the moment a last word frees its room, a shared instance's first
waiting job is not overtaken, a cache's writer is chosen when it asks, changes that cancel out
at one moment make no boundary in the `kv` events.

Goodput's denominator is every request, dropped ones included: at `memory=kv prompt=30000
reply=500 ...` 4 of 600 (0.7%, the spec's figure) are good on the shared layout and 5 (0.8%) on
the split; over the 399 not dropped they would be 1.0% and 1.3%.
"""

import functools
import math
import random

import pytest

import oracle
import sim
from sim.model.costs import instance
from sim.model.layouts import layouts_of


def _oracle_served(settings, trace=None):
    """{layout: (indices served, indices dropped)} of a run, by the oracle's own run."""
    o = oracle.options(**settings)
    jobs = oracle.requests_of(o, trace)
    out = {}
    for layout in oracle.layouts(o):
        done = oracle.run(layout, jobs, o)
        out[layout] = (set(done.words), set(done.dropped))
    return out


# Each implementation's functions, in the oracle's shapes (see tests/oracle.py):
# compare(trace=None, **settings) -> {layout: {"goodput", ..., "dropped", and with memory=kv
#     "kv_peak" or "reader_kv_peak", "writer_kv_peak", "backpressure"}};
# capacity(**settings) -> {"shared": [group], "readers": group, "writers": group}, a group
#     {"kind", "instances", "gpus", "usable", "weights", "tokens"};
# watch(layout, t0, t1, trace=None, **settings) -> [event];
# ratio(trace=None, **settings) -> [{"readers", "goodput", "rate"}];
# economics(**settings) -> {layout: {"rate", "price_per_hour", "watts", ...}};
# costs(kind, cap, t, model, costs) -> an instance's costs: .read(n), .step(contexts),
#     .chunk([(m_k, p_k)], contexts), .ar(n), in seconds;
# served(settings, trace=None) -> {layout: (indices served, indices dropped)}.
def _engine_compare(trace=None, **settings):
    out = sim.Lab().compare(sim.Settings(**settings), trace)
    return {layout: m for layout, m in out.items() if layout != "settings"}


def _engine_capacity(**settings):
    """sim.capacity in the oracle's shape: a group per part of the shared layout's instances,
    one for the readers and one for the writers."""
    def group(g):
        return {"kind": g["kind"], "instances": g["instances"], "gpus": g["gpus"],
                "usable": g["usable_bytes"], "weights": g["weights_bytes"], "tokens": g["kv_tokens"]}
    got = sim.capacity(**settings)
    return {"shared": [group(g) for g in got["shared"]], "readers": group(got["readers"][0]),
            "writers": group(got["writers"][0])}


class _EngineCosts:
    """The engine's instance (sim.model.costs.Chip) in the oracle's Costs shape."""

    def __init__(self, kind, cap, t, model, costs):
        self.chip = instance(kind, cap, model, t, costs)
        self.r, self.w = self.chip.read_cost, self.chip.step

    def read(self, n):
        return self.chip.read_time(n)

    def step(self, contexts):
        return self.chip.step_time(len(contexts), sum(contexts))

    def chunk(self, reads, contexts):
        read = sum(m for m, _ in reads)
        attention = sum(m * (2 * p + m + 1) for m, p in reads)
        return self.chip.pass_time(read, len(contexts), sum(contexts), attention,
                                   sum(p for _, p in reads))

    def ar(self, n):
        return self.chip.all_reduce(n)


def _engine_served(settings, trace=None):
    """{layout: (indices served, indices dropped)}, from the engine's recorded runs."""
    lab = sim.Lab()
    s = lab.given(sim.Settings(**settings), trace)
    out = {}
    for layout in layouts_of(s):
        served = {i for _, requests in lab.watched(layout, s).run.gpus for i in requests}
        out[layout] = (served, set(range(s.requests)) - served)
    return out


IMPLEMENTATIONS = {
    "oracle": dict(compare=oracle.compare, capacity=oracle.capacity, watch=oracle.watch,
                   ratio=oracle.ratio, economics=oracle.economics, costs=oracle.Costs,
                   served=_oracle_served),
    "engine": dict(compare=_engine_compare, capacity=_engine_capacity, watch=sim.watch,
                   ratio=sim.ratio, economics=sim.economics, costs=_EngineCosts,
                   served=_engine_served),
}


@functools.lru_cache(maxsize=None)
def _compare(implementation, items, trace=None):
    return IMPLEMENTATIONS[implementation]["compare"](trace=trace, **dict(items))


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    return IMPLEMENTATIONS[request.param]


@pytest.fixture(params=IMPLEMENTATIONS)
def compare(request):
    return lambda trace=None, **settings: _compare(request.param, tuple(sorted(settings.items())),
                                                   trace)


def pct(share):
    return f"{share * 100:.1f}"


def ms(seconds):
    return f"{seconds * 1e3:.1f}"


def shown(metric, value):
    if metric == "dropped":
        return str(value)
    if metric.startswith(("ttft", "gap")):
        return ms(value)
    return pct(value)  # goodput, the kv peaks, backpressure


# ---- the spec's table: (settings, layout, metric, figure shown) ----

KV = dict(memory="kv")
ROOFLINE = dict(costs="roofline")
LONG = dict(costs="roofline", prompt=16000, reply=100, rps=0.5, ttft_target=2.0)
MIXED_70B = dict(model="70B", tp=2, gpus=8, readers=4, reader_tp=4, reader_gpu="H100", rps=4.0,
                 ttft_target=1.0)
H200_405B = dict(model="405B", tp=8, gpus=16, readers=8, reader_gpu="H200", writer_gpu="H200",
                 rps=2.0, ttft_target=2.0, gap_target=0.2)
FULL = dict(memory="kv", model="70B", tp=2, gpus=4, readers=2, slots=1024, rps=2.0,
            link_sharing="queued", layerwise=1, ttft_target=2.0)
LOCAL = dict(memory="kv", local_below=1500, model="70B", tp=2, gpus=6, readers=2, slots=512,
             rps=2.0, ttft_target=2.0)
TOO_LONG = dict(memory="kv", prompt=30000, reply=500, model="70B", tp=2, gpus=4, readers=2,
                rps=0.2, ttft_target=10.0)
FIGURES = [
    (KV, "shared", "goodput", "13.5"),
    (KV, "shared", "ttft_p99", "267.0"),
    (KV, "shared", "kv_peak", "5.6"),
    (KV, "split", "goodput", "98.7"),
    (KV, "split", "reader_kv_peak", "1.3"),
    (KV, "split", "writer_kv_peak", "7.1"),
    (KV, "split", "backpressure", "0.0"),
    (ROOFLINE, "shared", "goodput", "11.8"),
    (ROOFLINE, "shared", "ttft_p99", "282.2"),
    (ROOFLINE, "shared", "gap_p99", "114.9"),
    (ROOFLINE, "split", "goodput", "98.5"),
    (ROOFLINE, "split", "ttft_p99", "649.1"),
    (ROOFLINE, "split", "gap_p99", "9.9"),
    (LONG, "shared", "goodput", "69.3"),
    (LONG, "shared", "ttft_p99", "3256.0"),
    (LONG, "split", "goodput", "65.7"),
    (LONG, "split", "ttft_p99", "7028.0"),
    (LONG, "split", "gap_p99", "10.5"),
    (MIXED_70B, "shared", "goodput", "0.7"),
    (MIXED_70B, "shared", "gap_p99", "745.7"),
    (MIXED_70B, "split", "goodput", "100.0"),
    (MIXED_70B, "split", "ttft_p99", "547.3"),
    (MIXED_70B, "split", "gap_p99", "38.0"),
    (H200_405B, "shared", "goodput", "4.5"),
    (H200_405B, "shared", "gap_p99", "435.4"),
    (H200_405B, "split", "goodput", "99.2"),
    (H200_405B, "split", "ttft_p99", "1753.6"),
    (H200_405B, "split", "gap_p99", "26.8"),
    (FULL, "shared", "goodput", "0.2"),
    (FULL, "shared", "kv_peak", "99.9"),
    (FULL, "split", "goodput", "47.3"),
    (FULL, "split", "ttft_p99", "8453.6"),
    (FULL, "split", "reader_kv_peak", "31.5"),
    (FULL, "split", "writer_kv_peak", "99.9"),
    (LOCAL, "shared", "goodput", "0.5"),
    (LOCAL, "shared", "kv_peak", "90.5"),
    (LOCAL, "split", "goodput", "8.5"),
    (LOCAL, "split", "gap_p99", "276.0"),
    (LOCAL, "split", "writer_kv_peak", "81.2"),
    (TOO_LONG, "shared", "goodput", "0.7"),
    (TOO_LONG, "shared", "dropped", "201"),
    (TOO_LONG, "split", "goodput", "0.8"),
    (TOO_LONG, "split", "dropped", "201"),
    (TOO_LONG, "split", "reader_kv_peak", "72.8"),
    (TOO_LONG, "split", "backpressure", "65.8"),
]
ROWS = [KV, ROOFLINE, LONG, MIXED_70B, H200_405B, FULL, LOCAL, TOO_LONG]


def settings_id(x):
    return " ".join(f"{k}={v}" for k, v in x.items()) if isinstance(x, dict) else str(x)


@pytest.mark.parametrize("settings, layout, metric, figure", FIGURES, ids=settings_id)
def test_models_figure(compare, settings, layout, metric, figure):
    got = compare(**settings)
    assert set(got) == {"shared", "split"}
    assert shown(metric, got[layout][metric]) == figure


@pytest.mark.parametrize("settings", ROWS, ids=settings_id)
def test_the_rows_keys(compare, settings):
    """`dropped` always (0 with memory=slots); the memory measures with memory=kv only."""
    got = compare(**settings)
    kv = settings.get("memory") == "kv"
    assert set(got["shared"]) - {"dropped"} == set(compare()["shared"]) - {"dropped"} | (
        {"kv_peak"} if kv else set())
    assert set(got["split"]) - {"dropped"} == set(compare()["split"]) - {"dropped"} | (
        {"reader_kv_peak", "writer_kv_peak", "backpressure"} if kv else set())
    if not kv:
        assert got["shared"]["dropped"] == got["split"]["dropped"] == 0


def test_goodput_counts_dropped_requests(compare):
    """Dropped requests are not good: goodput is good / requests (module docstring)."""
    got = compare(**TOO_LONG)
    assert (got["shared"]["good"], got["split"]["good"]) == (4, 5)
    assert got["shared"]["goodput"] == 4 / 600 and got["split"]["goodput"] == 5 / 600


# ---- "Costs, worked" (8B on one A100; 70B on four A100s) ----

def test_costs_worked(impl):
    roofline = impl["costs"]("A100", 1.0, 1, "8B", "roofline")
    toy = impl["costs"]("A100", 1.0, 1, "8B", "toy")
    read = roofline.read(2000)
    assert read == max(33_170_145_280_000 / 3.12e14, 16_322_666_496 / 2.039e12)
    assert f"{read * 1e3:.4f}" == "106.3146"
    assert f"{toy.read(2000) * 1e3:.4f}" == "102.9521"
    step = roofline.step([2100] * 32)
    assert step == max(549_168_873_472 / 3.12e14, 24_868_560_896 / 2.039e12)
    assert f"{step * 1e3:.4f}" == "12.1964"
    assert f"{toy.step([2100] * 32) * 1e3:.4f}" == "7.8767"
    ar = impl["costs"]("A100", 1.0, 4, "70B", "toy").ar(2000)
    assert ar == 160 * (20e-6 + 196_608_000 / 1.2e12)
    assert f"{ar * 1e3:.4f}" == "29.4144"


def test_toy_costs_on_one_gpu_are_today_s(impl):
    """costs=toy, t = 1: the read, the step and the chunked pass are today's, bit for bit
    (explore-model.md and chips-and-rules.md: 2 x weights / (peak x c), 2 x weights / B/s)."""
    weights = 8_030_261_248
    today = {"A100": (312e12, 2.039e12), "H100": (989.5e12, 3.35e12), "B200": (2.25e15, 8.0e12)}
    for kind, (peak, bandwidth) in today.items():
        for cap in (1.0, 0.5, 0.75, 0.55):
            costs = impl["costs"](kind, cap, 1, "8B", "toy")
            per_token = 2 * weights / (peak * cap)
            step = 2 * weights / bandwidth
            for n in (1, 7, 1000, 2000, 3000, 131_072):
                assert costs.read(n) == n * per_token
            assert costs.step([2100] * 32) == costs.step([1]) == step
            assert costs.chunk([(512, 0)], [2001] * 3) == max(step, (512 + 3) * per_token)
            assert costs.chunk([(488, 512), (24, 0)], []) == max(step, 512 * per_token)


def test_every_new_setting_at_its_default_is_today(compare):
    given = compare(model="8B", tp=1, reader_tp=0, costs="toy", memory="slots")
    assert given == compare()
    assert {layout: pct(m["goodput"]) for layout, m in given.items()} == {
        "shared": "13.5", "split": "98.7"}  # the lesson's figures


# ---- "Memory of an instance": the capacities ----

@pytest.mark.parametrize("settings, pool, tokens", [
    (dict(), "writers", 467_291),  # 8B on one A100
    (dict(model="70B", tp=2, gpus=4, readers=2), "writers", 41_233),  # 70B on two A100s
    (dict(model="70B", tp=4, gpus=8, readers=4), "writers", 513_092),  # on four
    (dict(model="405B", tp=8, gpus=16, readers=8, reader_gpu="H200", writer_gpu="H200"),
     "writers", 539_349),  # 405B on 8 H200s
    (dict(model="405B", tp=8, gpus=16, readers=8, reader_gpu="B200", writer_gpu="B200"),
     "writers", 1_123_555),  # on 8 B200s
], ids=settings_id)
def test_kv_capacity(impl, settings, pool, tokens):
    got = impl["capacity"](**settings)
    assert got[pool]["tokens"] == tokens
    assert got["readers"]["tokens"] == tokens  # the readers are alike here
    assert [group["tokens"] for group in got["shared"]] == [tokens]


def test_capacity_shapes(impl):
    got = impl["capacity"](**MIXED_70B)
    h100, a100 = 2 * 85_899_345_920 * 9 // 10, 2 * 85_899_345_920 * 9 // 10
    weights = 2 * 70_553_706_496
    assert got["shared"] == [
        {"kind": "H100", "instances": 2, "gpus": 2, "usable": h100, "weights": weights,
         "tokens": (h100 - weights) // 327_680},
        {"kind": "A100", "instances": 2, "gpus": 2, "usable": a100, "weights": weights,
         "tokens": (a100 - weights) // 327_680}]
    four = 4 * 85_899_345_920 * 9 // 10
    assert got["readers"] == {"kind": "H100", "instances": 1, "gpus": 4, "usable": four,
                              "weights": weights, "tokens": 513_092}
    assert got["writers"]["instances"] == 2 and got["writers"]["gpus"] == 2


def test_405b_fits_only_on_eight_h200s_or_b200s(impl):
    for kind in ("A100", "H100", "H200", "B200"):
        for tp in (1, 2, 4, 8):
            settings = dict(model="405B", tp=tp, gpus=2 * tp, readers=tp, reader_gpu=kind,
                            writer_gpu=kind)
            if tp == 8 and kind in ("H200", "B200"):
                impl["capacity"](**settings)
            else:
                with pytest.raises(ValueError):
                    impl["capacity"](**settings)


# ---- memory=kv with room to spare is memory=slots ----

MEASURES = ("goodput", "good", "ttft_p50", "ttft_p99", "ttft_max", "gap_p50", "gap_p99",
            "gap_max", "dropped")

ONE_WRITER = [  # the explorer's and the chips' rows that have one writer, and a few more
    dict(), dict(chunk=512), dict(gpus=3, readers=2, chunk=512, rps=8.0), dict(reader_gpu="H100"),
    dict(local_below=1500), dict(layerwise=1, link=0.5), dict(link_sharing="queued", link=5.0),
    dict(routing="least-loaded", rps=6.0), dict(slots=8), dict(writer_power=0.5),
    dict(reader_power=0.5), dict(costs="roofline", chunk=256), dict(gpus=4, readers=3, rps=10.0,
                                                                     local_queue=2),
    dict(model="70B", tp=2, gpus=4, readers=2, rps=1.0, chunk=512, ttft_target=2.0),
]


@pytest.mark.parametrize("settings", ONE_WRITER, ids=settings_id)
def test_kv_with_room_to_spare_is_slots(compare, settings):
    """The spec: with room to spare and one writer, nothing waits for memory and every number
    is today's (the lesson's defaults with memory=kv: the first row of the table)."""
    slots, kv = compare(**settings), compare(memory="kv", **settings)
    assert set(kv) == set(slots)
    for layout in slots:
        assert {m: kv[layout][m] for m in MEASURES} == {m: slots[layout][m] for m in MEASURES}


def random_settings(rng):
    gpus = rng.choice((2, 3, 4, 5))
    return dict(
        rps=rng.choice((1.0, 4.0, 8.0)), prompt=rng.choice((100, 2000, 6000)),
        reply=rng.choice((2, 50, 300)), link=rng.choice((0.5, 5.0, 25.0)),
        requests=rng.choice((40, 120)), seed=rng.randrange(1000), gpus=gpus,
        readers=rng.randint(1, gpus - 1), routing=rng.choice(("alternate", "least-loaded")),
        chunk=rng.choice((0, 64, 512)), link_sharing=rng.choice(("free", "queued")),
        layerwise=rng.choice((0, 1)), local_below=rng.choice((0, 1500, 4000)),
        reader_gpu=rng.choice(("A100", "H100", "H200", "B200")),
        writer_gpu=rng.choice(("A100", "H100", "H200", "B200")), slots=rng.choice((1, 4, 32, 64)),
        local_queue=rng.choice((0, 0, 2)), reader_power=rng.choice((1.0, 0.5)),
        costs=rng.choice(("toy", "roofline")))


rng = random.Random(20261205)
RANDOM = [random_settings(rng) for _ in range(16)]
TIGHT = [  # 70B on pairs of A100s: 41,233 tokens an instance, so memory binds
    dict(memory="kv", model="70B", tp=2, gpus=gpus, readers=readers, prompt=prompt, reply=reply,
         rps=rps, slots=slots, routing=routing, link_sharing=sharing, layerwise=layerwise,
         local_below=local, local_queue=queue, chunk=chunk, requests=150, seed=seed,
         ttft_target=2.0)
    for (gpus, readers, prompt, reply, rps, slots, routing, sharing, layerwise, local, queue, chunk,
         seed) in [
        (4, 2, 2000, 200, 2.0, 1024, "alternate", "free", 0, 0, 0, 512, 1),
        (6, 2, 4000, 400, 2.0, 256, "least-loaded", "queued", 1, 0, 0, 0, 2),
        (6, 4, 2000, 2000, 3.0, 512, "alternate", "free", 1, 1500, 0, 256, 3),
        (8, 2, 6000, 300, 1.5, 64, "least-loaded", "free", 0, 4000, 2, 512, 4),
        (8, 4, 12000, 200, 1.0, 32, "alternate", "queued", 0, 0, 1, 0, 5),
        (4, 2, 30000, 500, 0.3, 32, "least-loaded", "queued", 1, 0, 0, 2048, 6),
    ]
]


def capacities(impl, settings):
    """{layout or pool: [C of each instance]}."""
    got = impl["capacity"](**settings)
    shared = [g["tokens"] for g in got["shared"] for _ in range(g["instances"])]
    return {"shared": shared, "readers": [got["readers"]["tokens"]] * got["readers"]["instances"],
            "writers": [got["writers"]["tokens"]] * got["writers"]["instances"]}


@pytest.mark.parametrize("settings", RANDOM, ids=settings_id)
def test_kv_where_memory_never_binds_is_slots(impl, compare, settings):
    """Where every instance's peak plus the longest request still fits (so no admission ever
    waited for room), memory=kv gives memory=slots' numbers; shared and chunked instances
    always, the split's with one writer (with several, a cache's writer is chosen when it
    asks rather than when it lands)."""
    slots, kv = compare(**settings), compare(memory="kv", **settings)
    o = oracle.options(**settings)
    jobs = oracle.requests_of(o)
    longest = max(p + r for _, p, r in jobs)
    cap = capacities(impl, settings)
    for layout in slots:
        if layout == "split":
            if len(cap["writers"]) > 1:
                continue
            room = (kv[layout]["writer_kv_peak"] * cap["writers"][0] + longest <= cap["writers"][0]
                    and kv[layout]["reader_kv_peak"] * cap["readers"][0] + longest
                    <= cap["readers"][0])
        else:
            room = kv[layout]["kv_peak"] * min(cap["shared"]) + longest <= min(cap["shared"])
        if room:
            assert {m: kv[layout][m] for m in MEASURES} == {m: slots[layout][m] for m in MEASURES}


# ---- memory=kv: never above capacity, served or dropped ----

@pytest.mark.parametrize("settings", [KV, FULL, LOCAL, TOO_LONG, *TIGHT,
                                      *[dict(s, memory="kv") for s in RANDOM[:8]]],
                         ids=settings_id)
def test_never_above_capacity_and_every_request_served_or_dropped(impl, compare, settings):
    got = compare(**settings)
    for layout, m in got.items():
        peaks = [m[k] for k in ("kv_peak", "reader_kv_peak", "writer_kv_peak") if k in m]
        assert peaks and all(0 <= p <= 1 for p in peaks) and max(peaks) > 0, (layout, peaks)
        if layout == "split":
            assert 0 <= m["backpressure"] <= 1
    requests = settings.get("requests", 600)
    for layout, (served, dropped) in impl["served"](settings).items():
        assert not served & dropped
        assert len(served) + len(dropped) == requests
        assert len(dropped) == got[layout]["dropped"]


@pytest.mark.parametrize("settings", [FULL, TIGHT[2]], ids=settings_id)
def test_kv_events_stay_within_capacity(impl, settings):
    """Every `kv` event of a whole run (watched in 10 s windows) holds at most its instance's
    capacity; consecutive runs of a lane abut and differ; the link has none."""
    settings = dict(settings, requests=60)
    cap = capacities(impl, settings)
    lanes = {"gpu": cap["shared"], "reader": cap["readers"], "writer": cap["writers"]}
    for layout in ("shared", "split") + (("chunked",) if settings.get("chunk") else ()):
        events = whole_run(impl, layout, settings, until=120.0)
        runs = {}
        for e in events:
            if e["kind"] == "kv":
                assert e["lane"] != "link" and e["request"] == -1 and e["replies"] == 0
                assert 0 <= e["tokens"] <= lanes[e["lane"]][e["index"]]
                runs.setdefault((e["lane"], e["index"]), []).append(e)
        assert runs
        for lane in runs.values():
            lane.sort(key=lambda e: e["start"])
            assert lane[0]["start"] == 0.0
            for a, b in zip(lane, lane[1:]):
                assert a["end"] == b["start"] and a["tokens"] != b["tokens"]


def whole_run(impl, layout, settings, until, trace=None):
    """Every event of a run up to `until` seconds, from 10-second windows (each once)."""
    seen, events = set(), []
    t0 = 0.0
    while t0 < until:
        for e in impl["watch"](layout, t0, t0 + 10.0, trace=trace, **settings):
            key = tuple(e.values())
            if key not in seen:
                seen.add(key)
                events.append(e)
        t0 += 10.0
    return sorted(events, key=lambda e: (e["start"], e["lane"], e["index"], e["end"],
                                         e["kind"] == "kv"))


def test_every_request_dropped(compare):
    got = compare(memory="kv", model="70B", tp=2, gpus=4, readers=2, prompt=90000, requests=20)
    for m in got.values():
        assert (m["goodput"], m["good"], m["dropped"]) == (0.0, 0, 20)
        assert all(m[k] is None for k in ("ttft_p50", "ttft_p99", "ttft_max", "gap_p50",
                                          "gap_p99", "gap_max"))


def test_memory_slots_watch_has_no_kv_events(impl):
    assert not [e for e in impl["watch"]("split", 20.0, 25.0) if e["kind"] == "kv"]
    events = impl["watch"]("split", 20.0, 25.0, memory="kv")
    assert {e["lane"] for e in events if e["kind"] == "kv"} == {"reader", "writer"}


def test_lanes_are_instances(impl):
    events = impl["watch"]("split", 0.0, 10.0, **MIXED_70B)
    assert {(e["lane"], e["index"]) for e in events} == {
        ("reader", 0), ("link", 0), ("writer", 0), ("writer", 1)}
    events = impl["watch"]("shared", 0.0, 10.0, **MIXED_70B)
    assert {(e["lane"], e["index"]) for e in events} == {("gpu", k) for k in range(4)}


# ---- small runs worked out by hand (70B on pairs of A100s: C = 41,233 tokens) ----

PAIRS = dict(model="70B", tp=2, gpus=4, readers=2, memory="kv", traffic="own", rps=1.0)


def trace(rows):
    """A trace whose arrivals are exactly the rows' seconds: with rps = (N - 1) / span = 1,
    recorded arrivals are scaled by exactly 1."""
    return "arrival_s,prompt_tokens,reply_tokens\n" + "".join(f"{a},{p},{r}\n" for a, p, r in rows)


HELD = trace([(0, 25000, 300), (1, 25000, 300), (2, 25000, 300)])


def test_a_reader_holds_a_prompt_until_it_lands_and_a_writer_admits_at_a_last_word(impl):
    """Three 25,000-token prompts with 300-word replies: a reader holds one (two would be
    50,000 > 41,233), a writer one (25,300 x 2 > 41,233). Request 1 starts being read the
    moment request 0 lands; its cache is admitted (and begins crossing) the moment request
    0's last word is made; request 2 starts being read the moment request 1 lands. The reader
    waits idle, a prompt queued, after each of the first two reads: that is the backpressure."""
    events = whole_run(impl, "split", dict(PAIRS, requests=3), until=60.0, trace=HELD)
    reads = {e["request"]: e for e in events if e["kind"] == "read"}
    cross = {e["request"]: e for e in events if e["kind"] == "cross"}
    steps = [e for e in events if e["kind"] == "step"]
    assert reads[0]["start"] == 0.0
    assert reads[1]["start"] == cross[0]["end"]
    assert reads[2]["start"] == cross[1]["end"]
    assert cross[0]["start"] == reads[0]["end"]  # admitted as it asks: the writer is empty
    last_word_of_0 = steps[299 - 1]["end"]  # a 300-word reply: its first word, then 299 steps
    assert all(e["replies"] == 1 for e in steps)
    assert cross[1]["start"] == last_word_of_0 > reads[1]["end"]
    # the reader holds 25,000 tokens throughout (a landing and a read's start at one moment
    # cancel out); so does the writer, 25,300 (a last word and an admission at one moment)
    kv = [(e["lane"], e["tokens"]) for e in events if e["kind"] == "kv"]
    assert kv == [("reader", 25000), ("writer", 0), ("writer", 25300)]
    got = impl["compare"](trace=HELD, requests=3, **PAIRS)["split"]
    last = steps[-1]["end"]
    waited = (cross[0]["end"] - reads[0]["end"]) + (cross[1]["end"] - reads[1]["end"])
    assert math.isclose(got["backpressure"], waited / last, rel_tol=1e-12)
    assert got["reader_kv_peak"] == 25000 / 41233 and got["writer_kv_peak"] == 25300 / 41233


def test_a_shared_instance_s_first_waiting_job_is_not_overtaken(impl):
    """GPU pair 0 gets requests 0, 2 and 4 (in turn). Request 2 (25,300 tokens) fits only once
    request 0's last word is made: it is read then, and request 4 (1,002 tokens, which would fit
    earlier) only after it; meanwhile the instance writes request 0's steps."""
    rows = trace([(0, 25000, 300), (1, 1000, 2), (2, 25000, 300), (3, 1000, 2), (4, 1000, 2)])
    events = whole_run(impl, "shared", dict(PAIRS, requests=5), until=60.0, trace=rows)
    reads = {e["request"]: e for e in events if e["kind"] == "read"}
    assert [reads[i]["index"] for i in range(5)] == [0, 1, 0, 1, 0]
    steps = [e for e in events if e["kind"] == "step" and e["index"] == 0]
    assert reads[2]["start"] == steps[299 - 1]["end"]  # request 0's last word
    assert reads[4]["start"] == reads[2]["end"]
    assert [e["tokens"] for e in events if e["kind"] == "kv" and e["index"] == 0] == [
        25300, 26302, 25300]
    got = impl["compare"](trace=rows, requests=5, **PAIRS)["shared"]
    assert got["kv_peak"] == 26302 / 41233


def test_a_cache_s_writer_is_chosen_when_it_asks(impl):
    """Two readers, two writers, alternate routing, a slow link: request 0's cache asks first
    (its read ends first) and lands last. memory=kv gives it writer 0 (chosen when it asks);
    memory=slots gives writer 0 to request 1's (chosen when it lands)."""
    rows = trace([(0, 20000, 10), (1, 1000, 10)])
    settings = dict(gpus=4, readers=2, link=1.0, traffic="own", rps=1.0, requests=2)
    events = whole_run(impl, "split", dict(settings, memory="kv"), until=10.0, trace=rows)
    cross = {e["request"]: e for e in events if e["kind"] == "cross"}
    assert cross[0]["start"] < cross[1]["start"] and cross[1]["end"] < cross[0]["end"]
    held = {e["index"]: e["tokens"] for e in events
            if e["kind"] == "kv" and e["lane"] == "writer" and e["tokens"]}
    assert held == {0: 20010, 1: 1010}
    slots = whole_run(impl, "split", settings, until=10.0, trace=rows)
    first_step = {e["index"]: e["start"] for e in reversed(slots) if e["kind"] == "step"}
    assert first_step[0] == cross[1]["end"] and first_step[1] == cross[0]["end"]


def test_too_long_requests_are_dropped_at_arrival(impl):
    rows = trace([(0, 45000, 10), (1, 2000, 10), (2, 41000, 300), (3, 2000, 10)])
    for layout, (served, dropped) in impl["served"](dict(PAIRS, requests=4), rows).items():
        assert (served, dropped) == ({1, 3}, {0, 2}), layout
    events = whole_run(impl, "shared", dict(PAIRS, requests=4), until=20.0, trace=rows)
    # in turn among the requests not dropped: 1 on instance 0, 3 on instance 1
    assert {e["request"]: e["index"] for e in events if e["kind"] == "read"} == {1: 0, 3: 1}


# ---- refusals ----

@pytest.mark.parametrize("settings, words", [
    (dict(gpus=3, tp=2), ["gpus=3", "tp=2"]),
    (dict(gpus=8, readers=2, reader_tp=4), ["readers=2", "reader_tp=4"]),
    (dict(gpus=8, readers=3, tp=2, reader_tp=1), ["gpus - readers", "tp=2"]),
    # an instance would mix kinds: readers=3 with tp=2 (gpus - readers is then odd too)
    (dict(gpus=8, readers=3, tp=2, reader_tp=1, reader_gpu="H100"), ["tp=2"]),
    (dict(gpus=8, readers=2, tp=4, reader_tp=2, reader_power=0.5), ["tp=4"]),
    (dict(model="70B"), ["70B", "141.1 GB", "77.3 GB", "2"]),
    (dict(model="70B", tp=2, gpus=4, readers=2, reader_tp=1),
     ["reader_tp=1", "141.1 GB", "77.3 GB"]),
    (dict(model="405B", tp=4, gpus=8, readers=4, reader_gpu="H200", writer_gpu="H200"),
     ["811.7 GB", "545.0 GB", "8"]),
    (dict(model="405B", tp=8, gpus=16, readers=8), ["811.7 GB", "618.5 GB"]),
    (dict(model="405B", tp=8, gpus=16, readers=8, writer_gpu="H200"), ["A100", "811.7 GB"]),
    (dict(tp=3), ["tp"]),
    (dict(reader_tp=3), ["reader_tp"]),
    (dict(model="13B"), ["model"]),
    (dict(costs="exact"), ["costs"]),
    (dict(memory="pages"), ["memory"]),
    (dict(writer_gpu="H300"), ["writer_gpu"]),
], ids=settings_id)
def test_refused(impl, settings, words):
    for call in (impl["compare"], impl["capacity"]):
        with pytest.raises(ValueError) as refusal:
            call(**settings)
        for word in words:
            assert word in str(refusal.value)


def test_allowed_settings_with_instances(impl):
    impl["capacity"](gpus=8, readers=4, tp=4, reader_tp=2)
    impl["capacity"](gpus=6, readers=2, tp=2, reader_gpu="H100")
    impl["capacity"](gpus=4, readers=1, tp=1, reader_tp=1, reader_gpu="H200")


# ---- rate, ratio and economics with the new settings ----

def test_ratio_tries_the_readers_counts_the_settings_allow(impl):
    rows = impl["ratio"](model="70B", tp=2, gpus=8, rps=2.0, requests=30)
    assert [row["readers"] for row in rows] == [2, 4, 6]
    rows = impl["ratio"](model="70B", tp=2, reader_tp=4, gpus=8, rps=2.0, requests=30)
    assert [row["readers"] for row in rows] == [4]
    assert all(row["rate"] > 0 for row in rows)


def test_economics_prices_every_gpu(impl):
    got = impl["economics"](model="70B", tp=2, gpus=4, readers=2, reader_gpu="H200",
                            requests=30, memory="kv")
    for m in got.values():
        assert (m["price_per_hour"], m["watts"]) == (math.fsum([3.80, 3.80, 1.30, 1.30]), 2200)


def test_kv_at_the_defaults_watches_as_slots(impl):
    """watch.md's figures' windows: with memory=kv the same reads, steps and crossings, and
    kv events besides."""
    for layout in ("shared", "split"):
        slots = impl["watch"](layout, 22.4, 22.8)
        kv = impl["watch"](layout, 22.4, 22.8, memory="kv")
        assert [e for e in kv if e["kind"] != "kv"] == slots
        assert [e for e in kv if e["kind"] == "kv"]


def test_a_kv_event_comes_after_a_read_on_a_full_tie(impl):
    """A one-word reply read alone: its room is reserved as its read starts and freed at its
    end (its only word), so its kv run has the read's start, lane, index and end."""
    rows = trace([(0, 1000, 1), (1, 1000, 1)])
    events = impl["watch"]("shared", 0.0, 10.0, trace=rows, **dict(PAIRS, requests=2))
    gpu0 = [(e["kind"], e["start"], e["end"], e["tokens"]) for e in events if e["index"] == 0]
    read = gpu0[0]
    assert gpu0 == [read, ("kv", read[1], read[2], 1001)] and read[0] == "read"


def test_least_loaded_counts_the_jobs_that_wait_for_admission(impl):
    """Two writers (pairs of A100s), each with room for one 21,000-token job. Requests 0, 1
    and 2 ask writers 0, 1 and 0 (counts 0-0, 1-0, 1-1); request 2 waits for writer 0's room.
    Request 3 then finds writer 0 with two jobs (one waiting) and writer 1 with one: it goes
    to writer 1, is admitted at once and crosses as it asks, while request 2 has not crossed.
    (Counting only the jobs given at their landing, as memory=slots does, the counts would be
    1-1 and request 3 would wait behind request 2 at writer 0.)"""
    rows = trace([(0, 1000, 20000), (1, 1000, 20000), (2, 1000, 20000), (3, 1000, 2)])
    settings = dict(PAIRS, gpus=6, routing="least-loaded", requests=4)
    events = impl["watch"]("split", 0.0, 10.0, trace=rows, **settings)
    reads = {e["request"]: e for e in events if e["kind"] == "read"}
    cross = {e["request"]: e for e in events if e["kind"] == "cross"}
    assert sorted(cross) == [0, 1, 3]
    assert all(cross[i]["start"] == reads[i]["end"] for i in (0, 1, 3))
    held = [(e["index"], e["tokens"]) for e in events
            if e["kind"] == "kv" and e["lane"] == "writer"]
    assert held == [(0, 0), (1, 0), (0, 21000), (1, 21000), (1, 22002), (1, 21000)]
    # request 2's prompt is held by the reader until writer 0 has room and it has landed
    assert [e["tokens"] for e in events if e["kind"] == "kv" and e["lane"] == "reader"][-1] == 1000


def test_a_local_job_asks_at_its_arrival_and_is_read_once_admitted(impl):
    """One writer. Request 1 (local: 1,000 < local_below) asks at its arrival, is admitted at
    once and read by the writer then; request 0, read by the reader, asks later and waits:
    21,000 + 25,300 tokens do not fit in 41,233."""
    rows = trace([(0, 25000, 300), (1, 1000, 20000)])
    settings = dict(PAIRS, local_below=2000, requests=2)
    events = impl["watch"]("split", 0.0, 10.0, trace=rows, **settings)
    reads = {e["request"]: e for e in events if e["kind"] == "read"}
    assert (reads[1]["lane"], reads[1]["start"]) == ("writer", 1.0)
    assert reads[0]["lane"] == "reader" and reads[0]["end"] < 10.0
    assert not [e for e in events if e["kind"] == "cross"]
    writer = [e["tokens"] for e in events if e["kind"] == "kv" and e["lane"] == "writer"]
    assert writer == [0, 21000]
