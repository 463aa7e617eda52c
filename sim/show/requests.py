"""What the requests look like, on the page: the traffic summary in words, and a chart of the
window: how its prompts and replies are spread (bars of equal width, counted exactly here,
since the page's Plotly has no histogram trace), and its arrivals over time, a second's share
of them in each bar, so that bursts and lulls show.

And the verdict the lesson's portfolio project asks for: for these settings, which layout
serves the most good requests per GPU (rate goodput), by how much, and at which ratio of
readers to writers the split does best for these GPUs. Both come from the lab's runs of the
current settings, like every number the page shows.
"""

from math import floor, log10

from .charts import SPLIT, TARGET, base_layout
from .ratio import best, ratio_needs, rate_needs, readers_to_writers
from .numbers import number, percent, rate, tag, unsettled

SPREAD_BARS = 24  # bars at most for a length's spread
ARRIVAL_BARS = 60  # and for the arrivals over time
NAMES = {"azure-chat": "Azure chat", "azure-code": "Azure code"}  # (the date is in the attribution)


def nice_width(span, bars):
    """The smallest 1, 2 or 5 times a power of ten that covers `span` in at most `bars` bars."""
    if span <= 0:
        return 1.0
    e = floor(log10(span / bars))
    for k in (e, e + 1):
        for m in (1, 2, 5):
            width = m * 10.0**k
            if span / width <= bars:
                return width
    return 10.0 ** (e + 2)


def counted(values, width, start=0.0):
    """[(left edge, count)] of equal-width bars from `start` that hold every value."""
    bars = int((max(values) - start) // width) + 1
    counts = [0] * bars
    for v in values:
        counts[int((v - start) // width)] += 1
    return [(start + k * width, c) for k, c in enumerate(counts)]


def window_chart(work, s):
    """Three panels, one above another (a phone's column): prompts, replies, arrivals; each
    titled above itself, since an axis title below one would sit on top of the next."""
    n = len(work.arrivals)
    layout = base_layout("", "")
    layout["height"] = 600
    layout["showlegend"] = False
    layout["margin"] = {**layout["margin"], "t": 30}
    x_base, y_base = layout["xaxis"], layout["yaxis"]
    gap = 0.14
    height = (1 - 2 * gap) / 3
    data, titles = [], []

    def panel(k, title, y_title, suffix):
        axis = "" if k == 0 else str(k + 1)
        top = 1 - k * (height + gap)
        layout[f"xaxis{axis}"] = {**x_base, "anchor": f"y{axis}", "title": {"text": ""}}
        layout[f"yaxis{axis}"] = {**y_base, "anchor": f"x{axis}", "domain": [top - height, top],
                                  "ticksuffix": suffix, "rangemode": "tozero",
                                  "title": {"text": y_title}}
        titles.append({"text": title, "xref": "paper", "yref": "paper", "x": 0, "y": top,
                       "xanchor": "left", "yanchor": "bottom", "showarrow": False,
                       "font": {"size": 13}})
        return {"xaxis": f"x{axis}", "yaxis": f"y{axis}"}

    for k, (words, values) in enumerate((("prompt tokens", work.prompts),
                                         ("reply words", work.replies))):
        width = nice_width(max(values), SPREAD_BARS)
        bars = counted(values, width)
        axes = panel(k, f"Requests by {words} (bars of {number_text(width)})", "requests", "%")
        data.append({"type": "bar", "x": [left + width / 2 for left, _ in bars],
                     "y": [100 * c / n for _, c in bars], "width": width * 0.9, "name": words,
                     "marker": {"color": SPLIT, "opacity": 0.75}, **axes,
                     "hovertemplate": f"%{{x}}: %{{y:.1f}}% of requests<extra>{words}</extra>"})
    span = work.arrivals[-1]
    width = nice_width(span, ARRIVAL_BARS)
    bars = counted(work.arrivals, width)
    axes = panel(2, f"Arrivals a second (bars of {number_text(width)} s)", "req/s", "")
    data.append({"type": "bar", "x": [left + width / 2 for left, _ in bars],
                 "y": [c / width for _, c in bars], "width": width * 0.9, "name": "arrivals",
                 "marker": {"color": TARGET, "opacity": 0.8}, **axes,
                 "hovertemplate": "%{x:.1f} s: %{y:.2f} req/s<extra>arrivals</extra>"})
    data.append({"type": "scatter", "mode": "lines", "x": [0, span], "y": [s.rps, s.rps],
                 "name": "on average", "line": {"color": SPLIT, "width": 2, "dash": "dash"},
                 **axes, "hovertemplate": f"{number(s.rps)} req/s<extra>on average</extra>"})
    layout["annotations"] = titles
    return {"data": data, "layout": layout}


def number_text(x):
    return number(int(x)) if x == int(x) else f"{x:g}"


def no_needs(lab, s):
    return []  # the summary reads the requests alone: nothing to simulate


def traffic_summary(lab, s):
    """The page's traffic chart and its words: the traffic summary, every number tagged."""
    t = lab.traffic(s)
    trace = lab.sources.trace(s)
    fig = window_chart(lab.workload(s), s)
    if trace is None:
        source = f"The lesson's toy: {tag('traffic.requests', number(t['requests']))} requests"
    else:
        left = (f", {tag('traffic.left_out', number(t['left_out']))} rows with 0 tokens left out"
                if t["left_out"] else "")
        source = (f"{NAMES.get(s.traffic, 'Your file')}: requests "
                  f"{tag('traffic.first', number(s.trace_start))} to "
                  f"{tag('traffic.last', number(s.trace_start + s.requests - 1))} of its "
                  f"{tag('traffic.trace_requests', number(t['trace_requests']))} usable{left}")
    cv = t["gap_cv"]
    bursts = ("no burstiness to speak of (one request, or all at one moment)" if cv is None else
              f"burstiness {tag('traffic.gap_cv', f'{cv:.2f}')} (near one for random arrivals, "
              f"far above for bursts)")
    span = f"{t['span_s']:,.1f}"
    over = (f"over {tag('traffic.span_s', span)} s at {tag('traffic.rps', number(s.rps))} req/s "
            f"on average")
    own = lab.sources.recorded_rps(s)
    if own is not None:  # the trace's own rate, and what the load makes of it, said
        how = ("its own spacing scaled to the load" if s.arrivals == "recorded" else
               "at the lesson's random spacing")
        over = (f"recorded at {tag('traffic.recorded_rps', rate(own))} req/s, replayed "
                f"{over} ({how}; the dashed line)")
    else:
        over += " (the dashed line)"
    words = (f"{source}, {over}: {bursts}. "
             f"Prompts: "
             + lengths("prompt", t, "tokens") + "; replies: " + lengths("reply", t, "words") + ".")
    return fig, words


def lengths(name, t, unit):
    mean = f"{t[name + '_mean']:,.1f}"
    return (f"p50 {tag(f'traffic.{name}_p50', number(t[name + '_p50']))}, "
            f"p90 {tag(f'traffic.{name}_p90', number(t[name + '_p90']))}, "
            f"p99 {tag(f'traffic.{name}_p99', number(t[name + '_p99']))} {unit} "
            f"(mean {tag(f'traffic.{name}_mean', mean)})")


def verdict_needs(lab, s):
    """The rate goodput of each layout, and of the split at every ratio: a simulation a piece."""
    return rate_needs(lab, s) + ratio_needs(lab, s, lambda s: [("these settings", s, "")])


def verdict(lab, s):
    """The portfolio's note, in one sentence: the layout that serves the most good requests per
    GPU (rate goodput), by what factor over the next best, and the split's best ratio."""
    rates = lab.rate(s)
    split_best = best(lab.ratio(s))
    ratio = tag("verdict.ratio", readers_to_writers(s, split_best["readers"]))
    offers = [(rates["shared"], "shared", "sharing them")]
    if s.chunk:
        offers.append((rates["chunked"], "chunked", f"sharing them, reading prompts "
                       f"{tag('verdict.chunk', number(s.chunk))} tokens a step"))
    offers.append((split_best["rate"], "split", f"the split at {ratio}"))
    (top, name, who), (second, _, other) = sorted(offers, key=lambda o: -o[0])[:2]
    good = tag("verdict.attainment", percent(s.attainment))
    head = (f"For this traffic on {tag('verdict.gpus', number(s.gpus))} GPUs"
            f"{unsettled('verdict', s.requests)}, ")
    if top == 0:
        return None, (head + f"no layout keeps {good} of requests within both targets, at any "
                      "load from 0.01 req/s.")
    said = (f"{who} serves {tag('verdict.rate', rate(top))} req/s per GPU within both targets "
            f"({good} of requests good)")
    if second > 0:
        times = f"{top / second:.3g}"
        said += f", {tag('verdict.times', times)} times {other}"
    else:
        said += f", while {other} cannot keep that share good at any load"
    if name != "split":
        said += (f"; the split does best at {ratio} "
                 f"({tag('verdict.split_rate', rate(split_best['rate']))} req/s per GPU)")
    return None, head + said + "."
