"""The oracle: the explorer's model written straight from the spec, one step at a time.

It follows the model's definition (docs/model.md, written from the team's specs
lesson-model.md, explore-model.md, traffic.md and chips-and-rules.md, and models-and-memory.md
for the models, tensor-parallel instances, roofline costs and KV memory) and nothing else: it
shares no code with `sim/` (constants included) and does not read it. It is deliberately
naive: every read, every writing step and every chunk of every instance is walked, every gap
is kept, for least-loaded routing every instance is walked forward to each routing moment and
its jobs counted, and for Dynamo's queue rule every prompt sent to the readers before a request
is looked at again. With `memory=kv` the split is one walk of the run's moments in time order,
each in the spec's seven phases. A trace file is read whole, character by character (its own
CSV reader), and its times compared exactly. The fast engine must agree with it.

The shipped traces are read from DATA, the folder the project ships them in (a test's
conftest sets it): the oracle reads the data files, never the engine's code.

Readings of models-and-memory.md where it leaves a choice (each decided as written here):
- Goodput's denominator is every request, dropped ones included ("a dropped request ... is
  not good"): memory=kv prompt=30000 reply=500 ... gives shared 4/600 = 0.7% (4/399 would
  be 1.0%), the spec's figure.
- A `kv` event is every maximal run of equal tokens from 0 to the lane's last change, runs of
  0 tokens included (the spec names no exception).
- The split's "too long to ever fit" applies to every request, local ones included (the spec
  names no exception): prompt above the readers' C or prompt + reply above the writers'.
- "readers not a multiple of tp when the readers' kind or power cap differs" can never be the
  only refusal: gpus and gpus - readers both multiples of tp make readers one. It is checked
  (after those two) as the spec lists it.
- When every request is dropped, the percentiles and maxima are None and `backpressure` is 0.
"""

import gzip
import json
import math
import random
import re
from fractions import Fraction
from math import fsum
from pathlib import Path

# ---- facts ----

WEIGHTS = 8_030_261_248  # Llama-3-8B parameters (lesson-model.md, "Costs")
# models-and-memory.md, "Facts": Llama 3.1, bf16 weights (2 bytes a parameter):
# (parameters P, layers L, hidden size d, KV cache per token kv in bytes); kv = 2 (K and V)
# x L x 8 KV heads x 128 dims x 2 bytes, from the models' configs
MODELS = {
    "8B": (8_030_261_248, 32, 4_096, 131_072),  # Llama-3.1-8B
    "70B": (70_553_706_496, 80, 8_192, 327_680),  # Llama-3.1-70B
    "405B": (405_853_388_800, 126, 16_384, 516_096),  # Llama-3.1-405B
}
# GPU kinds, datasheet figures, bf16 dense: (peak FLOP/s, memory B/s)
# (explore-model.md, "GPU kinds"; H200: models-and-memory.md, "Facts")
KINDS = {
    "A100": (312e12, 2.039e12),  # A100 80 GB SXM
    "H100": (989.5e12, 3.35e12),  # H100 SXM
    "H200": (989.5e12, 4.8e12),  # H200 SXM
    "B200": (2.25e15, 8.0e12),  # B200 HGX, 1,000 W; NVIDIA's "up to 8 TB/s"
}
# models-and-memory.md, "Facts": (HBM M in bytes, NVLink N in B/s one direction), as NVIDIA's
# datasheets and NVIDIA's AIConfigurator system files give them
MEMORY_AND_NVLINK = {
    "A100": (85_899_345_920, 300e9),  # 80 GiB
    "H100": (85_899_345_920, 450e9),  # 80 GiB
    "H200": (151_397_597_184, 450e9),  # 141 GiB
    "B200": (193_273_528_320, 900e9),  # 180 GiB
}
# chips-and-rules.md, "Power" (H200: models-and-memory.md, "Facts"): (TDP in W, example
# price in $ per GPU-hour)
POWER_AND_PRICE = {
    "A100": (400, 1.30),  # A100 80 GB SXM
    "H100": (700, 3.00),  # H100 SXM
    "H200": (700, 3.80),  # H200 SXM
    "B200": (1000, 5.50),  # B200 HGX
}
ALPHA = 20e-6  # s: an all-reduce's latency (models-and-memory.md, from Vidur)
TP = (1, 2, 4, 8)  # GPUs an instance may have (models-and-memory.md, "New settings")
# lesson-model.md, "Costs" (the lesson's one A100 and Llama-3-8B; the tests use these names)
READ_COST = 2 * WEIGHTS / 312e12  # A100: seconds to read one prompt token
STEP = 2 * WEIGHTS / 2.039e12  # A100: one writing step
CACHE_PER_TOKEN = 131_072  # 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes
SLOTS = 32  # replies one GPU writes at once (the `slots` setting's default)
LAYERS = 32  # Llama-3-8B's layers (explore-model.md's L)
# A job that reaches a GPU within a nanosecond after a step's end counts as there at its end:
# a clock that adds one step at a time and one that multiplies round differently, and a tie
# must not depend on which (the spec's times are exact; floats are not).
EPS = 1e-9


def usable_memory(kind, t):
    """models-and-memory.md, "Memory of an instance": t x M x 9 // 10 bytes (vLLM's 90%)."""
    return t * MEMORY_AND_NVLINK[kind][0] * 9 // 10


def kv_capacity(kind, t, model):
    """C = (usable - 2P) // kv tokens of KV an instance of t GPUs of this kind holds."""
    P, _, _, kv = MODELS[model]
    return (usable_memory(kind, t) - 2 * P) // kv


class Costs:
    """What a pass of one instance takes: t GPUs of one kind at power cap c, serving one model
    (models-and-memory.md, "Costs of an instance"). Numerators are whole numbers, each divided
    once, as the spec writes them; with t = 1 and costs=toy these are today's costs, bit for bit
    (F x c x 1 is F x c; adding AR = 0 changes nothing)."""

    def __init__(self, kind, cap=1.0, t=1, model="8B", costs="toy"):
        self.P, self.L, self.d, self.kv = MODELS[model]
        self.F, self.B = KINDS[kind]
        self.N = MEMORY_AND_NVLINK[kind][1]
        self.c, self.t, self.roofline = cap, t, costs == "roofline"
        self.r = 2 * self.P / (self.F * cap * t)  # reading one prompt token
        self.w = 2 * self.P / (self.B * t)  # the toy's writing step

    def ar(self, n):
        """The all-reduces of a pass over n tokens: two a layer; none on one GPU."""
        if self.t == 1:
            return 0
        return 2 * self.L * (ALPHA + 2 * (self.t - 1) * n * self.d * 2 / (self.t * self.N))

    def read(self, n):
        """A whole read of n prompt tokens."""
        if not self.roofline:
            return n * self.r + self.ar(n)
        P, L, d = self.P, self.L, self.d
        arithmetic = (n * 2 * P + 2 * L * d * n * (n + 1)) / (self.F * self.c * self.t)
        memory = (2 * P + self.kv * n) / (self.B * self.t)
        return max(arithmetic, memory) + self.ar(n)

    def step(self, contexts):
        """A writing step of replies whose contexts (prompt + words so far) are given."""
        b = len(contexts)
        if not self.roofline:
            return self.w + self.ar(b)
        P, L, d, S = self.P, self.L, self.d, sum(contexts)
        arithmetic = (b * 2 * P + 4 * L * d * S) / (self.F * self.c * self.t)
        memory = (2 * P + self.kv * S) / (self.B * self.t)
        return max(arithmetic, memory) + self.ar(b)

    def chunk(self, pieces, contexts):
        """A chunked pass: pieces [(m_k tokens read of prompt k, p_k of it read before)] and
        a word for each reply of the given contexts."""
        m, b = sum(mk for mk, _ in pieces), len(contexts)
        if not self.roofline:
            return max(self.w, (m + b) * self.r) + self.ar(m + b)
        P, L, d, S = self.P, self.L, self.d, sum(contexts)
        attention = sum(mk * (2 * pk + mk + 1) for mk, pk in pieces)
        arithmetic = ((m + b) * 2 * P + 2 * L * d * attention + 4 * L * d * S) / (
            self.F * self.c * self.t)
        memory = (2 * P + self.kv * (S + sum(pk for _, pk in pieces))) / (self.B * self.t)
        return max(arithmetic, memory) + self.ar(m + b)


def read_cost(kind, cap=1.0):
    """Capped at share `cap` of its TDP, a GPU reads at cap x its peak FLOP/s (the spec:
    2 x weights / (peak x c)); its writing step is unchanged."""
    return Costs(kind, cap).r


def step_time(kind):
    return Costs(kind).w


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
    """The lesson's loop on one instance (t GPUs working as one; a GPU when t = 1), walked one
    action at a time.

    Jobs are given in the order they reach it (equal times by request index). `walk(until)`
    performs, in order, every round of the loop that begins strictly before `until`; `due()`
    says when its next round begins and `round()` performs it (the split with memory=kv walks
    its writers so, one round at a time among the run's other moments).

    capacity: its KV capacity C in tokens with memory=kv (None: memory=slots). admits: it
    admits a job only when the job's prompt + reply fits in its free KV, reserving it as its
    read starts (shared and chunked); the split's writers are given jobs already admitted."""

    def __init__(self, kind, slots, cap=1.0, t=1, model="8B", costs="toy", capacity=None,
                 admits=False):
        self.costs = Costs(kind, cap, t, model, costs)
        self.slots = slots
        self.clock = 0.0
        self.queue = []  # jobs given to it, in the order they reached it
        self.nxt = 0  # the next job of the queue to take
        # [index, words still to write, time of its previous word, prompt, words made]
        self.writing = []
        self.words = {}  # index -> Words
        self.last = {}  # index -> the time of its last word, once known
        self.inside = []  # indices given to it whose last word is not known to be made
        self.most = 0  # the most replies in its slots at a writing step
        # to watch it (watch.md): (kind, start, end, request, replies, tokens) of every read
        # and step, or None when nobody watches
        self.events = None
        # memory=kv: tokens held or reserved, each job's reservation until its last word,
        # frees at last words not yet settled, and every change (time, +/- tokens)
        self.capacity, self.admits = capacity, admits
        self.held = 0
        self.need = {}
        self.frees = []
        self.changes = []

    def give(self, job, counted=True):
        """A job reaches it (counted: it starts counting for least-loaded now)."""
        k = len(self.queue)  # in order of reaching it, equal times by request index
        while k > self.nxt and ((self.queue[k - 1].reach, self.queue[k - 1].index)
                                > (job.reach, job.index)):
            k -= 1
        self.queue.insert(k, job)
        if counted:
            self.inside.append(job.index)
        if not job.read and job.reply <= 1:
            self.finish(job.index, job.reach)  # it landed with its only word made

    def busy(self):
        """Is a reply being written (it has work whether or not a job arrives)?"""
        return bool(self.writing)

    def due(self):
        """When its next round begins: its clock while it has work; else, with nothing being
        written, the next job's arrival (the clock jumps to it; within a nanosecond after the
        clock, the job counts as there at the clock); None if it has nothing to do."""
        if self.busy():
            return self.clock
        if self.nxt == len(self.queue):
            return None  # nothing to do until it is given another job
        reach = self.queue[self.nxt].reach
        return reach if reach > self.clock + EPS else self.clock

    def walk(self, until=math.inf):
        while True:
            begins = self.due()
            # (it begins at the moment `until`, as far as floats tell: it waits for it)
            if begins is None or begins >= until - EPS:
                return
            self.clock = begins
            self.round()

    def round(self):
        """One round of the lesson's loop, at its clock."""
        self.settle(self.clock)
        job = self.arrived()
        if job is not None and job.read:  # the whole prompt at once; no reply moves meanwhile
            before = self.clock
            if self.admits:
                self.reserve(before, job)  # admitted as its read starts
            self.clock += self.costs.read(job.prompt)
            if self.events is not None:
                self.events.append(("read", before, self.clock, job.index, 0, job.prompt))
            self.take(job, self.clock)
            return  # a read is the whole round
        # otherwise: jobs that have arrived with nothing to read take free slots (first
        # word made when they arrived), then one writing step, in the same round
        while job is not None and not job.read:
            self.take(job, job.reach)
            job = self.arrived()
        if not self.writing:
            return
        self.most = max(self.most, len(self.writing))
        # one writing step: every reply in a slot gets one word
        self.write(self.costs.step([s[3] + s[4] for s in self.writing]))

    def fits(self, job):
        """memory=kv, shared and chunked: its prompt + reply fits in the free KV."""
        return not self.admits or self.held + job.prompt + job.reply <= self.capacity

    def arrived(self):
        """The next job, if it has arrived, a slot is free (and, admitting, it fits)."""
        job = self.queue[self.nxt] if self.nxt < len(self.queue) else None
        if (job is not None and job.reach <= self.clock + EPS and len(self.writing) < self.slots
                and self.fits(job)):
            return job
        return None

    def take(self, job, first):
        self.nxt += 1
        self.first_word(job, first)

    def first_word(self, job, first):
        self.words[job.index] = Words(first)
        if job.reply > 1:
            self.writing.append([job.index, job.reply - 1, first, job.prompt, 1])
        else:
            self.words[job.index].last = first
            self.finish(job.index, first)

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
            s[4] += 1
            if s[1] == 0:
                self.words[s[0]].last = self.clock
                self.finish(s[0], self.clock)
        self.writing = [s for s in self.writing if s[1] > 0]

    def finish(self, index, time):
        """Its last word is made at `time`: with memory=kv, its room is free from then on."""
        self.last[index] = time
        if index in self.need:
            tokens = self.need.pop(index)
            self.frees.append((time, tokens))
            self.changes.append((time, -tokens))

    def reserve(self, time, job):
        """memory=kv: the job is admitted at `time` and reserves its prompt + reply."""
        self.need[job.index] = job.prompt + job.reply
        self.held += job.prompt + job.reply
        self.changes.append((time, job.prompt + job.reply))
        assert self.held <= self.capacity

    def settle(self, moment):
        """The room freed by last words made by `moment` is free."""
        for f in [f for f in self.frees if f[0] <= moment]:
            self.held -= f[1]
            self.frees.remove(f)

    def load(self, moment):
        """Jobs in it at `moment`: given to it, and whose last word comes after that moment."""
        self.inside = [i for i in self.inside if not (i in self.last and self.last[i] <= moment)]
        return len(self.inside)


class ChunkedGpu(Gpu):
    """The chunked layout's loop: up to `chunk` prompt tokens read in each writing step."""

    def __init__(self, kind, slots, chunk, cap=1.0, t=1, model="8B", costs="toy",
                 capacity=None, admits=False):
        super().__init__(kind, slots, cap, t, model, costs, capacity, admits)
        self.chunk = chunk
        self.reading = []  # [job, tokens still to read], in the order they started

    def busy(self):
        return bool(self.reading or self.writing)

    def round(self):
        # 1. (due) nothing read or written and the next job not arrived: the clock jumps to it
        self.settle(self.clock)
        # 2. arrived prompts start being read, in order, while a slot is free (and, admitting,
        #    while the first fits: no later job overtakes it); each is admitted as it starts
        while (self.nxt < len(self.queue) and self.queue[self.nxt].reach <= self.clock + EPS
               and len(self.reading) + len(self.writing) < self.slots
               and self.fits(self.queue[self.nxt])):
            job = self.queue[self.nxt]
            self.nxt += 1
            if self.admits:
                self.reserve(self.clock, job)
            self.reading.append([job, job.prompt])
        # 3. one step: up to `chunk` tokens read, in order; every reply in a slot gets a word
        budget, pieces, finished = self.chunk, [], []
        for r in self.reading:
            take = min(budget, r[1])
            if take > 0:
                pieces.append((take, r[0].prompt - r[1]))  # (m_k, p_k read before)
            r[1] -= take
            budget -= take
            if r[1] == 0:
                finished.append(r[0])
        self.reading = [r for r in self.reading if r[1] > 0]
        contexts = [s[3] + s[4] for s in self.writing]
        self.write(self.costs.chunk(pieces, contexts), sum(m for m, _ in pieces))
        # 4. a prompt whose last token was read: first word at the step's end, written next
        for job in finished:
            self.first_word(job, self.clock)


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


def instances(o, pool):
    """[(kind, power cap, GPUs)] of each instance of a pool (models-and-memory.md, "New
    settings"): "shared" (the shared and chunked layouts': instance k is GPUs k·tp ..
    k·tp + tp - 1, of the readers' kind when k·tp < readers), "readers" or "writers" (the
    split's: readers / reader_tp and (gpus - readers) / tp of them)."""
    t, rt = o["tp"], o["reader_tp"] or o["tp"]
    reader, writer = (o["reader_gpu"], o["reader_power"]), (o["writer_gpu"], o["writer_power"])
    if pool == "readers":
        return [(*reader, rt)] * (o["readers"] // rt)
    if pool == "writers":
        return [(*writer, t)] * ((o["gpus"] - o["readers"]) // t)
    return [(*(reader if k * t < o["readers"] else writer), t) for k in range(o["gpus"] // t)]


def make_gpus(o, pool, chunked=False, admits=False):
    """One loop per instance of the pool; with memory=kv each knows its capacity C."""
    kv = o["memory"] == "kv"
    gpus = []
    for kind, cap, t in instances(o, pool):
        capacity = kv_capacity(kind, t, o["model"]) if kv else None
        if chunked:
            gpus.append(ChunkedGpu(kind, o["slots"], o["chunk"], cap, t, o["model"], o["costs"],
                                   capacity, admits))
        else:
            gpus.append(Gpu(kind, o["slots"], cap, t, o["model"], o["costs"], capacity, admits))
    return gpus


class Run:
    """One layout's run: each served request's (first word, gaps), the dropped requests'
    indices, the measures memory=kv adds, and (to watch it) the lanes: (lane, index, GPU or
    None, KV changes or None)."""

    def __init__(self, words, dropped=(), measures=None, lanes=(), seen=()):
        self.words, self.dropped, self.measures = words, set(dropped), measures or {}
        self.lanes, self.seen = list(lanes), list(seen)


def kv_moments(changes):
    """[(moment, tokens held from then on)] at each moment the tokens change: the changes at
    one moment summed (those that cancel out make no moment), in time order."""
    net = {}
    for time, delta in changes:
        net[time] = net.get(time, 0) + delta
    moments, tokens = [], 0
    for time in sorted(net):
        if net[time] != 0:
            tokens += net[time]
            moments.append((time, tokens))
    return moments


def kv_peak(changes, capacity):
    """The highest share of its capacity an instance held or reserved at any moment."""
    return max((tokens for _, tokens in kv_moments(changes)), default=0) / capacity


def kv_runs(changes):
    """watch: [(start, end, tokens)], the maximal runs of equal tokens from 0 to the last
    change (nothing after it)."""
    runs, start, tokens = [], 0.0, 0
    for time, after in kv_moments(changes):
        if time > start:
            runs.append((start, time, tokens))
        start, tokens = time, after
    return runs


def shared_layout(jobs, o, chunked=False, watching=None):
    """Shared (or chunked): every instance reads and writes; a request reaches the pool at
    arrival. With memory=kv a request too long for an empty instance of the smaller capacity
    is dropped, and each instance admits a job only when it fits."""
    kv = o["memory"] == "kv"
    gpus = make_gpus(o, "shared", chunked, admits=kv)
    if watching is not None:
        for gpu in gpus:
            gpu.events = []
    dropped = set()
    if kv:
        smallest = min(gpu.capacity for gpu in gpus)
        dropped = {i for i, (a, p, r) in enumerate(jobs) if p + r > smallest}
    pool = [Job(i, a, p, r, read=True) for i, (a, p, r) in enumerate(jobs) if i not in dropped]
    pool.sort(key=lambda job: (job.reach, job.index))
    # alternate: in turn among the requests not dropped (request i mod gpus when none is)
    words = serve_pool(gpus, pool, o["routing"], lambda n, job: n % len(gpus))
    measures = {"kv_peak": max(kv_peak(g.changes, g.capacity) for g in gpus)} if kv else {}
    lanes = [("gpu", k, gpu, gpu.changes if kv else None) for k, gpu in enumerate(gpus)]
    return Run(words, dropped, measures, lanes)


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


def reader_costs(o):
    """The costs of a reader instance (all the split's readers are alike)."""
    kind, cap, t = instances(o, "readers")[0]
    return Costs(kind, cap, t, o["model"], o["costs"])


def crossings(jobs, o, local=None, seen=None):
    """The split's readers and link (memory=slots): [(index, landing)] for every prompt a
    reader reads; the indices of the requests read locally are added to `local`. seen: a
    list, to watch the run: each read and each crossing, (lane, index, kind, start, end,
    request, replies, tokens)."""
    costs = reader_costs(o)
    _, layers, _, kv = MODELS[o["model"]]
    free = [0.0] * len(instances(o, "readers"))
    reads = []  # (index, start, read, end, T)
    for i, (a, p, r) in enumerate(jobs):  # one queue in arrival order (equal: by index)
        if is_local(o, p, reads, a):
            if local is not None:
                local.append(i)
            continue
        starts = [max(f, a) for f in free]
        k = starts.index(min(starts))  # earliest start, the lowest index on equal starts
        start = starts[k]
        read = costs.read(p)
        end = start + read
        free[k] = end
        reads.append((i, start, read, end, p * kv / (o["link"] * 1e9)))
        if seen is not None:
            seen.append(("reader", k, "read", start, end, i, 0, p))
    landed = []
    if o["link_sharing"] == "free":
        for i, start, read, end, T in reads:
            if o["layerwise"]:  # it starts to cross once its first layer is read
                landed.append((i, max(end + T / layers, start + read / layers + T)))
                departs = start + read / layers
            else:
                landed.append((i, end + T))
                departs = end
            if seen is not None:
                seen.append(("link", 0, "cross", departs, landed[-1][1], i, 0, 0))
    elif o["link_sharing"] == "queued":
        def ready(x):
            i, start, read, end, T = x
            return start + read / layers if o["layerwise"] else end
        link_free = 0.0
        for x in sorted(reads, key=lambda x: (ready(x), x[0])):
            i, start, read, end, T = x
            if o["layerwise"]:
                go = max(start + read / layers, link_free)
                land = max(go + T, end + T / layers)
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
    """Split, memory=slots: readers read (or, local, a writer reads); caches cross; the
    writers write. Each request's (first word, gaps). watching: a list, to watch the run:
    (lane, index, GPU) of each writer joins it; seen: see crossings."""
    local = []
    pool = [Job(i, land, jobs[i][1], jobs[i][2], read=False)
            for i, land in crossings(jobs, o, local, seen)]
    pool += [Job(i, jobs[i][0], jobs[i][1], jobs[i][2], read=True) for i in local]
    pool.sort(key=lambda job: (job.reach, job.index))
    writers = make_gpus(o, "writers")
    if watching is not None:
        for k, gpu in enumerate(writers):
            gpu.events = []
            watching.append(("writer", k, gpu))
    out = serve_pool(writers, pool, o["routing"], lambda n, job: n % len(writers))
    if peak is not None:
        peak.extend(w.most for w in writers)
    return out


def split_kv(jobs, o, watching=False):
    """Split, memory=kv (models-and-memory.md, "Memory that pushes back"): one walk of the
    run's moments in time order. At each moment, in the spec's order: (1) passes that end
    then end (last words free their room), reads end, and caches ask a writer (layer-wise:
    at start + read/L); (2) caches that land then land (the reader frees the prompt's tokens,
    the job reaches its writer); (3) writers admit, in the order of asking; (4) admitted
    caches begin crossing; (5) idle readers with room start the queue's first prompts; (6)
    requests that arrive then arrive, in index order; (7) last, writers begin their next
    round, each at its clock once every moment up to a nanosecond after it has passed (the
    nanosecond rule of an instance's loop). Readers, admissions and the link compare times
    exactly. A writer admits its first waiting job the moment it fits, in whichever phase."""
    _, layers, _, kv = MODELS[o["model"]]
    costs = reader_costs(o)
    reader_specs = instances(o, "readers")
    room = kv_capacity(reader_specs[0][0], reader_specs[0][2], o["model"])  # a reader's C
    reading = [None] * len(reader_specs)  # each reader's read's end; None: idle
    held = [0] * len(reader_specs)  # tokens each reader holds
    held_changes = [[] for _ in reader_specs]  # (time, +/- tokens) of each reader
    writers = make_gpus(o, "writers")
    if watching:
        for gpu in writers:
            gpu.events = []
    busy = [None] * len(writers)  # when the round each writer is in ends; None: in none
    queue = []  # prompts waiting for a reader, in arrival order
    dropped, local = set(), set()
    reads = {}  # index -> (reader, start, read, end, T)
    asking = []  # (moment, index): caches that ask a writer at that moment
    waiting = [[] for _ in writers]  # each writer's jobs that asked it, waiting for admission
    writer_of = {}
    admitted = []  # caches admitted at this moment; they begin crossing in phase 4
    landing = []  # (moment, index): caches crossing, and when they land
    seen = []  # the readers' and the link's events, to watch the run
    idle_while_waiting = []  # (moment, whether a prompt waits while a reader is idle) after it
    turn, link_free, nxt, now = 0, 0.0, 0, 0.0

    def ask(i, t):
        """A cache, or a local job, asks a writer at t: routing chooses it at that moment."""
        nonlocal turn
        if o["routing"] == "alternate":  # in turn, in the order of asking
            w = turn % len(writers)
            turn += 1
        elif o["routing"] == "least-loaded":  # asked-and-waiting jobs count
            loads = [gpu.load(t) for gpu in writers]
            w = loads.index(min(loads))
        else:
            raise ValueError(f"routing {o['routing']!r}")
        writer_of[i] = w
        writers[w].inside.append(i)
        waiting[w].append(i)
        admit(w, t)

    def admit(w, t):
        """Writer w admits the jobs that asked it, in order, while the first fits."""
        gpu = writers[w]
        gpu.settle(t)
        while waiting[w]:
            i = waiting[w][0]
            _, p, r = jobs[i]
            if gpu.held + p + r > gpu.capacity:
                return
            waiting[w].pop(0)
            job = Job(i, t, p, r, read=i in local)
            gpu.reserve(t, job)
            if i in local:
                gpu.give(job, counted=False)  # a local job reaches its writer at admission
            else:
                admitted.append(i)

    def start_readers(t):
        """The queue's first prompt starts on the lowest-index idle reader with room for it,
        then the next, while there is one."""
        while queue:
            i = queue[0]
            p = jobs[i][1]
            free = [k for k in range(len(reading)) if reading[k] is None and held[k] + p <= room]
            if not free:
                return
            k = free[0]
            queue.pop(0)
            read = costs.read(p)
            reading[k] = t + read
            held[k] += p
            held_changes[k].append((t, p))
            reads[i] = (k, t, read, t + read, p * kv / (o["link"] * 1e9))
            asking.append((t + read / layers if o["layerwise"] else t + read, i))
            seen.append(("reader", k, "read", t, t + read, i, 0, p))

    while True:
        moments = [jobs[nxt][0]] if nxt < len(jobs) else []
        moments += [end for end in reading if end is not None]
        moments += [m for m, _ in asking] + [m for m, _ in landing]
        moments += [end for end in busy if end is not None]
        t = min(moments, default=math.inf)
        begins = [(gpu.due() + EPS, w) for w, gpu in enumerate(writers)
                  if busy[w] is None and gpu.due() is not None]
        b, w = min(begins, default=(math.inf, None))
        if t == math.inf and b == math.inf:
            break
        if b < t:  # (7) a writer begins its next round, at its clock
            gpu = writers[w]
            gpu.clock = gpu.due()
            gpu.round()
            busy[w] = gpu.clock  # its words are made, and its room freed, at the round's end
            continue
        t = now = max(t, now)  # (a zero-length round's end is not before the moment passed)
        # (1) passes that end then end; reads end, and caches ask
        for w in range(len(writers)):
            if busy[w] is not None and busy[w] <= t:
                busy[w] = None
                admit(w, t)
        for k in range(len(reading)):
            if reading[k] is not None and reading[k] <= t:
                reading[k] = None
        for i in sorted(i for m, i in asking if m <= t):
            ask(i, t)
        asking = [x for x in asking if x[0] > t]
        # (2) caches that land then land: the reader frees the prompt, the job reaches its writer
        for i in sorted(i for m, i in landing if m <= t):
            _, p, r = jobs[i]
            k = reads[i][0]
            held[k] -= p
            held_changes[k].append((t, -p))
            writers[writer_of[i]].give(Job(i, t, p, r, read=False), counted=False)
        landing = [x for x in landing if x[0] > t]
        # (3) writers admit, in the order of asking
        for w in range(len(writers)):
            admit(w, t)
        # (4) admitted caches begin crossing, at go = max(ask, admitted) = this moment
        for i in sorted(admitted):
            k, start, read, end, T = reads[i]
            go = t
            if o["link_sharing"] == "queued":  # in the order of their go, equal by index
                go = max(go, link_free)
            elif o["link_sharing"] != "free":
                raise ValueError(f"link_sharing {o['link_sharing']!r}")
            land = max(go + T, end + T / layers) if o["layerwise"] else go + T
            if o["link_sharing"] == "queued":
                link_free = land  # free again at the cache's landing
            landing.append((land, i))
            seen.append(("link", 0, "cross", go, land, i, 0, 0))
        admitted.clear()
        # (5) idle readers with room start the queue's first prompts
        start_readers(t)
        # (6) requests that arrive then arrive, one at a time in index order
        while nxt < len(jobs) and jobs[nxt][0] <= t:
            i = nxt
            nxt += 1
            _, p, r = jobs[i]
            if p > room or p + r > writers[0].capacity:
                dropped.add(i)  # too long to ever fit: it takes nothing
            elif p < o["local_below"] or (o["local_queue"] > 0 and len(queue) >= o["local_queue"]):
                local.add(i)  # Dynamo's count: the prompts still in the readers' queue
                ask(i, t)
            else:
                queue.append(i)
                start_readers(t)
        idle_while_waiting.append((t, bool(queue) and None in reading))
    words = {}
    for gpu in writers:
        for i, w in gpu.words.items():
            words[i] = (w.first, w.gaps)
    last = max((t for gpu in writers for t in gpu.last.values()), default=0.0)
    waited = [min(b, last) - a
              for (a, waits), (b, _) in zip(idle_while_waiting, idle_while_waiting[1:])
              if waits and a < last]
    measures = {
        "reader_kv_peak": max(kv_peak(c, room) for c in held_changes),
        "writer_kv_peak": max(kv_peak(gpu.changes, gpu.capacity) for gpu in writers),
        # the share of the run (0 to the last word) a prompt waited while a reader was idle
        "backpressure": fsum(waited) / last if last > 0 else 0.0,
    }
    lanes = [("reader", k, None, c) for k, c in enumerate(held_changes)]
    lanes += [("writer", k, gpu, gpu.changes) for k, gpu in enumerate(writers)]
    return Run(words, dropped, measures, lanes, seen)


def serve(layout, jobs, o, watching=False):
    """One layout's run (a Run)."""
    if layout in ("shared", "chunked"):
        return shared_layout(jobs, o, layout == "chunked", [] if watching else None)
    if o["memory"] == "kv":
        return split_kv(jobs, o, watching)
    gpus, seen = [], []
    words = split_layout(jobs, o, watching=gpus if watching else None, seen=seen)
    return Run(words, (), {}, [(lane, k, gpu, None) for lane, k, gpu in gpus], seen)


def nearest_rank(values, p):
    values = sorted(values)
    return values[math.ceil(p / 100 * len(values)) - 1]


def metrics(jobs, run, ttft_target, gap_target):
    """The measures of one layout's run (a Run; or, as before, each request's (first, gaps)).
    Dropped requests are not good and have no first word or gaps; goodput is over every
    request, percentiles over the others (None when there are none)."""
    if not isinstance(run, Run):
        run = Run(run)
    ttfts, gaps, good = [], [], 0
    for i, (arrival, _, _) in enumerate(jobs):
        if i in run.dropped:
            continue
        first, g = run.words[i]
        ttft = first - arrival
        ttfts.append(ttft)
        gaps.extend(g)
        if ttft <= ttft_target and max(g, default=0.0) <= gap_target:
            good += 1
    served = bool(ttfts)
    return {
        "goodput": good / len(jobs),
        "good": good,
        "ttft_p50": nearest_rank(ttfts, 50) if served else None,
        "ttft_p99": nearest_rank(ttfts, 99) if served else None,
        "ttft_max": max(ttfts) if served else None,
        "gap_p50": nearest_rank(gaps, 50) if gaps else 0.0 if served else None,
        "gap_p99": nearest_rank(gaps, 99) if gaps else 0.0 if served else None,
        "gap_max": max(gaps, default=0.0) if served else None,
        "dropped": len(run.dropped),
        **run.measures,
    }


DEFAULTS = dict(rps=4.0, prompt=2000, reply=200, link=25.0, ttft_target=0.5, gap_target=0.1,
                requests=600, seed=7, traffic="lesson", arrivals="recorded", trace_start=0,
                gpus=2, readers=1, routing="alternate", chunk=0, link_sharing="free",
                layerwise=0, local_below=0, reader_gpu="A100", writer_gpu="A100", slots=32,
                attainment=0.9, reader_power=1.0, writer_power=1.0, reader_price=0.0,
                writer_price=0.0, local_queue=0,
                model="8B", tp=1, reader_tp=0, costs="toy", memory="slots")


def options(**given):
    """The settings, every one not given at its default; refused (ValueError) as the specs
    say, models-and-memory.md's refusals in its order, one message naming the settings."""
    unknown = set(given) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown settings {sorted(unknown)}")
    o = {**DEFAULTS, **given}
    for name, allowed in (("model", tuple(MODELS)), ("tp", TP), ("reader_tp", (0, *TP)),
                          ("costs", ("toy", "roofline")), ("memory", ("slots", "kv")),
                          ("reader_gpu", tuple(KINDS)), ("writer_gpu", tuple(KINDS))):
        if o[name] not in allowed:
            raise ValueError(f"{name}={o[name]!r}: it must be one of "
                             f"{', '.join(map(str, allowed))}")
    if not 1 <= o["readers"] <= o["gpus"] - 1:
        raise ValueError("readers must be 1 .. gpus - 1")
    gpus, readers, t = o["gpus"], o["readers"], o["tp"]
    rt, rt_name = (o["reader_tp"], "reader_tp") if o["reader_tp"] else (t, "tp")
    if gpus % t:
        raise ValueError(f"gpus={gpus} is not a multiple of tp={t}")
    if readers % rt:
        raise ValueError(f"readers={readers} is not a multiple of the readers' tp ({rt_name}={rt})")
    if (gpus - readers) % t:
        raise ValueError(f"gpus - readers = {gpus} - {readers} = {gpus - readers} writer GPUs "
                         f"is not a multiple of tp={t}")
    mixed = (o["reader_gpu"], o["reader_power"]) != (o["writer_gpu"], o["writer_power"])
    if readers % t and mixed:
        raise ValueError(f"readers={readers} is not a multiple of tp={t} while the readers "
                         f"(reader_gpu={o['reader_gpu']}, reader_power={o['reader_power']}) differ "
                         f"from the writers (writer_gpu={o['writer_gpu']}, writer_power="
                         f"{o['writer_power']}): a shared instance would mix them")
    weights = 2 * MODELS[o["model"]][0]
    used = [(kind, n, "tp") for kind, _, n in instances(o, "shared")]
    used += [(o["reader_gpu"], rt, rt_name), (o["writer_gpu"], t, "tp")]
    for kind, n, name in used:
        if weights > usable_memory(kind, n):
            fits = [k for k in TP if weights <= usable_memory(kind, k)]
            smallest = f"the smallest tp that fits is {fits[0]}" if fits else "no tp up to 8 fits"
            raise ValueError(
                f"model={o['model']} does not fit with {name}={n} on {kind}: its weights are "
                f"{weights / 1e9:.1f} GB, an instance of {n} {kind} has "
                f"{usable_memory(kind, n) / 1e9:.1f} GB usable (90% of its memory); {smallest}")
    return o


def layouts(o):
    return ("shared", "split", "chunked") if o["chunk"] > 0 else ("shared", "split")


def run(layout, jobs, o):
    """One layout's run: a Run (its words, dropped requests and memory measures)."""
    return serve(layout, jobs, o)


def compare(trace=None, **settings):
    """Every layout's metrics. trace: for traffic=own, a text, bytes or read_trace's.

    Per layout: goodput, good, ttft_p50/p99/max, gap_p50/p99/max, dropped (0 with
    memory=slots); with memory=kv also kv_peak (shared, chunked) or reader_kv_peak,
    writer_kv_peak and backpressure (split), shares from 0 to 1."""
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
    """At fixed gpus: the split's goodput and rate goodput for each readers count the settings
    allow (1 .. gpus - 1, those not refused), in increasing order; the `readers` setting itself
    is replaced. Refused (the first refusal) when they allow none."""
    allowed, refusal = [], None
    for r in range(1, DEFAULTS["gpus"] if "gpus" not in settings else settings["gpus"]):
        try:
            allowed.append(options(**{**settings, "readers": r}))
        except ValueError as e:
            refusal = refusal or e
    if not allowed:
        raise refusal or ValueError("no readers count: gpus must be 2 or more")
    rows = []
    for ro in allowed:
        jobs = requests_of(ro, trace)
        m = metrics(jobs, run("split", jobs, ro), ro["ttft_target"], ro["gap_target"])
        rows.append({"readers": ro["readers"], "goodput": m["goodput"],
                     "rate": rate_of("split", ro, trace)})
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


def capacity(**settings):
    """models-and-memory.md, "Memory of an instance", for the settings' instances:
    {"shared": [group, ...], "readers": group, "writers": group}. "shared" is the shared and
    chunked layouts' instances, in instance order, one group per run of instances of one
    kind (the readers' kind first; one group when both kinds are alike); "readers" and
    "writers" are the split's. A group: {"kind", "instances", "gpus" (GPUs per instance),
    "usable" (bytes: gpus x M x 9 // 10), "weights" (bytes: 2P), "tokens" (its KV capacity
    C = (usable - weights) // kv)}. Refused as compare refuses."""
    o = options(**settings)
    weights = 2 * MODELS[o["model"]][0]

    def group(kind, t, n):
        return {"kind": kind, "instances": n, "gpus": t, "usable": usable_memory(kind, t),
                "weights": weights, "tokens": kv_capacity(kind, t, o["model"])}

    shared = []
    for kind, _, t in instances(o, "shared"):
        if shared and shared[-1]["kind"] == kind:
            shared[-1]["instances"] += 1
        else:
            shared.append(group(kind, t, 1))
    readers, writers = instances(o, "readers"), instances(o, "writers")
    return {"shared": shared,
            "readers": group(readers[0][0], readers[0][2], len(readers)),
            "writers": group(writers[0][0], writers[0][2], len(writers))}


def watch(layout, t0, t1, trace=None, **settings):
    """watch.md: every event of one layout's run that overlaps [t0, t1] (ends after t0 and
    starts before t1), as the loops above walk it: [{"lane", "index", "kind", "start", "end",
    "request", "replies", "tokens"}], by start, lane, index, end. Lanes are instances. With
    memory=kv each lane but the link also has `kv` events (request -1, replies 0, tokens held
    or reserved): the maximal runs of equal tokens from 0 to the lane's last change; on a full
    tie of (start, lane, index, end) a lane's kv event comes after its reads and steps."""
    o = options(**settings)
    if not (0 <= t0 < t1 and t1 - t0 <= 10 + EPS):  # (t0 + 10 may round above 10 s)
        raise ValueError("a window is 0 <= t0 < t1 with t1 - t0 <= 10")
    if layout not in layouts(o):
        raise ValueError(f"layout {layout!r}")
    jobs = requests_of(o, trace)
    done = serve(layout, jobs, o, watching=True)
    seen = list(done.seen)
    for lane, k, gpu, changes in done.lanes:
        if gpu is not None:
            seen += [(lane, k, kind, start, end, request, replies, tokens)
                     for kind, start, end, request, replies, tokens in gpu.events]
        if changes is not None:
            seen += [(lane, k, "kv", start, end, -1, 0, tokens)
                     for start, end, tokens in kv_runs(changes)]
    keys = ("lane", "index", "kind", "start", "end", "request", "replies", "tokens")
    events = [dict(zip(keys, e)) for e in seen if e[4] > t0 and e[3] < t1]
    return sorted(events, key=lambda e: (e["start"], e["lane"], e["index"], e["end"],
                                         e["kind"] == "kv"))


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
