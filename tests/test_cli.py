"""The command line: tables, JSON, sweeps, the crossover and the lesson's trace (golden)."""

import json
import subprocess
import sys
from pathlib import Path

import sim

GOLDEN = Path(__file__).parent / "golden"


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
