"""The cost constants: one Llama-3-8B on one GPU (docs/model.md: "Costs", "GPU kinds").

Everything is derived from a few hardware/model facts so that the numbers the page shows
can be traced back to a datasheet, not tuned. Each fact has one name here: a read's cost and
a writing step are a Chip's (`CHIPS["A100"].read_cost`, `.step`), worked out from them, and
whatever shows them (the footer, the walk-through, the captions) asks the chip the simulator
itself uses (`layouts.chip`), so there is no second copy to edit by mistake.
"""

from ..settings import FIELDS

WEIGHTS = 8_030_261_248  # parameters of Llama-3-8B
# 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes (bf16).
LAYERS = 32  # the cache can cross layer by layer (Splitwise): 1/32 of it at a time
CACHE_PER_TOKEN = LAYERS * 8 * 128 * 2 * 2  # bytes (131,072)
# Replies one GPU writes at once: the lesson's 32, the `slots` setting's default (its one source).
SLOTS = FIELDS["slots"].default
# A job that reaches a GPU within a nanosecond after a step's end counts as there at its end.
# The model's times are exact and floats are not: a clock that jumps many steps at once and
# one that adds them one by one round differently, and an exact tie (as when a reader's
# prompts and a writer's steps line up) must not turn on which.
EPS = 1e-9


class Chip:
    """A kind of GPU: what reading one prompt token and one writing step cost on it.

    power: its power cap, a share of its TDP (docs/model.md: "Price and power"). Capped, it reads
    at that share of its peak FLOP/s and writes as fast (its memory bandwidth is unchanged).
    The read cost is worked out as 2 x weights / (peak x power), so uncapped (x 1.0, exact)
    it is the datasheet chip's to the last bit."""

    __slots__ = ("name", "peak_flops", "bandwidth", "read_cost", "step", "power")

    def __init__(self, name, peak_flops, bandwidth, power=1.0):
        self.name = name
        self.peak_flops = peak_flops  # bf16 dense FLOP/s, uncapped
        self.bandwidth = bandwidth  # memory B/s
        self.power = power  # share of its TDP it may draw
        # Reading a prompt is compute-bound: 2 FLOP per weight per token (A100: 51.476 us).
        self.read_cost = 2 * WEIGHTS / (peak_flops * power)  # seconds per prompt token
        # Writing is memory-bound: every weight is read once a step, whatever the batch
        # (A100: 7.8767 ms).
        self.step = 2 * WEIGHTS / bandwidth  # seconds per writing step


# Datasheets, bf16 dense without sparsity:
# - A100 80 GB SXM: 312 TFLOP/s, 2,039 GB/s (NVIDIA A100 datasheet).
# - H100 SXM: 989.5 TFLOP/s (1,979 with sparsity), 3.35 TB/s (NVIDIA H100 datasheet).
# - B200 in HGX B200 at 1,000 W: 2.25 PFLOP/s (4.5 with sparsity), "up to 8 TB/s" (NVIDIA
#   Blackwell datasheet).
CHIPS = {chip.name: chip for chip in (
    Chip("A100", 312e12, 2.039e12),
    Chip("H100", 989.5e12, 3.35e12),
    Chip("B200", 2.25e15, 8.0e12),
)}


def capped(kind, power):
    """A GPU of this kind capped at `power` of its TDP (the datasheet's own when uncapped)."""
    chip = CHIPS[kind]
    return chip if power == 1.0 else Chip(kind, chip.peak_flops, chip.bandwidth, power)
