"""The oracle: the explorer's model written straight from the spec, one step at a time.

It follows the model's definition (docs/model.md, written from the team's specs
lesson-model.md, explore-model.md and chips-and-rules.md: power caps, prices, Dynamo's whole
rule) and nothing else: it shares no code with `sim/` (constants included) and does not read
it. It is deliberately naive: every read, every writing step and every chunk of every GPU is
walked, every gap is kept, for least-loaded routing every GPU is walked forward to each routing
moment and its jobs counted, and for Dynamo's queue rule every prompt sent to the readers
before a request is looked at again.
The fast engine must agree with it.
"""

import math
import random
from math import fsum

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
                self.clock += job.prompt * self.read_cost
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

    def write(self, duration):
        """A step of `duration` seconds: every reply in a slot gets one word."""
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
            self.write(max(self.step, (tokens + len(self.writing)) * self.read_cost))
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


def shared_layout(jobs, o, chunked=False):
    """Shared (or chunked): every GPU reads and writes; a request reaches the pool at arrival."""
    if chunked:
        gpus = [ChunkedGpu(kind, o["slots"], o["chunk"], cap) for kind, cap in kinds(o)]
    else:
        gpus = [Gpu(kind, o["slots"], cap) for kind, cap in kinds(o)]
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


def crossings(jobs, o, local=None):
    """The split's readers and link: [(index, landing)] for every prompt a reader reads; the
    indices of the requests read locally are added to `local`."""
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
    landed = []
    if o["link_sharing"] == "free":
        for i, start, read, end, T in reads:
            if o["layerwise"]:
                landed.append((i, max(end + T / LAYERS, start + read / LAYERS + T)))
            else:
                landed.append((i, end + T))
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
                land = max(end, link_free) + T
            link_free = land  # it holds the link until it has crossed
            landed.append((i, land))
    else:
        raise ValueError(f"link_sharing {o['link_sharing']!r}")
    return landed


def split_layout(jobs, o, peak=None):
    """Split: readers read (or, local, a writer reads); caches cross; the writers write."""
    local = []
    pool = [Job(i, land, jobs[i][1], jobs[i][2], read=False)
            for i, land in crossings(jobs, o, local)]
    pool += [Job(i, jobs[i][0], jobs[i][1], jobs[i][2], read=True) for i in local]
    pool.sort(key=lambda job: (job.reach, job.index))
    writers = [Gpu(kind, o["slots"], cap) for kind, cap in kinds(o)[o["readers"]:]]
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
                requests=600, seed=7, gpus=2, readers=1, routing="alternate", chunk=0,
                link_sharing="free", layerwise=0, local_below=0, reader_gpu="A100",
                writer_gpu="A100", slots=32, attainment=0.9, reader_power=1.0,
                writer_power=1.0, reader_price=0.0, writer_price=0.0, local_queue=0)


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


def compare(rps=4.0, prompt=2000, reply=200, link=25.0, ttft_target=0.5, gap_target=0.1,
            requests=600, seed=7, gpus=2, readers=1, routing="alternate", chunk=0,
            link_sharing="free", layerwise=0, local_below=0, reader_gpu="A100",
            writer_gpu="A100", slots=32, attainment=0.9, reader_power=1.0, writer_power=1.0,
            reader_price=0.0, writer_price=0.0, local_queue=0):
    o = options(**locals())
    jobs = draw(o["rps"], o["prompt"], o["reply"], o["requests"], o["seed"])
    return {layout: metrics(jobs, run(layout, jobs, o), o["ttft_target"], o["gap_target"])
            for layout in layouts(o)}


def holds(layout, o, rps):
    """At this load, are at least `attainment` of the requests good?"""
    jobs = draw(rps, o["prompt"], o["reply"], o["requests"], o["seed"])
    m = metrics(jobs, run(layout, jobs, o), o["ttft_target"], o["gap_target"])
    return m["goodput"] >= o["attainment"]


def rate_of(layout, o):
    """DistServe's rate goodput, req/s per GPU, by the spec's bisection on a log scale."""
    lo, hi = 0.01, 1000.0
    if not holds(layout, o, lo):
        return 0.0
    if holds(layout, o, hi):
        return hi / o["gpus"]
    for _ in range(30):
        mid = math.sqrt(lo * hi)
        if holds(layout, o, mid):
            lo = mid
        else:
            hi = mid
    return lo / o["gpus"]


def rate(**settings):
    """Rate goodput per layout; the same settings as compare, the rps setting replaced."""
    o = options(**settings)
    return {layout: rate_of(layout, o) for layout in layouts(o)}


def ratio(**settings):
    """At fixed gpus: the split's goodput and rate goodput for readers = 1 .. gpus - 1."""
    o = options(**settings)
    rows = []
    for r in range(1, o["gpus"]):
        ro = {**o, "readers": r}
        jobs = draw(ro["rps"], ro["prompt"], ro["reply"], ro["requests"], ro["seed"])
        m = metrics(jobs, split_layout(jobs, ro), ro["ttft_target"], ro["gap_target"])
        rows.append({"readers": r, "goodput": m["goodput"], "rate": rate_of("split", ro)})
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


# The lesson's names, kept for the tests that use them (one reader, one A100 writer).

def split(jobs, link, peak=None):
    return split_layout(jobs, {**DEFAULTS, "link": link}, peak)


def writer_peak(jobs, link):
    """The most replies the split's writer had in its slots at once."""
    peak = []
    split(jobs, link, peak)
    return peak[0]
