"""Bad input: one clear ValueError naming the field, its value and its range; exit 2 on the CLI."""

import math
import subprocess
import sys

import pytest

import sim
from sim.cli import flag, main
from sim.settings import FIELDS, Settings, describe, parse

BAD = [
    ("rps", -1.0), ("rps", 0), ("rps", math.nan), ("rps", math.inf), ("rps", 1e9),
    ("prompt", 0), ("prompt", -2000), ("prompt", 2000.5), ("prompt", 10**9),
    ("reply", 1), ("reply", 10**7), ("link", 0.0), ("link", -25.0), ("link", math.nan),
    ("ttft_target", 0.0), ("ttft_target", -math.inf), ("gap_target", 0), ("gap_target", 1e6),
    ("requests", 10**9), ("requests", 0), ("requests", 1.5), ("seed", -1), ("seed", 2**64),
    ("rps", "4"), ("prompt", None), ("seed", True), ("link", [25]), ("requests", 10**400),
]


@pytest.mark.parametrize("name, value", BAD, ids=repr)
def test_api_refuses_with_a_clear_message(name, value):
    with pytest.raises(ValueError) as err:
        sim.compare(**{name: value})
    text = str(err.value)
    lo, hi = FIELDS[name].metadata["limits"]
    assert text.startswith(f"{name} must be ")
    assert repr(value)[:20] in text
    assert f"{lo:g}" in text or f"{lo:,}" in text


def test_unknown_setting():
    with pytest.raises(ValueError, match="unknown setting 'speed'; known: rps, prompt"):
        sim.compare(speed=3)


def test_whole_floats_are_accepted_as_ints():
    assert Settings.make(prompt=2000.0, requests=600.0).prompt == 2000


ROOM = {"readers": {"gpus": 32}}  # what a field's top needs of the others


def test_limits_are_inclusive_and_work():
    for name, f in FIELDS.items():
        if f.metadata["choices"]:
            for value in f.metadata["choices"]:
                assert getattr(Settings.make(**{name: value}), name) == value
            continue
        lo, hi = f.metadata["limits"]
        assert getattr(Settings.make(**{name: lo}), name) == lo
        assert getattr(Settings.make(**{name: hi, **ROOM.get(name, {})}), name) == hi


def test_parse_matches_check():
    assert parse("prompt", "2000") == 2000 and parse("link", "0.25") == 0.25
    for text in ("nan", "inf", "", "4 req/s", "0x10", "1e400"):
        with pytest.raises(ValueError, match="rps must be a number from 0.01 to 1000"):
            parse("rps", text)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("args, message", [
    (["compare", "--rps", "-3"], "rps must be a number from 0.01 to 1000 req/s; got '-3'"),
    (["compare", "--requests", "1000000000"], "requests must be a whole number from 1 to 200,000"),
    (["compare", "--link", "nan"], "link must be a number from 0.001 to 10000 GB/s; got 'nan'"),
    (["compare", "--prompt", "lots"], "prompt must be a whole number from 2 to 131,072 tokens"),
    (["sweep", "--over", "rps", "--values", "1,0,3"], "rps must be a number from 0.01"),
    (["sweep", "--over", "link", "--values"] + ["1"] * 201, "a sweep takes 1 to 200 values; got 201"),
    (["crossover", "--gap-target", "inf"], "gap_target must be a number from 0.001 to 60 s"),
    (["sweep", "--over", "rps", "--values", ",".join(map(str, range(1, 22))), "--requests",
      "200000"], "a sweep of 21 values at 200,000 requests each is too long"),
])
def test_cli_prints_the_message_and_exits_2(args, message):
    done = cli(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_cli_usage_errors_exit_2():
    done = cli("sweep", "--over", "colour", "--values", "1")
    assert done.returncode == 2 and "invalid choice" in done.stderr


@pytest.mark.parametrize("command", ["compare", "sweep", "crossover", "trace"])
@pytest.mark.parametrize("text", ["-1e3", "-inf", "-nan", "-5", "-.5"])
def test_a_value_starting_with_a_dash_reaches_the_range_check(command, text, capsys):
    # argparse alone reads `--rps -1e3` as a missing value ("expected one argument").
    extra = ["--over", "link", "--values", "1"] if command == "sweep" else []
    for name in FIELDS:
        assert main([command, flag(name), text] + extra) == 2
        err = capsys.readouterr().err
        assert f"{name} must be {describe(name)}; got {text!r}" in err


@pytest.mark.parametrize("values", [["-1e3"], ["2", "-inf"], ["-nan,2"], ["4", "-5", "6"]])
def test_sweep_values_starting_with_a_dash_reach_the_range_check(values, capsys):
    assert main(["sweep", "--over", "rps", "--values", *values, "--json"]) == 2
    bad = next(v for v in ",".join(values).split(",") if v.startswith("-"))
    assert f"rps must be a number from 0.01 to 1000 req/s; got {bad!r}" in capsys.readouterr().err


def test_an_option_is_still_not_taken_for_a_value():
    done = cli("compare", "--rps", "--json")
    assert done.returncode == 2 and "argument --rps: expected one argument" in done.stderr
