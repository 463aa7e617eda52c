"""The examples and tables of the README and docs/ are what the code gives: every
`<!-- example: python -m sim ... -->` block is that command's output, every `>>>` example
runs (doctest) and prints what is shown, the settings table is the one the settings write,
and docs/cli.md is the manual the parser writes. `make docs` (docs/write.py) writes them all
again; these tests fail while a document and the code differ, with the difference."""

import difflib
import doctest
import importlib.util
import re

import pytest

from conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
spec = importlib.util.spec_from_file_location("write", ROOT / "docs" / "write.py")
write = importlib.util.module_from_spec(spec)
spec.loader.exec_module(write)


def test_make_docs_writes_every_document_and_only_those():
    assert write.DOCUMENTS == DOCUMENTS


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_each_document_is_what_the_code_writes(path):
    shown, written = path.read_text(), write.written(path)
    differ = "".join(difflib.unified_diff(shown.splitlines(True), written.splitlines(True),
                                          f"{path.name} (as it is)", f"{path.name} (as the code writes it)"))
    assert shown == written, f"run `make docs`, then read the diff:\n{differ[:3000]}"


def test_there_are_examples_in_the_readme_and_the_docs():
    found = [(path, command) for path in DOCUMENTS
             for command in re.findall(r"<!-- example: (python -m sim .+?) -->", path.read_text())]
    assert any(path.name == "README.md" for path, _ in found) and len(found) >= 6
    assert "<!-- limits:" in (ROOT / "docs" / "simulator.md").read_text()


@pytest.mark.parametrize("path", [p for p in DOCUMENTS if ">>> " in p.read_text()], ids=lambda p: p.name)
def test_python_examples(path):
    failures, tried = doctest.testfile(str(path), module_relative=False)
    assert tried >= 2 and failures == 0
