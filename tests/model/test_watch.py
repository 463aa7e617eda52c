"""sim.watch on its own (docs/model.md: "Watch it run: the events"): its events are the
engine's own run, to the bit; they account for every word and every prompt token; recording
them changes no result; bad input gets one clear message; a lab caches the recorded run."""

import pytest

import sim
from sim.model import layouts
from sim.model.link import hand_over
from sim.model.metrics import score
from sim.settings import Settings

KEYS = ["lane", "index", "kind", "start", "end", "request", "replies", "tokens"]
# Short runs whose every event falls in one 10 s window from 0: what the tests below add up
SHORT = [
    dict(requests=30, rps=10.0, chunk=512),
    dict(requests=40, rps=10.0, gpus=4, readers=2, routing="least-loaded", chunk=300),
    dict(requests=40, rps=12.0, gpus=5, readers=2, link_sharing="queued", layerwise=1, link=2.0,
         local_below=1500, slots=4, chunk=64),
    dict(requests=40, rps=10.0, gpus=4, readers=1, local_queue=1, reader_gpu="H100",
         writer_power=0.5, reader_power=0.75, chunk=2048, reply=150),
]
ALL = (0.0, 10.0)


def by(events, **match):
    return [e for e in events if all(e[k] == v for k, v in match.items())]


@pytest.mark.parametrize("changes", SHORT)
def test_events_account_for_every_word_and_token(changes):
    s = Settings(**changes)
    lab = sim.Lab()
    work = lab.workload(s)
    assert work.arrivals[-1] < 5.0 and max(work.replies) < 400  # all of it inside ALL
    words = sum(r - 1 for r in work.replies)  # every word after each reply's first is a step's
    for layout in ("shared", "split", "chunked"):
        events = lab.watch(layout, *ALL, s)
        assert events and all(list(e) == KEYS for e in events)
        assert sum(e["replies"] for e in by(events, kind="step")) == words, layout
        read = sum(e["tokens"] for e in events if e["kind"] in ("read", "step"))
        assert read == sum(work.prompts), layout  # every prompt read once, whole or in chunks
        lanes = {(e["lane"], e["index"]) for e in events}
        if layout == "split":
            readers, writers = s.readers, s.gpus - s.readers
            assert lanes <= {("reader", r) for r in range(readers)} | {("link", 0)} | \
                {("writer", w) for w in range(writers)}
            crossed = sorted(e["request"] for e in by(events, kind="cross"))
            assert crossed == sorted(e["request"] for e in by(events, lane="reader"))
            local = sorted(e["request"] for e in by(events, lane="writer", kind="read"))
            assert sorted(crossed + local) == list(range(s.requests))
        else:
            assert lanes <= {("gpu", g) for g in range(s.gpus)}
            assert layout == "chunked" or sorted(e["request"] for e in by(events, kind="read")) \
                == list(range(s.requests))
        if layout != "chunked":  # a GPU's loop never steps with nothing to write
            assert all(e["replies"] > 0 for e in by(events, kind="step"))
        for lane, index in lanes:  # a GPU does one thing at a time; each step is one step long
            mine = by(events, lane=lane, index=index)
            if lane != "link":
                assert all(a["end"] <= b["start"] for a, b in zip(mine, mine[1:]))


@pytest.mark.parametrize("changes", SHORT)
def test_times_are_the_engines_own_clock_values(changes):
    """Not near them: equal. A read ends at its first word (the engine's clock after it); a
    reader's read and a crossing are link.py's times; a chunked prompt's first word is the
    end of the pass that read its last token; and where a GPU's clock moved by whole steps,
    one step begins at the very value the one before ended."""
    s = Settings(**changes)
    lab = sim.Lab()
    work = lab.workload(s)
    shared = lab.watch("shared", *ALL, s)
    run = lab.watched("shared", s).run
    first = {i: served.first[j] for served, requests in run.gpus for j, i in enumerate(requests)}
    assert {e["request"]: e["end"] for e in by(shared, kind="read")} == first
    for served, _ in run.gpus:  # every value its clock took is an event's start or end
        times = {e[t] for e in shared for t in ("start", "end")}
        assert {clock for _, clock, _ in served.clocks[1:]} <= times
    for g in range(s.gpus):
        steps = by(shared, lane="gpu", index=g)
        joined = sum(a["end"] == b["start"] for a, b in zip(steps, steps[1:]))
        assert joined >= len(steps) - 1 - 2 * s.requests  # only reads and idling part them
        assert all(e["end"] - e["start"] == pytest.approx(run.gpus[g][0].step, rel=1e-9)
                   for e in by(steps, kind="step"))
    split = lab.watch("split", *ALL, s)
    seen = {}
    hand_over(work, s, seen)
    starts, ends, _ = seen["reads"]
    assert {e["request"]: (e["start"], e["end"]) for e in by(split, lane="reader")} == \
        {i: (a, b) for i, (a, b) in enumerate(zip(starts, ends)) if b is not None}
    assert all(e["end"] == seen["reach"][e["request"]] for e in by(split, kind="cross"))
    chunked = lab.watch("chunked", *ALL, s)
    ends = {e["end"] for e in chunked}
    for served, _ in lab.watched("chunked", s).run.gpus:
        assert set(served.first) <= ends


@pytest.mark.parametrize("changes", [{}, dict(chunk=512, gpus=4, readers=2, routing="least-loaded"),
                                     dict(link_sharing="queued", layerwise=1, local_below=1500,
                                          local_queue=2, gpus=3, chunk=64, slots=8, rps=8.0)])
def test_recording_changes_no_result(changes):
    s = Settings(**changes)
    work = sim.Lab().workload(s)
    for layout in ("shared", "split", "chunked")[: 3 if s.chunk else 2]:
        plain = getattr(layouts, layout)(work, s)
        recorded = getattr(layouts, layout)(work, s, record=True)
        assert score(recorded, s.ttft_target, s.gap_target) == score(plain, s.ttft_target, s.gap_target)


@pytest.mark.parametrize("call, message", [
    (lambda: sim.watch("shared", -0.5, 1), "a window starts at 0 s or later; got t0 = -0.5"),
    (lambda: sim.watch("shared", 3, 3), "a window ends after it starts (t1 above t0)"),
    (lambda: sim.watch("shared", 3, 2), "a window ends after it starts (t1 above t0)"),
    (lambda: sim.watch("shared", 1, 11.5), "a window lasts at most 10 s; got 10.5 s"),
    (lambda: sim.watch("shared", float("nan"), 1), "t0 must be a number of seconds; got nan"),
    (lambda: sim.watch("shared", 0, "1"), "t1 must be a number of seconds; got '1'"),
    (lambda: sim.watch("shared", True, 1), "t0 must be a number of seconds; got True"),
    (lambda: sim.watch("both", 0, 1), "the layouts at these settings are shared, split (chunked "
                                      "needs chunk above 0); got 'both'"),
    (lambda: sim.watch("chunked", 0, 1), "(chunked needs chunk above 0); got 'chunked'"),
    (lambda: sim.watch("mixed", 0, 1, chunk=64), "are shared, split, chunked; got 'mixed'"),
    (lambda: sim.watch("shared", 0, 1, rps=-1), "rps must be a number from 0.01 to 1000"),
    (lambda: sim.watch("shared", 0, 1, speed=2), "unknown setting 'speed'"),
    (lambda: sim.watch("shared", 0, 1, traffic="own"), "traffic=own needs a trace of your own"),
])
def test_bad_input_gets_one_clear_message(call, message):
    with pytest.raises(ValueError) as refused:
        call()
    assert message in str(refused.value)


def test_a_window_of_ten_seconds_is_taken_whatever_its_rounding():
    t0 = 8.872934341559363
    assert t0 + 10 - t0 > 10  # a float's rounding: a nanosecond's grace takes it
    assert sim.watch("split", t0, t0 + 10)


def test_every_traffic_and_a_trace_of_your_own():
    text = "arrival_s,prompt_tokens,reply_tokens\n" + "".join(
        f"{k * 0.1:.1f},{500 + 300 * (k % 4)},{20 + k}\n" for k in range(50))
    own = sim.watch("shared", *ALL, trace=text, requests=50, rps=20.0)  # all in ALL
    assert own == sim.Lab().watch("shared", *ALL, Settings(requests=50, rps=20.0), trace=text)
    assert sum(e["replies"] for e in own) == sum(20 + k - 1 for k in range(50))
    for traffic in ("azure-chat", "azure-code"):
        for arrivals in ("recorded", "poisson"):
            events = sim.watch("split", 0, 10, traffic=traffic, arrivals=arrivals, requests=100)
            assert by(events, kind="cross")


def test_a_lab_records_a_run_once_and_keeps_its_budget():
    lab = sim.Lab()
    s = Settings(chunk=512)
    for layout in ("shared", "split", "chunked"):
        lab.watch(layout, 0, 2, s)
    runs = lab.simulations
    for t0 in (5.0, 50.0, 140.0):  # moving the window along the run simulates nothing
        for layout in ("shared", "split", "chunked"):
            lab.watch(layout, t0, t0 + 2, s)
    assert lab.simulations == runs == 3
    assert lab.watch("shared", 0, 2, s.but(gap_target=0.2)) == lab.watch("shared", 0, 2, s)
    assert lab.simulations == 3  # a target changes no event
    small = sim.Lab(budget=20_000)
    for rps in (1.0, 2.0, 3.0, 4.0, 5.0):  # 4,800 each (600 requests, weighed 8)
        small.watch("shared", 0, 1, Settings(rps=rps))
    assert small._held <= 20_000
