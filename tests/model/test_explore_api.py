"""The explorer's settings through the API and the CLI: names, cross-field mistakes, the new
calls (rate, ratio), their steps and caches, and the lesson kept exactly at the defaults."""

import json

import pytest

import sim
from sim.cli import main
from sim.model.lab import RATE_RANGE
from sim.settings import FIELDS, Settings, parse


@pytest.mark.parametrize("values, message", [
    ({"routing": "fastest"}, "routing must be one of alternate, least-loaded; got 'fastest'"),
    ({"reader_gpu": "a100"}, "reader_gpu must be one of A100, H100, H200, B200; got 'a100'"),
    ({"writer_gpu": 100}, "writer_gpu must be one of A100, H100, H200, B200; got 100"),
    ({"link_sharing": None}, "link_sharing must be one of free, queued; got None"),
    ({"readers": 2}, "readers must be a whole number from 1 to gpus - 1 = 1; got 2 with gpus=2"),
    ({"gpus": 4, "readers": 4}, "readers must be a whole number from 1 to gpus - 1 = 3; got 4"),
    ({"gpus": 33}, "gpus must be a whole number from 2 to 32 GPUs; got 33"),
    ({"chunk": -1}, "chunk must be a whole number from 0 to 16,384 tokens; got -1"),
    ({"layerwise": 2}, "layerwise must be a whole number from 0 to 1; got 2"),
    ({"slots": 0}, "slots must be a whole number from 1 to 1,024 replies; got 0"),
    ({"attainment": 0}, "attainment must be a number from 0.001 to 1; got 0"),
    ({"attainment": 1.5}, "attainment must be a number from 0.001 to 1; got 1.5"),
    ({"local_below": 0.5}, "local_below must be a whole number from 0 to 131,072 tokens"),
])
def test_bad_values_get_one_clear_message(values, message):
    for call in (sim.compare, sim.rate, sim.ratio):
        with pytest.raises(ValueError) as err:
            call(**values)
        assert message in str(err.value)


@pytest.mark.parametrize("args, message", [
    (["compare", "--routing", "fastest"], "routing must be one of alternate, least-loaded"),
    (["rate", "--readers", "3", "--gpus", "3"], "readers must be a whole number from 1 to gpus - 1 = 2"),
    (["ratio", "--reader-gpu", "V100"], "reader_gpu must be one of A100, H100, H200, B200; got 'V100'"),
    (["sweep", "--over", "readers", "--values", "1,2"], "readers must be a whole number from 1 to gpus - 1"),
])
def test_cli_refuses_with_the_field_s_message(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_a_named_setting_is_no_sweep_axis(capsys):
    with pytest.raises(SystemExit) as done:
        main(["sweep", "--over", "routing", "--values", "alternate"])
    assert done.value.code == 2 and "invalid choice: 'routing'" in capsys.readouterr().err


def test_names_are_taken_as_text_everywhere():
    assert parse("routing", "least-loaded") == "least-loaded"
    s = Settings.make(routing="least-loaded", reader_gpu="H100", gpus=3, readers=2)
    assert s.as_dict()["reader_gpu"] == "H100"
    with pytest.raises(ValueError, match="gpus must be a whole number"):
        parse("gpus", "three")


def test_every_explorer_setting_is_in_the_table_with_its_default():
    explorer = {n: f.default for n, f in FIELDS.items() if f.metadata["group"] == "explorer"}
    assert explorer == {"gpus": 2, "readers": 1, "routing": "alternate", "chunk": 0,
                        "link_sharing": "free", "layerwise": 0, "local_below": 0,
                        "reader_gpu": "A100", "writer_gpu": "A100", "slots": 32,
                        "attainment": 0.9,
                        # chips-and-rules.md (the prices have a group of their own: no slider)
                        "reader_power": 1.0, "writer_power": 1.0, "local_queue": 0}
    for name in explorer:
        meta = FIELDS[name].metadata
        assert meta["help"] and meta["look"] and meta["label"]
        assert meta["choices"] or meta["slider"], name


def test_chunked_appears_only_when_chunk_is_on():
    assert set(sim.compare()) == {"settings", "shared", "split"}
    both = sim.compare(chunk=512)
    assert set(both) == {"settings", "shared", "split", "chunked"}
    assert set(both["chunked"]) == set(both["shared"])
    assert set(sim.rate(chunk=512)) == {"shared", "split", "chunked"}


def test_defaults_spelled_out_change_nothing():
    spelled = {n: f.default for n, f in FIELDS.items()}
    assert sim.Lab().compare(Settings(**spelled)) == sim.Lab().compare(Settings())


def test_rate_is_the_bisection_s_answer():
    """Just above the rate (one bisection step up) the layout no longer holds; at it, it does."""
    lab = sim.Lab()
    s = Settings(requests=300)
    rates = lab.rate(s)
    for layout, per_gpu in rates.items():
        at = lab.compare(s.but(rps=per_gpu * s.gpus))[layout]["goodput"]
        assert at >= s.attainment
        above = lab.compare(s.but(rps=per_gpu * s.gpus * 1.01))[layout]["goodput"]
        assert above < s.attainment or per_gpu * s.gpus * 1.01 > RATE_RANGE[1]


def test_rate_edges():
    assert sim.rate(requests=50, ttft_target=0.001)["split"] == 0.0  # misses even at 0.01 req/s
    top = sim.rate(requests=20, prompt=100, reply=10, attainment=0.05)
    assert top["split"] == RATE_RANGE[1] / 2  # holds even at 1000 req/s: 1000 / gpus


def test_ratio_is_the_split_at_every_reader_count():
    lab = sim.Lab()
    s = Settings(gpus=4, rps=8.0, requests=300)
    rows = lab.ratio(s)
    assert [r["readers"] for r in rows] == [1, 2, 3]
    for row in rows:
        r = s.but(readers=row["readers"])
        assert row["goodput"] == lab.compare(r)["split"]["goodput"]
        assert row["rate"] == lab.rate(r)["split"]


def test_findings_come_in_steps_and_are_cached():
    lab = sim.Lab()
    s = Settings(requests=200, gpus=3)
    steps = 0
    while not lab.ratio_step(s):
        steps += 1
    assert steps > 2 * (s.gpus - 1)  # a simulation at a time, not all at once
    done = lab.simulations
    assert lab.ratio_step(s) and lab.ratio(s) and lab.simulations == done
    assert lab.ratio(s.but(readers=2)) == lab.ratio(s)  # the ratio does not depend on readers
    assert lab.simulations == done
    rates = lab.rate(s)
    done = lab.simulations
    assert lab.rate(s.but(rps=9.0)) == rates  # nor the rate on the load
    assert lab.simulations == done


def test_a_target_change_rescores_every_layout_without_simulating():
    lab = sim.Lab()
    s = Settings(chunk=256, gpus=3, readers=2, routing="least-loaded", requests=300)
    lab.compare(s)
    done = lab.simulations
    assert done == 3
    lab.compare(s.but(ttft_target=1.0, gap_target=0.05, attainment=0.5))
    assert lab.simulations == done
    lab.compare(s.but(link=1.0))  # only the split crosses the link
    assert lab.simulations == done + 1


@pytest.mark.parametrize("command", ["rate", "ratio"])
def test_new_commands_print_a_table_and_json(command, capsys):
    args = [command, "--requests", "200", "--gpus", "3", "--chunk", "512"]
    assert main(args) == 0
    table = capsys.readouterr().out
    assert main(args + ["--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    if command == "rate":
        assert set(result) == {"shared", "split", "chunked"}
        assert "req/s per GPU" in table and "split / shared" in table
    else:
        assert [r["readers"] for r in result] == [1, 2]
        assert "2:1" in table and "best" in table and "(current)" in table


def test_sweep_over_a_new_setting_shows_every_layout(capsys):
    assert main(["sweep", "--over", "chunk", "--values", "64", "512", "--requests", "100",
                 "--json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert [p["value"] for p in points] == [64, 512]
    assert all("chunked" in p for p in points)
    assert main(["sweep", "--over", "gpus", "--values", "2,4", "--requests", "100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].startswith("2 ") and lines[-1].startswith("4 ")


def test_compare_names_what_differs_from_the_lesson(capsys):
    assert main(["compare", "--gpus", "3", "--readers", "2", "--chunk", "512", "--routing",
                 "least-loaded", "--requests", "100"]) == 0
    out = capsys.readouterr().out
    assert "gpus=3 readers=2 routing=least-loaded chunk=512" in out.splitlines()[0]
    assert "sharing the 3 GPUs serves" in out and "1 writer" in out and "chunked" in out
