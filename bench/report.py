"""Writes what the last `make bench` measured into docs/benchmarks.md's marked block.

    python bench/report.py        (make bench runs it last)

The block says when and on what machine the benchmarks ran, then one row a figure, as the
scripts noted them (bench/record.py). A script that noted nothing (it failed, or was not run)
is named, so a missing figure is never mistaken for a met one. `parse` reads the block back:
tests/test_docs.py holds the committed block to the shape `render` writes.
"""

import datetime
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from record import NOTES  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
BEGIN = "<!-- bench: written by `make bench` (bench/report.py); not by hand -->"
END = "<!-- /bench -->"
# the scripts make bench runs, in its order (the Makefile's bench target)
SCRIPTS = ("sim_speed", "page_speed", "explorer_speed", "chart_speed", "chart_speed --cores 4",
           "model_speed", "stage_speed", "traffic_speed", "price_speed", "hub_cost", "watch_speed", "phone_speed")
HEADER = "| bench | measure | value | target | met |"
RULE = "|---|---|---|---|---|"
MET = {True: "met", False: "**not met**", None: ""}


def machine():
    """Where it ran: the date, the commit, the system, its cores and CPU, Python and Chromium."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "no git"
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    try:
        browser = subprocess.run([chromium, "--version"], capture_output=True, text=True,
                                 timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        browser = "no Chromium"
    return (f"Ran on {datetime.date.today().isoformat()} at commit {commit}, on "
            f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), "
            f"Python {platform.python_version()}, {browser}.")


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(ran, rows):
    """The block: its markers, the line saying where it ran, and a row a figure."""
    lines = [BEGIN, ran, "", HEADER, RULE]
    noted = {row["bench"] for row in rows}
    for row in rows:
        lines.append(f"| `{cell(row['bench'])}` | {cell(row['measure'])} | {cell(row['value'])} | "
                     f"{cell(row['target'])} | {MET[row['met']]} |")
    for script in SCRIPTS:
        if script not in noted:
            lines.append(f"| `{script}` | (no figures: the script failed or did not run) |  |  |  |")
    return "\n".join(lines + [END])


ROW = re.compile(r"^\| `([^`]+)` \| (.*?) \| (.*?) \| (.*?) \| (met|\*\*not met\*\*|) \|$")


def parse(block):
    """(the line saying where it ran, the rows) of a block as render writes it, or ValueError."""
    lines = block.split("\n")
    if lines[0] != BEGIN or lines[-1] != END or lines[2:5] != ["", HEADER, RULE]:
        raise ValueError("the bench block's markers or header are not as bench/report.py writes them")
    if not re.match(r"^Ran on \d{4}-\d\d-\d\d at commit \S+, on .+, \d+ cores \(.*\), "
                    r"Python [\d.]+, .+\.$", lines[1]):
        raise ValueError(f"the bench block does not say when and where it ran: {lines[1]!r}")
    rows = []
    for line in lines[5:-1]:
        found = ROW.match(line)
        if not found:
            raise ValueError(f"a row of the bench block is not as bench/report.py writes it: {line!r}")
        bench, measure, value, target, met = found.groups()
        met = {"met": True, "**not met**": False, "": None}[met]
        rows.append({"bench": bench, "measure": measure, "value": value, "target": target, "met": met})
    return lines[1], rows


def block_of(text):
    """The bench block of docs/benchmarks.md's text."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main():
    rows = [json.loads(line) for line in NOTES.read_text().splitlines()] if NOTES.exists() else []
    text = DOC.read_text()
    block = render(machine(), rows)
    DOC.write_text(text.replace(block_of(text), block))
    missed = [r for r in rows if r["met"] is False]
    print(f"docs/benchmarks.md: {len(rows)} figures written, {len(missed)} target(s) not met")


if __name__ == "__main__":
    main()
