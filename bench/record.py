"""What a `make bench` script measured, noted as it prints it, for docs/benchmarks.md.

Each script calls note() beside the lines it prints: one row a figure, with its target where
it has one. `make bench` clears the notes first and runs bench/report.py last, which writes
them into docs/benchmarks.md's marked block, so no figure there is typed by hand.
"""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "build" / "bench" / "notes.jsonl"


def note(bench, measure, value, target="", met=None):
    """One figure: the script (its file's name), what it measured, the value as printed, the
    target in words ("" if it has none) and whether it was met (None: no target)."""
    NOTES.parent.mkdir(parents=True, exist_ok=True)
    row = {"bench": bench, "measure": measure, "value": value, "target": target, "met": met}
    with NOTES.open("a") as f:
        f.write(json.dumps(row) + "\n")
