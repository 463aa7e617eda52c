"""Reading a trace file: a request log, one row a request (spec: traffic.md, "Trace files").

Two forms, told apart by the first non-blank character after an optional BOM: `{` starts
JSON Lines (Mooncake's `timestamp` in milliseconds, `input_length`, `output_length`), anything
else is CSV with a header row (Azure's, Vidur's and BurstGPT's columns all read as they are).
Lines are the file's physical lines, split at LF (a CRLF's CR is part of its line end), so a
refusal can name the line a person sees in an editor.

A file is read a line at a time and only the requests kept are held, so that a trace of a
gigabyte needs no more memory than the window taken from it (`read(..., keep=(start, end))`,
which stops once the window's last request is read). Every refusal is one ValueError naming
the line and what was found there.
"""

import csv
import hashlib
import io
import json
import os
import re
from datetime import date
from decimal import Decimal

# The columns, each the leftmost whose header (trimmed, case-blind) is one of these.
COLUMNS = (
    ("time", ("timestamp", "arrival_s", "arrived_at")),
    ("prompt tokens", ("ContextTokens", "prompt_tokens", "num_prefill_tokens", "Request tokens",
                       "input_length")),
    ("reply tokens", ("GeneratedTokens", "reply_tokens", "num_decode_tokens", "Response tokens",
                      "output_length")),
)
JSON_KEYS = ("timestamp", "input_length", "output_length")  # Mooncake's
DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{2}):([0-9]{2}):([0-9]{2})"
                       r"(?:\.([0-9]{1,9}))?")
SECONDS = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
FORMS = {"date-time": "a date-time (YYYY-MM-DD HH:MM:SS, a fraction allowed)",
         "seconds": "a number of seconds", "milliseconds": "whole milliseconds"}


class Trace:
    """The usable requests of a trace (in file order), or of the part of it that was kept.

    times are as read, so that a time after another is worked out exactly (window.py): whole
    nanoseconds for date-times, floats for seconds, whole milliseconds for JSON Lines."""

    __slots__ = ("name", "clock", "times", "prompts", "replies", "lines", "first", "usable",
                 "left_out", "whole", "_digest")

    def __init__(self, name, clock, times, prompts, replies, lines, first, usable, left_out,
                 whole):
        self.name = name  # what messages and the traffic summary call it
        self.clock = clock  # "date-time", "seconds" or "milliseconds"
        self.times, self.prompts, self.replies = times, prompts, replies
        self.lines = lines  # the line each kept request is on (its first line)
        self.first = first  # the index, among the usable requests, of the first kept
        self.usable = usable  # usable requests read: all of them if whole, else at least
        self.left_out = left_out  # rows with 0 prompt or 0 reply tokens, in the rows read
        self.whole = whole  # read to the end of the file
        self._digest = None

    def __len__(self):
        return len(self.times)

    @property
    def digest(self):
        """Which trace this is, for the lab's caches: a hash of its rows, not the object."""
        if self._digest is None:
            rows = repr((self.clock, self.first, self.times, self.prompts, self.replies))
            self._digest = hashlib.sha256(rows.encode()).hexdigest()[:20]
        return self._digest

    def __repr__(self):
        return (f"<Trace {self.name}: {plural(self.usable, 'usable request')}"
                f"{'' if self.whole else ' or more'}, {plural(self.left_out, 'row')} left out>")


def plural(n, word):
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def read(source, name=None, keep=None):
    """The trace in `source`: a path (str or os.PathLike), a trace's text (a str with a line
    break in it, or starting with `{`), its bytes, or a binary file (standard input).

    keep: (start, end) to hold only usable requests start .. end - 1 and stop reading after
    the last of them; None holds them all. A bad file raises one ValueError naming the line."""
    if isinstance(source, Trace):
        return source
    if isinstance(source, (bytes, bytearray)):
        return _read(io.BytesIO(source), name or "the trace", keep)
    if isinstance(source, str) and is_text(source):
        return read_text(source, name, keep)
    if isinstance(source, (str, os.PathLike)):
        return read_path(source, name, keep)
    if hasattr(source, "read"):
        return _read(source, name or "the trace", keep)
    raise ValueError(f"a trace is a path, a text or a file; got {type(source).__name__}")


def read_path(path, name=None, keep=None):
    """The trace in the file at a path, read a line at a time."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            return _read(f, name or path, keep)
    except OSError as e:
        raise ValueError(f"cannot read the trace file {path!r}: {e.strerror or e}") from None


def read_text(text, name=None, keep=None):
    """The trace in a text (a str), whatever it holds: never taken for a path."""
    return _read(text_lines(text), name or "the trace", keep)


def is_text(source):
    """Whether a str is a trace's text rather than a path: a path holds no line break, is
    not blank, and does not start with `{` (a one-line JSON Lines trace has no line break)."""
    shown = source.lstrip("\ufeff \t")
    return "\n" in source or "\r" in source or not shown or shown.startswith("{")


def text_lines(text):
    """A text's physical lines, each with its line end (split at LF only)."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            if start < len(text):
                yield text[start:]
            return
        yield text[start:end + 1]
        start = end + 1


class Refusal:
    """Words for a refusal in one trace: `at(line, what)` is the ValueError to raise."""

    def __init__(self, name):
        self.name = name

    def at(self, line, what):
        return ValueError(f"{self.name}, line {line:,}: {what}")


def decoded(lines, refuse):
    """(line number, text) of each physical line, its BOM taken off the first."""
    for n, line in enumerate(lines, 1):
        if not isinstance(line, str):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise refuse.at(n, f"not UTF-8 text (byte {e.start + 1} of the line is "
                                   f"{line[e.start:e.start + 1]!r})") from None
        if n == 1 and line.startswith("\ufeff"):
            line = line[1:]
        yield n, line


def _read(lines, name, keep):
    refuse = Refusal(name)
    numbered = decoded(lines, refuse)
    skipped = []  # the blank lines before the first that is not, to hand to the CSV reader
    for n, line in numbered:
        if line.strip():
            break
        skipped.append(line)
    else:
        raise ValueError(f"{name} is empty: a trace needs a header row and a row per request")
    if line.lstrip().startswith("{"):
        rows, clock = json_rows(n, line, numbered, refuse), "milliseconds"
    else:
        rows, clock = csv_rows(skipped + [line], numbered, refuse), None
    return collect(rows, clock, name, keep, refuse)


def csv_rows(first, numbered, refuse):
    """The data rows of a CSV trace as (line, time text, prompt text, reply text)."""
    last = [""]  # the physical line the CSV reader took last

    def feed():
        for line in first:
            last[0] = line
            yield line
        for _, line in numbered:
            last[0] = line
            yield line

    reader = csv.reader(feed(), strict=True)
    records = csv_records(reader, last, refuse)
    line, header = next(records)  # the first line that is not blank is there
    names = [h.strip().lower() for h in header]
    columns = []
    for role, accepted in COLUMNS:
        wanted = [a.lower() for a in accepted]
        found = next((k for k, h in enumerate(names) if h in wanted), None)
        if found is None:
            raise refuse.at(line, f"no {role} column: its header must be one of "
                                  f"{', '.join(accepted)} (the header is {', '.join(header)})")
        columns.append(found)
    widest = max(columns)
    any_rows = False
    for at, row in records:
        any_rows = True
        if len(row) <= widest:
            role = COLUMNS[columns.index(widest)][0]
            raise refuse.at(at, f"the row has {len(row)} value{'' if len(row) == 1 else 's'}, "
                                f"but its {role} would be value {widest + 1} "
                                f"({header[widest].strip()})")
        yield at, row[columns[0]].strip(), row[columns[1]].strip(), row[columns[2]].strip()
    if not any_rows:
        raise refuse.at(line, "a header row and no data rows after it")


def csv_records(reader, last, refuse):
    """(first line, fields) of each CSV record but blank lines (or lines of spaces)."""
    done = 0  # physical lines read so far
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise refuse.at(done + 1, f"not readable as CSV ({e})") from None
        start, done = done + 1, reader.line_num
        if done == start and not last[0].strip():
            continue
        yield start, fields


def json_rows(n, line, numbered, refuse):
    """The rows of a JSON Lines trace as (line, timestamp, input_length, output_length)."""
    while True:
        if line.strip():
            try:
                found = json.loads(line)
            except ValueError:
                found = None
            if not isinstance(found, dict) or any(key not in found for key in JSON_KEYS):
                shown = line.strip()
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                raise refuse.at(n, "a JSON line must be an object with timestamp, input_length "
                                   f"and output_length; found {shown}")
            yield n, found["timestamp"], found["input_length"], found["output_length"]
        try:
            n, line = next(numbered)
        except StopIteration:
            return


class Clock:
    """The times of one trace: each row's read as a number, checked against the form and the
    time of the row before (every data row takes part, the left-out ones too)."""

    def __init__(self, clock, refuse):
        self.clock = clock  # None until the first CSV row says which form the file has
        self.refuse = refuse
        self.days = {}  # a date's day number, worked out once per date
        self.last = None  # (value, text, line) of the row before

    def read(self, line, text):
        value, form = self.value(line, text)
        if self.clock is None:
            self.clock = form
        elif form != self.clock:
            raise self.refuse.at(line, f"the time {shown(text)} is {FORMS[form]}, but the first "
                                       f"row's is {FORMS[self.clock]}: a trace keeps one form")
        last = self.last
        if last is not None and (value < last[0] or value == last[0] and form == "seconds"
                                 and Decimal(text) < Decimal(last[1])):
            raise self.refuse.at(line, f"the time {shown(text)} is earlier than the row before's "
                                       f"({shown(last[1])}, line {last[2]:,}): rows must be in "
                                       f"time order")
        self.last = (value, text, line)
        return value

    def value(self, line, text):
        if self.clock == "milliseconds":
            if type(text) is not int or text < 0:
                raise self.refuse.at(line, f"the timestamp {json.dumps(text)} is not whole "
                                           "milliseconds of 0 or more")
            return text, "milliseconds"
        found = DATE_TIME.fullmatch(text)
        if found:
            y, mo, d, h, mi, s, fraction = found.groups()
            day = self.days.get((y, mo, d))
            if day is None:
                try:
                    day = self.days[y, mo, d] = date(int(y), int(mo), int(d)).toordinal()
                except ValueError:
                    day = None
            if day is not None and int(h) < 24 and int(mi) < 60 and int(s) < 60:
                seconds = day * 86_400 + int(h) * 3600 + int(mi) * 60 + int(s)
                return seconds * 10**9 + int((fraction or "").ljust(9, "0")), "date-time"
        elif SECONDS.fullmatch(text):
            return float(text), "seconds"
        raise self.refuse.at(line, f"the time {shown(text)} is neither a date-time "
                                   "(YYYY-MM-DD HH:MM:SS, a fraction allowed) nor a number of "
                                   "seconds")


def shown(value):
    return repr(value) if isinstance(value, str) else json.dumps(value)


def count(refuse, line, role, value, digits):
    """A token count: a whole number of 0 or more (digits in CSV, an integer in JSON)."""
    if digits:
        if value.isascii() and value.isdigit():
            return int(value)
        found = repr(value)
    elif type(value) is int and value >= 0:
        return value
    else:
        found = json.dumps(value)
    raise refuse.at(line, f"the count of {role}, {found}, is not a whole number of 0 or more")


def collect(rows, clock, name, keep, refuse):
    """The Trace of the rows: usable requests kept, left-out rows counted."""
    start, end = keep or (0, None)
    times, prompts, replies, lines = [], [], [], []
    usable = left_out = 0
    times_of = Clock(clock, refuse)
    digits = clock is None  # CSV writes counts as digits; JSON Lines as integers
    for line, time, prompt, reply in rows:
        t = times_of.read(line, time)
        p = count(refuse, line, "prompt tokens", prompt, digits)
        r = count(refuse, line, "reply tokens", reply, digits)
        if p == 0 or r == 0:  # a failed or empty request (BurstGPT marks failures so)
            left_out += 1
            continue
        if usable >= start:
            times.append(t)
            prompts.append(p)
            replies.append(r)
            lines.append(line)
        usable += 1
        if end is not None and usable >= end:  # the window is read: the rest is not looked at
            return Trace(name, times_of.clock, times, prompts, replies, lines, start, usable,
                         left_out, whole=False)
    return Trace(name, times_of.clock, times, prompts, replies, lines, start, usable, left_out,
                 whole=True)
