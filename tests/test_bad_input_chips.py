"""Bad power caps, prices and queue lengths (chips-and-rules.md): one clear error naming the
field, its value and what is allowed, through the API (ValueError) and the CLI (exit 2, no
traceback), on every command that takes settings."""

import math
import subprocess
import sys

import pytest

import sim
from sim.cli import flag, main

# (name, value as the API gets it, as the CLI gets it, what is allowed)
POWER = "a number from 0.5 to 1"
PRICE = "a number from 0 to 1000 $/GPU-hour"
QUEUE = "a whole number from 0 to 200,000 prompts"
CASES = [
    ("reader_power", 0.4, "0.4", POWER), ("writer_power", 1.2, "1.2", POWER),
    ("reader_power", math.nan, "NaN", POWER), ("writer_power", 0, "0", POWER),
    ("reader_price", -1.0, "-1", PRICE), ("writer_price", -1, "-1", PRICE),
    ("reader_price", "abc", "abc", PRICE), ("writer_price", math.nan, "NaN", PRICE),
    ("reader_price", math.inf, "1e999", PRICE), ("writer_price", 1e999, "1e999", PRICE),
    ("local_queue", -1, "-1", QUEUE), ("local_queue", 2.5, "2.5", QUEUE),
    ("local_queue", "abc", "abc", QUEUE), ("local_queue", math.nan, "NaN", QUEUE),
]
IDS = [f"{name}={text}" for name, _, text, _ in CASES]


@pytest.mark.parametrize("name, value, text, allowed", CASES, ids=IDS)
@pytest.mark.parametrize("call", [sim.compare, sim.economics, sim.rate, sim.ratio])
def test_api_refuses_with_a_clear_message(call, name, value, text, allowed):
    with pytest.raises(ValueError) as err:
        call(**{name: value})
    assert str(err.value).startswith(f"{name} must be {allowed}; got {value!r}")


@pytest.mark.parametrize("name, value, text, allowed", CASES, ids=IDS)
@pytest.mark.parametrize("command", ["compare", "economics", "rate", "ratio", "crossover",
                                     "trace", "sweep"])
def test_cli_refuses_with_a_clear_message(command, name, value, text, allowed, capsys):
    extra = ["--over", "rps", "--values", "1"] if command == "sweep" else []
    assert main([command, flag(name), text] + extra) == 2
    captured = capsys.readouterr()
    assert captured.err == f"python -m sim: error: {name} must be {allowed}; got {text!r}\n"
    assert captured.out == ""


def test_the_cli_exits_2_without_a_traceback():
    done = subprocess.run([sys.executable, "-m", "sim", "economics", "--reader-power", "0.4"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "python -m sim: error: reader_power must be a number from 0.5 to 1; got '0.4'\n"


def test_a_sweep_over_a_new_setting_checks_each_value(capsys):
    assert main(["sweep", "--over", "local_queue", "--values", "1,2.5", "--json"]) == 2
    assert f"local_queue must be {QUEUE}; got '2.5'" in capsys.readouterr().err
