"""What the page needs at a playhead beyond the events (Watched.requests): each request's
arrival, read, first and last words. Held to the run itself: the words it implies (the first,
then the ends of its GPU's steps from its first word on) give every reply's largest gap exactly
as the engine measured it, and every read begins at a `read` event's start."""

import pytest

import sim
from sim.model.costs import EPS
from sim.settings import Settings

CASES = [("shared", Settings()), ("split", Settings()), ("chunked", Settings(chunk=512)),
         ("shared", Settings(rps=6, gpus=3, routing="least-loaded")),
         ("split", Settings(rps=8, gpus=4, readers=2, local_below=1500, link_sharing="queued")),
         ("chunked", Settings(rps=5, chunk=256, gpus=3))]


def words(reply, steps):
    """A reply's words, as the page works them out from the events."""
    out = [reply["first"]]
    out += [e["end"] for e in steps if e["start"] >= reply["first"] - EPS and e["end"] <= reply["last"]]
    return out


@pytest.mark.parametrize("layout, s", CASES)
def test_each_replys_words_give_its_largest_gap(layout, s):
    lab = sim.Lab()
    watched = lab.watched(layout, s)
    t0, t1 = 10.0, 20.0
    events = watched.events(t0, t1)
    replies = watched.requests(t0, t1)
    largest = {}
    for served, requests in watched.run.gpus:
        largest.update(zip(requests, served.max_gap))
    checked = 0
    for reply in replies:
        assert reply["arrival"] < t1 and reply["last"] > t0
        assert reply["arrival"] <= reply["first"] + EPS
        if reply["read"] is not None:
            assert any(e["kind"] == "read" and e["request"] == reply["request"] and e["start"] == reply["read"]
                       for e in events) or not t0 < reply["read"] < t1
        if not (reply["first"] > t0 and reply["last"] < t1):
            continue  # its words are not all in the window
        steps = [e for e in events if e["kind"] == "step" and (e["lane"], e["index"]) == (reply["lane"], reply["index"])]
        got = words(reply, steps)
        assert got[-1] == reply["last"]
        gap = max((b - a for a, b in zip(got, got[1:])), default=0.0)
        assert gap == pytest.approx(largest[reply["request"]], abs=1e-9)
        checked += 1
    assert checked > 5


@pytest.mark.parametrize("layout, s", CASES[:3])
def test_a_replys_word_at_t0_is_its_last_before_the_window(layout, s):
    """`word`: the last word at t0 or before, which the window's own events cannot give."""
    watched = sim.Lab().watched(layout, s)
    wide = watched.events(5.0, 15.0)
    for reply in watched.requests(10.0, 12.0):
        if reply["first"] > 10.0:
            assert reply["word"] is None
            continue
        steps = [e for e in wide if e["kind"] == "step" and (e["lane"], e["index"]) == (reply["lane"], reply["index"])]
        before = [w for w in words(reply, steps) if w <= 10.0]
        if reply["first"] >= 5.0:
            assert reply["word"] == before[-1]


def test_recorded_runs_with_a_bound_of_their_own_evict_no_run():
    """The page's lab (watch_budget): watching three settings' layouts leaves the runs cached."""
    lab = sim.Lab(budget=10_000, watch_budget=3 * 8 * 600)
    lab.compare(Settings())
    held, runs = lab._held, lab.simulations
    for rps in (3.0, 4.0, 5.0):
        for layout in ("shared", "split"):
            lab.watch(layout, 0, 1, Settings(rps=rps))
    assert lab._held == held and lab._watched_held <= 3 * 8 * 600
    lab.compare(Settings())
    assert lab.simulations == runs + 6  # the compare's runs were still there
