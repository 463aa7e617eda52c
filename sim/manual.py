"""docs/cli.md: every command and flag of `python -m sim`, written from the command line's own
parser and the settings table, so that the manual cannot say what the code does not do.

    python -m sim.manual > docs/cli.md      (make docs writes it, with docs/write.py; a test holds it)
"""

import argparse
import sys

from .cli import build_parser
from .settings import FIELDS, describe, parse

INTRO = """\
# The command line

**For anyone who runs the simulator from a shell**, and for scripts and CI. Every command and
every flag below is written from the command line's own parser and the settings table
(`sim/settings.py`) by `python -m sim.manual` (`make docs`); a test fails if this file and
the code differ. Worked examples with their output are in
[simulator.md](simulator.md#command-line-examples); what the numbers mean is in
[model.md](model.md).

Run it as `python -m sim COMMAND ...` with the venv's Python (`.venv/bin/python`), or as
`pdsplit COMMAND ...` with the venv active. Each command prints a table, or JSON with
`--json`. A value the simulator cannot use is refused with one line that names the setting,
the value and what is allowed, and the exit status 2:

```
$ python -m sim compare --rps 0
python -m sim: error: {refusal}
```
"""


def own_actions(parser):
    """The arguments a command has beside the settings' flags (and -h)."""
    settings = {"--" + name.replace("_", "-") for name in FIELDS}
    # (argparse keeps no public list of a parser's arguments)
    return [a for a in parser._actions
            if not isinstance(a, argparse._HelpAction) and not set(a.option_strings) & settings]


def spelled(action):
    """How an argument is written: `--over SETTING`, `--json`, `LAYOUT`, `--values V [V ...]`."""
    words = action.option_strings[:1] + ([] if action.nargs == 0 else [action.metavar])
    if action.nargs == "+":
        words.append(f"[{action.metavar} ...]")
    return " ".join(words)


def usage(name, parser):
    """One line: the command, [SETTING FLAGS] where it takes them, then its own arguments."""
    parts = [f"python -m sim {name}"] + ([] if name == "check" else ["[SETTING FLAGS]"])
    for action in own_actions(parser):
        required = action.required or (not action.option_strings and action.nargs is None)
        parts.append(spelled(action) if required else f"[{spelled(action)}]")
    return " ".join(parts)


def own_arguments(parser):
    """(how it is written, its help) of each argument a command has beside the settings."""
    return [(f"`{spelled(a)}`", (a.help or "").replace("%%", "%")) for a in own_actions(parser)]


def settings_table():
    """Every setting's flag, its default and what it accepts, from the settings table."""
    rows = ["| flag | default | accepts | what it is |", "|---|---|---|---|"]
    for name, f in FIELDS.items():
        flag = "--" + name.replace("_", "-")
        rows.append(f"| `{flag}` | `{f.default}` | {describe(name)} | {f.metadata['help']} |")
    return "\n".join(rows)


def manual():
    """The whole of docs/cli.md."""
    top = build_parser()
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in commands._choices_actions}
    try:
        parse("rps", "0")
    except ValueError as refused:
        refusal = str(refused)
    out = [INTRO.format(refusal=refusal), "## Commands", ""]
    out += [f"- [`{name}`](#{name}): {helps[name]}" for name in commands.choices]
    for name, parser in commands.choices.items():
        out += ["", f"### {name}", "", f"{helps[name][0].upper()}{helps[name][1:]}.", "",
                "```", usage(name, parser), "```", ""]
        rows = own_arguments(parser)
        if name != "check":
            out.append("Every [setting flag](#setting-flags), and:")
            out.append("")
        out += [f"- {flag}: {words}" for flag, words in rows]
    out += ["", "## Setting flags", "",
            "Every command but `check` takes every setting as a flag, with the same names, "
            "defaults and limits as the API (`sim.compare(rps=10)`), the page's URL (`?rps=10`) "
            "and its sliders. A value is read as Python reads a number (`--rps 1e1`, `--link .5`); "
            "a whole-number setting takes whole numbers only, and a named one its names.", "",
            settings_table(), "",
            "## Exit status", "",
            "- 0: done;",
            "- 2: a setting, a flag, a trace file or a window the simulator refuses (one line on "
            "standard error says which, and nothing is printed on standard output);",
            "- `check` also exits 1 when a number on the deployed page differs from a native "
            "run's, or a screenshot from its baseline ([course-sites.md](course-sites.md#checking-a-deployed-copy)).",
            ""]
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(manual())
