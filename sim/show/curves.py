"""The charts along one setting: goodput against load (the page's first chart, figure 5 with
more GPUs or chunks), figure 2's p99 gap against load, figure 3's goodput against link speed
and figure 4's goodput against prompt length.

Each lists the pieces of simulation it needs (`needs_along`, `link_needs`), one run a piece,
so the page can warm the lab a few at a time and stay responsive, then draws from cached runs.
"""

from functools import partial
from math import log10

from ..model import costs
from ..model.lab import BISECTION_STEPS, layouts_of
from ..model.layouts import chip
from ..settings import FIELDS
from .charts import COLOURS, SHARED, SPLIT, TARGET, base_layout, current, line, log_ticks
from .report import an, layouts, ms, number, percent, tag

POINTS = {  # x values along each chart's axis (the current value is added)
    "rps": (0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 14.0,
            16.0, 18.0, 20.0),  # requests a second
    "prompt": tuple(range(200, 6001, 200)),  # figure 4's prompt lengths
    "link": FIELDS["link"].metadata["slider"],  # figure 3: the link slider's ladder
}


def along(lab, s, over, values):
    """compare() at each value of one setting: [(value, result)]."""
    return [(v, lab.compare(s.but(**{over: v}))) for v in values]


# With more GPUs than the lesson's two, the load axis stretches with them (more GPUs take
# more load) and has fewer points: each point simulates every layout on every GPU.
EXPLORER_RPS = (0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 20.0)


def points(over, s):
    """The x values of a chart along `over`: its fixed points and the current value."""
    grid = POINTS[over]
    if over == "rps" and s.gpus > 2:
        grid = tuple(v * s.gpus / 2 for v in EXPLORER_RPS)
    return tuple(sorted(set(grid) | {getattr(s, over)}))


def runs_of(lab, settings):
    """A piece for each layout of each setting: one run at most each, so that a newer
    setting waits for no more than one run in the page's worker."""
    return [partial(lab.run, layout, p) for p in settings for layout in layouts_of(p)]


def needs_along(over):
    return lambda lab, s: runs_of(lab, [s.but(**{over: v}) for v in points(over, s)])


def link_needs(lab, s):
    """The split at each link speed, then the bisection for the crossover, a step a piece."""
    runs = runs_of(lab, [s.but(link=v) for v in points("link", s)])
    return runs + [partial(lab.crossover_step, s)] * (BISECTION_STEPS + 2)


def lines_along(rows, here, key, x_value, scale, unit):
    """A line per layout of one measure along a setting, and the current setting circled."""
    x = [v for v, _ in rows]
    names = layouts(here)
    return [line(name, x, [r[name][key] * scale for _, r in rows], COLOURS[name], unit)
            for name in names], current(x_value, [here[name][key] * scale for name in names], unit)


def goodput_along(lab, s, over, x_title):
    """Goodput of every layout along one setting, the current setting circled."""
    rows = along(lab, s, over, points(over, s))
    here = lab.compare(s)
    curves, circles = lines_along(rows, here, "goodput", getattr(s, over), 100, "%")
    fig = {"data": curves + [circles], "layout": base_layout(
        x_title, "goodput (%)", yaxis={"range": [-3, 103], "ticksuffix": "%"})}
    return fig, rows, here


# The charts and figures. Each: needs(s) -> settings to simulate; draw(lab, s) -> (fig, caption)


def goodput_by_rps(lab, s):
    fig, _, here = goodput_along(lab, s, "rps", "requests a second")
    caption = (f"Goodput (both targets met) against load, at {tag('goodput.prompt', number(s.prompt))}"
               f"-token prompts and {an('goodput.link', s.link)} GB/s link. At "
               f"{tag('goodput.rps', number(s.rps))} req/s: shared "
               f"{tag('goodput.shared', percent(here['shared']['goodput']))}, split "
               f"{tag('goodput.split', percent(here['split']['goodput']))}"
               + (f", chunked {tag('goodput.chunked', percent(here['chunked']['goodput']))} "
                  f"(prompts read {tag('goodput.chunk', number(s.chunk))} tokens a step)"
                  if s.chunk else "") + ".")
    return fig, caption


def gap_by_rps(lab, s):
    """Figure 2: p99 gap against load, with the gap target."""
    rows = along(lab, s, "rps", points("rps", s))
    x = [v for v, _ in rows]
    here = lab.compare(s)
    target = s.gap_target * 1000
    curves, circles = lines_along(rows, here, "gap_p99", s.rps, 1000, " ms")
    fig = {"data": curves + [
        {"type": "scatter", "mode": "lines", "name": "gap target", "x": [x[0], x[-1]],
         "y": [target, target], "line": {"color": TARGET, "width": 2, "dash": "dash"},
         "hovertemplate": f"{ms(s.gap_target)}<extra>gap target</extra>"},
        circles,
    ], "layout": base_layout("requests a second", "p99 gap (ms, log scale)", yaxis={
        "type": "log", **log_ticks([y for c in curves for y in c["y"]] + [target])})}
    over = [(v, r["shared"]["gap_p99"]) for v, r in rows if r["shared"]["gap_p99"] > s.gap_target]
    if over:
        v, gap = over[0]
        crossing = (f"The shared layout's p99 gap passes the {tag('gap.target', ms(s.gap_target))}"
                    f" target at {tag('gap.passes_at', number(v))} req/s "
                    f"({tag('gap.shared_p99', ms(gap))})")
    else:
        crossing = (f"The shared layout's p99 gap stays within the "
                    f"{tag('gap.target', ms(s.gap_target))} target")
    split_top = max(r["split"]["gap_p99"] for _, r in rows)
    caption = (f"{crossing}; the split's p99 gap is at most {tag('gap.split_p99', ms(split_top))}"
               f" up to {tag('gap.rps', number(x[-1]))} req/s: one writing step is "
               f"{tag('gap.step', ms(chip(s, s.readers).step))}")
    if s.chunk:
        chunked_top = max(r["chunked"]["gap_p99"] for _, r in rows)
        caption += (f"; reading in chunks of {tag('gap.chunk', number(s.chunk))} tokens keeps "
                    f"the p99 gap at most {tag('gap.chunked_p99', ms(chunked_top))}")
    return fig, caption + "."


def goodput_by_link(lab, s):
    """Figure 3: goodput against link speed (log), the crossover marked."""
    cross = lab.crossover(s)
    links = list(points("link", s))
    if cross["link"] is not None and cross["link"] < links[0]:
        links.insert(0, cross["link"])
    rows = along(lab, s, "link", links)
    x = [v for v, _ in rows]
    shared = rows[0][1]["shared"]["goodput"] * 100  # the shared layout has no link
    here = lab.compare(s)
    data = [
        line("shared", x, [shared] * len(x), SHARED, "%"),
        line("split", x, [r["split"]["goodput"] * 100 for _, r in rows], SPLIT, "%"),
        current(s.link, [here["shared"]["goodput"] * 100, here["split"]["goodput"] * 100], "%"),
    ]
    layout = base_layout("link speed (GB/s, log scale)", "goodput (%)",
                         xaxis={"type": "log", **log_ticks(x)},
                         yaxis={"range": [-3, 103], "ticksuffix": "%"})
    layout["meta"] = {"crossover": cross["link"], "verdict": cross["verdict"]}
    if cross["verdict"] == "between":
        g = cross["link"]
        data.append({"type": "scatter", "mode": "lines", "name": "crossover", "x": [g, g],
                     "y": [0, 100], "line": {"color": TARGET, "width": 2, "dash": "dot"},
                     "hovertemplate": f"{g:.3g} GB/s<extra>crossover</extra>"})
        layout["annotations"] = [{"x": log10(g), "y": 50, "xref": "x", "yref": "y",
                                  "text": f"crossover<br>{g:.3g} GB/s", "showarrow": False,
                                  "xanchor": "left", "xshift": 6, "font": {"size": 13}}]
        caption = (f"Below {tag('link.crossover', f'{g:.3g} GB/s')} (found by bisection) the "
                   f"split's goodput falls to the shared layout's "
                   f"{tag('link.shared', percent(cross['shared_goodput']))} or less; the cache "
                   f"of {an('link.prompt', s.prompt)}-token prompt then takes "
                   f"{tag('link.crossing', ms(s.prompt * costs.CACHE_PER_TOKEN / (g * 1e9)))}"
                   f" to cross.")
    elif cross["verdict"] == "never":
        caption = (f"At these settings the split never beats the shared layout "
                   f"({tag('link.shared', percent(cross['shared_goodput']))}), however fast "
                   f"the link.")
    else:
        caption = (f"At these settings the split beats the shared layout "
                   f"({tag('link.shared', percent(cross['shared_goodput']))}) even over "
                   f"{an('link.slowest', cross['link'])} GB/s link.")
    return {"data": data, "layout": layout}, caption


def goodput_by_prompt(lab, s):
    """Figure 4: goodput against prompt length, at the current load and link."""
    fig, rows, _ = goodput_along(lab, s, "prompt", "prompt length (tokens)")
    lead, at = max((r["split"]["goodput"] - r["shared"]["goodput"], v) for v, r in rows)
    best = dict(rows)[at]
    if lead > 0:
        ahead = (f"the split's lead is largest at {tag('prompt.best', number(at))} tokens "
                 f"({tag('prompt.best_split', percent(best['split']['goodput']))} against "
                 f"{tag('prompt.best_shared', percent(best['shared']['goodput']))})")
    else:
        ahead = "the split never serves more than the shared layout"
    last, end = rows[-1]
    caption = (f"Goodput against prompt length at {tag('prompt.rps', number(s.rps))} req/s and "
               f"{tag('prompt.link', number(s.link))} GB/s: {ahead}; at "
               f"{tag('prompt.last', number(last))} tokens, shared "
               f"{tag('prompt.last_shared', percent(end['shared']['goodput']))}, split "
               f"{tag('prompt.last_split', percent(end['split']['goodput']))}.")
    return fig, caption
