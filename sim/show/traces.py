"""Figures 7 and 8, real traffic (docs/model.md: "Real traffic"): "know your traffic before
you split".

Figure 7 puts goodput against load for the lesson's traffic beside Azure's chat and code
traces, on the same GPUs; figure 8 is figure 6's best reader:writer ratio for the two traces.
Each lists its pieces of simulation, one run a piece, as the other figures do.
"""

from functools import partial

from ..settings import FIELDS
from ..workload import azure
from ..workload.azure import ATTRIBUTION
from .charts import COLOURS, base_layout, current, line, panel
from .curves import load_ends, needs_along, points, runs_of
from .ratio import ratio_chart, ratio_needs, readers_to_writers
from .numbers import SETTLES, layouts, number, percent, rate, tag

# (words, traffic=, tag) of figure 7's panels, left to right; a trace of your own comes last
TRAFFIC_PANELS = (("the lesson's traffic", "lesson", "lesson"),
                  ("Azure chat", "azure-chat", "chat"), ("Azure code", "azure-code", "code"))
OTHER = {"recorded": "poisson", "poisson": "recorded"}
LESSON_REQUESTS = FIELDS["requests"].default  # the lesson's window: 600 requests
# Azure code's bursts "decide" where taking them away (its lengths at the lesson's random
# spacing) moves a layout's goodput by at least this share of the requests.
DECIDES = 0.10


def beside(s, traffic):
    """s with another traffic, as figures 7 and 8 put it beside s's own (s itself for its own).

    A window of your own file is its own: a short file's window (the page takes all of a file
    shorter than the requests asked for) says nothing of the others, so beside it the lesson's
    traffic and Azure's take their first requests, as many as the lesson's 600, or as yours
    where that is more. A shipped trace's window otherwise keeps the requests and the start,
    brought within the trace where it would pass the trace's end."""
    if traffic == s.traffic:
        return s
    if s.traffic == "own":
        p = s.but(traffic=traffic, trace_start=0, requests=max(s.requests, LESSON_REQUESTS))
    else:
        p = s.but(traffic=traffic)
    if traffic in azure.FILES:
        usable = azure.trace(traffic).usable
        requests = min(p.requests, usable)
        p = p.but(requests=requests, trace_start=min(p.trace_start, usable - requests))
    return p


def traffic_panels(s):
    """[(words, settings, tag)]: s with each traffic, and s itself if it replays your own."""
    panels = [(words, beside(s, traffic), key) for words, traffic, key in TRAFFIC_PANELS]
    if s.traffic == "own":
        panels.append(("your trace", s, "own"))
    return panels


def code_other(s):
    """Azure code beside s at the other arrivals' spacing: its lengths without its bursts, or
    with them."""
    code = beside(s, "azure-code")
    return code.but(arrivals=OTHER[code.arrivals])


def know_needs(lab, s):
    """Every panel's run at every load, panel after panel, and Azure code's at the other
    arrivals' spacing."""
    pieces = [piece for panel in panel_needs(lab, s) for piece in panel]
    return pieces + runs_of(lab, [code_other(s)])


def panel_needs(lab, s):
    """[each panel's pieces]: its runs along the load."""
    return [needs_along("rps")(lab, p) for _, p, _ in traffic_panels(s)]


def know_stages(lab, s):
    """Figure 7 as the page shows it while its panels are worked out, one a stage (know_needs
    lists them in turn): [(pieces done, a function drawing the panels done so far)]. Each line
    shown is the whole figure's own; a panel not yet done is empty, its axes in place."""
    out, done = [], 0
    for k, panel in enumerate(panel_needs(lab, s)[:-1]):
        done += len(panel)
        out.append((done, partial(know_sketch, lab, s, k + 1)))
    return out


def know_sketch(lab, s, done):
    return know_chart(lab, s, done)[0]


def know_your_traffic(lab, s):
    """Figure 7: goodput against load, shared and split, a panel per kind of traffic."""
    fig, said = know_chart(lab, s)
    return fig, know_caption(lab, s, said)


def know_chart(lab, s, done=None):
    """The chart with the first `done` panels' lines (None: every panel's), and what the
    caption says of each panel drawn."""
    panels = traffic_panels(s)
    names = None  # the layouts, the same in every panel (only the traffic differs)
    layout = base_layout("requests a second", "goodput (%)",
                         yaxis={"range": [-3, 103], "ticksuffix": "%"})
    layout["margin"] = {**layout["margin"], "b": 60}
    data, said = [], []
    for k, (words, p, key) in enumerate(panels):
        axes = panel(layout, k, len(panels), f"req/s, {words}")
        if done is not None and k >= done:  # not worked out yet: its traces, with no points
            # but its ends, unplotted (y None), so that Plotly gives its load axis the range it
            # will keep (the whole panel's) instead of its default 0 to 6
            ends = load_ends(p)
            data += [line(name, ends, [None] * len(ends), COLOURS[name], "%", legendgroup=name,
                          showlegend=k == 0, **axes) for name in names]
            data.append({**current(p.rps, [None], "%"), "legendgroup": "current",
                         "showlegend": k == 0, **axes})
            continue
        rows = [(v, lab.compare(p.but(rps=v))) for v in points(lab, "rps", p)]
        here = lab.compare(p)
        names = layouts(here)
        x = [v for v, _ in rows]
        for name in names:
            data.append(line(name, x, [r[name]["goodput"] * 100 for _, r in rows], COLOURS[name],
                             "%", legendgroup=name, showlegend=k == 0, **axes))
        data.append({**current(p.rps, [here[name]["goodput"] * 100 for name in names],
                               "%"), "legendgroup": "current", "showlegend": k == 0, **axes})
        said.append((words, p, key, here, lab.traffic(p)["gap_cv"]))
    layout["meta"] = {"panels": [p.traffic for _, p, _ in panels]}
    return {"data": data, "layout": layout}, said


def know_caption(lab, s, said):
    def goodputs(key, result):
        return (f"shared {tag(f'know.{key}_shared', percent(result['shared']['goodput']))}, "
                f"split {tag(f'know.{key}_split', percent(result['split']['goodput']))}")

    spacing = ("each trace's own spacing scaled to the load" if s.arrivals == "recorded" else
               "every trace's lengths at the lesson's random spacing")
    parts = [f"{words} (burstiness {tag(f'know.{key}_cv', burst(cv))}), "
             f"{goodputs(key, here)}" for words, _, key, here, cv in said]
    code = beside(s, "azure-code")
    other = lab.compare(code_other(s))
    lengths = ("at the lesson's random spacing" if s.arrivals == "recorded" else
               "with its own bursts and lulls")
    kinds = ("three", "four")[len(said) - 3]
    return (f"Goodput (both targets met) against load on the same "
            f"{tag('know.gpus', number(s.gpus))} GPUs for {kinds} kinds of traffic "
            f"({window_count(s, code)}; {spacing}). At "
            f"{tag('know.rps', number(s.rps))} req/s: " + "; ".join(parts) + ". Azure code's "
            f"lengths {lengths}: {goodputs('code_other', other)}. "
            f"{bursts_decide(lab, s, code, other)}Traces: {tag('know.source', ATTRIBUTION)}.")


def window_count(s, code):
    """"600 requests each", or beside a window of your own file that is not the others' size,
    how many each has; too few to settle, said so."""
    if s.traffic == "own" and code.requests != s.requests:
        return (f"{tag('know.requests', number(s.requests))} requests of your file"
                f"{few('know', s.requests)}; {tag('know.others', number(code.requests))} of "
                f"each of the others")
    return f"{tag('know.requests', number(s.requests))} requests each{few('know', s.requests)}"


def few(key, n):
    """", too few to settle it (it takes about 200)", after a count of n requests, tagged
    <key>.settles; "" from SETTLES up."""
    if n >= SETTLES:
        return ""
    return f", too few to settle it (it takes about {tag(key + '.settles', number(SETTLES))})"


def bursts_decide(lab, s, code, other):
    """Whether Azure code's bursts decide, from its two runs at this load: by how much taking
    them away moves a layout's goodput (DECIDES), unless too few requests settle nothing."""
    if code.requests < SETTLES:  # (the count and its caveat are said above)
        return "So few requests cannot tell whether its bursts or its lengths decide. "
    here = lab.compare(code)
    moved = max(abs(here[name]["goodput"] - other[name]["goodput"]) for name in layouts(here))
    if moved >= DECIDES:
        return "Its bursts, not only its lengths, decide. "
    return "At this load its bursts move neither layout much: its lengths decide. "


def burst(cv):
    """The burstiness as the summary gives it: two decimals, or 'none' (one request)."""
    return "none" if cv is None else f"{cv:.2f}"


def current_ratio(lab, s):
    """The best ratio's row for the readers s has."""
    return next(r for r in lab.ratio(s) if r["readers"] == s.readers)


def trace_panels(s):
    """Figure 8's panels: s with each of Azure's traces (beside a file of your own, as
    figure 7 puts them)."""
    return [("Azure chat", beside(s, "azure-chat"), "traces.chat"),
            ("Azure code", beside(s, "azure-code"), "traces.code")]


def traces_ratio_needs(lab, s):
    return ratio_needs(lab, s, trace_panels)


def traces_ratio(lab, s):
    """Figure 8: figure 6 for Azure's chat trace above its code trace."""
    panels = trace_panels(s)
    fig, words = ratio_chart(lab, s, panels, marked=range(len(panels)))
    only = s.gpus == 2
    requests = panels[0][1].requests
    caption = (f"The split with {tag('traces.gpus', number(s.gpus))} GPUs at "
               f"{'its one ratio' if only else 'every ratio'} of readers to writers, for "
               f"Azure's two traces, {tag('traces.requests', number(requests))} requests each"
               f"{few('traces', requests)}: goodput at "
               f"{tag('traces.rps', number(s.rps))} req/s ({'bar' if only else 'bars'}, left "
               f"axis) and rate goodput at {tag('traces.attainment', percent(s.attainment))} "
               f"({'ring' if only else 'line, its best ringed'}, right axis). ")
    caption += "; ".join(
        f"{'for' if k else 'For'} {name} "
        f"{tag(at + '_best', readers_to_writers(p, best['readers']))} "
        f"{'is the only ratio' if only else 'serves most per GPU'} "
        f"({tag(at + '_rate', rate(best['rate']))} req/s{' per GPU' if only else ''}), and at "
        f"{tag(at + '_current', readers_to_writers(p, p.readers))}, "
        f"{tag(at + '_current_goodput', percent(current_ratio(lab, p)['goodput']))} "
        f"of requests are good"
        for k, (name, p, best, at) in enumerate(words))
    return fig, caption + f". Traces: {tag('traces.source', ATTRIBUTION)}."
