"""The command line: tables, JSON, sweeps, the crossover and the lesson's trace (golden)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

import sim
from sim.model import costs
from sim.show.numbers import percent
from sim.settings import Settings
from sim.show.walkthrough import BUSY, SHORT_PROMPT, SLOW_LINK, limits
from sim.workload.draws import Draws, Workload

A100 = costs.CHIPS["A100"]  # the lesson's GPU: its read cost and writing step

GOLDEN = ROOT / "tests" / "golden"


def cli(*args):
    done = subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_trace_matches_golden_file():
    assert cli("trace") == (GOLDEN / "trace.txt").read_text()


def test_compare_json_is_the_api():
    assert json.loads(cli("compare", "--rps", "10", "--link", "0.25", "--json")) == \
        sim.compare(rps=10, link=0.25)


def test_compare_table():
    out = cli("compare")
    assert "goodput                  13.5%     98.7%" in out
    assert "gap p99               110.8 ms    7.9 ms" in out


def test_sweep_json_points_are_compares():
    out = json.loads(cli("sweep", "--over", "prompt", "--values", "200,2000", "4000", "--json"))
    assert [p["value"] for p in out["points"]] == [200, 2000, 4000]
    for p in out["points"]:
        assert {k: p[k] for k in ("settings", "shared", "split")} == sim.compare(prompt=p["value"])


def test_sweep_table_has_a_row_per_value():
    out = cli("sweep", "--over", "rps", "--values", "2", "4", "10")
    rows = out.strip().splitlines()[-3:]
    assert [r.split()[:3] for r in rows] == [["2", "37.2%", "99.7%"], ["4", "13.5%", "98.7%"],
                                             ["10", "1.7%", "32.2%"]]


def test_sweep_table_shows_p50s_and_p99s_of_both_layouts():
    out = cli("sweep", "--over", "rps", "--values", "4,10")
    groups, header, *rows = out.strip().splitlines()[-4:]
    assert re.split(r"\s{3,}", groups.strip()) == [
        "goodput", "first word p50 (ms)", "first word p99 (ms)", "gap p50 (ms)", "gap p99 (ms)"]
    assert header.split() == ["rps"] + ["shared", "split"] * 5
    for row, rps in zip(rows, (4, 10)):
        r = sim.compare(rps=rps)
        want = [str(rps)]
        for key in ("goodput", "ttft_p50", "ttft_p99", "gap_p50", "gap_p99"):
            for layout in ("shared", "split"):
                x = r[layout][key]
                want.append(percent(x) if key == "goodput" else f"{x * 1000:.1f}")
        assert row.split() == want


def test_crossover_is_a_bisection_boundary():
    c = json.loads(cli("crossover", "--json"))
    assert c["verdict"] == "between" and c["below"] < c["link"] < c["below"] * (1 + 1e-6)
    at = sim.compare(link=c["link"])
    below = sim.compare(link=c["below"])
    assert at["split"]["goodput"] > at["shared"]["goodput"] >= below["split"]["goodput"]
    assert "Crossover: 0.2922 GB/s" in cli("crossover")


def test_crossover_never_and_always():
    never = json.loads(cli("crossover", "--prompt", "200", "--json"))
    assert never["verdict"] == "never" and never["link"] is None
    # With an hour to the first word, even a 0.001 GB/s link is fast enough.
    always = json.loads(cli("crossover", "--ttft-target", "3600", "--json"))
    assert always["verdict"] == "always" and always["link"] == 0.001


def test_trace_reads_well_at_other_settings():
    out = cli("trace", "--prompt", "8000", "--link", "80")
    assert "Reading an 8,000-token prompt takes 411.8 ms" in out
    assert "crosses an 80 GB/s link" in out


def trace_text(**change):
    """The trace for the defaults but `change`, on one line (as read, not as wrapped)."""
    return " ".join(cli("trace", *[f"--{k.replace('_', '-')}={v}" for k, v in change.items()])
                    .split())


def goodputs(r):
    return f"shared {percent(r['shared']['goodput'])}, split {percent(r['split']['goodput'])}"


def test_the_limits_are_the_lessons_states_at_the_defaults():
    assert limits(Settings()) == (BUSY, SLOW_LINK, SHORT_PROMPT)


def test_one_request_is_singular():
    text = trace_text(requests=1)
    assert "1 request arrives at random" in text and "1 requests" not in text
    assert "1 request is too few" in text or "one reader falls behind" not in text


@pytest.mark.parametrize("change", [
    {"requests": 1}, {"prompt": 2, "reply": 2}, {"rps": 1000}, {"rps": 0.5, "prompt": 8000},
    {"link": 0.1, "prompt": 8000}, {"gap_target": 0.01}, {"gap_target": 0.001},
    {"ttft_target": 3600}, {"requests": 3, "seed": 1},
])
def test_the_limits_agree_with_the_simulation(change):
    """Each limit's words hold for the numbers the simulator gives at that limit."""
    s = Settings().but(**change)
    text = trace_text(**change)
    limits_line = text.split("Limits: ", 1)[1]
    base = s.as_dict()
    sizes = [round(s.prompt * m) for m in (0.5, 1, 1.5)]
    capacity = 3 / (sum(sizes) * A100.read_cost)  # prompts a second one reader reads

    busy = re.search(r"at (\S+) req/s(?:, the most allowed,)? one reader (falls behind|reads "
                     r"slower than requests arrive, but .*? too few for it to fall behind|keeps "
                     r"up) \((.*?)\)", limits_line)
    rps = float(busy.group(1))
    r = sim.compare(**{**base, "rps": rps})
    assert busy.group(3) == goodputs(r)
    if busy.group(2) == "keeps up":
        assert rps == 1000 and capacity > rps
    else:
        assert rps > capacity and (rps == s.rps or s.rps <= capacity)
        # Behind: the reader's queue alone makes some request miss the first-word target.
        work = Workload(Draws(s.seed, s.requests), rps, s.prompt, s.reply)
        free, wait = 0.0, 0.0
        for arrival, tokens in zip(work.arrivals, work.prompts):
            wait = max(wait, free - arrival)
            free = max(free, arrival) + tokens * A100.read_cost
        assert (wait > s.ttft_target) == (busy.group(2) == "falls behind")
        assert r["split"]["ttft_max"] > s.ttft_target or busy.group(2) != "falls behind"

    link = re.search(r"over an? (\S+) GB/s link(, the slowest allowed,)? (the cache arrives too "
                     r"late|the smallest prompts' caches cross within the first-word target) "
                     r"\((.*?)\)", limits_line)
    at = float(link.group(1))
    r = sim.compare(**{**base, "link": at})
    assert link.group(4) == goodputs(r)
    crossing = min(sizes) * costs.LESSON.cache / (at * 1e9)  # the smallest cache's
    if "too late" in link.group(3):
        assert crossing > s.ttft_target and r["split"]["goodput"] == 0
    else:
        assert at == 0.001 and crossing <= s.ttft_target

    short = re.search(r"with (\S+)-token prompts (.*?) \((.*?)\)\.$", limits_line)
    prompt = int(short.group(1).replace(",", ""))
    r = sim.compare(**{**base, "prompt": prompt})
    assert short.group(3) == goodputs(r)
    stalled = r["shared"]["gap_max"] > s.gap_target
    assert (short.group(2) == "reads are too short to stall anyone") == (not stalled)
    if stalled:
        assert ("writing step alone" in short.group(2)) == (A100.step > s.gap_target)


def test_the_words_follow_the_settings():
    text = trace_text(prompt=2, reply=2)
    assert "too late" not in text  # a 1-token cache crosses even 0.001 GB/s in time
    assert "Prompts are 1, 2, 3 tokens, replies 1, 2, 3 words" in text
    crossing = 2 * costs.LESSON.cache / 25e9
    assert f"crosses a 25 GB/s link in {crossing * 1000:.2g} ms." in text  # not "0.0 ms"
    text = trace_text(rps=1000)
    assert "at 10 req/s" not in text and "at 1000 req/s one reader falls behind" in text
    assert "the last arrives at 0.6 s" in text


def test_a_sweeps_header_names_the_values_it_sweeps_not_the_fixed_one():
    out = cli("sweep", "--over", "rps", "--values", "1,2")
    assert out.splitlines()[0].startswith("1 / 2 req/s (swept), prompts of 2,000 tokens")
    assert "4 req/s" not in out.splitlines()[0]
    line = cli("sweep", "--over", "gap_target", "--values", "0.05", "0.1").splitlines()[0]
    assert "gaps within 50.0 ms / 100.0 ms (swept)" in line
    line = cli("sweep", "--over", "gpus", "--values", "2,4").splitlines()[0]
    assert line.endswith("; gpus=2 / 4 (swept)")


def test_a_sweeps_axis_takes_its_flags_spelling_too():
    by_flag = json.loads(cli("sweep", "--over", "ttft-target", "--values", "0.2,1", "--json"))
    by_name = json.loads(cli("sweep", "--over", "ttft_target", "--values", "0.2,1", "--json"))
    assert by_flag == by_name and by_flag["over"] == "ttft_target"
    done = subprocess.run([sys.executable, "-m", "sim", "sweep", "--over", "ttft-targets",
                           "--values", "1"], capture_output=True, text=True)
    assert done.returncode == 2 and "invalid choice: 'ttft_targets'" in done.stderr
    assert "Traceback" not in done.stderr


def test_help_shows_a_choices_names():
    out = cli("compare", "--help")
    assert "--routing {alternate,least-loaded}" in out
    assert "--reader-gpu {A100,H100,H200,B200}" in out
    assert "--routing N" not in out


def test_python_m_sim_runs_from_any_folder(tmp_path):
    # `make test`'s set-up installs sim into the venv (editable): no need to stand in the repo
    done = subprocess.run([sys.executable, "-m", "sim", "compare", "--rps", "10", "--json"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == sim.compare(rps=10)
    pdsplit = Path(sys.executable).with_name("pdsplit")
    done = subprocess.run([str(pdsplit), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "usage: python -m sim" in done.stdout
