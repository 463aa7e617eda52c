"""`python -m sim trace`: the lesson's six steps and its limit line, every figure simulated."""

from textwrap import fill

from . import costs
from .report import a, ms, number, percent
from .workload import MULTIPLIERS, Workload

LINKS = (100.0, 25.0, 12.5, 1.25, 0.125)  # link speeds the lesson tries, GB/s
WIDTH = 88  # columns of the printed text
BUSY, SLOW_LINK, SHORT_PROMPT = 10.0, 0.25, 200  # the lesson's three limits


def break_even_link():
    """The link speed (GB/s) at which a cache crosses in the time its prompt is read."""
    return costs.CACHE_PER_TOKEN / costs.READ_COST / 1e9


def lesson(lab, s):
    """The walk-through as text, for settings s (the lesson uses the defaults)."""
    base = lab.compare(s)
    sh, sp = base["shared"], base["split"]
    work = Workload(lab.draws(s.seed, s.requests), s.rps, s.prompt, s.reply)
    read = s.prompt * costs.READ_COST
    cache = s.prompt * costs.CACHE_PER_TOKEN
    crossing = cache / (s.link * 1e9)
    prompts = ", ".join(number(round(s.prompt * m)) for m in MULTIPLIERS)
    replies = ", ".join(number(round(s.reply * m)) for m in MULTIPLIERS)
    by_link = [lab.compare(s.but(link=g))["split"]["goodput"] for g in LINKS]
    cross = lab.crossover(s)
    busy = lab.compare(s.but(rps=BUSY))
    slow = lab.compare(s.but(link=SLOW_LINK))
    short = lab.compare(s.but(prompt=SHORT_PROMPT))

    def both(r):
        return f"shared {percent(r['shared']['goodput'])}, split {percent(r['split']['goodput'])}"

    if cross["verdict"] == "between":
        crossover = f"below {cross['link']:.3g} GB/s the split stops beating the shared layout"
    elif cross["verdict"] == "never":
        crossover = "the split beats the shared layout at no link speed"
    else:
        crossover = "the split beats the shared layout at every link speed"
    lines = [
        "Why split reading the prompt from writing the reply?",
        "",
        f"1. The requests. {number(s.requests)} requests arrive at random, {number(s.rps)} a "
        f"second on average; the last arrives at {work.arrivals[-1]:.1f} s. Prompts are "
        f"{prompts} tokens, replies {replies} words.",
        f"2. The stall. Reading {a(s.prompt)}-token prompt takes {ms(read)} and a GPU "
        f"writes nothing meanwhile, so on a shared GPU every reply in progress waits: its next "
        f"word comes {ms(read + costs.STEP)} after the one before (the read plus one "
        f"{ms(costs.STEP)} step).",
        f"3. Measured. Shared: goodput {percent(sh['goodput'])}, first word p50/p99 "
        f"{ms(sh['ttft_p50'])} / {ms(sh['ttft_p99'])}, gap p50/p99 {ms(sh['gap_p50'])} / "
        f"{ms(sh['gap_p99'])}. Split: goodput {percent(sp['goodput'])}, first word p50/p99 "
        f"{ms(sp['ttft_p50'])} / {ms(sp['ttft_p99'])}, gap p50/p99 {ms(sp['gap_p50'])} / "
        f"{ms(sp['gap_p99'])}.",
        f"4. The hand-over. The split pays for its smooth gaps by moving the cache: "
        f"{cache / 1e6:.1f} MB for {a(s.prompt)}-token prompt, which crosses "
        f"{a(s.link)} GB/s link in {ms(crossing)}.",
        f"5. Break-even. The crossing takes as long as the read itself at "
        f"{break_even_link():.2f} GB/s, whatever the prompt's length: both grow with it.",
        "6. The link. The split's goodput at "
        + " / ".join(number(g) for g in LINKS) + " GB/s: "
        + " / ".join(f"{x * 100:.1f}" for x in by_link)
        + f"%; the shared layout's stays {percent(sh['goodput'])}: {crossover}.",
        "",
        f"Limits: at {number(BUSY)} req/s one reader falls behind ({both(busy)}); over "
        f"{a(SLOW_LINK)} GB/s link the cache arrives too late ({both(slow)}); with "
        f"{number(SHORT_PROMPT)}-token prompts reads are too short to stall anyone "
        f"({both(short)}).",
    ]
    return "\n".join(fill(line, WIDTH, subsequent_indent="   ") for line in lines) + "\n"


# The lesson's named states, as changes to the defaults: the page's buttons and baked results.
STATES = (
    ("default", "Lesson default", {}),
    ("busy", f"Busy: {number(BUSY)} req/s", {"rps": BUSY}),
    ("slow-link", f"Slow link: {number(SLOW_LINK)} GB/s", {"link": SLOW_LINK}),
    ("short-prompts", f"Short prompts: {number(SHORT_PROMPT)} tokens", {"prompt": SHORT_PROMPT}),
)
