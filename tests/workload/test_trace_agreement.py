"""The engine agrees with the step-by-step oracle on real traffic, value for value: on random
settings drawn from both shipped traces (random windows, both arrivals, every explorer
option), and on generated trace files in every form the spec accepts, with the quirks it
allows (BOM, CRLF, quoting, extra columns, failed rows, equal times); and a generated fault
is refused by both, on the same line."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

import oracle
import sim
from agreement import agree as same
from sim.settings import CHIPS, FIELDS, Settings
from sim.workload.tracefile import read_text
from sim.workload.window import Window

SIZES = {"azure-chat": 19_366, "azure-code": 8_819}


def agree(trace=None, **settings):
    """The engine's compare, each request and the traffic summary against the oracle's (both
    refuse, or both give the same numbers: tests/agreement.py)."""
    try:
        oracle.requests_of(oracle.options(**settings), trace)  # (where a trace is refused)
    except oracle.Refused:
        with pytest.raises(ValueError):
            sim.Lab().compare(Settings(**settings), trace=trace)
        return None
    got = same(Settings(**settings), trace)
    summary = sim.Lab().traffic(Settings(**settings), trace=trace)
    assert {k: summary[k] for k in summary if k != "name"} == oracle.traffic(trace=trace, **settings)
    return got


def slider(rng, name):
    return rng.choice(FIELDS[name].metadata["slider"])


def random_trace_settings(rng):
    """A window of a shipped trace and every explorer option, as a user could set them (at
    most 8 GPUs: the oracle walks every GPU's every step)."""
    traffic = rng.choice(tuple(SIZES))
    requests = rng.choice((20, 60, 120, 200, 300, 300, 600))
    gpus = rng.choice((2, 2, 3, 4, 5, 8))
    return dict(
        traffic=traffic, arrivals=rng.choice(("recorded", "poisson")), requests=requests,
        trace_start=rng.randrange(SIZES[traffic] - requests + 1), seed=rng.randrange(2**32),
        rps=rng.choice([v for v in FIELDS["rps"].metadata["slider"] if v <= 20]) * gpus / 2,
        link=slider(rng, "link"),
        ttft_target=slider(rng, "ttft_target"), gap_target=slider(rng, "gap_target"),
        gpus=gpus, readers=rng.randint(1, gpus - 1),
        routing=rng.choice(("alternate", "least-loaded")), chunk=slider(rng, "chunk"),
        link_sharing=rng.choice(("free", "queued")), layerwise=rng.choice((0, 1)),
        local_below=rng.choice((0, 0, 500, 1500, 4000)), reader_gpu=rng.choice(CHIPS),
        writer_gpu=rng.choice(CHIPS), slots=slider(rng, "slots"))


rng = random.Random(20261201)
CASES = [random_trace_settings(rng) for _ in range(240)]


@pytest.mark.parametrize("settings", CASES, ids=lambda s: "{traffic}-{trace_start}+{requests}-"
                         "{arrivals}-{gpus}gpus".format(**s))
def test_random_windows_of_the_shipped_traces(settings):
    assert agree(**settings) is not None


def test_the_cases_cover_every_option():
    assert {c["traffic"] for c in CASES} == set(SIZES)
    for name in ("arrivals", "routing", "link_sharing", "layerwise", "reader_gpu", "writer_gpu"):
        assert len({c[name] for c in CASES}) == len(FIELDS[name].metadata["choices"] or (0, 1))
    assert {c["requests"] for c in CASES} >= {20, 600} and any(c["chunk"] for c in CASES)
    assert max(c["trace_start"] for c in CASES) > 15_000 and any(c["local_below"] for c in CASES)


# ---- generated trace files ----

TIME_NAMES = ("timestamp", "arrival_s", "arrived_at")
PROMPT_NAMES = ("ContextTokens", "prompt_tokens", "num_prefill_tokens", "Request tokens",
                "input_length")
REPLY_NAMES = ("GeneratedTokens", "reply_tokens", "num_decode_tokens", "Response tokens",
               "output_length")


def civil(days):
    """(y, m, d) of a day count from 1970-01-01 (H. Hinnant's algorithm, inverted)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


@st.composite
def time_texts(draw, n, form):
    """n non-decreasing times of one form, written as the tools write them (equal times
    included)."""
    steps = draw(st.lists(st.one_of(st.just(0), st.integers(1, 10**6), st.integers(1, 10**13)),
                          min_size=n, max_size=n))
    if form == "date-time":
        ns = draw(st.integers(0, 60 * 365 * 86_400)) * 10**9
        sep = draw(st.sampled_from(" T"))
        out = []
        for step in steps:
            ns += step
            seconds, fraction = divmod(ns, 10**9)
            days, rest = divmod(seconds, 86_400)
            y, m, d = civil(days)
            text = f"{y:04d}-{m:02d}-{d:02d}{sep}{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
            digits = f"{fraction:09d}".rstrip("0")
            width = draw(st.integers(len(digits), 9))
            if width:  # Azure writes 7 digits; a fraction of 0 may be left out
                text += "." + f"{fraction:09d}"[:width]
            out.append(text)
        return out
    if form == "seconds":  # micro-units, written with as many decimals as shown
        units, out = draw(st.integers(0, 10**9)), []
        for step in steps:
            units += step // 1000
            whole, micro = divmod(units, 10**6)
            decimals = f"{micro:06d}".rstrip("0")
            shown = draw(st.sampled_from(("", "0", "00")))
            text = f"{whole}.{decimals}{shown}" if decimals or shown else str(whole)
            if text.startswith("0.") and draw(st.booleans()):
                text = text[1:]  # ".25"
            out.append(text)
        return out
    ms, out = draw(st.integers(0, 10**12)), []
    for step in steps:
        ms += step // 10**6
        out.append(ms)
    return out


counts = st.one_of(st.integers(1, 9000), st.just(0), st.integers(0, 3))


def quoted(draw, text):
    if draw(st.integers(0, 3)) == 0:
        return '"' + text.replace('"', '""') + '"'
    return text


@st.composite
def trace_texts(draw):
    """A trace file in one of the forms the spec accepts, with the quirks it allows."""
    n = draw(st.integers(1, 30))
    form = draw(st.sampled_from(("date-time", "seconds", "seconds", "milliseconds")))
    times = draw(time_texts(n, form))
    prompts = draw(st.lists(counts, min_size=n, max_size=n))
    replies = draw(st.lists(counts, min_size=n, max_size=n))
    ends = draw(st.sampled_from(("\n", "\r\n", "mixed")))
    lines = []
    if form == "milliseconds":  # JSON Lines, Mooncake's form
        for t, p, r in zip(times, prompts, replies):
            obj = {"timestamp": t, "input_length": p, "output_length": r}
            if draw(st.booleans()):
                obj["hash_ids"] = draw(st.lists(st.integers(0, 99), max_size=3))
            keys = draw(st.permutations(list(obj)))
            lines.append(json.dumps({k: obj[k] for k in keys},
                                    separators=draw(st.sampled_from(((",", ":"), (", ", ": "))))))
    else:
        names = [draw(st.sampled_from(TIME_NAMES)), draw(st.sampled_from(PROMPT_NAMES)),
                 draw(st.sampled_from(REPLY_NAMES))]
        names = [draw(st.sampled_from((x, x.upper(), x.lower(), f" {x} "))) for x in names]
        extra = draw(st.lists(st.sampled_from(("note", "Model", "prompt_tokens", "ContextTokens",
                                               "Log Type", "")), max_size=3))
        order = draw(st.permutations(list(range(3 + len(extra)))))
        header = names + extra
        lines.append(",".join(quoted(draw, header[k]) for k in order))
        for t, p, r in zip(times, prompts, replies):
            # a column named for a role that is not the one found (the leftmost of its names
            # is) holds counts too; the others anything
            cells = [t, str(p), str(r)] + [
                str(draw(counts)) if name in ("prompt_tokens", "ContextTokens") else
                draw(st.sampled_from(("x", "a, b", 'say "hi"', "two\nlines", ""))) for name in extra]
            pad = draw(st.sampled_from(("", " ", "  ")))
            lines.append(",".join(quoted(draw, pad + cells[k] + pad) if "," not in cells[k] and
                                  '"' not in cells[k] and "\n" not in cells[k]
                                  else '"' + cells[k].replace('"', '""') + '"' for k in order))
    out = "\ufeff" if draw(st.booleans()) else ""
    for line in lines:
        for _ in range(draw(st.integers(0, 1)) * draw(st.integers(0, 2))):
            out += draw(st.sampled_from(("", "   ", "\t"))) + "\n"  # blank lines
        end = draw(st.sampled_from(("\n", "\r\n"))) if ends == "mixed" else ends
        out += line + end
    return out if draw(st.booleans()) else out.rstrip("\r\n")


@hsettings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace_texts(), st.integers(0, 2**32), st.sampled_from((0.5, 4.0, 40.0)))
def test_generated_files_read_and_replay_alike(text, seed, rps):
    try:
        want = oracle.read_trace(text)
    except oracle.Refused:  # all the times at one moment is the only refusal it may reach
        pytest.fail("a generated file is one the spec accepts")
    got = sim.read_trace(text)
    assert list(zip(got.lines, got.prompts, got.replies)) == [row[:1] + row[2:] for row in want["usable"]]
    assert (got.usable, got.left_out) == (len(want["usable"]), want["left_out"])
    n = got.usable
    if not n:
        return
    taus = oracle.seconds_after_first(want["form"], [row[1] for row in want["usable"]])
    assert Window(got, 0, n).taus == taus  # exactly
    start = seed % n
    for arrivals in ("recorded", "poisson"):
        agree(trace=text, traffic="own", arrivals=arrivals, requests=n - start, trace_start=start,
              seed=seed, rps=rps, gpus=3, readers=1)


FAULTS = {  # how to spoil one data row's time, prompt or reply
    "time": ("1 s", "2023-13-01 00:00:00", "2023-11-16 24:00:00", "-3", "1e3", "0x10", "", "0",
             "2023-11-16 18:15:46"),
    "count": ("2.5", "-1", "x", "", "1e3", "½", "²", "0"),
}


@hsettings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace_texts(), st.data())
def test_a_spoiled_row_is_refused_by_both_on_its_line(text, data):
    trace = read_text(text)
    if not trace.usable or text.lstrip("\ufeff").lstrip().startswith("{"):
        return
    lines = text.split("\n")
    k = data.draw(st.sampled_from(trace.lines)) - 1  # a data row that is on one line
    cells = lines[k].rstrip("\r").split(",")
    if any('"' in c for c in cells):
        return
    column = data.draw(st.integers(0, len(cells) - 1))
    kind = data.draw(st.sampled_from(tuple(FAULTS)))
    cells[column] = data.draw(st.sampled_from(FAULTS[kind]))
    lines[k] = ",".join(cells) + ("\r" if lines[k].endswith("\r") else "")
    spoiled = "\n".join(lines)
    try:
        oracle.read_trace(spoiled)
    except oracle.Refused as e:
        line = e.line
    else:
        line = None  # the spoiled column was one the trace ignores
    if line is None:
        sim.read_trace(spoiled)
    else:
        with pytest.raises(ValueError, match=f"^the trace, line {line}: "):
            sim.read_trace(spoiled)
