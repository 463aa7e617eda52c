"""The explorer's findings that take many runs: figure 6, the best ratio of readers to writers,
and DistServe's rate goodput in words. Each needs its bisections done a simulation a piece
(`ratio_needs`, `rate_needs`), so the page can do them between newer settings' numbers.

Figure 6's sketch (and figure 8's) is its bars alone: the split's goodput at every ratio is a
run each, the rate goodput line a bisection of some thirty runs each. So its runs come first,
and the page shows the bars, each exact, while the line is worked out."""

from functools import partial

from ..model.instances import allowed
from ..model.lab import RATE_STEPS
from ..model.layouts import layouts_of
from .charts import SPLIT, TARGET, base_layout
from .numbers import number, percent, rate, tag, unsettled

# Long prompts, short replies, and a later first word allowed: reading 8,000 tokens alone
# takes 0.41 s on an A100 (DistServe gives summarizing a far looser first-word target
# than chat, too).
SUMMARIZING = {"prompt": 8000, "reply": 50, "ttft_target": 2.0}


def ratio_panels(s):
    """Figure 6's panels, (name, settings, tag): these settings, and beside them the same
    for summarizing."""
    panels = [("these settings", s, "ratio.these")]
    if any(getattr(s, name) != value for name, value in SUMMARIZING.items()):
        panels.append(("summarizing", s.but(**SUMMARIZING), "ratio.summarizing"))
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


def best(found):
    """The best ratio of a ratio finding (sim.ratio's rows): the most rate goodput, then the
    most goodput, then the fewest readers. Figures 6 and 8 ring it, the verdict names it, and
    the named states that claim a best ratio are set to it (states.py)."""
    return max(found, key=lambda r: (r["rate"], r["goodput"]))


def readers_to_writers(s, readers):
    return f"{readers}:{s.gpus - readers}"


def ratio_needs(lab, s, panels=ratio_panels):
    """Every reader:writer ratio's run (the sketch's bars, first), then its rate bisection, a
    simulation a piece."""
    bars = [partial(lab.run, "split", r) for _, p, _ in panels(s) for r in ratios(p)]
    per_panel = (s.gpus - 1) * (RATE_STEPS + 3)  # the most steps one panel can take
    return bars + [partial(lab.ratio_step, p) for _, p, _ in panels(s) for _ in range(per_panel)]


def ratios(s):
    """s at every number of readers of its GPUs, 1 to gpus - 1, that its instances allow."""
    return [s.but(readers=readers) for readers in range(1, s.gpus) if allowed(s, readers=readers)]


def ratio_sketch(panels=ratio_panels, every=False):
    """Figure 6's sketch (figure 8's with every=True: the current ratio outlined in each
    panel), for Figure(sketch=...): (lab, s) -> (how many of ratio_needs's pieces come first
    and are all it needs, a function drawing the bars from those runs alone)."""
    def sketch(lab, s):
        shown = panels(s)
        marked = range(len(shown)) if every else (0,)
        return (sum(len(ratios(p)) for _, p, _ in shown),
                lambda: ratio_chart(lab, s, shown, marked, rates=False)[0])
    return sketch


def best_ratio(lab, s):
    """Figure 6: the split at every reader:writer ratio of the GPUs: goodput (bars) and
    rate goodput (line), for these settings beside summarizing; the current ratio marked.
    With 2 GPUs, 1:1 is the only ratio: said so, not called the best."""
    fig, words = ratio_chart(lab, s, ratio_panels(s))
    first = next(r for r in lab.ratio(s) if r["readers"] == s.readers)
    only = s.gpus == 2
    caption = (f"The split with {tag('ratio.gpus', number(s.gpus))} GPUs at "
               f"{'its one ratio' if only else 'every ratio'} of readers to writers"
               f"{unsettled('ratio', s.requests)}: goodput at {tag('ratio.rps', number(s.rps))} "
               f"req/s ({'bar' if only else 'bars'}, left axis) and rate goodput at "
               f"{tag('ratio.attainment', percent(s.attainment))} ("
               f"{'ring' if only else 'line, its best ringed'}, right axis). ")
    caption += "; ".join(
        f"{'for' if k else 'For'} {name} ({tag(at + '_prompt', number(p.prompt))}-token prompts, "
        f"{tag(at + '_reply', number(p.reply))}-word replies, first word within "
        f"{tag(at + '_ttft', number(p.ttft_target))} s) "
        f"{tag(at + '_best', readers_to_writers(p, best['readers']))} "
        f"{'is the only ratio' if only else 'serves most per GPU'} "
        f"({tag(at + '_rate', rate(best['rate']))} req/s{' per GPU' if only else ''})"
        for k, (name, p, best, at) in enumerate(words))
    caption += (f". Now {tag('ratio.current', readers_to_writers(s, s.readers))}: goodput "
                f"{tag('ratio.current_goodput', percent(first['goodput']))}, rate goodput "
                f"{tag('ratio.current_rate', rate(first['rate']))} req/s per GPU.")
    return fig, caption


def ratio_chart(lab, s, panels, marked=(0,), rates=True):
    """The split at every reader:writer ratio, a panel above another for each of `panels`
    ((name, settings, tag)): goodput (bars), rate goodput (line) and the best marked; the
    current ratio outlined in the panels numbered in `marked`. Returns the figure and, per
    panel, (name, settings, best row, tag). With rates=False, the sketch: the bars alone,
    from the runs (the line and the best are left empty, and the rate axis unnumbered, so
    that nothing moves when they come), and no words."""
    rows = 1 + (len(panels) > 1)
    gap = 0.16  # of the plot's height, between the panels (room for the lower one's title)
    height = (1 - gap * (rows - 1)) / rows
    layout = base_layout("readers:writers", "goodput (%)")
    layout["height"] = 340 if rows == 1 else 600
    layout["margin"] = {**layout["margin"], "r": 64}  # the rate axis on the right
    data, words = [], []
    for k, (name, p, at) in enumerate(panels):
        found = lab.ratio(p) if rates else [
            {"readers": r.readers, "goodput": lab.goodput("split", r)} for r in ratios(p)]
        x = [readers_to_writers(p, r["readers"]) for r in found]
        mark = "best" if len(found) > 1 else "the only ratio"
        suffix = "" if k == 0 else str(2 * k + 1)  # axes x, y, y2 / x3, y3, y4
        rate_axis = str(2 * k + 2)
        top = 1 - k * (height + gap)
        layout[f"xaxis{suffix}"] = {**layout["xaxis"], "anchor": f"y{suffix}", "type": "category",
                                    "title": {"text": f"readers:writers, {name}"}}
        layout[f"yaxis{suffix}"] = {**layout["yaxis"], "domain": [top - height, top],
                                    "anchor": f"x{suffix}", "range": [0, 105],
                                    "ticksuffix": "%", "title": {"text": "goodput"}}
        if rates:
            top = best(found)
            highest = max(r["rate"] for r in found) or 1.0
            numbered = {"range": [0, highest * 1.3], **even_ticks(highest * 1.3)}
            line_x, line_y = x, [r["rate"] for r in found]
            best_x, best_y = [readers_to_writers(p, top["readers"])], [top["rate"]]
            words.append((name, p, top, at))
        else:
            numbered = {"range": [0, 1], "showticklabels": False}
            line_x = line_y = best_x = best_y = []
        layout[f"yaxis{rate_axis}"] = {"overlaying": f"y{suffix}", "side": "right",
                                       "anchor": f"x{suffix}", **numbered,
                                       "fixedrange": True, "showgrid": False,
                                       "tickfont": {"size": 12}, "zeroline": False,
                                       "title": {"text": "req/s per GPU"}}
        data.append({"type": "bar", "name": "goodput (left axis)", "x": x, "showlegend": k == 0,
                     "y": [r["goodput"] * 100 for r in found], "xaxis": f"x{suffix}",
                     "yaxis": f"y{suffix}", "legendgroup": "goodput",
                     "marker": {"color": SPLIT, "opacity": 0.55,
                                "line": {"color": ["#000" if k in marked and r["readers"] == s.readers
                                                   else SPLIT for r in found],
                                         "width": [3 if k in marked and r["readers"] == s.readers
                                                   else 0 for r in found]}},
                     "hovertemplate": "%{y:.1f}%<extra>goodput</extra>"})
        data.append({"type": "scatter", "mode": "lines+markers", "name": "rate goodput (right axis)",
                     "x": line_x, "y": line_y, "xaxis": f"x{suffix}", "yaxis": f"y{rate_axis}", "showlegend": k == 0, "legendgroup": "rate",
                     "line": {"color": TARGET, "width": 2.5}, "marker": {"size": 7, "color": TARGET},
                     "hovertemplate": "%{y:.3g} req/s per GPU<extra>rate goodput</extra>"})
        # the most rate goodput, ringed on the line (the right axis), or with one ratio (2
        # GPUs) that one, which is no best: said so
        data.append({"type": "scatter", "mode": "markers+text", "name": f"{mark} (right axis)",
                     "x": best_x, "y": best_y, "xaxis": f"x{suffix}", "yaxis": f"y{rate_axis}",
                     "showlegend": k == 0, "legendgroup": "best", "text": [mark],
                     "textposition": "top center",
                     "marker": {"size": 14, "color": "rgba(0,0,0,0)",
                                "line": {"color": "#000", "width": 2}},
                     "hovertemplate": f"%{{y:.3g}} req/s per GPU<extra>{mark}</extra>"})
    layout["xaxis"]["domain"] = [0, 1]
    if rates:
        layout["meta"] = {"best": [w[2]["readers"] for w in words]}
    return {"data": data, "layout": layout}, words


def rate_needs(lab, s):
    """Every layout's rate bisection, a simulation a piece."""
    return [partial(lab.rate_step, s)] * (len(layouts_of(s)) * (RATE_STEPS + 3))


def rate_goodput(lab, s):
    """DistServe's goodput, in words: no chart, only its numbers (the page's explorer)."""
    rates = lab.rate(s)
    per_gpu = ", ".join(f"{name} {tag('rate.' + name, rate(x))}" for name, x in rates.items())
    thin = unsettled("rate", s.requests)  # from too few requests: said in the sentence
    title = "Rate goodput, DistServe's" + thin if thin else "Rate goodput (DistServe's)"
    text = (f"{title}: the most requests a "
            f"second per GPU at which at least {tag('rate.attainment', percent(s.attainment))} "
            f"of requests are good: {per_gpu} "
            f"req/s per GPU. ")
    if rates["shared"] > 0 and rates["split"] > 0:
        times = rates["split"] / rates["shared"]
        text += f"The split takes {tag('rate.ratio', f'{times:.3g}x')} the shared layout's load per GPU. "
    else:  # a ratio with a zero in it says nothing: say which keeps it at no load
        none = [name for name in ("shared", "split") if name in rates and rates[name] == 0]
        who = ("Neither layout" if len(none) == 2 else
               f"The {'shared layout' if none == ['shared'] else 'split'}")
        text += f"{who} cannot keep that share good at any load. "
    return None, text + ("The goodput above is a share of the requests at the load you set; "
                         "this is a load: how much each GPU can take before too few are good.")
