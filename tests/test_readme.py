"""The README's examples and tables are what the code gives."""

import doctest
import re
import subprocess
import sys
from pathlib import Path

from sim.show.report import limits_table

README = Path(__file__).resolve().parent.parent / "README.md"


def section(text, start, end):
    return text.split(start, 1)[1].split(end, 1)[0]


def test_limits_table_is_current():
    text = README.read_text()
    assert section(text, "keeps it current -->\n", "\n<!-- /limits -->") == limits_table()


def test_cli_example_output():
    text = README.read_text()
    commands = re.findall(r"<!-- example: (.+?) -->", text)
    assert len(commands) >= 2
    for command in commands:
        shown = section(text, f"<!-- example: {command} -->\n```\n", "```\n<!-- /example -->")
        args = command.split()[3:]  # after "python -m sim"
        done = subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True,
                              text=True)
        assert done.stdout == shown, command


def test_python_examples():
    failures, tried = doctest.testfile(str(README), module_relative=False)
    assert tried >= 2 and failures == 0
