"""Watch it run, shown: `python -m sim watch` (its table and its JSON), the page boundary's
watch request, and the default window (figure 1's, widened to 2 s)."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

import sim
from sim.show.page import Page
from sim.show.stall import stall
from sim.show.watch import WIDTH, default_window


def run(*args):
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def ask(page, request):
    return json.loads(page.handle(json.dumps(request)))


def test_json_is_the_api():
    done = run("watch", "split", "22.4", "22.8", "--gpus", "3", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == sim.watch("split", 22.4, 22.8, gpus=3)


def test_the_table_has_a_row_per_event():
    done = run("watch", "chunked", "30", "30.5", "--chunk", "512")
    assert done.returncode == 0, done.stderr
    events = sim.watch("chunked", 30, 30.5, chunk=512)
    lines = done.stdout.splitlines()
    assert lines[0].endswith("; chunk=512")
    assert lines[2].startswith(f"chunked (each GPU reads in chunks), from 30.000000 s to "
                               f"30.500000 s: {len(events)} events (0 reads, {len(events)} "
                               "writing steps).")
    assert lines[4].split() == ["lane", "index", "kind", "start", "(s)", "end", "(s)", "ms",
                                "request", "replies", "tokens"]
    rows = [line.split() for line in lines[5:]]
    assert len(rows) == len(events)
    for row, e in zip(rows, events):
        assert row[:5] == [e["lane"], str(e["index"]), e["kind"], f"{e['start']:.6f}", f"{e['end']:.6f}"]
        assert row[6:] == ["-", str(e["replies"]), f"{e['tokens']:,}"]


def test_without_a_window_it_takes_the_default_one():
    done = run("watch", "shared", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == sim.watch("shared", *default_window(sim.Lab(), sim.Settings()))


@pytest.mark.parametrize("args, message", [
    (("watch", "shared", "-1", "2"), "a window starts at 0 s or later"),
    (("watch", "shared", "3", "1"), "a window ends after it starts"),
    (("watch", "shared", "0", "20"), "a window lasts at most 10 s"),
    (("watch", "shared", "1"), "give the window's start and end (T0 T1), or neither"),
    (("watch", "chunked", "0", "1"), "(chunked needs chunk above 0); got 'chunked'"),
    (("watch", "shared", "0", "1", "--rps", "-3"), "rps must be a number from 0.01 to 1000"),
    (("watch", "shared", "0", "x"), "argument T1: invalid float value: 'x'"),
    (("watch",), "the following arguments are required: LAYOUT"),
])
def test_a_refusal_exits_2_with_its_message(args, message):
    done = run(*args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_help_lists_it():
    done = run("--help")
    assert done.returncode == 0 and "watch" in done.stdout
    assert "every event of one layout's run in a window" in " ".join(done.stdout.split())


def test_the_page_answers_a_window_with_the_apis_events():
    page = Page()
    reply = ask(page, {"type": "watch", "layout": "split", "t0": 22.4, "t1": 22.8,
                       "settings": {"link_sharing": "queued", "link": 5}})
    s = sim.Settings(link_sharing="queued", link=5.0)
    watched = sim.Lab().watched("split", s)
    assert reply == {"t0": 22.4, "t1": 22.8,
                     "events": sim.watch("split", 22.4, 22.8, link_sharing="queued", link=5.0),
                     # what the page shows at a playhead beyond the events, from the same run
                     "requests": watched.requests(22.4, 22.8), "end": watched.end()}
    assert reply["requests"] and reply["end"] >= max(e["end"] for e in reply["events"])


def test_the_page_answers_no_window_with_the_default_one_and_says_which():
    page = Page()
    reply = ask(page, {"type": "watch", "layout": "chunked", "settings": {"chunk": 256}})
    t0, t1 = default_window(sim.Lab(), sim.Settings(chunk=256))
    assert (reply["t0"], reply["t1"]) == (t0, t1)
    assert reply["events"] == sim.watch("chunked", t0, t1, chunk=256)


@pytest.mark.parametrize("request_, error", [
    ({"type": "watch", "layout": "split", "t0": 1}, "gives the window's t0 and t1, or neither"),
    ({"type": "watch", "layout": "split", "t1": 1}, "gives the window's t0 and t1, or neither"),
    ({"type": "watch", "layout": "both", "t0": 1, "t1": 2}, "got 'both'"),
    ({"type": "watch", "t0": 1, "t1": 2}, "got None"),
    ({"type": "watch", "layout": "shared", "t0": "1", "t1": 2}, "t0 must be a number of seconds"),
    ({"type": "watch", "layout": "shared", "t0": 5, "t1": 16}, "a window lasts at most 10 s"),
    ({"type": "watch", "layout": "shared", "t0": 0, "t1": 1, "settings": {"gpus": 1}}, "gpus"),
])
def test_a_bad_watch_request_gets_one_clear_error(request_, error):
    reply = ask(Page(), request_)
    assert list(reply) == ["error"] and error in reply["error"]


@pytest.mark.parametrize("changes", [{}, {"rps": 10.0}, {"prompt": 4000, "gpus": 4, "readers": 2},
                                     {"slots": 8, "reader_gpu": "H100"}])
def test_the_default_window_is_figure_1s_widened_to_two_seconds(changes):
    lab, s = sim.Lab(), sim.Settings(**changes)
    meta = stall(lab, s)[0]["layout"]["meta"]
    t0, t1 = default_window(lab, s)
    assert t1 - t0 == WIDTH
    middle = (meta["start"] + meta["end"]) / 2
    assert t0 == max(0.0, middle - WIDTH / 2)
    assert t0 <= meta["start"] and meta["end"] <= t1  # figure 1's window is inside it


def test_the_default_window_starts_at_0_at_the_earliest_and_without_a_stall():
    lab = sim.Lab()
    early = sim.Settings(requests=5, rps=10.0)  # figure 1's read comes in the run's first second
    assert stall(lab, early)[0]["layout"]["meta"]["start"] < WIDTH / 2
    assert default_window(lab, early) == (0.0, WIDTH)
    calm = sim.Settings(prompt=100, reply=10, rps=0.25)  # no read overlaps a reply: no stall
    assert stall(lab, calm)[0]["layout"]["meta"] == {"stall": None}
    assert default_window(lab, calm) == (0.0, WIDTH)
    trace = sim.Settings(traffic="azure-chat")  # no prompt of the set length: no stall either
    assert stall(lab, trace)[0]["layout"]["meta"] == {"stall": None}
    assert default_window(lab, trace) == (0.0, WIDTH)
