"""The command line: compare, sweep, crossover, rate, ratio, economics, traffic, watch, capacity
and trace,
with flags made from the settings (and --trace FILE, a trace of your own); and check, which
checks a deployed copy of the page (sim/check/)."""

import argparse
import json
import sys

from . import check
from .model.instances import capacity
from .model.lab import MAX_POINTS, SWEEPABLE, Lab
from .settings import FIELDS, Settings, describe, parse
from .show.capacity import capacity_table
from .show.numbers import fill, layouts, number, percent, shown, value
from .show.report import (METRICS, compare_table, headline, rate_table, ratio_table, setting_line,
                          traffic_report)
from .show.economics import economics_table
from .show.walkthrough import lesson
from .show.watch import WIDTH, default_window, watch_table
from .workload.tracefile import read, read_path


def flag(name):
    return "--" + name.replace("_", "-")


def add_settings(parser):
    for name, f in FIELDS.items():
        meta = f.metadata
        # a choice shows its names, as argparse shows a command's: {alternate,least-loaded}
        shown = "{" + ",".join(meta["choices"]) + "}" if meta["choices"] else meta["unit"].upper() or "N"
        parser.add_argument(flag(name), dest=name, metavar=shown,
                            help=f"{meta['help']}: {describe(name)} (default {f.default})")


VALUE_OPTIONS = [flag(name) for name in FIELDS] + ["--over", "--trace"]  # each takes one value
LIST_OPTIONS = ["--values"]  # takes one or more values
OPTIONS = VALUE_OPTIONS + LIST_OPTIONS + ["--json", "--help", "-h"]


def option(token):
    """The option a token names (exactly, or as an unambiguous abbreviation), or None."""
    if token in OPTIONS:
        return token
    if not token.startswith("--") or token == "--":
        return None
    named = [o for o in OPTIONS if o.startswith(token)]
    return named[0] if len(named) == 1 else None


def attach_values(argv):
    """argv with each option's value attached: `--rps -1e3` becomes `--rps=-1e3`.

    argparse takes a token starting with '-' for an option unless it looks like a plain
    negative number (-5, -.5), so `--rps -1e3` or `--rps -inf` would fail with "expected one
    argument" and never reach the field's own message. A list's values are joined with
    commas (`--values -1 2` becomes `--values=-1,2`). Every token that is not an option
    (see OPTIONS) counts as a value; everything after `--` is left alone."""
    out, i = [], 0
    while i < len(argv):
        token, i = argv[i], i + 1
        if token == "--":
            return out + argv[i - 1:]
        name = option(token)
        if name in LIST_OPTIONS:
            values = []
            while i < len(argv) and argv[i] != "--" and option(argv[i]) is None:
                values.append(argv[i])
                i += 1
            out.append(f"{name}={','.join(values)}" if values else token)
        elif name in VALUE_OPTIONS and i < len(argv) and argv[i] != "--" \
                and option(argv[i]) is None:
            out.append(f"{name}={argv[i]}")
            i += 1
        else:
            out.append(token)
    return out


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
        "rate": "DistServe's rate goodput: the most requests a second per GPU at which at "
                "least the attainment share of requests is good",
        "ratio": "the split's goodput and rate goodput for every number of readers",
        "economics": "good requests per dollar and per kWh of each layout, at its rate goodput, "
                     "and the prices and power they used",
        "traffic": "what the requests look like: their prompts' and replies' lengths and how "
                   "bursty their arrivals are (the lesson's, a shipped trace's or your own)",
        "watch": "every event of one layout's run in a window of time: each read, writing "
                 "step and crossing, on its GPU's lane (the window at most 10 s)",
        "capacity": "each pool's instances and their memory: the usable bytes, the weights, and "
                    "the KV cache tokens left for requests",
        "check": "check a deployed copy of the page in a Chromium: its simulator version, every "
                 "number on screen against a native run, screenshots against a baseline "
                 f"(needs Playwright: pip install '{check.PACKAGE}[check]')",
    }
    for name, words in commands.items():
        p = sub.add_parser(name, help=words, description=words)
        if name == "check":  # a deployed page, not settings: its own arguments
            check.add_arguments(p)
            continue
        add_settings(p)
        p.add_argument("--trace", metavar="FILE",
                       help="a trace of your own (CSV or JSON Lines; - reads standard input), "
                            "read only as far as the window needs: means --traffic own")
        if name != "trace":
            p.add_argument("--json", action="store_true", help="print JSON instead of a table")
        if name == "watch":
            p.add_argument("layout", metavar="LAYOUT",
                           help="shared, split, or chunked (with --chunk above 0)")
            for t, words in (("t0", "start"), ("t1", "end")):
                p.add_argument(t, metavar=t.upper(), nargs="?", type=float,
                               help=f"the window's {words}, in seconds of simulated time (give "
                                    f"both or neither; neither: figure 1's window, widened to "
                                    f"{WIDTH:g} s)")
        if name == "sweep":
            p.add_argument("--over", required=True, type=axis, choices=SWEEPABLE, metavar="SETTING",
                           help=f"the axis, spelled as its flag or its name: one of "
                                f"{', '.join(flag(n)[2:] for n in SWEEPABLE)}")
            p.add_argument("--values", required=True, nargs="+", metavar="V",
                           help=f"values along it (spaces or commas; at most {MAX_POINTS})")
    return top


def axis(text):
    """A sweep's axis by its name or its flag's spelling: ttft_target or ttft-target."""
    return text.strip().replace("-", "_")


def sweep_values(over, texts):
    items = [t for text in texts for t in text.split(",") if t.strip()]
    if len(items) > MAX_POINTS:
        raise ValueError(f"a sweep takes 1 to {MAX_POINTS} values; got {len(items)}")
    return [parse(over, t) for t in items]


SWEEP_COLUMNS = ("goodput", "ttft_p50", "ttft_p99", "gap_p50", "gap_p99")  # METRICS' keys


def sweep_cell(key, x):
    """A sweep table's cell: a share as value() writes it, a time in ms without the unit."""
    return value(key, x) if key == "goodput" else f"{x * 1000:.1f}"


def sweep_table(result):
    """A row per value; each measure a group of columns (shared, split[, chunked]) under
    its name."""
    words = dict(METRICS)
    points = result["points"]
    names = layouts(points[0])
    first = [result["over"]] + [number(p["value"]) for p in points]
    width = max(map(len, first))
    lines = [" " * width] + [cell.ljust(width) for cell in first]  # names, header, rows
    for key in SWEEP_COLUMNS:
        name = words[key] + ("" if key == "goodput" else " (ms)")
        columns = [[layout] + [sweep_cell(key, p[layout][key]) for p in points]
                   for layout in names]
        widths = [max(map(len, column)) for column in columns]
        rest = sum(2 + w for w in widths[1:])
        widths[0] = max(widths[0], len(name) - rest)  # the name fits over the group
        lines[0] += "   " + name.rjust(widths[0] + rest)
        for i, cells in enumerate(zip(*columns), 1):
            lines[i] += "   " + "  ".join(c.rjust(w) for c, w in zip(cells, widths))
    return "\n".join(line.rstrip() for line in lines)


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


def trace_file(args, s, values):
    """The trace of --trace FILE (None without it), read only as far as the windows of the
    command need: a file of any size takes no more memory than them."""
    if args.trace is None:
        if s.traffic == "own":
            raise ValueError("--traffic own needs a trace file of your own: --trace FILE "
                             "(- reads standard input)")
        return None
    if s.traffic not in ("lesson", "own"):
        raise ValueError(f"--trace FILE means --traffic own; got --traffic {s.traffic} as well")
    starts, counts = [s.trace_start], [s.requests]
    if args.command == "sweep" and args.over in ("trace_start", "requests"):
        (starts if args.over == "trace_start" else counts).extend(values)
    keep = (min(starts), max(starts) + max(counts))
    if args.trace == "-":
        return read(sys.stdin.buffer, name="standard input", keep=keep)
    return read_path(args.trace, keep=keep)


def run(argv, out):
    """Runs a command; returns its exit status (0, or check's own)."""
    args = build_parser().parse_args(attach_values(argv))
    if args.command == "check":
        return check.run(args, out)
    s = settings_from(args)
    values = sweep_values(args.over, args.values) if args.command == "sweep" else None
    if args.command == "trace" and (s.traffic != "lesson" or args.trace is not None):
        raise ValueError("the trace command walks through the lesson's own traffic "
                         "(--traffic lesson); for a trace's numbers, use compare, sweep, "
                         "crossover, rate, ratio or traffic")
    trace = trace_file(args, s, values)
    lab = Lab()
    if args.command == "trace":
        out.write(lesson(lab, s))
        return 0
    s = lab.given(s, trace)  # the trace read, its window checked: every command then replays it
    line = setting_line(s, lab.sources.trace(s))
    if args.command == "compare":
        result = lab.compare(s)
        template, texts = headline(s)
        text = (f"{line}\n\n{fill(template, {**shown(result), **texts})}\n\n"
                f"{compare_table(result)}")
    elif args.command == "sweep":
        result = lab.sweep(s, args.over, values)
        swept = (args.over, [p["value"] for p in result["points"]])
        text = f"{setting_line(s, lab.sources.trace(s), swept)}\n\n{sweep_table(result)}"
    elif args.command == "rate":
        result = lab.rate(s)
        text = f"{line}\n\n{rate_table(result, s)}"
    elif args.command == "ratio":
        result = lab.ratio(s)
        text = f"{line}\n\n{ratio_table(result, s)}"
    elif args.command == "economics":
        result = lab.economics(s)
        text = f"{line}\n\n{economics_table(result, s)}"
    elif args.command == "watch":
        if (args.t0 is None) != (args.t1 is None):
            raise ValueError("give the window's start and end (T0 T1), or neither for figure 1's")
        lab.watched(args.layout, s)  # the layout checked before the default window is sought
        t0, t1 = default_window(lab, s) if args.t0 is None else (args.t0, args.t1)
        result = lab.watch(args.layout, t0, t1, s)
        text = f"{line}\n\n{watch_table(result, args.layout, t0, t1)}"
    elif args.command == "traffic":
        result = lab.traffic(s)
        text = traffic_report(result, s, lab.sources.trace(s))
    elif args.command == "capacity":
        result = capacity(s)
        text = f"{line}\n\n{capacity_table(result, s)}"
    else:
        result = lab.crossover(s)
        text = f"{line}\n\n{crossover_text(result)}"
    out.write(json.dumps(result, indent=1) + "\n" if args.json else text + "\n")
    return 0


def main(argv=None):
    try:
        return run(sys.argv[1:] if argv is None else argv, sys.stdout)
    except ValueError as e:
        print(f"python -m sim: error: {e}", file=sys.stderr)
        return 2
