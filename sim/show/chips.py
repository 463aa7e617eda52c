"""Figure 9, the chip mix: good requests per dollar and per kWh of four mixes of chips, each
layout at its rate goodput, side by side on one scale (docs/model.md: "Price and power").

Its economics take every layout's rate bisection for every mix, so `chip_needs` lists them a
simulation a piece, as the rate goodput's do, and the page can do them between newer
settings' numbers once it shows the figure.

A mix the simulator refuses at the settings (a model whose weights do not fit an instance of
its chips at the settings' tp: docs/model.md, "GPUs working as one") is left out: its needs,
stages, bars and numbers alike, and the caption says why, in the refusal's own words.
"""

import re
from functools import partial

from ..model.economics import EXAMPLE_PRICE, TDP
from ..model.instances import check
from ..model.lab import RATE_STEPS
from ..model.layouts import layouts_of
from .charts import COLOURS, base_layout
from .economics import count, dollars
from .numbers import fill, number, percent, rate, tag, untag

# (key, label, words, changes): A100s alone; Splitwise-HA's mix (H100s read, A100s write); H100s
# alone; and H100s with the writers capped at half their power ("barely moved token speed").
# In the words, {cap} is that cap, a number the page marks as it marks every number it shows.
CAP = 0.5
MIXES = (
    ("a100", "A100 readers<br>A100 writers", "A100s alone",
     {"reader_gpu": "A100", "writer_gpu": "A100", "reader_power": 1.0, "writer_power": 1.0}),
    ("ha", "H100 readers<br>A100 writers", "H100s reading for A100s (Splitwise-HA)",
     {"reader_gpu": "H100", "writer_gpu": "A100", "reader_power": 1.0, "writer_power": 1.0}),
    ("h100", "H100 readers<br>H100 writers", "H100s alone",
     {"reader_gpu": "H100", "writer_gpu": "H100", "reader_power": 1.0, "writer_power": 1.0}),
    ("capped", f"H100 readers<br>H100 writers at {CAP:.0%}", "H100s with the writers capped at {cap}",
     {"reader_gpu": "H100", "writer_gpu": "H100", "reader_power": 1.0, "writer_power": CAP}),
)
KINDS = ("A100", "H100")  # the kinds the mixes use
MEASURES = (("per_dollar", "good requests per $"), ("per_kwh", "good requests per kWh"))


def kind_price(s, kind):
    """What a GPU of this kind costs in the mixes: the price s gives its pool of that kind
    (the readers' first), or 0, the kind's example price."""
    for pool_kind, price in ((s.reader_gpu, s.reader_price), (s.writer_gpu, s.writer_price)):
        if pool_kind == kind and price:
            return price
    return 0.0


def capped_at():
    """The capped mix's cap in running text, tagged: "50%"."""
    return tag("chips.cap", f"{CAP:.0%}")


def mixes(s):
    """[(key, label, words, settings)]: s with each mix's chips, power caps and prices."""
    out = []
    for key, label, words, changes in MIXES:
        priced = {"reader_price": kind_price(s, changes["reader_gpu"]),
                  "writer_price": kind_price(s, changes["writer_gpu"])}
        out.append((key, label, words.format(cap=capped_at()), s.but(**changes, **priced)))
    return out


def runnable(s):
    """The mixes the settings allow, as mixes() gives them, and those they refuse: [(key, words,
    why)], why the refusal's first clause, shortened and tagged (refused)."""
    kept, left = [], []
    for key, label, words, m in mixes(s):
        try:
            check(m)
        except ValueError as refusal:
            left.append((key, words, refused(key, str(refusal))))
        else:
            kept.append((key, label, words, m))
    return kept, left


# instances.check's refusals that a mix may meet where the settings themselves pass
DOES_NOT_FIT = re.compile(r"model=(?P<model>\S+) does not fit: its weights are "
                          r"(?P<weights>[\d,.]+) GB, and "
                          r"(?P<where>an instance|a reader instance|a writer instance) \([^)]*\) "
                          r"of (?P<count>\d+) (?P<kind>\S+) may use (?P<usable>[\d,.]+) GB")
WOULD_MIX = re.compile(r"readers=(?P<readers>\d+) is not a multiple of tp=(?P<tp>\d+), and the "
                       r"readers' GPUs \([^)]*\) differ from the writers' \([^)]*\): a shared "
                       r"instance would mix them")


def refused(key, refusal):
    """A refusal of instances.check in one clause, its numbers tagged: "405B's weights (811.7 GB)
    do not fit an instance of 8 A100s (618.5 GB usable)"; another, up to its first ";"."""
    found = DOES_NOT_FIT.match(refusal)
    if found:
        return (f"{tag(f'chips.{key}_model', found['model'])}'s weights "
                f"({tag(f'chips.{key}_weights', found['weights'])} GB) do not fit "
                f"{found['where']} of {tag(f'chips.{key}_gpus', found['count'])} {found['kind']} "
                f"({tag(f'chips.{key}_usable', found['usable'])} GB usable)")
    found = WOULD_MIX.match(refusal)
    if found:
        return (f"readers={tag(f'chips.{key}_readers', found['readers'])} is not a multiple of "
                f"tp={tag(f'chips.{key}_tp', found['tp'])}, and a shared instance would mix the "
                f"readers' GPUs with the writers'")
    return refusal.split(";")[0]


def chip_needs(lab, s):
    """Every mix's economics, a simulation a piece (each its layouts' rate bisections), mix
    after mix: `chip_stages` draws the mixes done so far. Only the mixes the settings allow."""
    return [partial(lab.economics_step, m) for *_, m in runnable(s)[0] for _ in range(steps_of(m))]


def steps_of(m):
    """A mix's pieces: about the most simulations its layouts' rate bisections take (a finding
    done sooner makes the rest no-ops; one not done by then is finished when it is drawn)."""
    return len(layouts_of(m)) * (RATE_STEPS + 3)


def chip_stages(lab, s):
    """Figure 9 as the page shows it while its mixes are worked out, one a stage: [(pieces
    done, a function drawing the figure with the mixes done so far)]. Each bar shown is the
    whole figure's own; a mix not yet done has no bars, and its place on the axis is kept."""
    out, done = [], 0
    for k, (*_, m) in enumerate(runnable(s)[0][:-1]):
        done += steps_of(m)
        out.append((done, partial(chip_sketch, lab, s, k + 1)))
    return out


def chip_sketch(lab, s, done):
    """The figure with the first `done` mixes' bars alone (of those the settings allow)."""
    kept, left = runnable(s)
    found = [(key, label, words, m, lab.economics(m) if k < done else None)
             for k, (key, label, words, m) in enumerate(kept)]
    return chip_chart(s, found, left)


def chip_economics(lab, s):
    """{mix key: sim.economics for that mix}: the JSON the figure shows (the mixes the settings
    allow)."""
    return {key: lab.economics(m) for key, _, _, m in runnable(s)[0]}


def prices_words(s):
    """Which prices and power the figure used: "the example prices (A100 $1.30, ...)"."""
    prices = [(kind, kind_price(s, kind)) for kind in KINDS]

    def shown(kind, price):
        return f"{kind} {tag(f'chips.{kind.lower()}_price', dollars(price or EXAMPLE_PRICE[kind]))}"

    if any(price for _, price in prices):
        used = " and ".join(f"{shown(kind, price)} an hour "
                            f"({'given' if price else 'the example price'})"
                            for kind, price in prices)
    else:
        used = f"the example prices ({', '.join(shown(*p) for p in prices)} an hour)"
    watts = ", ".join(f"{kind} {tag(f'chips.{kind.lower()}_tdp', count(TDP[kind]))} W"
                      for kind in KINDS)
    return f"{used}, and the datasheet TDPs ({watts})"


def price_note(s):
    """The chart's own line on its prices: "$ an hour: A100 1.30, H100 3.00 (example prices)"."""
    prices = [(kind, kind_price(s, kind)) for kind in KINDS]
    if not any(price for _, price in prices):
        return ("$ an hour: " + ", ".join(f"{kind} {EXAMPLE_PRICE[kind]:,.2f}" for kind in KINDS)
                + " (example prices)")
    return "$ an hour: " + ", ".join(
        f"{kind} {price or EXAMPLE_PRICE[kind]:,.2f} ({'given' if price else 'example'})"
        for kind, price in prices)


def chip_mix(lab, s):
    """Figure 9: per $ (top) and per kWh (bottom), a bar per layout for each mix (each the
    settings allow; the caption says why any other is left out)."""
    kept, left = runnable(s)
    found = [(key, label, words, m, lab.economics(m)) for key, label, words, m in kept]
    if not found:
        return chip_chart(s, found, left), nothing_runs(left)
    return chip_chart(s, found, left), caption(s, found, list(found[0][4])) + left_out(left)


def chip_chart(s, found, left=()):
    """The chart of [(key, label, words, mix, its economics or None: not yet known)]; left: the
    mixes refused, [(key, words, why)] (runnable), named in its meta. No mix: an empty chart."""
    if not found:
        layout = base_layout("", "")
        layout["height"] = 600
        layout["meta"] = {"mixes": [], "prices": [], "left_out": [key for key, *_ in left]}
        return {"data": [], "layout": layout}
    known = [e for *_, e in found if e is not None]
    names = list(known[0])
    gap = 0.1  # of the plot's height, between the panels
    height = (1 - gap) / 2
    layout = base_layout("", "")
    layout["height"] = 600
    layout["barmode"] = "group"
    layout["margin"] = {**layout["margin"], "l": 64, "b": 64}  # two-line mix names below
    data = []
    x = [label for _, label, *_ in found]
    for k, (measure, words) in enumerate(MEASURES):
        suffix = "" if k == 0 else "2"
        top = 1 - k * (height + gap)
        layout[f"xaxis{suffix}"] = {**layout["xaxis"], "anchor": f"y{suffix}", "type": "category",
                                    "title": {"text": ""}, "showticklabels": k == 1,
                                    "showgrid": False}
        if k:
            layout[f"xaxis{suffix}"]["matches"] = "x"
        highest = max(e[layout_name][measure] for e in known for layout_name in names)
        layout[f"yaxis{suffix}"] = {**layout["yaxis"], "domain": [max(top - height, 0.0), top],
                                    "anchor": f"x{suffix}", "range": [0, (highest or 1.0) * 1.2],
                                    "rangemode": "tozero", "title": {"text": words}}
        for name in names:
            data.append({"type": "bar", "name": name, "x": x, "showlegend": k == 0,
                         "y": [None if e is None else e[name][measure] for *_, e in found],
                         "legendgroup": name,
                         "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
                         "marker": {"color": COLOURS[name]},
                         "hovertemplate": f"%{{y:,.0f}} {words}<extra>{name}</extra>"})
    # The prices on the chart itself too: a cost chart says which prices it used.
    layout["annotations"] = [{"x": 1, "y": 1.02, "xref": "paper", "yref": "paper",
                              "xanchor": "right", "yanchor": "bottom", "showarrow": False,
                              "text": price_note(s), "font": {"size": 12}}]
    layout["meta"] = {"mixes": [key for key, *_ in found], "prices": [
        [m.reader_price or EXAMPLE_PRICE[m.reader_gpu], m.writer_price or EXAMPLE_PRICE[m.writer_gpu]]
        for *_, m, _ in found]}
    if left:
        layout["meta"]["left_out"] = [key for key, *_ in left]
    return {"data": data, "layout": layout}


def caption(s, found, names):
    writers = s.gpus - s.readers
    text = (f"Good requests per dollar (top) and per kWh (bottom), each layout at its rate "
            f"goodput (the most load at which {tag('chips.attainment', percent(s.attainment))} "
            f"are good), on {tag('chips.gpus', number(s.gpus))} GPUs: "
            f"{tag('chips.readers', number(s.readers))} "
            f"reader{'' if s.readers == 1 else 's'} and {tag('chips.writers', number(writers))} "
            f"writer{'' if writers == 1 else 's'}, at {prices_words(s)}. ")
    text += "The split, per dollar and per kWh: " + "; ".join(
        f"{mix} {tag(f'chips.{key}_per_dollar', count(e['split']['per_dollar']))} and "
        f"{tag(f'chips.{key}_per_kwh', count(e['split']['per_kwh']))}"
        for key, _, mix, _, e in found) + ". "
    for measure, words in (("per_dollar", "dollar"), ("per_kwh", "kWh")):
        best = []
        for name in names:  # the mixes that serve most (equal ones all named)
            most = max(f[4][name][measure] for f in found)
            if most == 0:  # no mix serves any: none is "most"
                best.append(f"{name}, none of the mixes "
                            f"({tag(f'chips.{name}_{measure}', count(most))} each)")
                continue
            mixes_named = " and ".join(f[2] for f in found if f[4][name][measure] == most)
            best.append(f"{name} with {mixes_named} "
                        f"({tag(f'chips.{name}_{measure}', count(most))})")
        text += f"Most per {words}: {'; '.join(best)}. "
    economics = dict((f[0], f[4]) for f in found)
    if "h100" not in economics or "capped" not in economics:  # one left out: nothing to compare
        return text.rstrip()
    uncapped, capped = (economics[key]["split"] for key in ("h100", "capped"))
    same = uncapped["rate"] == capped["rate"]
    speed = (f"keeps the split's rate goodput at {tag('chips.capped_rate', rate(capped['rate']))}"
             if same else f"moves the split's rate goodput from "
             f"{tag('chips.uncapped_rate', rate(uncapped['rate']))} to "
             f"{tag('chips.capped_rate', rate(capped['rate']))}")
    return text + (f"Capping the H100 writers at {capped_at()} {speed} req/s per GPU and lowers the power "
                   f"from {tag('chips.uncapped_watts', count(uncapped['watts']))} to "
                   f"{tag('chips.capped_watts', count(capped['watts']))} W.")


def reasons(left):
    """The mixes refused and why, those refused alike together: "A100s alone, because ..."."""
    grouped = {}
    for key, words, why in left:
        grouped.setdefault(fill(*untag(why)), []).append((words, why))
    out = []
    for mixes_refused in grouped.values():
        named = [words for words, _ in mixes_refused]
        named = ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
        out.append(f"{named}, because {mixes_refused[0][1]}")
    return "; ".join(out)


def left_out(left):
    """The caption's last words where a mix is refused: which, and why."""
    if not left:
        return ""
    them = "it" if len(left) == 1 else "them"
    return f" Left out, as the simulator refuses {them} at these settings: {reasons(left)}."


def nothing_runs(left):
    """The caption of a figure with no mix the settings allow."""
    return (f"None of the {tag('chips.mixes', number(len(left)))} mixes of A100s and H100s can run "
            f"at these settings, so there is nothing to draw: {reasons(left)}.")
