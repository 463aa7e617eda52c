"""Reading a trace file: a request log, one row a request (docs/model.md: "Trace files").

Two forms, told apart by the first non-blank character after an optional BOM: `{` starts
JSON Lines (Mooncake's `timestamp` in milliseconds, `input_length`, `output_length`), anything
else is CSV with a header row (Azure's, Vidur's and BurstGPT's columns all read as they are).
Lines are the file's physical lines, split at LF (a CRLF's CR is part of its line end), so a
refusal names the line a person sees in an editor.

A file is read a line at a time and only the requests kept are held, so that a trace of a
gigabyte needs no more memory than the window taken from it (`read(..., keep=(start, end))`
stops once the window's last request is read). The common line, with no quote in it, is split
at its commas; a line with a quote goes to Python's csv reader, strict RFC 4180, which may take
the lines after it too (a quoted field may hold line breaks). Every refusal is one ValueError
naming the line and what was found there; the times' forms are clock.py's.
"""

import csv
import hashlib
import io
import json
import os

from .clock import CSV, MILLISECONDS, Clock

# The columns, each the leftmost whose header (trimmed, case-blind) is one of these.
COLUMNS = (
    ("time", ("timestamp", "arrival_s", "arrived_at")),
    ("prompt tokens", ("ContextTokens", "prompt_tokens", "num_prefill_tokens", "Request tokens",
                       "input_length")),
    ("reply tokens", ("GeneratedTokens", "reply_tokens", "num_decode_tokens", "Response tokens",
                      "output_length")),
)
JSON_KEYS = ("timestamp", "input_length", "output_length")  # Mooncake's


class Trace:
    """The usable requests of a trace (in file order), or of the part of it that was kept.

    times are as read, so that a time after another is worked out exactly (window.py): whole
    nanoseconds for date-times, floats for seconds, whole milliseconds for JSON Lines."""

    __slots__ = ("name", "clock", "times", "prompts", "replies", "lines", "first", "usable",
                 "left_out", "whole", "_digest")

    def __init__(self, name, clock, kept, first, usable, left_out, whole):
        self.name = name  # what messages and the traffic summary call it
        self.clock = clock  # "date-time", "seconds" or "milliseconds"
        self.times, self.prompts, self.replies, self.lines = kept  # lines: each request's first
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


class Lines:
    """A file's physical lines as text, counted: `number` is the last one's, from 1."""

    def __init__(self, lines, refuse):
        self.lines, self.refuse, self.number = iter(lines), refuse, 0

    def __iter__(self):
        return self

    def __next__(self):
        line = next(self.lines)
        self.number += 1
        if type(line) is not str:
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise self.refuse(self.number, f"not UTF-8 text (byte {e.start + 1} of the line "
                                               f"is {line[e.start:e.start + 1]!r})") from None
        if self.number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        return line


class Refusal:
    """Words for a refusal in one trace: calling it gives the ValueError to raise."""

    def __init__(self, name):
        self.name = name

    def __call__(self, line, what):
        return ValueError(f"{self.name}, line {line:,}: {what}")


def _read(source, name, keep):
    refuse = Refusal(name)
    lines = Lines(source, refuse)
    for line in lines:
        if line.strip():
            break
    else:
        raise ValueError(f"{name} is empty: a trace needs a header row and a row per request")
    rows = Rows(name, refuse, keep)
    if line.lstrip().startswith("{"):
        return rows.json(line, lines)
    return rows.csv(line, lines)


class Rows:
    """The data rows of one file, checked and kept (or counted) one at a time."""

    def __init__(self, name, refuse, keep):
        self.name, self.refuse = name, refuse
        self.start, self.end = keep or (0, None)
        self.kept = ([], [], [], [])  # times, prompts, replies, lines
        self.usable = self.left_out = 0

    def take(self, line, time, prompt, reply):
        """One row's checked values; True once the window is read (the rest is not looked at)."""
        if prompt == 0 or reply == 0:  # a failed or empty request (BurstGPT marks failures so)
            self.left_out += 1
            return False
        if self.usable >= self.start:
            times, prompts, replies, lines = self.kept
            times.append(time)
            prompts.append(prompt)
            replies.append(reply)
            lines.append(line)
        self.usable += 1
        return self.end is not None and self.usable >= self.end

    def trace(self, clock, whole):
        return Trace(self.name, clock, self.kept, self.start, self.usable, self.left_out, whole)

    def json(self, first, lines):
        """JSON Lines: an object a line with Mooncake's three keys (others ignored)."""
        clock, refuse = Clock(MILLISECONDS, refuse=self.refuse), self.refuse
        line, n = first, lines.number
        while True:
            if line.strip():
                try:
                    found = json.loads(line)
                except ValueError:
                    found = None
                if not isinstance(found, dict) or any(key not in found for key in JSON_KEYS):
                    shown = line.strip()
                    shown = shown if len(shown) <= 60 else shown[:57] + "..."
                    raise refuse(n, "a JSON line must be an object with timestamp, input_length "
                                    f"and output_length; found {shown}")
                time = clock.read(n, found["timestamp"])
                prompt = json_count(refuse, n, "prompt tokens", found["input_length"])
                reply = json_count(refuse, n, "reply tokens", found["output_length"])
                if self.take(n, time, prompt, reply):
                    return self.trace(clock.form, whole=False)
            line = next(lines, None)
            if line is None:
                return self.trace(clock.form, whole=True)
            n = lines.number

    def csv(self, first, lines):
        """CSV with a header row: the three columns found by name, extra columns ignored."""
        refuse = self.refuse
        header_line = lines.number
        header = record(first, lines, refuse)
        names = [h.strip().lower() for h in header]
        columns = []
        for role, accepted in COLUMNS:
            wanted = [a.lower() for a in accepted]
            found = next((k for k, h in enumerate(names) if h in wanted), None)
            if found is None:
                raise refuse(header_line, f"no {role} column: its header must be one of "
                                          f"{', '.join(accepted)} (the header is "
                                          f"{', '.join(h.strip() for h in header)})")
            columns.append(found)
        t, p, r = columns
        widest = max(columns)
        clock, take = Clock(CSV, refuse=refuse), self.take
        rows = 0
        for line in lines:
            n = lines.number
            body = line[:-1] if line.endswith("\n") else line
            if body.endswith("\r"):
                body = body[:-1]
            if not body.strip():  # a blank line, or one of spaces
                continue
            if '"' in body or "\r" in body:  # quoting (or a stray CR): the csv reader's
                fields = record(line, lines, refuse)
            else:
                fields = body.split(",")
            rows += 1
            if len(fields) <= widest:
                role = COLUMNS[columns.index(widest)][0]
                raise refuse(n, f"the row has {plural(len(fields), 'value')}, but its {role} "
                                f"would be value {widest + 1} ({header[widest].strip()})")
            time = clock.read(n, fields[t].strip())
            prompt, reply = fields[p].strip(), fields[r].strip()
            if not (prompt.isdigit() and prompt.isascii() and reply.isdigit() and reply.isascii()):
                csv_count(refuse, n, "prompt tokens", prompt)  # refuses the first of them
                csv_count(refuse, n, "reply tokens", reply)
            if take(n, time, int(prompt), int(reply)):
                return self.trace(clock.form, whole=False)
        if not rows:
            raise refuse(header_line, "a header row and no data rows after it")
        return self.trace(clock.form, whole=True)


def record(line, lines, refuse):
    """One CSV record that starts on `line`, read by Python's csv reader (strict RFC 4180
    quoting), which takes the lines after it from `lines` while a quoted field goes on."""
    first = lines.number

    def feed():
        yield line
        yield from lines

    try:
        return next(csv.reader(feed(), strict=True))
    except csv.Error as e:
        raise refuse(first, f"not readable as CSV ({e})") from None


def csv_count(refuse, line, role, text):
    """A token count in CSV: digits (a whole number of 0 or more)."""
    if text.isdigit() and text.isascii():
        return int(text)
    raise refuse(line, f"the count of {role}, {text!r}, is not a whole number of 0 or more")


def json_count(refuse, line, role, value):
    """A token count in JSON: an integer of 0 or more."""
    if type(value) is int and value >= 0:
        return value
    raise refuse(line, f"the count of {role}, {json.dumps(value)}, is not a whole number of 0 or "
                       "more")
