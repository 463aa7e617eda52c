"""`python -m sim economics`, and the chips' flags on every command (chips-and-rules.md)."""

import json
import subprocess
import sys

import pytest

import sim
from sim.cli import build_parser

NEW_FLAGS = ("--reader-power", "--writer-power", "--reader-price", "--writer-price",
             "--local-queue")
COMMANDS = ("compare", "sweep", "crossover", "trace", "rate", "ratio", "economics")


def cli(*args):
    done = subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_the_new_flags(command):
    extra = ["--over", "rps", "--values", "1"] if command == "sweep" else []
    values = ["0.5", "0.5", "2", "1", "3"]
    args = build_parser().parse_args(
        [command, *extra, *(x for pair in zip(NEW_FLAGS, values) for x in pair)])
    assert [getattr(args, f[2:].replace("-", "_")) for f in NEW_FLAGS] == values


def test_the_help_says_what_each_flag_allows(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["economics", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "a number from 0.5 to 1 (default 1.0)" in out
    assert "0: the kind's example price): a number from 0 to 1000 $/GPU-hour (default 0.0)" in out
    assert "a whole number from 0 to 200,000 prompts (default 0)" in out


def test_economics_json_is_the_api():
    args = ["--gpus", "4", "--readers", "1", "--reader-gpu", "H100", "--writer-power", "0.5",
            "--reader-price", "2.5"]
    got = json.loads(cli("economics", *args, "--json"))
    assert got == sim.economics(gpus=4, readers=1, reader_gpu="H100", writer_power=0.5,
                                reader_price=2.5)


def test_economics_table_says_which_prices_it_used():
    out = cli("economics", "--gpus", "8", "--readers", "4", "--rps", "16")
    assert "4 A100 readers at $1.30 an hour each (the example price), uncapped (400 W each)" in out
    assert "They cost $10.40 an hour and draw 3,200 W" in out
    split = next(line for line in out.splitlines() if line.startswith("split"))
    assert split.split()[-3:] == ["4.71", "13,056", "42,432"]
    out = cli("economics", "--reader-price", "2", "--writer-gpu", "H100", "--writer-power", "0.5")
    assert "1 A100 reader at $2.00 an hour each (given), uncapped (400 W each)" in out
    assert ("1 H100 writer at $3.00 an hour each (the example price), capped at 50.0% of "
            "TDP (350 W each)") in out
    assert "They cost $5.00 an hour and draw 750 W" in out
    assert "reader_price=2" in out.splitlines()[0]  # the settings line names the given price


def test_compare_with_caps_and_the_queue_rule_is_the_api():
    got = json.loads(cli("compare", "--gpus", "4", "--rps", "10", "--local-queue", "2",
                         "--reader-power", "0.75", "--json"))
    assert got == sim.compare(gpus=4, rps=10, local_queue=2, reader_power=0.75)


def test_a_sweep_over_the_queue_rule():
    out = json.loads(cli("sweep", "--over", "local_queue", "--values", "0,2,4", "--gpus", "4",
                         "--rps", "10", "--json"))
    assert [p["value"] for p in out["points"]] == [0, 2, 4]
    assert out["points"][1]["split"] == sim.compare(gpus=4, rps=10, local_queue=2)["split"]
