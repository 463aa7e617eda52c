"""The page's named states: buttons and links whose results are baked into the page at build
time, so that they show at once. Each: (name, label, changes to the defaults)."""

from .report import number
from .walkthrough import BUSY, SHORT_PROMPT, SLOW_LINK

# The lesson's three limits (the trace works them out at any settings, and finds these at
# the defaults) and its defaults.
STATES = (
    ("default", "Lesson default", {}),
    ("busy", f"Busy: {number(BUSY)} req/s", {"rps": BUSY}),
    ("slow-link", f"Slow link: {number(SLOW_LINK)} GB/s", {"link": SLOW_LINK}),
    ("short-prompts", f"Short prompts: {number(SHORT_PROMPT)} tokens", {"prompt": SHORT_PROMPT}),
)

# The questions the lesson leaves open, in the explorer (explore-model.md).
EXPLORER_STATES = (
    ("portfolio", "Portfolio: 3 GPUs, 2 readers, chunks of 512",
     {"gpus": 3, "readers": 2, "chunk": 512}),
    ("chat", "Chat: 3 readers to 4 writers, 12 req/s", {"gpus": 7, "readers": 3, "rps": 12.0}),
    ("summarizing", "Summarizing: 8,000-token prompts, 8 GPUs",
     {"prompt": 8000, "reply": 50, "gpus": 8, "readers": 6, "ttft_target": 2.0, "rps": 8.0}),
    ("h100-reads", "Read on H100, write on A100", {"reader_gpu": "H100"}),
    ("slow-layerwise", "Slow link, crossed layer by layer", {"link": 0.5, "layerwise": 1}),
    ("local-short", "Short prompts read locally (Dynamo)", {"local_below": 1500}),
    # Different chips for different jobs (docs/model.md: "Price and power"). At 3 readers to 5
    # writers H100 readers with A100 writers serve more per dollar than any of figure 9's other
    # mixes does at any ratio of 8 GPUs; capped writers write as fast on a quarter less power
    # (the split's numbers are the lesson's); with one reader for three writers at 10 req/s,
    # the readers' queue is long, and reading past it locally doubles the split's goodput.
    ("splitwise-ha", "Splitwise-HA: H100s read, A100s write",
     {"gpus": 8, "readers": 3, "rps": 16.0, "reader_gpu": "H100"}),
    ("writers-capped", "Writers capped at 50%", {"writer_power": 0.5}),
    ("dynamo-queue", "Dynamo: read locally when the readers' queue passes 2",
     {"gpus": 4, "readers": 1, "rps": 10.0, "local_queue": 3}),
)

# Real traffic (docs/model.md: "Real traffic"): the traces' two stories, and where the split's
# best ratio lies for chat. Shown in the "Go further" panel's Traffic section.
TRAFFIC_STATES = (
    ("azure-chat", "Azure chat", {"traffic": "azure-chat"}),
    ("azure-code", "Azure code: a lull, then bursts", {"traffic": "azure-code"}),
    ("azure-code-poisson", "Azure code without its bursts",
     {"traffic": "azure-code", "arrivals": "poisson"}),
    ("azure-chat-8", "Azure chat on 8 GPUs: the best ratio",
     {"traffic": "azure-chat", "gpus": 8, "rps": 16.0}),
)
