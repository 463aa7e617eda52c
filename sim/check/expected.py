"""The states a check sets and what a native run says the page must show for each, and how
that is compared with what the page shows, number by number, as text."""

import random
import re

from ..settings import FIELDS, Settings
from ..show.figures import FIGURES, SHOWN_WITH_A_TRACE
from ..show.page import capacity_message, compare_message, footer
from ..show.report import METRICS
from ..show.numbers import layouts
from ..show.states import EXPLORER_STATES, STATES, TRAFFIC_STATES, found

MAIN = ("goodput", "gap")  # the page's two main charts: always drawn
LESSON = ("stall", "link", "prompt")  # the lesson's figures: always drawn
# worked out only while the "Go further" panel is open: what the traffic looks like, DistServe's
# goodput, what a dollar and a kWh of it buy, the portfolio's verdict, the best ratio and the
# chip mix (figure 9)
PANEL = ("traffic", "rate", "economics", "verdict", "ratio", "chips")
# Random states draw every setting from its slider or its choices, but the GPUs from these:
# at 32 GPUs the best-ratio figure alone takes minutes in the browser.
RANDOM_GPUS = (2, 3, 4, 6, 8)

# every named state's name, the lesson's first (what --states may name)
NAMED = [name for name, _, _ in STATES + EXPLORER_STATES + TRAFFIC_STATES]


def named_states():
    """{name: (changes, whether the panel is open)} of every named state: the lesson's with
    the panel closed, the explorer's and the traffic's with it open (each claimed result
    worked out from the runs, as the build does). Not yet the models' states: the native runs
    a check expects their figures from take minutes (figure 9's chip mixes alone ~80 s for
    'Memory pushes back'), while the page draws them from the build; the tests hold them to
    native runs instead (tests/page/test_page_truth.py, test_page_models.py)."""
    return {name: (changes, group != "lesson") for group, name, _, changes in found()
            if group != "model"}


def random_settings(rng):
    """One setting of every slider and choice the page offers, as a user could set them
    (the traffic settings have no control on the page yet: a trace of your own needs one)."""
    out = {}
    for name, f in FIELDS.items():
        meta = f.metadata
        if name in ("gpus", "readers") or meta["group"] in ("traffic", "model"):
            continue
        if meta["choices"] or meta["slider"]:
            out[name] = rng.choice(meta["choices"] or meta["slider"])
    gpus = rng.choice(RANDOM_GPUS)
    out.update(gpus=gpus, readers=rng.randint(1, gpus - 1), seed=rng.randrange(2**32))
    return out


def plan(args):
    """[(name, full settings, whether the panel is open)], in the order they are checked:
    the lesson's states with the panel closed, as a visitor first sees the page, then the
    explorer's and the random ones with it open (so that DistServe's goodput and the best
    ratio are on screen too)."""
    named = named_states()
    names = args.states if args.states is not None else list(named)
    states = [(name, *named[name]) for name in named if name in names]
    states.sort(key=lambda state: state[2])  # closed first; stable within each
    rng = random.Random(args.seed)
    states += [(f"random-{k}", random_settings(rng), True) for k in range(1, args.random + 1)]
    return [(name, Settings().but(**changes).as_dict(), panel) for name, changes, panel in states]


def setting_text(name, value):
    """A slider's value as the page shows it (web/settings.js, `show`): "4 req/s", "100 ms"."""
    meta = FIELDS[name].metadata
    factor, unit = meta["shown"]
    x = value * factor
    unit = unit or (meta["one"] if x == 1 else meta["unit"])  # "1 GPU", "2 GPUs"
    if meta["whole"]:
        text = f"{round(x):,}"
    else:  # JavaScript's String(Number(x.toPrecision(12))): 0.1 x 1000 reads 100
        x = float(f"{x:.12g}")
        text = str(int(x)) if x.is_integer() else repr(x)
    return f"{text} {unit}" if unit else text


def shows_value(name):
    """Whether the page shows a setting as a number (a slider's value, data-metric
    settings.<name>): choices and worded settings are select boxes instead."""
    meta = FIELDS[name].metadata
    return bool(meta["slider"]) and not meta["choices"] and not meta["names"]


def expected(lab, settings):
    """What the page must show for these settings, from a native run: the result, every
    number's text by data-metric key with the keys that must be on the page, and each
    figure's caption numbers (expected where the page shows that figure)."""
    s = Settings(**settings)
    message = compare_message(lab, s)
    texts = dict(message["shown"])
    required = {f"{layout}.{key}" for layout in layouts(message["result"]) for key, _ in METRICS}
    required |= set(re.findall(r"\{([a-z_0-9]+\.[a-z_0-9]+)\}", message["headline"]))
    for name in FIELDS:
        if shows_value(name):  # (prompt and reply with a trace: the simulator's own words)
            text = setting_text(name, settings[name])
            if name == "reader_tp" and settings[name] == 0:  # models.js: 0 is the writers' tp
                text = f"as the writers' ({setting_text('tp', settings['tp'])})"
            texts.setdefault(f"settings.{name}", text)
            required.add(f"settings.{name}")
    texts.update(footer())
    required |= set(footer())
    # the panel's capacity line: asked of the page's Python as the panel opens, so expected
    # where it is on screen, not required
    texts.update(capacity_message(s)["shown"])
    shown = MAIN + LESSON + PANEL + (SHOWN_WITH_A_TRACE if s.traffic != "lesson" else ())
    figures = {name: FIGURES[name].render(lab, s)["shown"] for name in shown
               if FIGURES[name].page}  # (a figure with page=False is not on the page yet)
    return {"result": message["result"], "texts": texts, "required": required,
            "figures": figures}


def compare_numbers(want, got):
    """The mismatches between what a native run gives and what the page shows:
    [(key, shown text or None, expected text or None)], and how many keys were compared.

    A figure's caption numbers are expected when its caption is on screen: the page works
    out only the figures it shows (the panel's while the panel is open; an embedded page
    only those it was asked to show), and leaves the others' hidden captions as they were."""
    texts, required = dict(want["texts"]), set(want["required"])
    for name, shown in want["figures"].items():
        if got["captions"].get(name):
            texts.update(shown)
            required |= set(shown)
    problems, seen = [], set()
    for key, text, visible in got["metrics"]:
        if key in texts:
            seen.add(key)
            if text != texts[key]:
                problems.append((key, text, texts[key]))
        elif visible:  # a number on screen that a native run does not give for this state
            problems.append((key, text, None))
    problems += [(key, None, texts[key]) for key in sorted(required - seen)]
    if got["result"] != want["result"]:
        problems.append(("pdsplit.result()", "another result", "the native compare result"))
    return problems, len(seen)


def mismatch_line(state, key, shown, want):
    if shown is None:
        return f"{state}: {key} is not on the page; a native run gives {want!r}"
    if want is None:
        return f"{state}: {key} shows {shown!r}, a number a native run does not give for this state"
    return f"{state}: {key} shows {shown!r}; a native run gives {want!r}"
