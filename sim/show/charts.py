"""How every chart looks: Plotly layout and traces readable on a 375 px phone.

Standard library only (plain dicts), shared by the figures in figures.py.
"""

SHARED, SPLIT, TARGET = "#d95f02", "#1b9e77", "#555555"  # colour-blind safe pair, grey
CHUNKED = "#7570b3"  # the third of the same colour-blind safe set (ColorBrewer Dark2)
COLOURS = {"shared": SHARED, "split": SPLIT, "chunked": CHUNKED}


def base_layout(x_title, y_title, **axes):
    """Readable on a 375 px phone: 12 px text at least, legend above the plot area."""
    layout = {
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
                 "size": 13, "color": "#222"},
        "margin": {"l": 56, "r": 16, "t": 16, "b": 52},
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02,
                   "yanchor": "bottom", "font": {"size": 13}},
        "xaxis": {"title": {"text": x_title}, "tickfont": {"size": 12}, "fixedrange": True,
                  "gridcolor": "#e5e5e5", "zeroline": False},
        "yaxis": {"title": {"text": y_title}, "tickfont": {"size": 12}, "fixedrange": True,
                  "gridcolor": "#e5e5e5", "zeroline": False},
        "plot_bgcolor": "white",
        "paper_bgcolor": "white",
        "hovermode": "closest",
        "dragmode": False,
        "height": 340,
    }
    for name, extra in axes.items():
        layout[name] = {**layout.get(name, {}), **extra}
    return layout


def panel(layout, k, panels, title, **xaxis):
    """Put panel k of `panels` side by side in `layout`: its x axis, titled, and a y axis on the
    first panel's scale, unnumbered. Returns what puts a trace on it (its axes' names)."""
    suffix = "" if k == 0 else str(k + 1)
    width = 1 / panels
    layout[f"xaxis{suffix}"] = {**layout["xaxis"], "anchor": f"y{suffix}",
                                "domain": [k * width + (0.03 if k else 0), (k + 1) * width - 0.03],
                                **xaxis, "title": {"text": title}}
    if k:
        layout[f"yaxis{suffix}"] = {**layout["yaxis"], "anchor": f"x{suffix}",
                                    "showticklabels": False, "title": {"text": ""}}
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def log_ticks(values):
    """Labelled ticks 1-2-5 per decade (1-5 if that is too many) over the values' span:
    Plotly's own minor labels on log axes are drawn smaller than 12 px."""
    lo, hi = min(values) / 1.5, max(values) * 1.5
    for mantissas in ((1, 2, 5), (1, 5), (1,)):
        ticks = [m * 10.0**e for e in range(-4, 7) for m in mantissas if lo <= m * 10.0**e <= hi]
        if len(ticks) <= 8:
            break
    return {"tickvals": ticks, "ticktext": [f"{t:g}" for t in ticks]}


def line(name, x, y, colour, unit, **extra):
    return {"type": "scatter", "mode": "lines+markers", "name": name, "x": x, "y": y,
            "line": {"color": colour, "width": 2.5}, "marker": {"size": 6, "color": colour},
            "hovertemplate": f"%{{y:.1f}}{unit}<extra>{name}</extra>", **extra}


def current(x, ys, unit, text="this setting"):
    """Open circles on every curve at the current setting."""
    return {"type": "scatter", "mode": "markers", "name": text, "x": [x] * len(ys), "y": ys,
            "marker": {"size": 14, "color": "rgba(0,0,0,0)", "line": {"color": "#000", "width": 2}},
            "hovertemplate": f"%{{y:.1f}}{unit}<extra>{text}</extra>"}


def word_marks(times, t0, row, colour, xaxis, yaxis, name, legend):
    """One reply's words as tick marks along its row, in ms from t0 (figure 1)."""
    x = [(t - t0) * 1000 for t in times]
    return {"type": "scatter", "mode": "markers", "x": x, "y": [row] * len(x), "xaxis": xaxis,
            "yaxis": yaxis, "name": f"{name}: a word", "legendgroup": name,
            "showlegend": legend, "marker": {"symbol": "line-ns-open", "size": 10,
                                             "color": colour, "line": {"width": 2}},
            "hovertemplate": "%{x:.1f} ms<extra></extra>"}
