"""The command line: compare, sweep, crossover and trace, with flags made from the settings."""

import argparse
import json
import sys

from .lab import MAX_POINTS, SWEEPABLE, Lab
from .report import HEADLINE, compare_table, fill, number, percent, setting_line, shown, table, value
from .settings import FIELDS, Settings, describe, parse
from .trace import lesson


def flag(name):
    return "--" + name.replace("_", "-")


def add_settings(parser):
    for name, f in FIELDS.items():
        meta = f.metadata
        parser.add_argument(flag(name), dest=name, metavar=meta["unit"].upper() or "N",
                            help=f"{meta['help']}: {describe(name)} (default {f.default})")


def settings_from(args):
    given = {name: parse(name, getattr(args, name))
             for name in FIELDS if getattr(args, name) is not None}
    return Settings.make(**given)


def build_parser():
    top = argparse.ArgumentParser(
        prog="python -m sim",
        description="Two GPUs serving an LLM: shared (each reads and writes) or split "
                    "(one reader, one writer, the KV cache crossing a link).")
    sub = top.add_subparsers(dest="command", required=True)
    commands = {
        "compare": "both layouts' goodput and percentiles for one setting",
        "sweep": "both layouts along one axis",
        "crossover": "the link speed below which the split stops beating the shared layout",
        "trace": "the lesson's six steps and its limits, every figure simulated",
    }
    for name, words in commands.items():
        p = sub.add_parser(name, help=words, description=words)
        add_settings(p)
        if name != "trace":
            p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        if name == "sweep":
            p.add_argument("--over", required=True, choices=SWEEPABLE, help="the axis")
            p.add_argument("--values", required=True, nargs="+", metavar="V",
                           help=f"values along it (spaces or commas; at most {MAX_POINTS})")
    return top


def sweep_values(over, texts):
    items = [t for text in texts for t in text.split(",") if t.strip()]
    if len(items) > MAX_POINTS:
        raise ValueError(f"a sweep takes 1 to {MAX_POINTS} values; got {len(items)}")
    return [parse(over, t) for t in items]


def sweep_table(result):
    over = result["over"]
    header = [over, "shared goodput", "split goodput", "shared gap p99", "split gap p99",
              "shared first p99", "split first p99"]
    rows = [[number(p["value"]), percent(p["shared"]["goodput"]), percent(p["split"]["goodput"]),
             value("gap_p99", p["shared"]["gap_p99"]), value("gap_p99", p["split"]["gap_p99"]),
             value("ttft_p99", p["shared"]["ttft_p99"]), value("ttft_p99", p["split"]["ttft_p99"])]
            for p in result["points"]]
    return table(rows, header)


def crossover_text(c):
    if c["verdict"] == "never":
        return (f"The split never beats the shared layout ({percent(c['shared_goodput'])}): "
                f"even at {number(c['below'])} GB/s it serves {percent(c['split_goodput'])}.")
    if c["verdict"] == "always":
        return (f"The split beats the shared layout ({percent(c['shared_goodput'])}) at every "
                f"link speed, even {number(c['link'])} GB/s ({percent(c['split_goodput'])}).")
    return (f"Crossover: {c['link']:.4g} GB/s. Below it the split's goodput is no better than "
            f"the shared layout's {percent(c['shared_goodput'])}; at it, the split serves "
            f"{percent(c['split_goodput'])}.")


def run(argv, out):
    args = build_parser().parse_args(argv)
    s = settings_from(args)
    lab = Lab()
    if args.command == "trace":
        out.write(lesson(lab, s))
        return
    if args.command == "compare":
        result = lab.compare(s)
        text = (f"{setting_line(s)}\n\n{fill(HEADLINE, shown(result))}\n\n"
                f"{compare_table(result)}")
    elif args.command == "sweep":
        result = lab.sweep(s, args.over, sweep_values(args.over, args.values))
        text = f"{setting_line(s)}\n\n{sweep_table(result)}"
    else:
        result = lab.crossover(s)
        text = f"{setting_line(s)}\n\n{crossover_text(result)}"
    out.write(json.dumps(result, indent=1) + "\n" if args.json else text + "\n")


def main(argv=None):
    try:
        run(sys.argv[1:] if argv is None else argv, sys.stdout)
    except ValueError as e:
        print(f"python -m sim: error: {e}", file=sys.stderr)
        return 2
    return 0
