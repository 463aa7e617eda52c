"""The lesson's figures and the page's charts, as plain Plotly figure dicts: the registry.

Standard library only: the same functions draw the files (`make figures`, natively) and the
page (in Pyodide), so a figure can never disagree with the numbers. Each figure lists the
pieces of simulation it needs (`needs`), so the page can warm the lab a few at a time and
stay responsive, then `draw` it from cached runs. The figures themselves are drawn in
curves.py (along one setting), stall.py (figure 1), ratio.py (figure 6, the rate goodput),
traces.py (figures 7 and 8, real traffic) and chips.py (figure 9, the chip mix); the page's
good requests per dollar and per kWh, in words, in economics.py.

A figure with `page=False` is drawn to a file only, for now: the page neither bakes it nor
draws it (build.py, snapshot.mjs's warm-up, sim/check), though sim.show.page answers for it
like any other, so that the page can show it live once it has the controls for it. Figures 7
and 8 (real traffic) are on the page while a trace is chosen (SHOWN_WITH_A_TRACE).
"""

from .chips import chip_economics, chip_mix, chip_needs, chip_stages
from .economics import economics_needs, economics_words
from .held import kv_chart, kv_needs
from .curves import (gap_by_rps, goodput_by_link, goodput_by_prompt, goodput_by_rps, link_needs,
                     needs_along, sketch_along, spread_along)
from .models import MEMORY, bigger_models, memory_needs, memory_pushes_back, models_needs
from .ratio import best_ratio, rate_goodput, rate_needs, ratio_needs, ratio_sketch
from .numbers import fill, untag
from .stall import stall
from .requests import no_needs, traffic_summary, verdict, verdict_needs
from .traces import (know_needs, know_stages, know_your_traffic, trace_panels, traces_ratio,
                     traces_ratio_needs)


class Figure:
    """A chart of the page / figure of the lesson: what it needs simulated, how to draw it."""

    def __init__(self, number, slug, draw, needs, settings=None, result=None, page=True,
                 sketch=None, stages=None, spread=None):
        self.number = number  # the lesson's figure number, or None for the page's own chart
        self.slug = slug  # file name: figures/fig<number>-<slug>.json
        # the settings its file is drawn at, as changes to the defaults
        self.settings = settings or {}
        self.result = result  # (lab, settings) -> the JSON it shows, as the API gives it
        self.draw = draw  # (lab, settings) -> (plotly figure dict, caption)
        # (lab, settings) -> [pieces of work, each a call of a few ms, that leave `draw`
        # only cached runs to read], so the page can do them a few at a time
        self.needs = needs
        self.page = page  # False: a file's figure, which the page does not bake or draw yet
        # (lab, s) -> (how many of `needs`'s first pieces its sketch needs, a function drawing
        # the sketch: the chart at fewer points, each exact), for a chart the page shows first
        # in a sketch while the rest of its points are simulated (curves.py: sketch_along;
        # ratio.py: ratio_sketch, the bars alone)
        self.sketch = sketch
        # (lab, s) -> [(pieces done, a function drawing the figure so far)], for a figure the
        # page asks for whole, late in its lane, whose pieces fall into parts it can show as
        # each is done (figure 7, panel after panel; figure 9, mix after mix); each part
        # shown is exact, as in a sketch
        self.stages = stages
        # (lab, s) -> (the settings of its points in the order of `needs`, a run of each layout
        # a piece, and how many of them its sketch has): for a chart whose points are known
        # before simulating, that the page's second worker may simulate some of them for the
        # first (curves.py: spread_along; sim.show.page: "help")
        self.spread = spread

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
    "goodput": Figure(5, "goodput-by-load", goodput_by_rps, needs_along("rps"), PORTFOLIO,
                      sketch=sketch_along("rps", goodput_by_rps), spread=spread_along("rps")),
    "gap": Figure(2, "gap-by-rps", gap_by_rps, needs_along("rps"),
                  sketch=sketch_along("rps", gap_by_rps), spread=spread_along("rps")),
    "stall": Figure(1, "stall", stall, lambda lab, s: []),  # draws from a fresh run
    "link": Figure(3, "goodput-by-link", goodput_by_link, link_needs,
                   sketch=sketch_along("link", goodput_by_link)),
    "prompt": Figure(4, "goodput-by-prompt", goodput_by_prompt, needs_along("prompt"),
                     sketch=sketch_along("prompt", goodput_by_prompt)),
    "ratio": Figure(6, "best-ratio", best_ratio, ratio_needs, {"gpus": 8, "rps": 16.0},
                    lambda lab, s: lab.ratio(s), sketch=ratio_sketch()),
    "rate": Figure(None, None, rate_goodput, rate_needs,  # words and numbers, no chart
                   result=lambda lab, s: lab.rate(s)),
    # what the traffic looks like: the summary in words, and the window's chart (the page's)
    "traffic": Figure(None, None, traffic_summary, no_needs, result=lambda lab, s: lab.traffic(s)),
    # good requests per dollar and per kWh beside the rate goodput: words, no chart
    "economics": Figure(None, None, economics_words, economics_needs,
                        result=lambda lab, s: lab.economics(s)),
    # the portfolio's note: the best layout per GPU, and the split's best ratio (words only)
    "verdict": Figure(None, None, verdict, verdict_needs),
    # real traffic (docs/model.md: "Real traffic"), on the page while a trace is chosen
    "know": Figure(7, "know-your-traffic", know_your_traffic, know_needs, stages=know_stages),
    "traces_ratio": Figure(8, "best-ratio-traces", traces_ratio, traces_ratio_needs,
                           {"gpus": 8, "rps": 16.0}, sketch=ratio_sketch(trace_panels, every=True)),
    # the economics settings of docs/model.md's "Price and power"; on the page, in the panel
    "chips": Figure(9, "chip-mix", chip_mix, chip_needs, {"gpus": 8, "readers": 4, "rps": 16.0},
                    chip_economics, stages=chip_stages),
    # bigger models and memory (docs/model.md: "Bigger models, GPUs working as one, and
    # memory"): files' figures until the page offers the model's settings
    "models": Figure(10, "bigger-models", bigger_models, models_needs, page=False),
    "memory": Figure(11, "memory-pushes-back", memory_pushes_back, memory_needs, MEMORY,
                     page=False),
    # the page's "Memory over time" (memory=kv): the split's KV cache over its run (held.py)
    "kv": Figure(None, None, kv_chart, kv_needs),
}

# The figures the page shows only while a trace is chosen (traffic= other than the lesson's),
# and the build bakes only for such states: each takes many runs, and with the lesson's
# traffic its story is figure 5's and figure 6's.
SHOWN_WITH_A_TRACE = ("know", "traces_ratio")
