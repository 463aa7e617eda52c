"""`python -m sim trace`: the lesson's six steps and its limit line, every figure simulated.

Every sentence holds for any settings: its numbers are computed, and where a claim could turn
false away from the defaults ("falls behind", "too late", "too short to stall"), the words
are chosen from the computed numbers.
"""

from math import floor, log10
from textwrap import fill

from ..model.instances import chip
from ..model.link import reads
from ..settings import FIELDS
from ..workload.draws import Workload, sizes
from .numbers import a, ms, number, percent, plural

LINKS = (100.0, 25.0, 12.5, 1.25, 0.125)  # link speeds the lesson tries, GB/s
WIDTH = 88  # columns of the printed text
# The lesson's three limits at the default settings: the page's named states. The trace
# works its limits out from the settings it is given (`limits`), and finds these at the defaults.
BUSY, SLOW_LINK, SHORT_PROMPT = 10.0, 0.25, 200
ROUND = (1, 2, 2.5, 5)  # round numbers: these times a power of ten


def first_gpu(s):
    """The GPU the walk-through speaks of: GPU 0, of the readers' kind in every layout (the
    split's first reader, and a shared GPU that reads and writes): the simulator's own."""
    return chip(s, 0)


def break_even_link(s):
    """The link speed (GB/s) at which a cache crosses in the time its prompt is read."""
    gpu = first_gpu(s)
    return gpu.model.cache / gpu.read_cost / 1e9


def round_number(x, above):
    """The nearest round number (1, 2, 2.5 or 5 times a power of ten) above or below x > 0."""
    e = floor(log10(x))
    found = [float(m * 10**k if k >= 0 else m / 10**-k)  # divided, so 0.25 is exactly 25 / 100
             for k in (e - 1, e, e + 1) for m in ROUND]
    return min(v for v in found if v > x) if above else max(v for v in found if v < x)


def reader_capacity(s):
    """Prompts a second one GPU can read, at s's average prompt."""
    prompts = sizes(s.prompt)  # each drawn equally often
    return len(prompts) / (sum(prompts) * first_gpu(s).read_cost)


def too_slow_link(s):
    """The link speed (GB/s) below which even the smallest prompt's cache crosses in more
    than the first-word target, so that every request of the split is late."""
    return min(sizes(s.prompt)) * first_gpu(s).model.cache / (s.ttft_target * 1e9)


def limits(s):
    """(busy rps, slow link, short prompt) for settings s; None where the simulator's limits
    allow no such state. At the defaults: (BUSY, SLOW_LINK, SHORT_PROMPT).

    Busy: a load above one reader's capacity (the setting itself if already there, else the
    next round number). Slow: a link too slow for even the smallest cache to cross within
    the first-word target (the setting itself, else the next round number below). Short: a
    tenth of the prompt setting."""
    rps_hi = FIELDS["rps"].metadata["limits"][1]
    link_lo = FIELDS["link"].metadata["limits"][0]
    prompt_lo = FIELDS["prompt"].metadata["limits"][0]
    capacity = reader_capacity(s)
    busy = s.rps if s.rps > capacity else min(round_number(capacity, above=True), rps_hi)
    edge = too_slow_link(s)
    slow = s.link if s.link < edge else max(round_number(edge, above=False), link_lo)
    return (busy if busy > capacity else None, slow if slow < edge else None,
            max(prompt_lo, round(s.prompt / 10)))


def longest_reader_wait(lab, s):
    """The longest any request of the split waits for its one reader to be free."""
    work = lab.workload(s)
    starts, _ = reads(work, s)
    return max((start - a for start, a in zip(starts, work.arrivals) if start is not None),
               default=0.0)


def short_ms(seconds):
    """Like ms(), but a time under 0.05 ms keeps two significant digits instead of "0.0 ms"."""
    return ms(seconds) if seconds >= 0.5e-4 else f"{seconds * 1000:.2g} ms"


def lesson(lab, s):
    """The walk-through as text, for settings s (the lesson uses the defaults)."""
    base = lab.compare(s)
    sh, sp = base["shared"], base["split"]
    work = Workload(lab.draws(s.seed, s.requests), s.rps, s.prompt, s.reply)
    gpu = first_gpu(s)
    read = s.prompt * gpu.read_cost
    cache = s.prompt * gpu.model.cache
    crossing = cache / (s.link * 1e9)
    prompts = ", ".join(map(number, sizes(s.prompt)))
    replies = ", ".join(map(number, sizes(s.reply)))
    by_link = [lab.compare(s.but(link=g))["split"]["goodput"] for g in LINKS]
    cross = lab.crossover(s)
    last = work.arrivals[-1]
    last = f"{last:.1f} s" if last >= 0.05 else short_ms(last)

    def both(r):
        return f"shared {percent(r['shared']['goodput'])}, split {percent(r['split']['goodput'])}"

    if cross["verdict"] == "between":
        crossover = f"below {cross['link']:.3g} GB/s the split stops beating the shared layout"
    elif cross["verdict"] == "never":
        crossover = "the split beats the shared layout at no link speed"
    else:
        crossover = "the split beats the shared layout at every link speed"
    if s.requests == 1:
        requests = (f"1 request arrives at random ({number(s.rps)} a second on average), at "
                    f"{last}. Its prompt is {plural(work.prompts[0], 'token')}, its reply "
                    f"{plural(work.replies[0], 'word')}.")
    else:
        requests = (f"{number(s.requests)} requests arrive at random, {number(s.rps)} a second "
                    f"on average; the last arrives at {last}. Prompts are {prompts} tokens, "
                    f"replies {replies} words.")
    lines = [
        "Why split reading the prompt from writing the reply?",
        "",
        f"1. The requests. {requests}",
        f"2. The stall. Reading {a(s.prompt)}-token prompt takes {short_ms(read)} and a GPU "
        f"writes nothing meanwhile, so on a shared GPU every reply in progress waits: its next "
        f"word comes {ms(read + gpu.step)} after the one before (the read plus one "
        f"{ms(gpu.step)} step).",
        f"3. Measured. Shared: goodput {percent(sh['goodput'])}, first word p50/p99 "
        f"{ms(sh['ttft_p50'])} / {ms(sh['ttft_p99'])}, gap p50/p99 {ms(sh['gap_p50'])} / "
        f"{ms(sh['gap_p99'])}. Split: goodput {percent(sp['goodput'])}, first word p50/p99 "
        f"{ms(sp['ttft_p50'])} / {ms(sp['ttft_p99'])}, gap p50/p99 {ms(sp['gap_p50'])} / "
        f"{ms(sp['gap_p99'])}.",
        f"4. The hand-over. The split pays for its smooth gaps by moving the cache: "
        f"{cache / 1e6:.1f} MB for {a(s.prompt)}-token prompt, which crosses "
        f"{a(s.link)} GB/s link in {short_ms(crossing)}.",
        f"5. Break-even. The crossing takes as long as the read itself at "
        f"{break_even_link(s):.2f} GB/s, whatever the prompt's length: both grow with it.",
        "6. The link. The split's goodput at "
        + " / ".join(number(g) for g in LINKS) + " GB/s: "
        + " / ".join(f"{x * 100:.1f}" for x in by_link)
        + f"%; the shared layout's stays {percent(sh['goodput'])}: {crossover}.",
        "",
        f"Limits: {limit_line(lab, s, both)}.",
    ]
    return "\n".join(fill(line, WIDTH, subsequent_indent="   ") for line in lines) + "\n"


def limit_line(lab, s, both):
    """The three ways splitting stops paying, each said as the simulation finds it."""
    busy, slow, short = limits(s)
    if busy is not None:
        result = lab.compare(s.but(rps=busy))
        if longest_reader_wait(lab, s.but(rps=busy)) > s.ttft_target:
            load = f"at {number(busy)} req/s one reader falls behind ({both(result)})"
        else:  # the queue grows, but too few requests arrive for it to make anyone late
            are = "is" if s.requests == 1 else "are"
            load = (f"at {number(busy)} req/s one reader reads slower than requests arrive, "
                    f"but {plural(s.requests, 'request')} {are} too few for it to fall behind "
                    f"({both(result)})")
    else:
        top = FIELDS["rps"].metadata["limits"][1]
        load = (f"even at {number(top)} req/s, the most allowed, one reader keeps up "
                f"({both(lab.compare(s.but(rps=top)))})")
    if slow is not None:
        link = (f"over {a(slow)} GB/s link the cache arrives too late "
                f"({both(lab.compare(s.but(link=slow)))})")
    else:
        bottom = FIELDS["link"].metadata["limits"][0]
        link = (f"even over {a(bottom)} GB/s link, the slowest allowed, the smallest prompts' "
                f"caches cross within the first-word target "
                f"({both(lab.compare(s.but(link=bottom)))})")
    result = lab.compare(s.but(prompt=short))
    if result["shared"]["gap_max"] <= s.gap_target:
        stall = "reads are too short to stall anyone"
    elif first_gpu(s).step > s.gap_target:
        stall = (f"one {ms(first_gpu(s).step)} writing step alone is over the {ms(s.gap_target)} "
                 f"gap target")
    else:
        stall = f"reads still stall replies past the {ms(s.gap_target)} gap target"
    return f"{load}; {link}; with {number(short)}-token prompts {stall} ({both(result)})"
