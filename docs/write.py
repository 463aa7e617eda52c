"""make docs: everything in the README and docs/ that is written from the code, written again.

- docs/cli.md, from the command line's parser and the settings (sim/manual.py);
- the settings' limits table in docs/simulator.md (sim.show.report.limits_table);
- the output of every `<!-- example: python -m sim ... -->` block, by running the command;
- the output of every `>>>` example (doctest), by running them in order, as doctest does.

After a change of the model's costs, say, `make docs` rewrites every quoted number, and
`git diff` shows what moved; tests/test_readme.py fails while a document and the code differ.
`python docs/write.py --check` only says which documents differ (exit 1 if any).

The simulator is the standard library alone, so this runs with any Python 3.11+ (make docs
uses the system's: it needs no venv).
"""

import doctest
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sim.manual import manual  # noqa: E402
from sim.show.report import limits_table  # noqa: E402

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CLI = ROOT / "docs" / "cli.md"
LIMITS = re.compile(r"(<!-- limits: [^\n]*-->\n)(.*?)(\n<!-- /limits -->)", re.S)
EXAMPLE = re.compile(r"(<!-- example: (python -m sim [^\n]+?) -->\n```\n)(.*?)(```\n<!-- /example -->)", re.S)


def run_command(command):
    """What `python -m sim ...` prints (the words after "python -m sim" are its arguments)."""
    done = subprocess.run([sys.executable, "-m", "sim", *command.split()[3:]], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{command!r} failed (exit {done.returncode}): {done.stderr.strip()}")
    return done.stdout


def examples(text):
    """The text with every example block's output as its command prints it now."""
    return EXAMPLE.sub(lambda m: m[1] + run_command(m[2]) + m[4], text)


class Collect(doctest.DocTestRunner):
    """Runs a document's >>> examples, keeping what each printed where it differs."""

    def __init__(self):
        super().__init__()
        self.got = []

    def report_failure(self, out, test, example, got):
        self.got.append((example, got))

    def report_unexpected_exception(self, out, test, example, exc_info):
        raise SystemExit(f"{test.name}, line {example.lineno + 1}: {example.source.strip()!r} "
                         f"raised {exc_info[1]!r}")


def doctests(text, name):
    """The text with each >>> example's expected output as it is printed now (run in order,
    in one namespace, as doctest.testfile runs them)."""
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__main__"}, name, name, 0)
    runner = Collect()
    runner.run(test, out=lambda _: None, clear_globs=True)
    lines = text.splitlines(keepends=True)
    for example, got in sorted(runner.got, key=lambda pair: -pair[0].lineno):
        start = example.lineno + example.source.count("\n")
        want = example.want.count("\n")
        shown = [" " * example.indent + (line if line.strip() else "<BLANKLINE>") + "\n"
                 for line in got.splitlines()]
        lines[start:start + want] = shown
    return "".join(lines)


def written(path):
    """The document at `path` as the code writes it now."""
    if path == CLI:
        return manual()
    text = path.read_text()
    if path.name == "simulator.md":
        text = LIMITS.sub(lambda m: m[1] + limits_table() + m[3], text)
    text = examples(text)
    if ">>> " in text:
        text = doctests(text, path.name)
    return text


def main(argv):
    check = "--check" in argv
    differ = []
    for path in DOCUMENTS:
        text = written(path)
        if text != path.read_text():
            differ.append(path.relative_to(ROOT))
            if not check:
                path.write_text(text)
    verb = "differ from the code" if check else "rewritten"
    print(f"{len(differ)} of {len(DOCUMENTS)} documents {verb}" + "".join(f"\n  {p}" for p in differ))
    return 1 if check and differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
