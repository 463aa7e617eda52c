"""The cost facts: the models, the GPU kinds, and what an instance of t GPUs of one kind costs
to read a prompt and to write a step (docs/model.md: "Costs", "GPU kinds", "Bigger models,
GPUs working as one, and memory").

Everything is derived from a few hardware and model facts, each cited, so that every number
the page shows can be traced back to a datasheet or a config, not tuned. Each fact has one
name here: a read's cost and a writing step are a Chip's (`CHIPS["A100"].read_cost`,
`.step`), worked out from them, and whatever shows them (the footer, the walk-through, the
captions) asks the chip the simulator itself uses (`instances.chip`), so there is no second
copy to edit by mistake.
"""

from functools import lru_cache

from ..settings import FIELDS


class Model:
    """A model's facts, from its config: parameters, layers, hidden size, and the bytes of KV
    cache one token takes: 2 (K and V) x layers x 8 KV heads x 128 dims x 2 bytes (bf16;
    grouped-query attention: 8 KV heads in all three)."""

    __slots__ = ("name", "params", "layers", "hidden", "cache")

    def __init__(self, name, params, layers, hidden):
        self.name, self.params, self.layers, self.hidden = name, params, layers, hidden
        self.cache = 2 * layers * 8 * 128 * 2  # bytes per token (8B: 131,072)


# Llama 3.1's configs (Meta's model cards and config.json: num_hidden_layers, hidden_size,
# num_key_value_heads 8, head_dim 128); parameters as the safetensors count them.
MODELS = {m.name: m for m in (
    Model("8B", 8_030_261_248, 32, 4_096),
    Model("70B", 70_553_706_496, 80, 8_192),
    Model("405B", 405_853_388_800, 126, 16_384),
)}
LESSON = MODELS[FIELDS["model"].default]  # the lesson's model, Llama-3-8B


class Kind:
    """A kind of GPU's datasheet: bf16 dense FLOP/s, memory B/s, HBM bytes, NVLink B/s in one
    direction."""

    __slots__ = ("name", "peak_flops", "bandwidth", "memory", "nvlink")

    def __init__(self, name, peak_flops, bandwidth, memory, nvlink):
        self.name, self.peak_flops, self.bandwidth = name, peak_flops, bandwidth
        self.memory, self.nvlink = memory, nvlink


GIB = 2**30
# Datasheets, bf16 dense without sparsity; HBM and NVLink as NVIDIA's datasheets and
# AIConfigurator's system files give them:
# - A100 80 GB SXM: 312 TFLOP/s, 2,039 GB/s, 80 GiB, NVLink 600 GB/s (300 one way).
# - H100 SXM: 989.5 TFLOP/s (1,979 with sparsity), 3.35 TB/s, 80 GiB, NVLink 900 GB/s.
# - H200 SXM: the H100's arithmetic, 4.8 TB/s, 141 GiB, NVLink 900 GB/s.
# - B200 in HGX B200 at 1,000 W: 2.25 PFLOP/s (4.5 with sparsity), "up to 8 TB/s", 180 GiB,
#   NVLink 1.8 TB/s.
KINDS = {k.name: k for k in (
    Kind("A100", 312e12, 2.039e12, 80 * GIB, 300e9),
    Kind("H100", 989.5e12, 3.35e12, 80 * GIB, 450e9),
    Kind("H200", 989.5e12, 4.8e12, 141 * GIB, 450e9),
    Kind("B200", 2.25e15, 8.0e12, 180 * GIB, 900e9),
)}
# Replies one GPU writes at once: the lesson's 32, the `slots` setting's default (its one source).
SLOTS = FIELDS["slots"].default
# A job that reaches a GPU within a nanosecond after a step's end counts as there at its end.
# The model's times are exact and floats are not: a clock that jumps many steps at once and
# one that adds them one by one round differently, and an exact tie (as when a reader's
# prompts and a writer's steps line up) must not turn on which.
EPS = 1e-9
ALPHA = 20e-6  # s: one all-reduce's latency (Vidur's)
USABLE = (9, 10)  # the share of an instance's memory a server may use (vLLM's default, 90%)


class Chip:
    """An instance: t GPUs of one kind and power cap that act as one, serving one model. What
    reading a prompt and writing a step cost on it, and the KV cache it holds.

    power: its power cap, a share of its TDP (docs/model.md: "Price and power"). Capped, it reads
    at that share of its peak FLOP/s and writes as fast (its memory bandwidth is unchanged).
    The read cost is worked out as 2 x weights / (peak x power x t), so for the lesson (one
    uncapped GPU, x 1.0 x 1, exact) it is the datasheet chip's to the last bit.

    With t = 1 and the toy's costs, a read of n tokens takes n x read_cost and a step `step`:
    the fast loops (gpu.py, chunked.py) use these two. The general loop (instance.py) asks
    read_time, step_time and pass_time, which add the all-reduces and, with roofline costs,
    the context (docs/model.md: "Costs of an instance")."""

    __slots__ = ("name", "peak_flops", "bandwidth", "power", "tp", "model", "roofline",
                 "read_cost", "step", "usable", "capacity", "_ar", "_flops", "_bytes")

    def __init__(self, name, peak_flops, bandwidth, power=1.0, model=LESSON, tp=1,
                 roofline=False, memory=80 * GIB, nvlink=300e9):
        self.name = name
        self.peak_flops = peak_flops  # bf16 dense FLOP/s, uncapped, of one GPU
        self.bandwidth = bandwidth  # memory B/s of one GPU
        self.power = power  # share of its TDP it may draw
        self.tp, self.model, self.roofline = tp, model, roofline
        weights = 2 * model.params  # bytes (bf16)
        # Reading a prompt is compute-bound: 2 FLOP per weight per token (A100: 51.476 us).
        self.read_cost = 2 * model.params / (peak_flops * power * tp)  # s per prompt token
        # Writing is memory-bound: every weight is read once a step, whatever the batch
        # (A100: 7.8767 ms).
        self.step = 2 * model.params / (bandwidth * tp)  # s per writing step
        # Its memory (whole bytes): what a server may use, and the KV cache tokens it holds
        # once the weights are in (negative: the model does not fit; instances.py refuses it).
        self.usable = tp * memory * USABLE[0] // USABLE[1]
        self.capacity = (self.usable - weights) // model.cache
        # All-reduce of a pass over n tokens (two per layer): 2 x L x (ALPHA + 2 (t-1) n d 2 /
        # (t N)), in that order of operations; none on one GPU.
        self._ar = (2 * model.layers, 2 * (tp - 1) * model.hidden * 2, tp * nvlink) if tp > 1 else None
        self._flops = peak_flops * power * tp  # what a pass's arithmetic is divided by
        self._bytes = bandwidth * tp  # ... and its memory traffic

    def all_reduce(self, n):
        """Seconds of the all-reduces of a pass over n tokens (0 on one GPU)."""
        if self._ar is None:
            return 0.0
        twice_layers, per_token, link = self._ar
        return twice_layers * (ALPHA + per_token * n / link)

    def read_time(self, n):
        """A whole read of an n-token prompt."""
        if not self.roofline:
            return n * self.read_cost + self.all_reduce(n) if self._ar else n * self.read_cost
        m = self.model
        flops = n * 2 * m.params + 2 * m.layers * m.hidden * n * (n + 1)  # causal attention
        traffic = 2 * m.params + m.cache * n
        return max(flops / self._flops, traffic / self._bytes) + self.all_reduce(n)

    def step_time(self, b, context):
        """A writing step for b replies whose contexts sum to `context` tokens."""
        if not self.roofline:
            return self.step + self.all_reduce(b) if self._ar else self.step
        m = self.model
        flops = b * 2 * m.params + 4 * m.layers * m.hidden * context
        traffic = 2 * m.params + m.cache * context
        return max(flops / self._flops, traffic / self._bytes) + self.all_reduce(b)

    def pass_time(self, read, b, context, attention=0, before=0):
        """A chunked pass reading `read` prompt tokens and writing b replies of contexts summing
        to `context`; `attention` is the sum over the prompts read of m_k (2 p_k + m_k + 1) and
        `before` the sum of their p_k (tokens read before), which only roofline costs use."""
        if not self.roofline:
            slow = (read + b) * self.read_cost
            busy = slow if slow > self.step else self.step
            return busy + self.all_reduce(read + b) if self._ar else busy
        m = self.model
        flops = ((read + b) * 2 * m.params + 2 * m.layers * m.hidden * attention
                 + 4 * m.layers * m.hidden * context)
        traffic = 2 * m.params + m.cache * (context + before)
        return max(flops / self._flops, traffic / self._bytes) + self.all_reduce(read + b)


def instance(kind, power=1.0, model=LESSON.name, tp=1, costs="toy"):
    """An instance of tp GPUs of this kind, capped at `power` of their TDP, serving the model
    (the datasheet's own chip for the lesson: one uncapped GPU, toy costs)."""
    if power == 1.0 and model == LESSON.name and tp == 1 and costs == "toy":
        return CHIPS[kind]
    return _made(kind, power, model, tp, costs)


@lru_cache(maxsize=256)
def _made(kind, power, model, tp, costs):
    k = KINDS[kind]
    return Chip(kind, k.peak_flops, k.bandwidth, power, MODELS[model], tp, costs == "roofline",
                k.memory, k.nvlink)


def capped(kind, power):
    """One GPU of this kind capped at `power` of its TDP, serving the lesson's model."""
    return instance(kind, power)


CHIPS = {k.name: Chip(k.name, k.peak_flops, k.bandwidth, memory=k.memory, nvlink=k.nvlink)
         for k in KINDS.values()}
