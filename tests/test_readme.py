"""The examples and tables of the README and docs/ are what the code gives: every
`<!-- example: python -m sim ... -->` block is that command's output, every `>>>` example
runs (doctest), and the settings table is the one the settings write."""

import doctest
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from sim.show.report import limits_table

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def section(text, start, end):
    return text.split(start, 1)[1].split(end, 1)[0]


def test_limits_table_is_current():
    text = (ROOT / "docs" / "simulator.md").read_text()
    assert section(text, "keeps it current -->\n", "\n<!-- /limits -->") == limits_table()


def examples():
    return list(_examples())


def _examples():
    for path in DOCUMENTS:
        for command in re.findall(r"<!-- example: (python -m sim .+?) -->", path.read_text()):
            yield pytest.param(path, command, id=f"{path.name}: {command}")


def test_there_are_examples_in_the_readme_and_the_docs():
    found = list(examples())
    assert any(p.values[0].name == "README.md" for p in found) and len(found) >= 6


@pytest.mark.parametrize("path, command", examples())
def test_cli_example_output(path, command):
    shown = section(path.read_text(), f"<!-- example: {command} -->\n```\n", "```\n<!-- /example -->")
    args = command.split()[3:]  # after "python -m sim"
    done = subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True)
    assert done.stdout == shown, command


@pytest.mark.parametrize("path", [p for p in DOCUMENTS if ">>> " in p.read_text()], ids=lambda p: p.name)
def test_python_examples(path):
    failures, tried = doctest.testfile(str(path), module_relative=False)
    assert tried >= 2 and failures == 0
