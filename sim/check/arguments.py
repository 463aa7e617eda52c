"""The options of `python -m sim check`, each checked as it is read (exit 2 with one line)."""

import argparse
import math
import re
from pathlib import Path

from .expected import NAMED


def _number(kind, low, high, words):
    def parse(text):
        try:
            x = kind(text)
        except ValueError:
            x = None
        if x is None or not (isinstance(x, int) or math.isfinite(x)) or not low <= x <= high:
            raise argparse.ArgumentTypeError(f"must be {words}; got {text!r}")
        return x
    return parse


def _url(text):
    # A web address: browsers load neither the page's ES modules nor its worker from file://.
    if not re.match(r"(?i)https?://", text):
        raise argparse.ArgumentTypeError(f"must start with http:// or https://; got {text!r}")
    return text


def _states(text):
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in NAMED]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown state {unknown[0]!r}; known: {', '.join(NAMED)}")
    return names


def add_arguments(p):
    """The command's arguments (on `python -m sim`'s subparser `check`)."""
    p.add_argument("url", type=_url, metavar="URL",
                   help="the deployed page (or, with --frame, the host page that frames it)")
    p.add_argument("--states", type=_states, metavar="NAMES",
                   help=f"only these named states, comma-separated (default: all of "
                        f"{', '.join(NAMED)})")
    p.add_argument("--random", type=_number(int, 0, 1000, "a whole number from 0 to 1,000"),
                   default=0, metavar="N", help="also check N random settings (default 0)")
    p.add_argument("--seed", type=_number(int, 0, 2**53 - 1, "a whole number from 0"),
                   default=0, metavar="K", help="seed of the random settings (default 0)")
    p.add_argument("--screenshots", type=Path, metavar="DIR",
                   help="save a full-page screenshot of each state at 375x740 and 1280x800 "
                        "here, as <state>-<width>x<height>.png")
    p.add_argument("--baseline", type=Path, metavar="DIR",
                   help="compare each screenshot with the one of the same name here (needs "
                        "--screenshots); a diff image <state>-<size>.diff.png for each that differs")
    p.add_argument("--pixel-threshold", type=_number(int, 0, 255, "a whole number from 0 to 255"),
                   default=16, metavar="N",
                   help="a pixel differs when a channel differs by more than N of 255 (default 16)")
    p.add_argument("--max-diff", type=_number(float, 0, 1, "a share from 0 to 1"),
                   default=0.001, metavar="SHARE",
                   help="a screenshot fails when more than this share of its pixels differ, "
                        "or its size does (default 0.001: 0.1%%)")
    p.add_argument("--frame", metavar="SELECTOR",
                   help="URL is a host page: check the copy in the iframe this CSS selector matches")
    p.add_argument("--json", action="store_true", help="print one JSON report on stdout")
    p.add_argument("--junit", type=Path, metavar="FILE",
                   help="write JUnit XML: a testcase per state per check")
    p.add_argument("--browser", metavar="PATH",
                   help="the Chromium to use (default: $CHROMIUM, then Playwright's own, then "
                        "the system's)")
    p.add_argument("--timeout", type=_number(float, 1, 3600, "a number of seconds from 1 to 3600"),
                   default=180.0, metavar="SECONDS",
                   help="longest wait for the page to load, for Python to start, and for each "
                        "state's charts (default 180)")
