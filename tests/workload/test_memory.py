"""A trace file of any size reaches its window with memory bounded by the window (traffic.md:
"a week-long trace of a gigabyte needs no more memory than its window")."""

import resource
import subprocess
import sys
import time
import tracemalloc

import pytest

from conftest import ROOT

from sim.workload.tracefile import read_path

ROWS = 1_000_000
WINDOW = 600


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    """A 1,000,000-row trace (19 MB): a request every 0.25 s with varied lengths."""
    path = tmp_path_factory.mktemp("big") / "million.csv"
    with open(path, "w") as f:
        f.write("arrival_s,prompt_tokens,reply_tokens\n")
        f.writelines(f"{k * 0.25:.2f},{100 + k * 7919 % 6000},{1 + k * 104_729 % 500}\n"
                     for k in range(ROWS))
    return path


def test_a_window_at_the_start_stops_reading_at_its_end(million):
    began = time.perf_counter()
    tracemalloc.start()
    try:
        trace = read_path(million, keep=(0, WINDOW))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (len(trace), trace.usable, trace.whole) == (WINDOW, WINDOW, False)
    assert peak < 1_000_000 and time.perf_counter() - began < 2


def peak_rss(code):
    """The peak resident memory (bytes) of a Python that runs `code` after importing sim."""
    done = subprocess.run([sys.executable, "-c", "import resource, sim\n" + code +
                           "\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    *out, kb = done.stdout.split()
    return int(kb) * 1024, out


def test_a_window_at_the_end_reads_every_row_and_keeps_only_its_own(million):
    """Every row before the window is read and checked, and only the window is kept: the
    reading Python's peak memory is that of one that reads nothing, give or take a few MB
    (the whole million would take some 150 MB as lists of numbers)."""
    assert resource  # the child measures itself
    baseline, _ = peak_rss("")
    start = ROWS - WINDOW
    peak, out = peak_rss(
        "from sim.workload.tracefile import read_path\n"
        f"t = read_path({str(million)!r}, keep=({start}, {ROWS}))\n"
        "print(len(t), t.usable, t.first, t.prompts[0])\n"
        "r = sim.compare(trace=t, trace_start=%d, requests=%d)\n"
        "print(r['split']['goodput'] > 0)" % (start, WINDOW))
    assert out == [str(WINDOW), str(ROWS), str(start), str(100 + start * 7919 % 6000), "True"]
    assert peak - baseline < 12_000_000


def test_the_command_line_reads_a_million_rows_to_a_window(million):
    done = subprocess.run([sys.executable, "-m", "sim", "traffic", "--trace", str(million),
                           "--trace-start", str(ROWS - WINDOW), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert '"trace_requests": 1000000' in done.stdout and '"requests": 600' in done.stdout
