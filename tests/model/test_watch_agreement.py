"""sim.watch agrees with the step-by-step oracle, event for event
(docs/model.md: "Watch it run: the events"): on random settings and windows (every layout,
every explorer option, the chips' and Dynamo's), at the limits, overloaded, and on both Azure
traces with both arrivals.

The engine reads its events off its own run (jumps over runs of alike steps); the oracle walks
every step and keeps each as it goes. Their counts, lanes, kinds, requests, replies and tokens
must be equal; their times may differ by rounding alone (an oracle's clock adds one step at a
time, the engine's multiplies), within TOLERANCE. An event that ends within TOLERANCE of the
window's start, or starts within it of the window's end, may be in one list and not in the
other: it is left out of the comparison on both sides.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

import oracle
import sim
from sim.settings import CHIPS, FIELDS, Settings

# Seconds: a nanosecond, the model's own tie tolerance (costs.EPS) and the word times' in
# tests/show/test_timeline.py. Measured here: at most 1.5e-10 s, on clocks of 300 to 600 s;
# about 1e-12 s on the lesson's.
TOLERANCE = 1e-9
ORDER = ("start", "lane", "index", "end")  # the spec's order of the list
LENGTHS = (0.001, 0.01, 0.05, 0.4, 2.0, 10.0)  # seconds: windows from one step to the longest


def lane_order(e):
    """Each lane's events one after the other (a link's crossings may overlap: by request)."""
    return e["lane"], e["index"], e["request"] if e["lane"] == "link" else 0, e["start"]


def same(got, want, t0, t1):
    """Event for event, as the module's docstring says; returns how many were compared."""
    def inner(events):
        return sorted((e for e in events if e["end"] > t0 + TOLERANCE and e["start"] < t1 - TOLERANCE),
                      key=lane_order)
    got, want = inner(got), inner(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert {k: g[k] for k in g if k not in ("start", "end")} == \
            {k: w[k] for k in w if k not in ("start", "end")}, (g, w)
        assert abs(g["start"] - w["start"]) <= TOLERANCE and abs(g["end"] - w["end"]) <= TOLERANCE, (g, w)
    return len(got)


def agree(settings, windows, trace=None):
    """Every layout of the settings, in each window (t0, t1): the engine's list is in the
    spec's order and holds only events that overlap the window, and it is the oracle's."""
    lab, s = sim.Lab(), Settings(**settings)
    compared = 0
    for layout in oracle.layouts(oracle.options(**settings)):
        for t0, t1 in windows:
            got = lab.watch(layout, t0, t1, s, trace=trace)
            assert got == sorted(got, key=lambda e: tuple(e[k] for k in ORDER))
            assert all(e["end"] > t0 and e["start"] < t1 for e in got)
            compared += same(got, oracle.watch(layout, t0, t1, trace=trace, **settings), t0, t1)
    return compared


def last_arrival(settings):
    return oracle.requests_of(oracle.options(**settings))[-1][0]


@st.composite
def settings_and_window(draw):
    """Every explorer option, the chips' and Dynamo's too, with up to 6 GPUs and 150 requests
    (so that the oracle stays quick); a window from a second before a request's arrival to
    three after it (where something is under way), or anywhere up to past the last one."""
    gpus = draw(st.sampled_from((2, 2, 3, 4, 5, 6)))
    settings = dict(
        rps=draw(st.sampled_from(FIELDS["rps"].metadata["slider"])),
        prompt=draw(st.sampled_from(FIELDS["prompt"].metadata["slider"])),
        reply=draw(st.integers(2, 400)), link=draw(st.sampled_from(FIELDS["link"].metadata["slider"])),
        requests=draw(st.integers(1, 150)), seed=draw(st.integers(0, 2**53 - 1)), gpus=gpus,
        readers=draw(st.integers(1, gpus - 1)),
        routing=draw(st.sampled_from(("alternate", "least-loaded"))),
        chunk=draw(st.sampled_from((0, 1, 64, 300, 512, 2048, 16_384))),
        link_sharing=draw(st.sampled_from(("free", "queued"))), layerwise=draw(st.sampled_from((0, 1))),
        local_below=draw(st.sampled_from((0, 0, 500, 1500, 4000, 131_072))),
        local_queue=draw(st.sampled_from((0, 0, 1, 2, 5))),
        reader_gpu=draw(st.sampled_from(CHIPS)), writer_gpu=draw(st.sampled_from(CHIPS)),
        reader_power=draw(st.sampled_from((1.0, 0.5, 0.75))),
        writer_power=draw(st.sampled_from((1.0, 0.5, 0.8))),
        slots=draw(st.sampled_from((1, 2, 4, 8, 32, 64))))
    arrivals = [a for a, _, _ in oracle.requests_of(oracle.options(**settings))]
    if draw(st.booleans()):
        t0 = max(0.0, draw(st.sampled_from(arrivals)) + draw(st.floats(-1.0, 3.0)))
    else:
        t0 = draw(st.floats(0, 1.05)) * (arrivals[-1] + 1.0)
    return settings, (t0, t0 + draw(st.sampled_from(LENGTHS)))


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(settings_and_window())
def test_hypothesis_settings_and_windows(case):
    settings, window = case
    agree(settings, [window])


def test_busy_windows_are_compared():
    """The agreement is not only over empty windows: at the defaults, every layout's events
    in a busy stretch (a whole 10 s window, and the spec's figures' 0.4 s)."""
    assert agree(dict(chunk=512), [(20.0, 30.0), (22.4, 22.8)]) > 3000


LIMITS = [  # the ends of the ranges, overloaded GPUs and readers, a queued link
    dict(gpus=6, readers=5, rps=30.0, requests=150),
    dict(slots=1, chunk=512, routing="least-loaded", gpus=3, readers=2, requests=100),
    dict(chunk=1, prompt=8000, slots=2, requests=30),
    dict(slots=1024, reply=1000, rps=20.0, prompt=100, chunk=64, requests=150),
    dict(local_below=131_072, gpus=5, readers=4, routing="least-loaded", requests=150),
    dict(rps=20.0, prompt=8000, reply=1000, link=0.1, link_sharing="queued", gpus=4, readers=2,
         routing="least-loaded", chunk=256, requests=100),
    dict(rps=12.0, prompt=8000, reply=10, layerwise=1, link=1.0, link_sharing="queued",
         requests=150),
    dict(rps=8.0, prompt=4000, reply=400, local_below=5000, local_queue=2, slots=4, gpus=6,
         readers=3, routing="least-loaded", requests=150),
    dict(gpus=4, readers=1, rps=10.0, local_queue=2, reader_power=0.5, writer_gpu="H100",
         requests=200),
]


@pytest.mark.parametrize("settings", LIMITS, ids=lambda s: " ".join(f"{k}={v}" for k, v in s.items()))
def test_limits_and_overload(settings):
    end = last_arrival(settings)
    agree(settings, [(0.0, 10.0), (end / 2, end / 2 + 10.0), (end, end + 10.0)])


SIZES = {"azure-chat": 19_366, "azure-code": 8_819}


def trace_cases():
    """Windows of both shipped traces, both arrivals, with explorer options drawn as a user
    could set them."""
    rng = random.Random(2026_20)
    cases = []
    for traffic in SIZES:
        for arrivals in ("recorded", "poisson", "recorded"):
            gpus = rng.choice((2, 3, 4, 6))
            requests = rng.choice((60, 150, 300))
            cases.append(dict(
                traffic=traffic, arrivals=arrivals, requests=requests,
                trace_start=rng.randrange(SIZES[traffic] - requests + 1), seed=rng.randrange(2**32),
                rps=rng.choice((2.0, 4.0, 8.0)) * gpus / 2, gpus=gpus, readers=rng.randrange(1, gpus),
                routing=rng.choice(("alternate", "least-loaded")), chunk=rng.choice((0, 512)),
                link_sharing=rng.choice(("free", "queued")), layerwise=rng.choice((0, 1)),
                local_below=rng.choice((0, 1500)), slots=rng.choice((8, 32))))
    return cases


@pytest.mark.parametrize("settings", trace_cases(),
                         ids=lambda s: f"{s['traffic']}-{s['arrivals']}-{s['trace_start']}")
def test_trace_traffic(settings):
    end = last_arrival(settings)
    windows = [(0.0, 2.0), (end / 3, end / 3 + 10.0), (0.9 * end, 0.9 * end + 10.0)]
    assert agree(settings, windows) > 0
