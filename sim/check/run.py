"""The check itself: every state, on a booted page per viewport size, against native runs."""

import json
import sys
import time

from .. import __version__
from ..model.lab import Lab
from .browser import Target, launch, playwright, reason
from .expected import compare_numbers, expected, mismatch_line, plan
from .report import Refused, Report
from .screenshots import Screenshots

SIZES = ((375, 740), (1280, 800))  # a phone and a laptop, as the page's layout tests use


def run_check(args, report):
    if args.baseline is not None and args.screenshots is None:
        raise Refused("--baseline needs --screenshots DIR, where the new screenshots and the "
                      "diff images go")
    if args.baseline is not None and not args.baseline.is_dir():
        raise Refused(f"--baseline {args.baseline}: no such directory")
    states = plan(args)
    if not states:
        raise Refused("no states to check: --states names none and --random is 0")
    api = playwright()
    from concurrent.futures import ThreadPoolExecutor

    # The native runs go on in a thread while the browser computes the same states.
    with api.sync_playwright() as pw, ThreadPoolExecutor(1) as pool:
        browser = launch(pw, api, args)
        lab = Lab()
        natives = [pool.submit(expected, lab, settings) for _, settings, _ in states]
        try:
            sizes = SIZES if args.screenshots else SIZES[-1:]  # numbers alone: one page will do
            targets = [Target(browser, args, size, api) for size in sizes]
            Check(args, report, api, browser, targets).run(states, natives)
        finally:
            for future in natives:
                future.cancel()
            browser.close()


class Check:
    """The checks on booted pages (one per viewport size), state after state."""

    def __init__(self, args, report, api, browser, targets):
        self.args, self.report, self.api, self.browser = args, report, api, browser
        self.targets = targets
        self.screenshots = Screenshots(args, report, api, browser)

    def run(self, states, natives):
        args, report = self.args, self.report
        version = self.targets[0].version()
        report.version["page"] = version
        report.say(f"Checking {args.url}{f' (frame {args.frame})' if args.frame else ''} "
                   f"against the simulator {__version__}: {len(states)} states")
        if version != __version__:
            shown = ("does not say its simulator version (window.pdsplit.version)"
                     if version is None else f"runs the simulator {version}")
            report.check("page", "version", [f"the page {shown}; this check runs {__version__}"])
        else:
            report.check("page", "version", [], f"the page runs the simulator {version}, as here")
        for target in self.targets:
            why = target.ready()
            if why:
                report.check("page", f"ready {target.name}", [f"{target.name}: {why}"])
                return
        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
        for k, ((name, settings, panel), native) in enumerate(zip(states, natives)):
            try:
                finished = self.state(name, settings, panel, native.result())
            except self.api.Error as e:  # the page crashed or went away mid-check
                report.check(name, "run", [f"{name}: the page failed: {reason(e)}"])
                finished = False
            if not finished:  # a page that hangs on one state would on every other: stop
                rest = [state[0] for state in states[k + 1:]]
                if rest:
                    report.check("page", "other states",
                                 [f"not checked, since {name} did not finish: {', '.join(rest)}"])
                return

    def state(self, name, settings, panel, want):
        """Check one state on every page; False if a page did not finish drawing it."""
        began = time.monotonic()
        for target in self.targets:  # started on each page at once, so they compute side by side
            target.start(settings, panel)
        shown = [target.finish() for target in self.targets]
        seconds = time.monotonic() - began
        detail = {"name": name, "settings": settings, "panel": panel, "numbers": 0,
                  "seconds": round(seconds, 2), "mismatches": [], "screenshots": []}
        self.report.states.append(detail)
        failures, finished = [], True
        for target, got in zip(self.targets, shown):
            where = f"{name} ({target.name})" if len(self.targets) > 1 else name
            if "error" in got:
                failures.append(f"{where}: {got['error']}")
                finished = False
                continue
            if got["settings"] != settings:
                failures.append(f"{where}: the page took the settings {json.dumps(got['settings'])}, "
                                f"not {json.dumps(settings)}")
            problems, count = compare_numbers(want, got)
            detail["numbers"] = max(detail["numbers"], count)
            for key, text, expect in problems:
                detail["mismatches"].append({"size": target.name, "key": key, "shown": text,
                                             "expected": expect})
                failures.append(mismatch_line(where, key, text, expect))
        self.report.check(name, "numbers", failures,
                          f"{name}: {detail['numbers']} numbers as a native run gives them "
                          f"(drawn in {seconds:.1f} s)")
        if finished and self.args.screenshots:
            for target in self.targets:
                self.screenshots.take(detail, name, target)
        return finished


def run(args, out=None):
    """`python -m sim check` with parsed arguments; returns the exit status."""
    out = out or sys.stdout
    report = Report(args, out, sys.stderr if args.json else out)
    try:
        run_check(args, report)
    except Refused as e:
        report.refuse(str(e))
    report.finish()
    return report.code
