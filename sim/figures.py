"""The lesson's figures and the page's charts, as plain Plotly figure dicts.

Standard library only: the same functions draw the files (`make figures`, natively) and the
page (in Pyodide), so a figure can never disagree with the numbers. Each figure lists the
pieces of simulation it needs (`needs`), so the page can warm the lab a few at a time and
stay responsive, then `draw` it from cached runs.
"""

from functools import partial
from math import log10

from . import costs
from .charts import (COLOURS, SHARED, SPLIT, TARGET, base_layout, current, line, log_ticks,
                     word_marks)
from .lab import BISECTION_STEPS, RATE_STEPS, layouts_of
from .layouts import chip
from .report import an, fill, layouts, ms, number, percent, rate, tag, untag
from .settings import FIELDS
from .timeline import shared_gpu, step_times, words, writer
from .workload import Workload

POINTS = {  # x values along each chart's axis (the current value is added)
    "rps": (0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 14.0,
            16.0, 18.0, 20.0),  # requests a second
    "prompt": tuple(range(200, 6001, 200)),  # figure 4's prompt lengths
    "link": FIELDS["link"].metadata["slider"],  # figure 3: the link slider's ladder
}
CANDIDATES = 200  # figure 1 looks for its read among the first shared GPU's first jobs


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


def stall_window(s, served, prompts, replies):
    """Pick the read to show: a lone read of a prompt of the set length, over the most replies."""
    at = step_times(served.marks, served.step)
    best = None
    for j, (p, r) in enumerate(zip(prompts[:CANDIDATES], replies)):
        if p != s.prompt or r < 2:
            continue
        taken = served.last_step[j] - r + 1  # the step count when its read began
        start, end = served.first[j] - p * costs.READ_COST, served.first[j]
        lone = abs(at(taken) - start) < 1e-9 and abs(at(taken + 1) - (end + costs.STEP)) < 1e-9
        if not lone:
            continue
        writing = sum(1 for k in range(max(0, j - 4 * costs.SLOTS), j)
                      if replies[k] > 1 and served.last_step[k] - replies[k] + 1 <= taken
                      < served.last_step[k])
        if writing and (best is None or writing > best[0]):
            best = (writing, j, start, end)
    return best


def stall(lab, s):
    """Figure 1: a read stalls a shared GPU; the split's writer goes on writing."""
    work = Workload(lab.draws(s.seed, s.requests), s.rps, s.prompt, s.reply)
    served, arrivals, prompts, replies = shared_gpu(work, s)
    found = stall_window(s, served, prompts, replies)
    layout = base_layout("ms from the window's start", "reply",
                         xaxis={"domain": [0, 0.47], "title": {"text": "shared GPU: ms"}},
                         yaxis={"showticklabels": False, "title": {"text": "replies being written"}},
                         xaxis2={"domain": [0.53, 1], "anchor": "y2", "fixedrange": True,
                                 "title": {"text": "split's writer: ms"}, "zeroline": False,
                                 "tickfont": {"size": 12}, "gridcolor": "#e5e5e5"},
                         yaxis2={"anchor": "x2", "showticklabels": False, "fixedrange": True,
                                 "zeroline": False, "gridcolor": "#e5e5e5"})
    if found is None:
        layout["meta"] = {"stall": None}
        return {"data": [], "layout": layout}, (
            f"No {tag('stall.prompt', number(s.prompt))}-token read on the first shared GPU "
            f"overlaps a reply being written at these settings, so there is no stall to show.")
    _, j, start, end = found
    t0, t1 = start - 6 * costs.STEP, end + 10 * costs.STEP
    data = []
    stall_gap = None
    shared_words = words(served, replies, t0, t1)
    for row, (k, times) in enumerate(sorted(shared_words.items(), key=lambda kv: kv[1][0])):
        before = [t for t in times if t <= start]
        after = [t for t in times if t > end]
        if k != j and before and after and stall_gap is None:
            stall_gap = after[0] - before[-1]
        data.append(word_marks(times, t0, row, SHARED, "x", "y", "shared GPU", row == 0))
    w_served, _, w_replies = writer(work, s)
    writer_words = sorted(words(w_served, w_replies, t0, t1).values(), key=lambda ts: ts[0])
    for row, times in enumerate(writer_words):
        data.append(word_marks(times, t0, row, SPLIT, "x2", "y2", "split's writer", row == 0))
    writer_gap = max((b - a for ts in writer_words for a, b in zip(ts, ts[1:])), default=None)
    read_from, read_to = (start - t0) * 1000, (end - t0) * 1000  # ms into the window
    layout["shapes"] = [{"type": "rect", "xref": "x", "yref": "paper", "x0": read_from,
                         "x1": read_to, "y0": 0, "y1": 1, "fillcolor": "rgba(217,95,2,0.15)",
                         "line": {"width": 0}, "layer": "below"}]
    layout["annotations"] = [{"xref": "x", "yref": "paper", "x": (read_from + read_to) / 2,
                              "y": 1, "yanchor": "top", "showarrow": False,
                              "text": f"read<br>{ms(end - start)}", "font": {"size": 13}}]
    layout["meta"] = {"stall": stall_gap, "read": end - start, "start": t0, "end": t1}
    writing = (f"keeps every reply it writes within {tag('stall.writer_gap', ms(writer_gap))} "
               f"between two words" if writer_gap is not None else "has no reply to write")
    caption = (f"{tag('stall.at', f'{t0:.1f} s')} into the run, the first shared GPU reads "
               f"{an('stall.prompt', s.prompt)}-token prompt for "
               f"{tag('stall.read', ms(end - start))} and writes nothing meanwhile: every reply "
               f"it is writing waits {tag('stall.gap', ms(stall_gap))} between two words (the "
               f"read plus one {tag('stall.step', ms(costs.STEP))} step). Over the same "
               f"{tag('stall.window', ms(t1 - t0))}, the split's writer, which never reads, "
               f"{writing}.")
    return {"data": data, "layout": layout}, caption


# Long prompts, short replies, and a later first word allowed: reading 8,000 tokens alone
# takes 0.41 s on an A100 (DistServe gives summarizing a far looser first-word target
# than chat, too).
SUMMARIZING = {"prompt": 8000, "reply": 50, "ttft_target": 2.0}


def ratio_panels(s):
    """Figure 6's panels: these settings, and beside them the same for summarizing."""
    panels = [("these settings", s)]
    if any(getattr(s, name) != value for name, value in SUMMARIZING.items()):
        panels.append(("summarizing", s.but(**SUMMARIZING)))
    return panels


def even_ticks(top):
    """Ticks at 0 and every 1, 2 or 5 times a power of ten up to `top`, at most 6 of them:
    Plotly would otherwise line the second axis's ticks up with the first's grid."""
    for e in range(-3, 4):
        for m in (1, 2, 5):
            step = m * 10.0**e
            if top / step <= 5:
                ticks = [k * step for k in range(int(top / step) + 1)]
                return {"tickvals": ticks, "ticktext": [f"{v:.10g}" for v in ticks]}
    return {}


def readers_to_writers(s, readers):
    return f"{readers}:{s.gpus - readers}"


def ratio_needs(lab, s):
    """Every reader:writer ratio's run and rate bisection, a simulation a piece."""
    per_panel = (s.gpus - 1) * (RATE_STEPS + 3)  # the most steps one panel can take
    return [partial(lab.ratio_step, p) for _, p in ratio_panels(s) for _ in range(per_panel)]


def best_ratio(lab, s):
    """Figure 6: the split at every reader:writer ratio of the GPUs: goodput (bars) and
    rate goodput (line), for these settings beside summarizing; the current ratio marked."""
    panels = ratio_panels(s)
    rows = 1 + (len(panels) > 1)
    gap = 0.16  # of the plot's height, between the panels (room for the lower one's title)
    height = (1 - gap * (rows - 1)) / rows
    layout = base_layout("readers:writers", "goodput (%)")
    layout["height"] = 340 if rows == 1 else 600
    layout["margin"] = {**layout["margin"], "r": 64}  # the rate axis on the right
    data, words = [], []
    for k, (name, p) in enumerate(panels):
        found = lab.ratio(p)
        x = [readers_to_writers(p, r["readers"]) for r in found]
        best = max(found, key=lambda r: (r["rate"], r["goodput"]))
        suffix = "" if k == 0 else str(2 * k + 1)  # axes x, y, y2 / x3, y3, y4
        rate_axis = str(2 * k + 2)
        top = 1 - k * (height + gap)
        layout[f"xaxis{suffix}"] = {**layout["xaxis"], "anchor": f"y{suffix}", "type": "category",
                                    "title": {"text": f"readers:writers, {name}"}}
        layout[f"yaxis{suffix}"] = {**layout["yaxis"], "domain": [top - height, top],
                                    "anchor": f"x{suffix}", "range": [0, 105],
                                    "ticksuffix": "%", "title": {"text": "goodput"}}
        highest = max(r["rate"] for r in found) or 1.0
        layout[f"yaxis{rate_axis}"] = {"overlaying": f"y{suffix}", "side": "right",
                                       "anchor": f"x{suffix}", "range": [0, highest * 1.3],
                                       **even_ticks(highest * 1.3),
                                       "fixedrange": True, "showgrid": False,
                                       "tickfont": {"size": 12}, "zeroline": False,
                                       "title": {"text": "req/s per GPU"}}
        data.append({"type": "bar", "name": "goodput", "x": x, "showlegend": k == 0,
                     "y": [r["goodput"] * 100 for r in found], "xaxis": f"x{suffix}",
                     "yaxis": f"y{suffix}", "legendgroup": "goodput",
                     "marker": {"color": SPLIT, "opacity": 0.55,
                                "line": {"color": ["#000" if k == 0 and r["readers"] == s.readers
                                                   else SPLIT for r in found],
                                         "width": [3 if k == 0 and r["readers"] == s.readers
                                                   else 0 for r in found]}},
                     "hovertemplate": "%{y:.1f}%<extra>goodput</extra>"})
        data.append({"type": "scatter", "mode": "lines+markers", "name": "rate goodput",
                     "x": x, "y": [r["rate"] for r in found], "xaxis": f"x{suffix}",
                     "yaxis": f"y{rate_axis}", "showlegend": k == 0, "legendgroup": "rate",
                     "line": {"color": TARGET, "width": 2.5}, "marker": {"size": 7, "color": TARGET},
                     "hovertemplate": "%{y:.3g} req/s per GPU<extra>rate goodput</extra>"})
        data.append({"type": "scatter", "mode": "markers+text", "name": "best", "x": [x[best["readers"] - 1]],
                     "y": [best["rate"]], "xaxis": f"x{suffix}", "yaxis": f"y{rate_axis}",
                     "showlegend": False, "text": ["best"], "textposition": "top center",
                     "marker": {"size": 14, "color": "rgba(0,0,0,0)",
                                "line": {"color": "#000", "width": 2}},
                     "hovertemplate": "%{y:.3g} req/s per GPU<extra>best</extra>"})
        at = f"ratio.{'these' if k == 0 else 'summarizing'}"
        words.append((name, p, best, at))
    layout["xaxis"]["domain"] = [0, 1]
    layout["meta"] = {"best": [w[2]["readers"] for w in words]}
    first = lab.ratio(s)[s.readers - 1]
    caption = (f"The split with {tag('ratio.gpus', number(s.gpus))} GPUs at every ratio of "
               f"readers to writers: goodput at {tag('ratio.rps', number(s.rps))} req/s (bars) "
               f"and rate goodput at {tag('ratio.attainment', percent(s.attainment))} (line). ")
    caption += "; ".join(
        f"{'for' if k else 'For'} {name} ({tag(at + '_prompt', number(p.prompt))}-token prompts, "
        f"{tag(at + '_reply', number(p.reply))}-word replies, first word within "
        f"{tag(at + '_ttft', number(p.ttft_target))} s) "
        f"{tag(at + '_best', readers_to_writers(p, best['readers']))} serves most per "
        f"GPU ({tag(at + '_rate', rate(best['rate']))} req/s)"
        for k, (name, p, best, at) in enumerate(words))
    caption += (f". Now {tag('ratio.current', readers_to_writers(s, s.readers))}: goodput "
                f"{tag('ratio.current_goodput', percent(first['goodput']))}, rate goodput "
                f"{tag('ratio.current_rate', rate(first['rate']))} req/s per GPU.")
    return {"data": data, "layout": layout}, caption


def rate_needs(lab, s):
    """Every layout's rate bisection, a simulation a piece."""
    return [partial(lab.rate_step, s)] * (len(layouts_of(s)) * (RATE_STEPS + 3))


def rate_goodput(lab, s):
    """DistServe's goodput, in words: no chart, only its numbers (the page's explorer)."""
    rates = lab.rate(s)
    per_gpu = ", ".join(f"{name} {tag('rate.' + name, rate(x))}" for name, x in rates.items())
    text = (f"Rate goodput (DistServe's): the most requests a second per GPU at which at least "
            f"{tag('rate.attainment', percent(s.attainment))} of requests are good: {per_gpu} "
            f"req/s per GPU. ")
    if rates["shared"] > 0:
        times = rates["split"] / rates["shared"]
        text += f"The split takes {tag('rate.ratio', f'{times:.3g}x')} the shared layout's load per GPU. "
    else:
        text += "The shared layout keeps that share good at no load at all. "
    return None, text + ("The goodput above is a share of the requests at the load you set; "
                         "this is a load: how much each GPU can take before too few are good.")


class Figure:
    """A chart of the page / figure of the lesson: what it needs simulated, how to draw it."""

    def __init__(self, number, slug, draw, needs, settings=None, result=None):
        self.number = number  # the lesson's figure number, or None for the page's own chart
        self.slug = slug  # file name: figures/fig<number>-<slug>.json
        # the settings its file is drawn at, as changes to the defaults
        self.settings = settings or {}
        self.result = result  # (lab, settings) -> the JSON it shows, as the API gives it
        self.draw = draw  # (lab, settings) -> (plotly figure dict, caption)
        # (lab, settings) -> [pieces of work, each a call of a few ms, that leave `draw`
        # only cached runs to read], so the page can do them a few at a time
        self.needs = needs

    def render(self, lab, s):
        """The figure and its caption as the page gets them: the caption as text, and as a
        template whose {key} fields the page fills with numbers marked data-metric="key"."""
        fig, tagged = self.draw(lab, s)
        template, shown = untag(tagged)
        out = {"figure": fig, "caption": fill(template, shown), "template": template,
               "shown": shown}
        if self.result:
            out["result"] = self.result(lab, s)
        return out


PORTFOLIO = {"gpus": 3, "readers": 2, "chunk": 512}  # the lesson's portfolio project
FIGURES = {
    "goodput": Figure(5, "goodput-by-load", goodput_by_rps, needs_along("rps"), PORTFOLIO),
    "gap": Figure(2, "gap-by-rps", gap_by_rps, needs_along("rps")),
    "stall": Figure(1, "stall", stall, lambda lab, s: []),  # draws from a fresh run
    "link": Figure(3, "goodput-by-link", goodput_by_link, link_needs),
    "prompt": Figure(4, "goodput-by-prompt", goodput_by_prompt, needs_along("prompt")),
    "ratio": Figure(6, "best-ratio", best_ratio, ratio_needs, {"gpus": 8, "rps": 16.0},
                    lambda lab, s: lab.ratio(s)),
    "rate": Figure(None, None, rate_goodput, rate_needs,  # words and numbers, no chart
                   result=lambda lab, s: lab.rate(s)),
}
