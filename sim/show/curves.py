"""The charts along one setting: goodput against load (the page's first chart, figure 5 with
more GPUs or chunks), figure 2's p99 gap against load, figure 3's goodput against link speed
and figure 4's goodput against prompt length.

Each lists the pieces of simulation it needs (`needs_along`, `link_needs`), one run a piece,
so the page can warm the lab a few at a time and stay responsive, then draws from cached runs.
"""

from bisect import insort
from functools import partial

from ..model.crossover import BISECTION_STEPS
from ..model.layouts import layouts_of
from ..model.instances import chip
from ..settings import FIELDS
from .charts import COLOURS, SHARED, SPLIT, TARGET, base_layout, current, line, log_ticks
from .numbers import an, layouts, ms, number, percent, tag

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
# more load, up to 10 req/s per GPU) and starts with fewer points, since each simulates every
# layout on every GPU. Then points are added where the curves bend: while two neighbours'
# goodput (of any layout) differs by more than BEND, a point goes half way between the two
# that differ most, REFINE of them at most.
EXPLORER_RPS = (0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 14.0, 20.0)
REFINE = 6
BEND = 0.10


def load_top(gpus):
    """The highest load the load charts show for a number of GPUs: the page's load slider
    reaches it (it stops at 20 req/s for the lesson's two GPUs)."""
    return POINTS["rps"][-1] if gpus <= 2 else EXPLORER_RPS[-1] * gpus / 2


def points(lab, over, s):
    """The x values of a chart along `over`: its points (the explorer's load axis found as
    above) and the current value."""
    if over == "rps" and s.gpus > 2:
        grid = lab.find(*load_axis(lab, s))
    else:
        grid = POINTS[over]
    return tuple(sorted(set(grid) | {getattr(s, over)}))


# A chart's sketch: what the page shows first after a change, while the rest of its points are
# simulated. Every SKETCH_EVERY-th point of the axis, its last (so that the axis does not move
# when the rest come) and the current value, each of them exact (a run of these very
# settings, the same run the whole chart draws): fewer points, never guessed ones. For the
# explorer's load axis, those of its starting points (the points added where the curves bend
# come later, and with them the whole chart).
SKETCH_EVERY = 4


def sketch_points(over, s):
    """The x values of a chart's sketch along `over` (no simulation needed to know them)."""
    return tuple(sorted(set(sketched(over, s)) | {getattr(s, over)}))


def sketched(over, s):
    """The axis's own points in a sketch (without the current value)."""
    grid = starting_points(over, s)
    return [*grid[::SKETCH_EVERY], grid[-1]]


def starting_points(over, s):
    """The axis's points known without simulating: the explorer's load axis before any
    point is added where the curves bend, else the axis's fixed points."""
    return explorer_loads(s) if over == "rps" and s.gpus > 2 else POINTS[over]


def explorer_loads(s):
    """The explorer's load axis before any point is added where the curves bend."""
    return [v * s.gpus / 2 for v in EXPLORER_RPS]


def load_ends(s):
    """The lowest and highest load of the load charts' axis at s, known without simulating:
    the explorer's points added where the curves bend lie between its starting points."""
    grid = starting_points("rps", s)
    return [min(grid[0], s.rps), max(grid[-1], s.rps)]


def sketch_first(values, sketch):
    """The values in the order to simulate them: the sketch's first, so that it is drawn soon."""
    return [v for v in values if v in sketch] + [v for v in values if v not in sketch]


def load_axis(lab, s):
    """The explorer's load axis as a finding of the lab, (key, make): make() simulates a run
    at a time (yield), and returns the points. It depends on every setting but the load."""
    def make():
        xs = explorer_loads(s)
        goodput = {}

        def simulate(x):
            at = s.but(rps=x)
            for layout in layouts_of(s):
                lab.run(layout, at)
                yield
            result = lab.compare(at)
            goodput[x] = [result[layout]["goodput"] for layout in layouts_of(s)]

        for x in sketch_first(xs, sketched("rps", s)):  # the same points, the sketch's first
            yield from simulate(x)
        for _ in range(REFINE):
            step, a, b = max((max(abs(p - q) for p, q in zip(goodput[a], goodput[b])), a, b)
                             for a, b in zip(xs, xs[1:]))
            if step <= BEND:
                break
            middle = (a + b) / 2
            yield from simulate(middle)
            insort(xs, middle)
        return tuple(xs)

    return lab.finding(("load axis",), s, "rps"), make


def runs_of(lab, settings):
    """A piece for each layout of each setting: one run at most each, so that a newer
    setting waits for no more than one run in the page's worker. Each run is measured in
    its piece too (its percentiles, kept on the run), so that drawing the chart after the
    last piece does not sort every run's numbers at once."""
    return [partial(lab.prepare, layout, p) for p in settings for layout in layouts_of(p)]


def needs_along(over):
    """The runs of a chart along `over`, a run a piece, the sketch's first (`sketch_along`)."""
    def needs(lab, s):
        if over == "rps" and s.gpus > 2:  # this load; then the load axis, a simulation a piece
            steps = (len(EXPLORER_RPS) + REFINE) * len(layouts_of(s)) + 1
            return runs_of(lab, [s]) + [partial(lab.find_step, *load_axis(lab, s))] * steps
        return runs_of(lab, spread_along(over)(lab, s)[0])
    return needs


def spread_along(over):
    """For Figure(spread=...): (lab, s) -> (the settings of a chart's points along `over`, in
    the order its pieces simulate them, and how many of them its sketch has). The page's
    second worker may simulate some of them (sim.show.page: "help"). None for the explorer's
    load axis, whose points are found as it is simulated."""
    def spread(lab, s):
        if over == "rps" and s.gpus > 2:
            return [], 0
        sketch = sketch_points(over, s)
        ordered = sketch_first(points(lab, over, s), sketch)
        return [s.but(**{over: v}) for v in ordered], len(sketch)
    return spread


def sketch_along(over, draw):
    """A chart's sketch, for Figure(sketch=...): (lab, s) -> (how many of needs_along's pieces
    come first and are all it needs, a function drawing the chart from its points alone)."""
    def sketch(lab, s):
        xs = sketch_points(over, s)
        runs = len(layouts_of(s))
        if over == "rps" and s.gpus > 2:  # this load's runs, then the axis's sketch points'
            count = runs + runs * len(set(sketched(over, s)))
        else:
            count = runs * len(xs)
        return count, lambda: draw(lab, s, xs)[0]
    return sketch


def link_needs(lab, s):
    """The split at each link speed (its sketch's first), then the bisection for the
    crossover, a step a piece."""
    ordered = sketch_first(points(lab, "link", s), sketch_points("link", s))
    runs = runs_of(lab, [s.but(link=v) for v in ordered])
    return runs + [partial(lab.crossover_step, s)] * (BISECTION_STEPS + 2)


def lines_along(rows, here, key, x_value, scale, unit):
    """A line per layout of one measure along a setting, and the current setting circled."""
    x = [v for v, _ in rows]
    names = layouts(here)
    return [line(name, x, [r[name][key] * scale for _, r in rows], COLOURS[name], unit)
            for name in names], current(x_value, [here[name][key] * scale for name in names], unit)


def goodput_along(lab, s, over, x_title, xs=None):
    """Goodput of every layout along one setting (at xs, else at all its points), the current
    setting circled."""
    rows = along(lab, s, over, points(lab, over, s) if xs is None else xs)
    here = lab.compare(s)
    curves, circles = lines_along(rows, here, "goodput", getattr(s, over), 100, "%")
    fig = {"data": curves + [circles], "layout": base_layout(
        x_title, "goodput (%)", yaxis={"range": [-3, 103], "ticksuffix": "%"})}
    return fig, rows, here


def typical(lab, s):
    """The prompt a caption speaks of: the setting's, or with a trace its median (the trace's
    prompts are its own, whatever the slider)."""
    return s.prompt if s.traffic == "lesson" else lab.traffic(s)["prompt_p50"]


def prompts(lab, s, key):
    """"2,000-token prompts", or with a trace "the trace's prompts (median 994 tokens)"."""
    if s.traffic == "lesson":
        return f"{tag(key, number(s.prompt))}-token prompts"
    return f"the trace's prompts (median {tag(key, number(typical(lab, s)))} tokens)"


def prompt_words(lab, s, key):
    """"a 2,000-token prompt", or with a trace "the trace's median prompt (994 tokens)"."""
    if s.traffic == "lesson":
        return f"{an(key, s.prompt)}-token prompt"
    return f"the trace's median prompt ({tag(key, number(typical(lab, s)))} tokens)"


# The charts and figures. Each: needs(s) -> settings to simulate; draw(lab, s) -> (fig, caption)


def goodput_by_rps(lab, s, xs=None):
    fig, _, here = goodput_along(lab, s, "rps", "requests a second", xs)
    caption = (f"Goodput (both targets met) against load, at {prompts(lab, s, 'goodput.prompt')} "
               f"and {an('goodput.link', s.link)} GB/s link. At "
               f"{tag('goodput.rps', number(s.rps))} req/s: shared "
               f"{tag('goodput.shared', percent(here['shared']['goodput']))}, split "
               f"{tag('goodput.split', percent(here['split']['goodput']))}"
               + (f", chunked {tag('goodput.chunked', percent(here['chunked']['goodput']))} "
                  f"(prompts read {tag('goodput.chunk', number(s.chunk))} tokens a step)"
                  if s.chunk else "") + ".")
    return fig, caption


def gap_by_rps(lab, s, xs=None):
    """Figure 2: p99 gap against load (at xs, else at all its points), with the gap target."""
    rows = along(lab, s, "rps", points(lab, "rps", s) if xs is None else xs)
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
        missed = here["shared"]["missed_gap_only"] + here["shared"]["missed_both"]
        if missed > 0:  # the p99 of all gaps hides the one long gap that fails a request
            crossing += (f", yet at {tag('gap.at', number(s.rps))} req/s "
                         f"{tag('gap.shared_missed', percent(missed))} of its requests had a "
                         f"gap over it: the p99 is over every gap of every reply, and one long "
                         f"gap, a read in the middle of a reply, fails its request")
    split_top = max(r["split"]["gap_p99"] for _, r in rows)
    caption = (f"{crossing}; the split's p99 gap is at most {tag('gap.split_p99', ms(split_top))}"
               f" up to {tag('gap.rps', number(x[-1]))} req/s: one writing step is "
               f"{tag('gap.step', ms(chip(s, s.readers).step))}")
    if s.chunk:
        chunked_top = max(r["chunked"]["gap_p99"] for _, r in rows)
        caption += (f"; chunked, reading {tag('gap.chunk', number(s.chunk))} tokens a step, keeps "
                    f"the p99 gap at most {tag('gap.chunked_p99', ms(chunked_top))}")
    return fig, caption + "."


def goodput_by_link(lab, s, xs=None):
    """Figure 3: goodput against link speed (log), the crossover marked. At xs alone (its
    sketch), without the crossover: the bisection that finds it comes after every link speed."""
    cross = lab.crossover(s) if xs is None else None
    links = list(points(lab, "link", s) if xs is None else xs)
    if cross and cross["link"] is not None and cross["link"] < links[0]:
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
    if cross is None:
        return {"data": data, "layout": layout}, None
    layout["meta"] = {"crossover": cross["link"], "verdict": cross["verdict"]}
    if cross["verdict"] == "between":
        g = cross["link"]
        # Named in the legend, not written on the plot: beside the line, a label would sit
        # on the split's curve, which climbs steeply there.
        data.append({"type": "scatter", "mode": "lines", "name": f"crossover {g:.3g} GB/s",
                     "x": [g, g], "y": [0, 100], "line": {"color": TARGET, "width": 2, "dash": "dot"},
                     "hovertemplate": f"{g:.3g} GB/s<extra>crossover</extra>"})
        caption = (f"Below {tag('link.crossover', f'{g:.3g} GB/s')} (found by bisection) the "
                   f"split's goodput falls to the shared layout's "
                   f"{tag('link.shared', percent(cross['shared_goodput']))} or less; the cache "
                   f"of {prompt_words(lab, s, 'link.prompt')} then takes "
                   f"{tag('link.crossing', ms(typical(lab, s) * chip(s, 0).model.cache / (g * 1e9)))}"
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


def goodput_by_prompt(lab, s, xs=None):
    """Figure 4: goodput against prompt length (at xs, else at all of them), at the current
    load and link."""
    fig, rows, _ = goodput_along(lab, s, "prompt", "prompt length (tokens)", xs)
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
               f"{tag('prompt.last_split', percent(end['split']['goodput']))}")
    if s.chunk:  # every layout shown is named
        best = max(layouts(end), key=lambda name: end[name]["goodput"])
        caption += (f", chunked {tag('prompt.last_chunked', percent(end['chunked']['goodput']))} "
                    f"(prompts read {tag('prompt.chunk', number(s.chunk))} tokens a step)"
                    + (f": {best} serves the most there" if end[best]["goodput"] >
                       min(end[name]["goodput"] for name in layouts(end)) else ""))
    return fig, caption + "."
