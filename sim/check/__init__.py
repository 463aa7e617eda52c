"""`python -m sim check URL`: check a deployed copy of the page against this simulator.

For a course site's CI. In a Chromium, driven by Playwright (the package's `[check]` extra,
imported only inside the command, so that `import sim`, Pyodide and every other command never
need it), it:

- reads the page's simulator version (`window.pdsplit.version`) and fails if it is not this
  package's;
- sets each named state, and `--random N` more drawn from the sliders with `--seed K`,
  through `window.pdsplit.set`, waits until every chart is drawn (`settled()`), and compares
  every number on screen (each `[data-metric]` element) with a native run of this simulator;
- saves a full-page screenshot of each state at 375 x 740 and 1280 x 800 (`--screenshots`),
  and compares each with the one of the same name in `--baseline`, writing a diff image for
  each that differs;
- with `--frame SELECTOR`, does all of this inside the iframe SELECTOR of a host page.

Exit status: 0 when all holds; 1 on any mismatch, each named; 2 when the URL cannot be
reached or is not this widget, or the check cannot run (bad arguments, no Playwright, no
Chromium), with one line saying why.

The pieces: arguments.py (the command's options), expected.py (what a native run says the
page must show, and how it is compared), browser.py (reaching the page in a Chromium),
screenshots.py (pictures against a baseline), report.py (what is printed, JSON and JUnit)
and run.py (the check itself, state after state).
"""

from .arguments import add_arguments
from .browser import CHROMIUM_ARGS, PACKAGE
from .run import run

__all__ = ["CHROMIUM_ARGS", "PACKAGE", "add_arguments", "run"]
