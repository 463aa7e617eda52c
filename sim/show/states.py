"""The page's named states: buttons and links whose results are baked into the page at build
time, so that they show at once. Each: (name, label, changes to the defaults).

A state whose label states a result has that result worked out from the runs, never typed:
`readers: BEST` stands for the readers of the best ratio that figure 6 (or 8) rings for the
state's own settings, and the label's {ratio}, {readers} and {writers} say it (`named`, which
the build calls with its lab). A label that describes its traffic (a lull, then bursts;
without its bursts) names a test of the window's arrivals (`HOLDS`) that the build runs, and
refuses to bake a state whose test fails.
"""

from functools import lru_cache

from ..model.lab import Lab
from ..settings import Settings
from ..workload.summary import burstiness
from .models import MEMORY, MEMORY_LOADS
from .ratio import best
from .numbers import number, plural
from .walkthrough import BUSY, SHORT_PROMPT, SLOW_LINK

BEST = "best"  # readers: the best ratio's, worked out from the runs (`named`)

# The lesson's three limits (the trace works them out at any settings, and finds these at
# the defaults) and its defaults.
STATES = (
    ("default", "Lesson default", {}),
    ("busy", f"Busy: {number(BUSY)} req/s", {"rps": BUSY}),
    ("slow-link", f"Slow link: {number(SLOW_LINK)} GB/s", {"link": SLOW_LINK}),
    ("short-prompts", f"Short prompts: {number(SHORT_PROMPT)} tokens", {"prompt": SHORT_PROMPT}),
)

# The questions the lesson leaves open, in the explorer (explore-model.md). Chat needs few
# readers and summarizing many: each is set to the ratio figure 6 finds best for it.
EXPLORER_STATES = (
    ("portfolio", "Portfolio: 3 GPUs, 2 readers, chunks of 512",
     {"gpus": 3, "readers": 2, "chunk": 512}),
    ("chat", "Chat at 12 req/s: the best ratio, {readers} to {writers}",
     {"gpus": 7, "readers": BEST, "rps": 12.0}),
    ("summarizing", "Summarizing: 8,000-token prompts on 8 GPUs, the best ratio {ratio}",
     {"prompt": 8000, "reply": 50, "gpus": 8, "readers": BEST, "ttft_target": 2.0, "rps": 8.0}),
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
    ("azure-chat-8", "Azure chat on 8 GPUs: the best ratio, {ratio}",
     {"traffic": "azure-chat", "gpus": 8, "readers": BEST, "rps": 16.0}),
)

# Bigger models, GPUs working as one, costs that grow with context and memory that pushes back
# (docs/model.md: "Bigger models, GPUs working as one, and memory"), in the "Go further"
# panel's section of their own: the spec's settings (models-and-memory.md's table of figures),
# and figure 11's split with KV memory at the lowest of its loads where the readers were held
# back (`rps: PUSHED`, worked out from the runs).
PUSHED = "pushed"
# Figure 11's settings but its 1,024 slots (the page's slider ends at 128): a button sets just
# what it names, and 14 replies of 2,800 tokens fill the writer's memory, so the slots bind at
# neither count and every number is the figure's.
ON_THE_PAGE = {key: value for key, value in MEMORY.items() if key != "slots"}
MODEL_STATES = (
    ("70b-4", "70B on 4 A100s each", {"model": "70B", "tp": 4, "gpus": 8, "readers": 4}),
    ("405b-8", "405B on 8 H200s",
     {"model": "405B", "tp": 8, "gpus": 16, "readers": 8, "reader_gpu": "H200",
      "writer_gpu": "H200", "rps": 2.0, "ttft_target": 2.0, "gap_target": 0.2}),
    ("long-roofline", "Long prompts, real costs: 16,000 tokens",
     {"costs": "roofline", "prompt": 16000, "reply": 100, "rps": 0.5, "ttft_target": 2.0}),
    ("memory-pushes-back", "Memory pushes back: 70B on 2 A100s at {rps} req/s",
     {**ON_THE_PAGE, "rps": PUSHED}),
    ("different-tp", "Readers and writers, different tp: 4 and 2",
     {"model": "70B", "tp": 2, "gpus": 8, "readers": 4, "reader_tp": 4, "reader_gpu": "H100",
      "rps": 4.0, "ttft_target": 1.0}),
)

# A window "has a lull, then bursts" if its longest wait between two arrivals is at least a
# quarter of its span, and the arrivals after it are bursty (their gaps' coefficient of
# variation at least 2: random arrivals have 1); "without its bursts" if its arrivals are no
# burstier than random ones give (at most 1.5).
LULL, BURSTY, CALM = 0.25, 2.0, 1.5


def lull_then_bursts(lab, s):
    arrivals = lab.workload(s).arrivals
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
    longest = max(range(len(gaps)), key=gaps.__getitem__)
    after = burstiness(arrivals[longest + 1:])
    return (gaps[longest] >= LULL * (arrivals[-1] - arrivals[0]) and after is not None
            and after >= BURSTY)


def without_bursts(lab, s):
    cv = burstiness(lab.workload(s).arrivals)
    return cv is not None and cv <= CALM


HOLDS = {"azure-code": lull_then_bursts, "azure-code-poisson": without_bursts}


def pushed(lab, changes):
    """The lowest of figure 11's loads at which the split's readers were held back (its
    backpressure above 0) at these settings; a ValueError if none is."""
    s = Settings().but(**{key: value for key, value in changes.items() if key != "rps"})
    for load in MEMORY_LOADS:
        if lab.compare(s.but(rps=load))["split"]["backpressure"] > 0:
            return load
    raise ValueError("memory never pushes back along figure 11's loads: see sim/show/states.py")


def resolved(lab, name, label, changes):
    """(name, label, changes) with a claimed result worked out: readers=BEST set to the best
    ratio's readers for the state's other settings, and the label saying it; rps=PUSHED the
    lowest load at which memory pushes back, and the label saying it."""
    if changes.get("rps") == PUSHED:
        load = pushed(lab, changes)
        return name, label.format(rps=number(load)), {**changes, "rps": load}
    if changes.get("readers") != BEST:
        return name, label, changes
    others = {key: value for key, value in changes.items() if key != "readers"}
    s = Settings().but(**others)
    readers = best(lab.ratio(s))["readers"]
    writers = s.gpus - readers
    words = {"readers": plural(readers, "reader"), "writers": plural(writers, "writer"),
             "ratio": f"{readers}:{writers}"}
    return name, label.format(**words), {**changes, "readers": readers}


def named(lab):
    """[(group, name, label, changes)] of every named state, the lesson's, the explorer's,
    the traffic's and the models', each claimed result worked out from lab's runs; refuses (ValueError) a
    state whose label describes its traffic wrongly."""
    out = []
    for group, states in (("lesson", STATES), ("explorer", EXPLORER_STATES),
                          ("traffic", TRAFFIC_STATES), ("model", MODEL_STATES)):
        for state in states:
            name, label, changes = resolved(lab, *state)
            holds = HOLDS.get(name)
            if holds and not holds(lab, Settings().but(**changes)):
                raise ValueError(f"the named state {name!r} ({label!r}) does not hold for its "
                                 "window: see sim/show/states.py")
            out.append((group, name, label, changes))
    return out


@lru_cache(maxsize=1)
def found():
    """named() with a lab of its own, once per process (for the checker and the tests)."""
    return tuple(named(Lab()))


def group(name):
    """[(name, label, changes)] of one group of found(): "lesson", "explorer" or "traffic"."""
    return [(n, label, changes) for g, n, label, changes in found() if g == name]
