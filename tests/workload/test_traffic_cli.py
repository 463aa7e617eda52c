"""Real traffic on the command line: --traffic, --arrivals and --trace-start on every command,
--trace FILE (or - for standard input), and `python -m sim traffic`."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

import sim
from sim.cli import build_parser, main

COMMANDS = ("compare", "sweep", "crossover", "trace", "rate", "ratio", "traffic")
MINE = ("arrival_s,prompt_tokens,reply_tokens,note\n"
        + "".join(f"{k * 0.37:.2f},{200 + (k * 977) % 5000},{1 + (k * 31) % 300},x\n" for k in range(400)))


def cli(*args, stdin=None):
    done = subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True,
                          input=stdin, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_the_traffic_flags(command):
    extra = ["--over", "rps", "--values", "1"] if command == "sweep" else []
    args = build_parser().parse_args([command, "--traffic", "azure-code", "--arrivals", "poisson",
                                      "--trace-start", "5", "--trace", "-"] + extra)
    assert (args.traffic, args.arrivals, args.trace_start, args.trace) == (
        "azure-code", "poisson", "5", "-")


def test_compare_with_a_shipped_trace_is_the_api(capsys):
    assert main(["compare", "--traffic", "azure-code", "--arrivals", "poisson", "--trace-start",
                 "77", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(
        sim.compare(traffic="azure-code", arrivals="poisson", trace_start=77)))


def test_a_file_of_your_own_and_standard_input(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(MINE)
    want = sim.compare(trace=str(path), requests=300, trace_start=50, rps=2)
    for args, stdin in ((["--trace", str(path)], None), (["--trace", "-"], MINE)):
        out = cli("compare", *args, "--requests", "300", "--trace-start", "50", "--rps", "2",
                  "--json", stdin=stdin)
        assert json.loads(out) == json.loads(json.dumps(want))
    table = cli("compare", "--trace", str(path), "--requests", "300", "--rps", "2")
    assert table.startswith(f"{path}: requests 0 to 299, with their own spacing scaled to 2 req/s;")
    assert "goodput" in table and "Within both targets" in table


def test_rate_ratio_sweep_and_crossover_replay_a_trace(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(MINE)
    kw = dict(trace=str(path), requests=100, gpus=4, readers=1)
    flags = ["--trace", str(path), "--requests", "100", "--gpus", "4", "--json"]
    assert json.loads(cli("rate", *flags)) == sim.rate(**kw)
    assert json.loads(cli("ratio", *flags)) == sim.ratio(**kw)
    assert json.loads(cli("crossover", *flags))["link"] == sim.Lab().crossover(
        sim.Settings(requests=100, gpus=4), trace=str(path))["link"]
    # a sweep over the window reads as far as its last one needs
    swept = json.loads(cli("sweep", *flags, "--over", "trace_start", "--values", "0", "150", "300"))
    assert [p["settings"]["trace_start"] for p in swept["points"]] == [0, 150, 300]
    assert swept["points"][2]["shared"] == sim.compare(**kw, trace_start=300)["shared"]
    loads = json.loads(cli("sweep", *flags, "--over", "rps", "--values", "1", "8"))
    assert [p["settings"]["traffic"] for p in loads["points"]] == ["own", "own"]


def test_the_traffic_command_table_and_json():
    out = cli("traffic", "--traffic", "azure-chat")
    assert " ".join(out.split()).startswith(
        "Azure LLM inference trace 2023 (conversation): requests 0 to 599 of its 19,366 usable, "
        "with their own spacing scaled to 4 req/s.")
    rows = out.split("\n\n")[1].splitlines()
    assert rows[0].split() == ["p50", "p90", "p99", "mean"]
    assert rows[1].split() == ["prompt", "tokens", "994", "1,314", "4,088", "922.3"]
    assert rows[2].split() == ["reply", "words", "217", "428", "585", "261.5"]
    flat = " ".join(out.split())
    assert "600 requests over 149.8 s. Burstiness" in flat and ": 1.27;" in flat
    assert "Data: Azure LLM inference trace 2023, Microsoft Azure, CC-BY 4.0." in flat
    assert "cite Patel et al., \"Splitwise: Efficient Generative LLM Inference Using Phase " \
           "Splitting\", ISCA 2024" in flat
    assert "What a trace's replay leaves out: prefix reuse between requests" in flat
    assert json.loads(cli("traffic", "--traffic", "azure-chat", "--json")) == \
        sim.traffic(traffic="azure-chat")
    lesson = cli("traffic")
    assert lesson.startswith("The lesson's traffic: 600 requests at random (Poisson, seed 7)")
    assert "Azure" not in lesson and "leaves out" not in lesson


def test_a_file_read_only_up_to_its_window_says_so(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(MINE + "not,a,row,at all\n")  # never reached: the window ends before it
    out = " ".join(cli("traffic", "--trace", str(path), "--requests", "30").split())
    assert "requests 0 to 29 of its at least 30 usable" in out
    assert "(the file was read only as far as the window)" in out
    assert json.loads(cli("traffic", "--trace", str(path), "--requests", "30", "--json"))[
        "trace_requests"] == 30


def test_the_lesson_s_output_is_unchanged():
    """With traffic=lesson every output is today's: the golden walk-through, and the
    settings line that carries no traffic words."""
    assert cli("trace") == (ROOT / "tests" / "golden" / "trace.txt").read_text()
    assert cli("compare").splitlines()[0] == ("4 req/s, prompts of 2,000 tokens, replies of 200 "
                                              "words, link 25 GB/s; targets: first word within "
                                              "0.5 s, gaps within 100.0 ms; 600 requests, seed 7")
