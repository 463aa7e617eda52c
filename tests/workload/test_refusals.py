"""Every refusal of traffic.md, through the API and the command line: one clear message that
names the line and what was found, exit 2 and no traceback, and nothing else changed."""

import re
import subprocess
import sys

import pytest

from conftest import ROOT

import oracle
import sim
from sim.settings import Settings

HEADER = "arrival_s,prompt_tokens,reply_tokens\n"

# (name, file text, the line the message names (None: the file as a whole), words it holds)
FILES = [
    ("empty file", "", None, "is empty: a trace needs a header row and a row per request"),
    ("only blank lines", "\n  \r\n\n", None, "is empty"),
    ("no data rows", "\n" + HEADER + "\n\n", 2, "a header row and no data rows after it"),
    ("no time column", "when,prompt_tokens,reply_tokens\n1,2,3\n", 1,
     "no time column: its header must be one of timestamp, arrival_s, arrived_at "
     "(the header is when, prompt_tokens, reply_tokens)"),
    ("no reply column", "TIMESTAMP,ContextTokens,tokens out\n1,2,3\n", 1,
     "no reply tokens column: its header must be one of GeneratedTokens, reply_tokens, "
     "num_decode_tokens, Response tokens, output_length"),
    ("a time of neither form", HEADER + "1,2,3\n1 s,2,3\n", 3,
     "the time '1 s' is neither a date-time (YYYY-MM-DD HH:MM:SS, a fraction allowed) nor a "
     "number of seconds"),
    ("a date that is not one", "timestamp,prompt_tokens,reply_tokens\n2023-02-29 10:00:00,5,5\n",
     2, "the time '2023-02-29 10:00:00' is neither"),
    ("a negative time", HEADER + "-1,2,3\n", 2, "the time '-1' is neither"),
    ("forms mixed", HEADER + "0.5,2,3\n2023-11-16 18:15:46,2,3\n", 3,
     "the time '2023-11-16 18:15:46' is a date-time (YYYY-MM-DD HH:MM:SS, a fraction allowed), "
     "but the first row's is a number of seconds: a trace keeps one form"),
    ("a time earlier than the row before", HEADER + "1,2,3\n2,2,3\n\n1.999,0,0\n", 5,
     "the time '1.999' is earlier than the row before's ('2', line 3): rows must be in time order"),
    ("earlier by less than a float shows", HEADER + "1.00000000000000001,2,3\n1.0,2,3\n", 3,
     "the time '1.0' is earlier than the row before's ('1.00000000000000001', line 2)"),
    ("a token count with a fraction", HEADER + "1,2.5,3\n", 2,
     "the count of prompt tokens, '2.5', is not a whole number of 0 or more"),
    ("a negative token count", HEADER + "1,2,-3\n", 2,
     "the count of reply tokens, '-3', is not a whole number of 0 or more"),
    ("a missing token count", HEADER + "1,,3\n", 2, "the count of prompt tokens, '', is not"),
    ("a JSON line that is a list", '{"timestamp": 1, "input_length": 2, "output_length": 3}\n'
     "[1, 2, 3]\n", 2, "a JSON line must be an object with timestamp, input_length and "
     "output_length; found [1, 2, 3]"),
    ("a JSON line without a key", '\n{"timestamp": 1, "input_length": 2}\n', 2,
     'a JSON line must be an object with timestamp, input_length and output_length'),
    ("a JSON line that is not JSON", '{"timestamp": 1, "input_length": 2, "output_length": 3}\n'
     "{nope\n", 2, "found {nope"),
    ("a timestamp that is not whole milliseconds",
     '{"timestamp": 1.5, "input_length": 2, "output_length": 3}\n', 1,
     "the timestamp 1.5 is not whole milliseconds of 0 or more"),
    ("a JSON count that is text", '{"timestamp": 1, "input_length": "2", "output_length": 3}\n',
     1, 'the count of prompt tokens, "2", is not a whole number of 0 or more'),
    # where the spec is silent: what a reader of the file needs to hear
    ("a row too short", HEADER + "1,2,3\n4,5\n", 3,
     "the row has 2 values, but its reply tokens would be value 3 (reply_tokens)"),
    ("a quote never closed", HEADER + '1,2,3\n2,"5,6\n7,8\n', 3,
     "not readable as CSV (unexpected end of data)"),
    ("text after a closing quote", HEADER + '1,"2"x,3\n', 2, "not readable as CSV"),
    ("not UTF-8", (HEADER + "1,2,3\n2,2,\xff\n").encode("latin-1"), 3,
     "not UTF-8 text (byte 5 of the line is b'\\xff')"),
]
# Refused only once a window is taken from them: (name, text, settings, line(s), words).
WINDOWS = [
    ("fewer usable requests than the window", HEADER + "0,5,5\n1,0,5\n2,5,5\n", {"requests": 3},
     None, "has 2 usable requests (1 row with 0 prompt or reply tokens left out); the window "
           "needs 3 (trace_start 0 + requests 3)"),
    ("a window beyond the end", HEADER + "0,5,5\n1,5,5\n2,5,5\n", {"requests": 2, "trace_start": 2},
     None, "has 3 usable requests; the window needs 4 (trace_start 2 + requests 2)"),
    ("a window arriving at one moment", HEADER + "0,5,5\n1,5,5\n1,5,5\n1,0,0\n1,5,5\n",
     {"requests": 3, "trace_start": 1}, "lines 3 to 6",
     "the window's 3 requests all arrive at one moment, so their spacing cannot be scaled to a "
     "load (arrivals=recorded); take another window, or arrivals=poisson"),
    ("a window of one request", HEADER + "0,5,5\n1,5,5\n", {"requests": 1}, "line 2",
     "a window of one request has no spacing of its own to scale to a load "
     "(arrivals=recorded); take more requests, or arrivals=poisson"),
]


def named(line):
    return "" if line is None else (line if isinstance(line, str) else f"line {line}")


@pytest.mark.parametrize("name, text, line, words", FILES, ids=[f[0] for f in FILES])
def test_the_api_refuses_a_bad_file_naming_its_line(name, text, line, words):
    with pytest.raises(ValueError) as refused:
        sim.read_trace(text)
    message = str(refused.value)
    assert message.startswith("the trace") and words in message
    assert (f"the trace, {named(line)}: " in message) if line else ", line" not in message
    assert message.count("\n") == 0
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        sim.compare(trace=text)  # the same words wherever the trace is given


@pytest.mark.parametrize("name, text, line, words", FILES, ids=[f[0] for f in FILES])
def test_the_oracle_refuses_it_on_the_same_line(name, text, line, words):
    with pytest.raises(oracle.Refused) as refused:
        oracle.read_trace(text)
    assert refused.value.line == line


@pytest.mark.parametrize("name, text, settings, line, words", WINDOWS, ids=[w[0] for w in WINDOWS])
def test_the_api_refuses_a_window_it_cannot_take(name, text, settings, line, words):
    with pytest.raises(ValueError) as refused:
        sim.compare(trace=text, **settings)
    assert str(refused.value) == f"the trace{', ' + line if line else ''}{':' if line else ''} {words}"
    with pytest.raises(oracle.Refused):
        oracle.compare(trace=text, traffic="own", **settings)
    if "moment" in words or "one request" in words:  # Poisson arrivals need no spacing
        assert sim.compare(trace=text, arrivals="poisson", **settings)["shared"]["goodput"] >= 0


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True,
                          input=stdin, cwd=ROOT, timeout=60)


def refused(done, words):
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.startswith("python -m sim: error: ") and done.stderr.count("\n") == 1
    assert words in done.stderr


@pytest.mark.parametrize("name, text, line, words", FILES[::3] + FILES[1::3],
                         ids=[f[0] for f in FILES[::3] + FILES[1::3]])
def test_the_command_line_refuses_a_bad_file_with_exit_2(tmp_path, name, text, line, words):
    path = tmp_path / "mine.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    refused(cli("compare", "--trace", str(path)), f"{path}{', ' + named(line) if line else ''}")
    refused(cli("compare", "--trace", str(path)), words)


def test_the_command_line_refuses_standard_input_and_windows(tmp_path):
    bad = FILES[9][1]
    refused(cli("traffic", "--trace", "-", stdin=bad), "standard input, line 5: the time '1.999'")
    for name, text, settings, line, words in WINDOWS:
        flags = [f"--{k.replace('_', '-')}={v}" for k, v in settings.items()]
        path = tmp_path / "window.csv"
        path.write_text(text)
        refused(cli("rate", "--trace", str(path), *flags), words)


@pytest.mark.parametrize("args, words", [
    (["compare", "--traffic", "own"], "--traffic own needs a trace file of your own: --trace FILE"),
    (["compare", "--traffic", "azure-chat", "--trace", "x.csv"],
     "--trace FILE means --traffic own; got --traffic azure-chat as well"),
    (["compare", "--trace", "no such file.csv"],
     "cannot read the trace file 'no such file.csv': No such file or directory"),
    (["compare", "--traffic", "azure"], "traffic must be one of lesson, azure-chat, azure-code, own"),
    (["compare", "--arrivals", "bursty"], "arrivals must be one of recorded, poisson; got 'bursty'"),
    (["compare", "--trace-start", "-1"], "trace_start must be a whole number from 0 to 1,000,000,000"),
    (["compare", "--trace-start", "2.5"], "trace_start must be a whole number"),
    (["compare", "--traffic", "azure-code", "--trace-start", "8300"],
     "Azure LLM inference trace 2023 (code) has 8,819 usable requests; the window needs 8,900"),
    (["sweep", "--traffic", "azure-chat", "--over", "prompt", "--values", "200", "4000"],
     "with a trace (traffic=azure-chat) every request has the trace's own prompt length, so "
     "prompt has no effect: sweep over another setting, or use traffic=lesson"),
    (["sweep", "--traffic", "azure-code", "--over", "reply", "--values", "20"], "reply has no effect"),
    (["trace", "--traffic", "azure-chat"], "the trace command walks through the lesson's own traffic"),
])
def test_the_command_line_refuses_settings_it_cannot_take(args, words):
    refused(cli(*args), words)


@pytest.mark.parametrize("call, words", [
    (lambda: sim.compare(traffic="own"), "traffic=own needs a trace of your own"),
    (lambda: sim.rate(traffic="own"), "traffic=own needs a trace of your own"),
    (lambda: sim.traffic(traffic="own", requests=3), "traffic=own needs a trace of your own"),
    (lambda: sim.ratio(traffic="azure-chat", trace=FILES[9][1]),
     "trace= means traffic=own; got traffic='azure-chat' as well"),
    (lambda: sim.compare(traffic="lesson", trace="x"), "trace= means traffic=own"),
    (lambda: sim.Lab().compare(Settings(traffic="own")), "traffic=own needs a trace of your own"),
    (lambda: sim.Lab().sweep(Settings(traffic="azure-chat"), "reply", [20]), "reply has no effect"),
    (lambda: sim.read_trace(42), "a trace is a path, a text or a file; got int"),
    (lambda: sim.compare(traffic="azure-chat", requests=20_000),
     "(conversation) has 19,366 usable requests; the window needs 20,000"),
])
def test_the_api_refuses_settings_it_cannot_take(call, words):
    with pytest.raises(ValueError) as refused_:
        call()
    assert words in str(refused_.value)


def test_a_refusal_changes_nothing():
    """A lab that replays your trace keeps it when a newer one is refused (the file, the
    window or the spacing), and its cached runs stay right."""
    lab = sim.Lab()
    good = HEADER + "".join(f"{k * 0.5},{100 + 37 * k % 900},{5 + k % 40}\n" for k in range(80))
    s = Settings(requests=50, rps=2.0)
    first = lab.compare(s, trace=good)
    runs = lab.simulations
    for text, settings in [(f[1], {}) for f in FILES] + [(w[1], w[2]) for w in WINDOWS]:
        with pytest.raises(ValueError):
            lab.compare(Settings(**{"requests": 50, **settings}), trace=text)
    assert lab.own is not None and lab.compare(s.but(traffic="own")) == first
    assert lab.simulations == runs  # scored again from the cache, not simulated again
