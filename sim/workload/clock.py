"""A trace's times (docs/model.md: "Trace files", "Seconds, exactly"): each row's time
read as a number that later times are worked out from exactly, in the one form of its file,
and no earlier than the row before's (every data row takes part, the left-out ones too).

The forms: date-times `YYYY-MM-DD HH:MM:SS` (or `T` between) with a fraction of 1 to 9
digits or none, as Azure writes them, read as whole nanoseconds; plain non-negative decimal
numbers of seconds, read as floats (and compared exactly where two floats are equal); and
JSON Lines' whole milliseconds.
"""

import json
import re
from datetime import date
from decimal import Decimal

CSV, MILLISECONDS = "csv", "milliseconds"  # what a Clock reads: CSV's text, or JSON's numbers
DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{2}):([0-9]{2}):([0-9]{2})"
                       r"(?:\.([0-9]{1,9}))?")
SECONDS = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
FORMS = {"date-time": "a date-time (YYYY-MM-DD HH:MM:SS, a fraction allowed)",
         "seconds": "a number of seconds", "milliseconds": "whole milliseconds"}


class Clock:
    """Reads one file's times, a row at a time: `read(line, value)` -> the time as a number."""

    def __init__(self, reads, refuse):
        self.refuse = refuse
        self.form = "milliseconds" if reads == MILLISECONDS else None  # CSV: its first row's
        self.minutes = {}  # "YYYY-MM-DD HH:MM" -> its first second, as seconds of the calendar
        self.last = None  # the row before's time, as read
        self.last_text = self.last_line = None

    def read(self, line, text):
        if self.form == "date-time":
            value = self.date_time(text)
        elif self.form == "seconds":
            value = float(text) if SECONDS.fullmatch(text) else None
        elif self.form == "milliseconds":
            if type(text) is not int or text < 0:
                raise self.refuse(line, f"the timestamp {json.dumps(text)} is not whole "
                                        "milliseconds of 0 or more")
            value = text
        else:  # the first row says which form the file has
            self.form = "date-time" if DATE_TIME.fullmatch(text) else "seconds"
            return self.read(line, text)
        if value is None:
            raise self.refuse(line, self.not_a_time(text))
        last = self.last
        if last is not None and value <= last and (value < last or self.form == "seconds"
                                                   and Decimal(text) < Decimal(self.last_text)):
            raise self.refuse(line, f"the time {shown(text)} is earlier than the row before's "
                                    f"({shown(self.last_text)}, line {self.last_line:,}): rows "
                                    "must be in time order")
        self.last, self.last_text, self.last_line = value, text, line
        return value

    def date_time(self, text):
        """Whole nanoseconds: (day number x 86,400 + the time of day) x 10^9 + the fraction
        padded to 9 digits; None if it is not a valid date-time."""
        found = DATE_TIME.fullmatch(text)
        if found is None:
            return None
        minute = text[:16]
        first = self.minutes.get(minute)
        if first is None:
            y, mo, d, h, mi = (int(x) for x in found.group(1, 2, 3, 4, 5))
            try:
                day = date(y, mo, d).toordinal()  # the proleptic Gregorian day number
            except ValueError:
                return None
            if h > 23 or mi > 59:
                return None
            first = self.minutes[minute] = day * 86_400 + h * 3600 + mi * 60
        second, fraction = found.group(6, 7)
        if second > "59":
            return None
        return (first + int(second)) * 10**9 + (int(fraction.ljust(9, "0")) if fraction else 0)

    def not_a_time(self, text):
        """Why a time was refused: neither form, or the other form than the first row's."""
        if DATE_TIME.fullmatch(text) and self.date_time(text) is not None:
            form = "date-time"
        elif SECONDS.fullmatch(text):
            form = "seconds"
        else:
            return (f"the time {shown(text)} is neither a date-time (YYYY-MM-DD HH:MM:SS, a "
                    "fraction allowed) nor a number of seconds")
        return (f"the time {shown(text)} is {FORMS[form]}, but the first row's is "
                f"{FORMS[self.form]}: a trace keeps one form")


def shown(value):
    return repr(value) if isinstance(value, str) else json.dumps(value)
