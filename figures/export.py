"""make figures: the lesson's four figures, the explorer's two, real traffic's two and the chip
mix (figure 9), drawn by sim/show/figures.py.

Writes figures/figN-<name>.json (the Plotly dict, what the tests compare with the code),
.svg and .png (Python plotly + kaleido, which drives the system Chromium; BROWSER_PATH
names it), and figures/README.md with each caption, its numbers from the same run.
"""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sim import Lab, Settings  # noqa: E402
from sim.show.figures import FIGURES  # noqa: E402
from sim.show.numbers import setting  # noqa: E402

OUT = ROOT / "figures"
WIDTH = 760  # px: the exported images' native size (scale 1)


def lesson_figures():
    """[(file stem, figure dict, caption)] for figures 1-4 at the lesson's defaults, and the
    explorer's figures 5 and 6, real traffic's 7 and 8 and the chip mix's figure 9 at theirs
    (the page draws 7 and 8 in its "Go further" panel while a trace is chosen)."""
    lab = Lab()
    out = []
    for figure in sorted((f for f in FIGURES.values() if f.number), key=lambda f: f.number):
        drawn = figure.render(lab, Settings().but(**figure.settings))
        out.append((f"fig{figure.number}-{figure.slug}", drawn["figure"], drawn["caption"]))
    return out


def settings_words(figure):
    """What a figure's file is drawn at, beyond the lesson's defaults, in words."""
    return ", ".join(f"`{name}={setting(value)}`" for name, value in figure.settings.items())


def as_json(fig):
    return json.dumps(fig, indent=1, sort_keys=True) + "\n"


def readme(figures):
    lines = ["# The lesson's figures", "",
             "Drawn by `sim/show/figures.py` from the simulator at the lesson's defaults (4 req/s, "
             "2,000-token prompts, 200-word replies, a 25 GB/s link; targets 0.5 s to the first "
             "word and 0.1 s between words; 600 requests, seed 7). Figures 5 and 6 go further "
             "than the lesson (`docs/model.md`): each names the settings it changes. Figures 7 "
             "and 8 replay real traffic (`docs/model.md`, \"Real traffic\"): 600-request windows "
             "of the Azure LLM inference trace 2023, Microsoft Azure, CC-BY 4.0 (cite Splitwise: "
             "Patel et al., ISCA 2024). Figure 9 weighs chips by their price and power "
             "(`docs/model.md`, \"Price and power\"). The page draws each of them live for its own "
             "settings: figures 1 to 4 with the lesson's sliders (the goodput chart is figure 5 "
             "once Go further's settings change it), figures 6 and 9 in its \"Go further\" panel, "
             "and figures 7 and 8 there while a trace is chosen. Regenerate "
             "with `make figures`; the tests fail if a file here is stale.",
             ""]
    numbered = {f"fig{f.number}-{f.slug}": f for f in FIGURES.values() if f.number}
    for stem, _, caption in figures:
        number = stem.split("-")[0][3:]
        changed = settings_words(numbered[stem])
        lines += [f"## Figure {number}", "", f"![Figure {number}]({stem}.svg)", ""]
        if changed:
            lines += [f"At the lesson's defaults but {changed}.", ""]
        lines += [caption, "",
                  f"Files: [{stem}.json]({stem}.json) (Plotly), [{stem}.svg]({stem}.svg), "
                  f"[{stem}.png]({stem}.png).", ""]
    return "\n".join(lines)


def steady_ids(svg):
    """Plotly names its clip paths with a random id: name them after the file instead, so
    that drawing the same figure again writes the same bytes."""
    text = svg.read_text()
    found = re.search(r'<defs id="defs-([0-9a-f]+)"', text)
    if found:
        svg.write_text(text.replace(found.group(1), svg.stem.split("-")[0]))


def main():
    import plotly.graph_objects as go
    import plotly.io as pio

    figures = lesson_figures()
    graphs, paths, heights = [], [], []
    for stem, fig, _ in figures:
        (OUT / f"{stem}.json").write_text(as_json(fig))
        # Plotly gives traces random ids unless told: fixed ones keep the files steady.
        steady = {**fig, "data": [{**t, "uid": f"trace{k}"} for k, t in enumerate(fig["data"])]}
        for suffix in ("svg", "png"):
            graphs.append(go.Figure(steady))
            paths.append(OUT / f"{stem}.{suffix}")
            heights.append(fig["layout"]["height"])
    # One Chromium for all of them; scale 1, so a 12 px font is 12 pixels in the PNG.
    pio.write_images(graphs, paths, width=WIDTH, height=heights, scale=1)
    for path in paths:
        if path.suffix == ".svg":
            steady_ids(path)
    (OUT / "README.md").write_text(readme(figures))
    for path in sorted(OUT.glob("fig*")) + [OUT / "README.md"]:
        print(f"{path.stat().st_size:>10,}  {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
