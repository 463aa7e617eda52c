"""What a check says: a line per check as it goes, then one JSON report and JUnit XML."""

import json
import sys

from .. import __version__

OK, MISMATCH, REFUSED = 0, 1, 2


class Refused(Exception):
    """The check cannot be made (exit 2): one line naming the URL or the argument."""


class Report:
    """Every check and its outcome; printed as it goes, as JSON, and as JUnit XML."""

    def __init__(self, args, out, log):
        self.args, self.out, self.log = args, out, log
        self.checks = []  # {"state", "check", "ok", "failures": [one line each]}
        self.states = []  # the JSON report's per-state detail
        self.version = {"here": __version__, "page": None}
        self.error = None

    def say(self, line):
        print(line, file=self.log, flush=True)

    def check(self, state, check, failures, note=""):
        self.checks.append({"state": state, "check": check, "ok": not failures,
                            "failures": failures})
        for line in failures:
            self.say(f"MISMATCH {line}")
        if note and not failures:
            self.say(f"ok {note}")

    def refuse(self, message):
        self.error = message

    @property
    def failures(self):
        return [line for c in self.checks for line in c["failures"]]

    @property
    def code(self):
        if self.error:
            return REFUSED
        return MISMATCH if self.failures else OK

    def finish(self):
        if self.error:
            print(f"python -m sim check: error: {self.error}", file=sys.stderr, flush=True)
        elif self.failures:
            self.say(f"{len(self.failures)} mismatch{'es' if len(self.failures) != 1 else ''} "
                     f"in {self.args.url}: exit 1")
        else:
            numbers = sum(s.get("numbers", 0) for s in self.states)
            self.say(f"All holds: {len(self.states)} states, {numbers:,} numbers as a native run "
                     f"gives them, {len(self.checks)} checks in all")
        if self.args.junit:
            self.write_junit(self.args.junit)
        if self.args.json:
            json.dump(self.as_json(), self.out, indent=1)
            self.out.write("\n")
            self.out.flush()

    def as_json(self):
        return {"url": self.args.url, "frame": self.args.frame, "ok": self.code == OK,
                "exit": self.code, "error": self.error, "simulator": self.version,
                "states": self.states, "checks": self.checks, "failures": self.failures}

    def write_junit(self, path):
        from xml.etree import ElementTree as ET

        failed = sum(not c["ok"] for c in self.checks)
        suite = ET.Element("testsuite", name=f"pdsplit check {self.args.url}",
                           tests=str(len(self.checks) + bool(self.error)),
                           failures=str(failed), errors=str(int(bool(self.error))))
        for c in self.checks:
            case = ET.SubElement(suite, "testcase", classname=f"pdsplit.{c['state']}",
                                 name=c["check"])
            if c["failures"]:
                ET.SubElement(case, "failure", message=c["failures"][0]).text = "\n".join(c["failures"])
        if self.error:  # the check could not be made: one case that says why
            case = ET.SubElement(suite, "testcase", classname="pdsplit", name="page")
            ET.SubElement(case, "error", message=self.error).text = self.error
        suites = ET.Element("testsuites")
        suites.append(suite)
        path.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
