"""The lesson's cost constants: one Llama-3-8B on one A100 (spec: "Costs").

Everything is derived from four hardware/model facts so that the numbers the page
shows can be traced back to a datasheet, not tuned.
"""

WEIGHTS = 8_030_261_248  # parameters of Llama-3-8B
PEAK_FLOPS = 312e12  # A100 bf16 dense, FLOP/s
BANDWIDTH = 2.039e12  # A100 80 GB SXM memory bandwidth, B/s

# Reading a prompt is compute-bound: 2 FLOP per weight per token.
READ_COST = 2 * WEIGHTS / PEAK_FLOPS  # seconds per prompt token (51.476 us)
# Writing is memory-bound: every weight is read once per step, whatever the batch.
STEP = 2 * WEIGHTS / BANDWIDTH  # seconds per writing step (7.8767 ms)
# 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes (bf16).
CACHE_PER_TOKEN = 32 * 8 * 128 * 2 * 2  # bytes (131,072)
SLOTS = 32  # replies one GPU writes at once
