"""The oracle: the explorer's model written straight from the spec, one step at a time.

It follows the model's definition (docs/model.md, written from the team's specs
lesson-model.md, explore-model.md, traffic.md and chips-and-rules.md) and nothing else: it
shares no code with `sim/` (constants included) and does not read it. It is deliberately
naive: every read, every writing step and every chunk of every GPU is walked, every gap is
kept, for least-loaded routing every GPU is walked forward to each routing moment and its jobs
counted, and for Dynamo's queue rule every prompt sent to the readers before a request is
looked at again. A trace file is read whole, character by character (its own CSV reader), and
its times compared exactly. The fast engine must agree with it.

The shipped traces are read from DATA, the folder the project ships them in (a test's
conftest sets it): the oracle reads the data files, never the engine's code.
"""

import gzip
import json
import math
import random
import re
from fractions import Fraction
from math import fsum
from pathlib import Path

WEIGHTS = 8_030_261_248  # Llama-3-8B parameters
# GPU kinds, datasheet figures, bf16 dense: (peak FLOP/s, memory B/s)
KINDS = {
    "A100": (312e12, 2.039e12),  # A100 80 GB SXM
    "H100": (989.5e12, 3.35e12),  # H100 SXM
    "B200": (2.25e15, 8.0e12),  # B200 HGX, 1,000 W; NVIDIA's "up to 8 TB/s"
}
# chips-and-rules.md, "Power": (TDP in W, example price in $ per GPU-hour)
POWER_AND_PRICE = {
    "A100": (400, 1.30),  # A100 80 GB SXM
    "H100": (700, 3.00),  # H100 SXM
    "B200": (1000, 5.50),  # B200 HGX
}
READ_COST = 2 * WEIGHTS / 312e12  # A100: seconds to read one prompt token
STEP = 2 * WEIGHTS / 2.039e12  # A100: one writing step
CACHE_PER_TOKEN = 131_072  # 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes
SLOTS = 32
LAYERS = 32
# A job that reaches a GPU within a nanosecond after a step's end counts as there at its end:
# a clock that adds one step at a time and one that multiplies round differently, and a tie
# must not depend on which (the spec's times are exact; floats are not).
EPS = 1e-9


def read_cost(kind, cap=1.0):
    """Capped at share `cap` of its TDP, a GPU reads at cap x its peak FLOP/s (the spec:
    2 x weights / (peak x c)); its writing step is unchanged."""
    return 2 * WEIGHTS / (KINDS[kind][0] * cap)


def step_time(kind):
    return 2 * WEIGHTS / KINDS[kind][1]


def draw(rps, prompt, reply, requests, seed):
    rng = random.Random(seed)
    t = 0.0
    jobs = []
    for _ in range(requests):
        t += rng.expovariate(rps)
        p = round(prompt * rng.choice((0.5, 1, 1.5)))
        r = round(reply * rng.choice((0.5, 1, 1.5)))
        jobs.append((t, p, r))
    return jobs


class Job:
    """A request as one GPU sees it: when it reaches the GPU and whether the GPU reads it."""

    def __init__(self, index, reach, prompt, reply, read):
        self.index, self.reach, self.prompt, self.reply, self.read = index, reach, prompt, reply, read


class Words:
    """What happened to one request's reply: its first word, every gap, its last word."""

    def __init__(self, first):
        self.first = first
        self.gaps = []
        self.last = None  # known once its last word is made


class Gpu:
    """The lesson's loop on one GPU, walked one action at a time.

    Jobs are given in the order they reach it (equal times by request index). `walk(until)`
    performs, in order, every action of the loop that begins strictly before `until`."""

    def __init__(self, kind, slots, cap=1.0):
        self.read_cost, self.step, self.slots = read_cost(kind, cap), step_time(kind), slots
        self.clock = 0.0
        self.queue = []  # jobs given to it, in the order they reached it
        self.nxt = 0  # the next job of the queue to take
        self.writing = []  # [index, words still to write, time of its previous word]
        self.words = {}  # index -> Words
        self.inside = []  # indices given to it whose last word is not known to be made
        self.most = 0  # the most replies in its slots at a writing step
        # to watch it (watch.md): (kind, start, end, request, replies, tokens) of every read
        # and step, or None when nobody watches
        self.events = None

    def give(self, job):
        self.queue.append(job)
        if job.read or job.reply > 1:
            self.inside.append(job.index)
        # else: it landed with its only word made, at this moment: its last word is not after it

    def walk(self, until=math.inf):
        while True:
            if not self.writing:
                if self.nxt == len(self.queue):
                    return  # nothing to do until it is given another job
                if self.queue[self.nxt].reach > self.clock + EPS:
                    self.clock = self.queue[self.nxt].reach  # the clock jumps to the arrival
            if self.clock >= until - EPS:  # it begins at the moment, as far as floats tell
                return
            job = self.arrived()
            if job is not None and job.read:  # the whole prompt at once; no reply moves meanwhile
                before = self.clock
                self.clock += job.prompt * self.read_cost
                if self.events is not None:
                    self.events.append(("read", before, self.clock, job.index, 0, job.prompt))
                self.take(job, self.clock)
                continue  # a read is the whole round
            # otherwise: jobs that have arrived with nothing to read take free slots (first
            # word made when they arrived), then one writing step, in the same round
            while job is not None and not job.read:
                self.take(job, job.reach)
                job = self.arrived()
            if not self.writing:
                continue
            self.most = max(self.most, len(self.writing))
            self.write(self.step)  # one writing step: every reply in a slot gets one word

    def arrived(self):
        """The next job, if it has arrived and a slot is free."""
        job = self.queue[self.nxt] if self.nxt < len(self.queue) else None
        if job is not None and job.reach <= self.clock + EPS and len(self.writing) < self.slots:
            return job
        return None

    def take(self, job, first):
        self.nxt += 1
        self.words[job.index] = Words(first)
        if job.reply > 1:
            self.writing.append([job.index, job.reply - 1, first])
        else:
            self.words[job.index].last = first

    def write(self, duration, tokens=0):
        """A step of `duration` seconds: every reply in a slot gets one word (and, chunked,
        `tokens` prompt tokens are read)."""
        if self.events is not None:
            self.events.append(("step", self.clock, self.clock + duration, -1,
                                len(self.writing), tokens))
        self.clock += duration
        for s in self.writing:
            self.words[s[0]].gaps.append(self.clock - s[2])
            s[2] = self.clock
            s[1] -= 1
            if s[1] == 0:
                self.words[s[0]].last = self.clock
        self.writing = [s for s in self.writing if s[1] > 0]

    def load(self, moment):
        """Jobs in it at `moment`: given to it, and whose last word comes after that moment."""
        def done(i):
            return i in self.words and self.words[i].last is not None and self.words[i].last <= moment
        self.inside = [i for i in self.inside if not done(i)]
        return len(self.inside)


class ChunkedGpu(Gpu):
    """The chunked layout's loop: up to `chunk` prompt tokens read in each writing step."""

    def __init__(self, kind, slots, chunk, cap=1.0):
        super().__init__(kind, slots, cap)
        self.chunk = chunk
        self.reading = []  # [job, tokens still to read], in the order they started

    def walk(self, until=math.inf):
        while True:
            # 1. nothing read or written and the next job not arrived: the clock jumps to it
            if not self.reading and not self.writing:
                if self.nxt == len(self.queue):
                    return
                if self.queue[self.nxt].reach > self.clock + EPS:
                    self.clock = self.queue[self.nxt].reach
            if self.clock >= until - EPS:  # it begins at the moment, as far as floats tell
                return
            # 2. arrived prompts start being read, in order, while a slot is free
            while (self.nxt < len(self.queue) and self.queue[self.nxt].reach <= self.clock + EPS
                   and len(self.reading) + len(self.writing) < self.slots):
                job = self.queue[self.nxt]
                self.nxt += 1
                self.reading.append([job, job.prompt])
            # 3. one step: up to `chunk` tokens read, in order; every reply in a slot gets a word
            budget, tokens, finished = self.chunk, 0, []
            for r in self.reading:
                take = min(budget, r[1])
                r[1] -= take
                budget -= take
                tokens += take
                if r[1] == 0:
                    finished.append(r[0])
            self.reading = [r for r in self.reading if r[1] > 0]
            self.write(max(self.step, (tokens + len(self.writing)) * self.read_cost), tokens)
            # 4. a prompt whose last token was read: first word at the step's end, written next
            for job in finished:
                self.words[job.index] = Words(self.clock)
                if job.reply > 1:
                    self.writing.append([job.index, job.reply - 1, self.clock])
                else:
                    self.words[job.index].last = self.clock


def serve_pool(gpus, pool_jobs, routing, alternate_key):
    """Route jobs (already in the order they reach the pool) to GPUs, then run every GPU out.

    alternate_key(n, job): the GPU (position in `gpus`) the n-th job goes to under `alternate`."""
    for n, job in enumerate(pool_jobs):
        if routing == "alternate":
            choice = alternate_key(n, job)
        elif routing == "least-loaded":
            for gpu in gpus:
                gpu.walk(job.reach)  # only work begun before the moment
            loads = [gpu.load(job.reach) for gpu in gpus]
            choice = loads.index(min(loads))  # equal counts: the lowest index
        else:
            raise ValueError(f"routing {routing!r}")
        gpus[choice].give(job)
    out = {}
    for gpu in gpus:
        gpu.walk()
        for i, w in gpu.words.items():
            out[i] = (w.first, w.gaps)
    return out


def kinds(o):
    """(kind, power cap) of every GPU: the readers' first, in every layout."""
    return [(o["reader_gpu"], o["reader_power"]) if k < o["readers"]
            else (o["writer_gpu"], o["writer_power"]) for k in range(o["gpus"])]


def watched(gpus, lane, watching):
    """To watch a run: each GPU records its events, and (lane, index, GPU) joins `watching`."""
    if watching is not None:
        for k, gpu in enumerate(gpus):
            gpu.events = []
            watching.append((lane, k, gpu))


def shared_layout(jobs, o, chunked=False, watching=None):
    """Shared (or chunked): every GPU reads and writes; a request reaches the pool at arrival."""
    if chunked:
        gpus = [ChunkedGpu(kind, o["slots"], o["chunk"], cap) for kind, cap in kinds(o)]
    else:
        gpus = [Gpu(kind, o["slots"], cap) for kind, cap in kinds(o)]
    watched(gpus, "gpu", watching)
    pool = [Job(i, a, p, r, read=True) for i, (a, p, r) in enumerate(jobs)]
    pool.sort(key=lambda job: (job.reach, job.index))
    return serve_pool(gpus, pool, o["routing"], lambda n, job: job.index % len(gpus))


def waiting_for_a_reader(reads, arrival):
    """Dynamo's count: the prompts sent to the readers so far (all before this request, in
    arrival order) whose reading starts strictly after its arrival, over all readers."""
    return sum(1 for _, start, _, _, _ in reads if start > arrival)


def is_local(o, p, reads, arrival):
    """Read by a writer itself: shorter than local_below, or (local_queue > 0) arriving while
    at least local_queue prompts wait for a reader."""
    if p < o["local_below"]:
        return True
    return o["local_queue"] > 0 and waiting_for_a_reader(reads, arrival) >= o["local_queue"]


def crossings(jobs, o, local=None, seen=None):
    """The split's readers and link: [(index, landing)] for every prompt a reader reads; the
    indices of the requests read locally are added to `local`. seen: a list, to watch the
    run: each read and each crossing, (lane, index, kind, start, end, request, replies, tokens)."""
    cost = read_cost(o["reader_gpu"], o["reader_power"])
    free = [0.0] * o["readers"]
    reads = []  # (index, start, read, end, T)
    for i, (a, p, r) in enumerate(jobs):  # one queue in arrival order (equal: by index)
        if is_local(o, p, reads, a):
            if local is not None:
                local.append(i)
            continue
        starts = [max(f, a) for f in free]
        k = starts.index(min(starts))  # earliest start, the lowest index on equal starts
        start = starts[k]
        read = p * cost
        end = start + read
        free[k] = end
        reads.append((i, start, read, end, p * CACHE_PER_TOKEN / (o["link"] * 1e9)))
        if seen is not None:
            seen.append(("reader", k, "read", start, end, i, 0, p))
    landed = []
    if o["link_sharing"] == "free":
        for i, start, read, end, T in reads:
            if o["layerwise"]:  # it starts to cross once its first layer is read
                landed.append((i, max(end + T / LAYERS, start + read / LAYERS + T)))
                departs = start + read / LAYERS
            else:
                landed.append((i, end + T))
                departs = end
            if seen is not None:
                seen.append(("link", 0, "cross", departs, landed[-1][1], i, 0, 0))
    elif o["link_sharing"] == "queued":
        def ready(x):
            i, start, read, end, T = x
            return start + read / LAYERS if o["layerwise"] else end
        link_free = 0.0
        for x in sorted(reads, key=lambda x: (ready(x), x[0])):
            i, start, read, end, T = x
            if o["layerwise"]:
                go = max(start + read / LAYERS, link_free)
                land = max(go + T, end + T / LAYERS)
            else:
                go = max(end, link_free)
                land = go + T
            link_free = land  # it holds the link until it has crossed
            landed.append((i, land))
            if seen is not None:
                seen.append(("link", 0, "cross", go, land, i, 0, 0))
    else:
        raise ValueError(f"link_sharing {o['link_sharing']!r}")
    return landed


def split_layout(jobs, o, peak=None, watching=None, seen=None):
    """Split: readers read (or, local, a writer reads); caches cross; the writers write.
    watching, seen: to watch the run (see watched and crossings)."""
    local = []
    pool = [Job(i, land, jobs[i][1], jobs[i][2], read=False)
            for i, land in crossings(jobs, o, local, seen)]
    pool += [Job(i, jobs[i][0], jobs[i][1], jobs[i][2], read=True) for i in local]
    pool.sort(key=lambda job: (job.reach, job.index))
    writers = [Gpu(kind, o["slots"], cap) for kind, cap in kinds(o)[o["readers"]:]]
    watched(writers, "writer", watching)
    out = serve_pool(writers, pool, o["routing"], lambda n, job: n % len(writers))
    if peak is not None:
        peak.extend(w.most for w in writers)
    return out


def nearest_rank(values, p):
    values = sorted(values)
    return values[math.ceil(p / 100 * len(values)) - 1]


def metrics(jobs, out, ttft_target, gap_target):
    ttfts, gaps, good = [], [], 0
    for i, (arrival, _, _) in enumerate(jobs):
        first, g = out[i]
        ttft = first - arrival
        ttfts.append(ttft)
        gaps.extend(g)
        if ttft <= ttft_target and max(g, default=0.0) <= gap_target:
            good += 1
    return {
        "goodput": good / len(jobs),
        "good": good,
        "ttft_p50": nearest_rank(ttfts, 50),
        "ttft_p99": nearest_rank(ttfts, 99),
        "ttft_max": max(ttfts),
        "gap_p50": nearest_rank(gaps, 50) if gaps else 0.0,
        "gap_p99": nearest_rank(gaps, 99) if gaps else 0.0,
        "gap_max": max(gaps, default=0.0),
    }


DEFAULTS = dict(rps=4.0, prompt=2000, reply=200, link=25.0, ttft_target=0.5, gap_target=0.1,
                requests=600, seed=7, traffic="lesson", arrivals="recorded", trace_start=0,
                gpus=2, readers=1, routing="alternate", chunk=0, link_sharing="free",
                layerwise=0, local_below=0, reader_gpu="A100", writer_gpu="A100", slots=32,
                attainment=0.9, reader_power=1.0, writer_power=1.0, reader_price=0.0,
                writer_price=0.0, local_queue=0)


def options(**given):
    unknown = set(given) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown settings {sorted(unknown)}")
    o = {**DEFAULTS, **given}
    if not 1 <= o["readers"] <= o["gpus"] - 1:
        raise ValueError("readers must be 1 .. gpus - 1")
    return o


def layouts(o):
    return ("shared", "split", "chunked") if o["chunk"] > 0 else ("shared", "split")


def run(layout, jobs, o):
    if layout == "shared":
        return shared_layout(jobs, o)
    if layout == "chunked":
        return shared_layout(jobs, o, chunked=True)
    return split_layout(jobs, o)


def compare(trace=None, **settings):
    """Every layout's metrics. trace: for traffic=own, a text, bytes or read_trace's."""
    o = options(**settings)
    jobs = requests_of(o, trace)
    return {layout: metrics(jobs, run(layout, jobs, o), o["ttft_target"], o["gap_target"])
            for layout in layouts(o)}


def holds(layout, o, rps, trace=None):
    """At this load, are at least `attainment` of the requests good?"""
    jobs = requests_of({**o, "rps": rps}, trace)
    m = metrics(jobs, run(layout, jobs, o), o["ttft_target"], o["gap_target"])
    return m["goodput"] >= o["attainment"]


def rate_of(layout, o, trace=None):
    """DistServe's rate goodput, req/s per GPU, by the spec's bisection on a log scale."""
    lo, hi = 0.01, 1000.0
    if not holds(layout, o, lo, trace):
        return 0.0
    if holds(layout, o, hi, trace):
        return hi / o["gpus"]
    for _ in range(30):
        mid = math.sqrt(lo * hi)
        if holds(layout, o, mid, trace):
            lo = mid
        else:
            hi = mid
    return lo / o["gpus"]


def rate(trace=None, **settings):
    """Rate goodput per layout; the same settings as compare, the rps setting replaced."""
    o = options(**settings)
    return {layout: rate_of(layout, o, trace) for layout in layouts(o)}


def ratio(trace=None, **settings):
    """At fixed gpus: the split's goodput and rate goodput for readers = 1 .. gpus - 1."""
    o = options(**settings)
    rows = []
    for r in range(1, o["gpus"]):
        ro = {**o, "readers": r}
        jobs = requests_of(ro, trace)
        m = metrics(jobs, split_layout(jobs, ro), ro["ttft_target"], ro["gap_target"])
        rows.append({"readers": r, "goodput": m["goodput"], "rate": rate_of("split", ro, trace)})
    return rows


def economics(**settings):
    """chips-and-rules.md, "Economics": per layout the rate goodput, what the gpus GPUs cost
    an hour and draw, and the good requests per dollar and per kWh at that rate."""
    o = options(**settings)
    rates = rate(**settings)
    gpus = []  # (price an hour, watts) of each GPU
    for k in range(o["gpus"]):
        pool = "reader" if k < o["readers"] else "writer"
        kind = o[f"{pool}_gpu"]
        tdp, example = POWER_AND_PRICE[kind]
        price = o[f"{pool}_price"] if o[f"{pool}_price"] > 0 else example
        gpus.append((price, tdp * o[f"{pool}_power"]))
    price_per_hour = fsum(price for price, _ in gpus)
    watts = fsum(w for _, w in gpus)
    out = {}
    for layout, r in rates.items():
        out[layout] = {"rate": r, "price_per_hour": price_per_hour, "watts": watts,
                       "per_dollar": r * o["gpus"] * 3600 / price_per_hour,
                       "per_kwh": r * o["gpus"] * 3600 / (watts / 1000)}
    return out


def watch(layout, t0, t1, trace=None, **settings):
    """watch.md: every event of one layout's run that overlaps [t0, t1] (ends after t0 and
    starts before t1), as the loops above walk it: [{"lane", "index", "kind", "start", "end",
    "request", "replies", "tokens"}], by start, lane, index, end."""
    o = options(**settings)
    if not (0 <= t0 < t1 and t1 - t0 <= 10 + EPS):  # (t0 + 10 may round above 10 s)
        raise ValueError("a window is 0 <= t0 < t1 with t1 - t0 <= 10")
    if layout not in layouts(o):
        raise ValueError(f"layout {layout!r}")
    jobs = requests_of(o, trace)
    gpus, seen = [], []
    if layout == "split":
        split_layout(jobs, o, watching=gpus, seen=seen)
    else:
        shared_layout(jobs, o, layout == "chunked", watching=gpus)
    for lane, k, gpu in gpus:
        seen += [(lane, k, kind, start, end, request, replies, tokens)
                 for kind, start, end, request, replies, tokens in gpu.events]
    keys = ("lane", "index", "kind", "start", "end", "request", "replies", "tokens")
    events = [dict(zip(keys, e)) for e in seen if e[4] > t0 and e[3] < t1]
    return sorted(events, key=lambda e: (e["start"], e["lane"], e["index"], e["end"]))


# The lesson's names, kept for the tests that use them (one reader, one A100 writer).

def split(jobs, link, peak=None):
    return split_layout(jobs, {**DEFAULTS, "link": link}, peak)


def writer_peak(jobs, link):
    """The most replies the split's writer had in its slots at once."""
    peak = []
    split(jobs, link, peak)
    return peak[0]


# ---- real traffic (traffic.md): trace files, windows, arrivals, the traffic summary ----

DATA = None  # the folder the project ships its traces in (tests/conftest.py sets it)
SHIPPED = {"azure-chat": "AzureLLMInferenceTrace_conv_2023.csv.gz",
           "azure-code": "AzureLLMInferenceTrace_code_2023.csv.gz"}
TIME_COLUMN = ("timestamp", "arrival_s", "arrived_at")
PROMPT_COLUMN = ("ContextTokens", "prompt_tokens", "num_prefill_tokens", "Request tokens",
                 "input_length")
REPLY_COLUMN = ("GeneratedTokens", "reply_tokens", "num_decode_tokens", "Response tokens",
                "output_length")
DATE_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?", re.ASCII)
PLAIN_SECONDS = re.compile(r"\d+(?:\.\d*)?|\.\d+", re.ASCII)
DIGITS = re.compile(r"\d+", re.ASCII)


class Refused(ValueError):
    """A trace the spec refuses, and the line it names (None: the file as a whole)."""

    def __init__(self, line, what):
        super().__init__(f"line {line}: {what}" if line else what)
        self.line = line


def read_trace(source):
    """A trace file's usable requests, whole: {"form", "usable": [(line, time, prompt,
    reply)], "left_out"}. source: its text, its bytes, or what this gave already."""
    if isinstance(source, dict):
        return source
    if isinstance(source, bytes):
        pieces = source.split(b"\n")
        for n, piece in enumerate(pieces, 1):
            try:
                piece.decode("utf-8")
            except UnicodeDecodeError:
                raise Refused(n, "not UTF-8") from None
        source = source.decode("utf-8")
    text = source[1:] if source.startswith("\ufeff") else source
    if not text.strip():
        raise Refused(None, "empty")
    if text.lstrip()[0] == "{":
        rows, counts_are = json_lines(text), int
    else:
        rows, counts_are = csv_data_rows(text), str
    usable, left_out, form, before = [], 0, None, None
    for line, time, prompt, reply in rows:
        value, its_form = time_value(line, time, counts_are)
        if form is None:
            form = its_form
        if its_form != form:
            raise Refused(line, f"time {time!r} is of another form than the first row's")
        if before is not None and value < before:
            raise Refused(line, f"time {time!r} is earlier than the row before's")
        before = value
        p, r = token_count(line, prompt, counts_are), token_count(line, reply, counts_are)
        if p == 0 or r == 0:
            left_out += 1  # a failed or empty request
        else:
            usable.append((line, value, p, r))
    return {"form": form, "usable": usable, "left_out": left_out}


def physical_lines(text):
    """[(line number, the line without its LF)]: lines end at LF (a CR before it stays)."""
    pieces = text.split("\n")
    if pieces[-1] == "":
        pieces.pop()  # the text ends with a line's end
    return list(enumerate(pieces, 1))


def json_lines(text):
    for n, line in physical_lines(text):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict) or not all(k in obj for k in ("timestamp", "input_length",
                                                                   "output_length")):
            raise Refused(n, "not an object with timestamp, input_length and output_length")
        yield n, obj["timestamp"], obj["input_length"], obj["output_length"]


def csv_records(text):
    """[(first line, fields)] of a CSV text, read by RFC 4180 one character at a time; blank
    lines (or of spaces) between records are skipped. (A quote inside a field that is not
    quoted is a character of it, as common CSV readers take it.)"""
    records, i, line, n = [], 0, 1, len(text)
    while i < n:
        end = text.find("\n", i)
        if not (text[i:] if end < 0 else text[i:end]).strip():  # a blank line
            i, line = (n if end < 0 else end + 1), line + 1
            continue
        first, fields = line, []
        while True:  # a field, then a comma (another field) or the record's end
            value = []
            if text[i:i + 1] == '"':
                i += 1
                while True:
                    if i >= n:
                        raise Refused(first, "a quoted field is not closed")
                    if text[i] == '"':
                        if text[i + 1:i + 2] == '"':
                            value.append('"')
                            i += 2
                            continue
                        i += 1
                        break
                    line += text[i] == "\n"
                    value.append(text[i])
                    i += 1
                if i < n and text[i] not in ",\n" and text[i:i + 2] != "\r\n" and text[i:] != "\r":
                    raise Refused(first, "a quoted field goes on after its closing quote")
            else:
                while i < n and text[i] not in ",\n":
                    if text[i] == "\r" and text[i + 1:i + 2] not in ("\n", ""):
                        raise Refused(first, "a CR inside a field that is not quoted")
                    if text[i] != "\r":
                        value.append(text[i])
                    i += 1
            fields.append("".join(value))
            if i < n and text[i] == "\r":
                i += 1
            if i < n and text[i] == ",":
                i += 1
                continue
            if i < n:  # its line's end
                i, line = i + 1, line + 1
            break
        records.append((first, fields))
    return records


def csv_data_rows(text):
    records = csv_records(text)
    header_line, header = records[0]
    names = [h.strip().lower() for h in header]
    columns = []
    for accepted in (TIME_COLUMN, PROMPT_COLUMN, REPLY_COLUMN):
        lower = [a.lower() for a in accepted]
        found = [k for k, name in enumerate(names) if name in lower]
        if not found:
            raise Refused(header_line, f"no column named one of {accepted}")
        columns.append(found[0])
    if len(records) == 1:
        raise Refused(header_line, "no data rows")
    for line, fields in records[1:]:
        if len(fields) <= max(columns):
            raise Refused(line, "too few values")
        yield line, *(fields[c].strip() for c in columns)


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def month_days(y, m):
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    return (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[m - 1]


def time_value(line, text, counts_are):
    """(the time as a number compared exactly, its form)."""
    if counts_are is int:  # JSON Lines: whole milliseconds
        if type(text) is not int or text < 0:
            raise Refused(line, f"timestamp {text!r} is not whole milliseconds")
        return text, "ms"
    found = DATE_TIME.fullmatch(text)
    if found:
        y, mo, d, h, mi, s = (int(x) for x in found.groups()[:6])
        if (1 <= y and 1 <= mo <= 12 and 1 <= d <= month_days(y, mo) and h < 24 and mi < 60
                and s < 60):
            seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s
            return seconds * 10**9 + int((found.group(7) or "").ljust(9, "0")), "date-time"
    elif PLAIN_SECONDS.fullmatch(text):
        return Fraction(text), "seconds"  # exact, for "earlier than"
    raise Refused(line, f"time {text!r} is neither form")


def token_count(line, value, counts_are):
    if counts_are is str and DIGITS.fullmatch(value):
        return int(value)
    if counts_are is int and type(value) is int and value >= 0:
        return value
    raise Refused(line, f"token count {value!r} is not a whole number of 0 or more")


_shipped = {}


def shipped(name):
    """A trace the project ships, read (by this oracle) from DATA, once per process."""
    if name not in _shipped:
        _shipped[name] = read_trace(gzip.decompress((Path(DATA) / SHIPPED[name]).read_bytes()))
    return _shipped[name]


def window_of(o, trace):
    """[(line, time, prompt, reply)] of the window o asks for."""
    if o["traffic"] == "own":
        if trace is None:
            raise ValueError("traffic=own needs a trace")
        found = read_trace(trace)
    else:
        found = shipped(o["traffic"])
    start, n = o["trace_start"], o["requests"]
    if len(found["usable"]) < start + n:
        raise Refused(None, f"only {len(found['usable'])} usable requests")
    return found["form"], found["usable"][start:start + n]


def seconds_after_first(form, times):
    """tau_i, exactly as the spec works it out from the values as read."""
    if form == "date-time":
        return [(t - times[0]) / 1_000_000_000 for t in times]
    if form == "ms":
        return [(t - times[0]) / 1000 for t in times]
    return [float(t) - float(times[0]) for t in times]  # float(x_i) - float(x_0)


def requests_of(o, trace=None):
    """[(arrival, prompt, reply)] of settings o: the lesson's draws, or a trace's window."""
    if o["traffic"] == "lesson":
        return draw(o["rps"], o["prompt"], o["reply"], o["requests"], o["seed"])
    form, rows = window_of(o, trace)
    n = len(rows)
    if o["arrivals"] == "recorded":
        tau = seconds_after_first(form, [row[1] for row in rows])
        S = tau[-1]
        if S == 0:
            raise Refused(rows[0][0], "the window's requests all arrive at the same moment")
        k = (n - 1) / (o["rps"] * S)
        arrivals = [t * k for t in tau]
    else:
        rng, t, arrivals = random.Random(o["seed"]), 0.0, []
        for _ in rows:
            t += rng.expovariate(o["rps"])
            arrivals.append(t)
    return [(a, row[2], row[3]) for a, row in zip(arrivals, rows)]


def traffic(trace=None, **settings):
    """The spec's traffic summary of the settings' requests."""
    o = options(**settings)
    jobs = requests_of(o, trace)
    n = len(jobs)
    out = {"requests": n, "span_s": jobs[-1][0] - jobs[0][0]}
    for name, k in (("prompt", 1), ("reply", 2)):
        values = [job[k] for job in jobs]
        for p in (50, 90, 99):
            out[f"{name}_p{p}"] = nearest_rank(values, p)
        out[f"{name}_mean"] = math.fsum(values) / n
    gaps = [b[0] - a[0] for a, b in zip(jobs, jobs[1:])]
    m = math.fsum(gaps) / (n - 1) if n > 1 else 0.0
    out["gap_cv"] = (math.sqrt(math.fsum([(g - m) * (g - m) for g in gaps]) / (n - 1)) / m
                     if n > 1 and m != 0 else None)
    if o["traffic"] != "lesson":
        found = read_trace(trace) if o["traffic"] == "own" else shipped(o["traffic"])
        out.update(trace_requests=len(found["usable"]), left_out=found["left_out"])
    return out
