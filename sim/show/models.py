"""Figures 10 and 11, bigger models and memory (docs/model.md: "Bigger models, GPUs working as
one, and memory"): disaggregation pays for large models, and memory pushes back.

Figure 10 puts goodput against load, shared and split, for three models, each on instances
sized to hold it: 8B on one A100 an instance (the lesson's), 70B on four A100s, 405B on eight
H200s. Figure 11 is the split with KV memory, 70B on two A100s an instance, along the load: the
readers' and the writers' memory at its peak, how long the readers were held back, and goodput
with and without the memory's limits. Each lists its pieces of simulation, a run a piece.
"""

from ..model.instances import capacity
from .charts import COLOURS, SPLIT, TARGET, base_layout, current, line, log_ticks, panel
from .curves import runs_of
from .numbers import layouts, number, percent, tag

# (words, changes to the figure's settings, tag) of figure 10's panels, left to right
MODEL_PANELS = (
    ("8B, 1 A100", {}, "small"),
    ("70B, 4 A100s", {"model": "70B", "tp": 4, "gpus": 8, "readers": 4}, "large"),
    ("405B, 8 H200s", {"model": "405B", "tp": 8, "gpus": 16, "readers": 8, "reader_gpu": "H200",
                         "writer_gpu": "H200"}, "largest"),
)


# Figure 10's load axis, the same for every panel: from light load to far past where the big
# models' split, with one reader instance, falls behind
MODEL_LOADS = (0.1, 0.15, 0.25, 0.4, 0.6, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)


def model_panels(s):
    return [(words, s.but(**changes), key) for words, changes, key in MODEL_PANELS]


def models_needs(lab, s):
    """Every panel's runs along the load, panel after panel."""
    return runs_of(lab, [p.but(rps=v) for _, p, _ in model_panels(s) for v in MODEL_LOADS])


def held_up_to(rows, layout, attainment):
    """The highest load of a panel at which at least `attainment` of its requests are good."""
    held = [v for v, r in rows if r[layout]["goodput"] >= attainment]
    return max(held) if held else None


def bigger_models(lab, s):
    """Figure 10: goodput against load, shared and split, a panel per model."""
    panels = model_panels(s)
    layout = base_layout("requests a second", "goodput (%)",
                         yaxis={"range": [-3, 103], "ticksuffix": "%"})
    layout["margin"] = {**layout["margin"], "b": 76}
    data, said = [], []
    for k, (words, p, key) in enumerate(panels):
        axes = panel(layout, k, len(panels), f"req/s<br>{words} an instance", type="log",
                     **log_ticks(MODEL_LOADS))
        rows = [(v, lab.compare(p.but(rps=v))) for v in MODEL_LOADS]
        here = lab.compare(p)
        x = [v for v, _ in rows]
        for name in layouts(here):
            data.append(line(name, x, [r[name]["goodput"] * 100 for _, r in rows], COLOURS[name],
                             "%", legendgroup=name, showlegend=k == 0, **axes))
        data.append({**current(p.rps, [here[name]["goodput"] * 100 for name in layouts(here)],
                               "%"), "legendgroup": "current", "showlegend": k == 0, **axes})
        said.append((words, p, key, here, rows))
    layout["meta"] = {"panels": [p.model for _, p, _ in panels]}
    parts = []
    for words, p, key, here, rows in said:
        reach = []
        for name, kind in (("sharing", "shared"), ("splitting", "split")):
            v = held_up_to(rows, kind, s.attainment)
            best = max(r[kind]["goodput"] for _, r in rows)
            reach.append(f"{name} up to {tag(f'models.{key}_{kind}', number(v))} req/s"
                         if v is not None else
                         f"{name} at none of these loads (at best "
                         f"{tag(f'models.{key}_{kind}_best', percent(best))})")
        parts.append(f"{words} an instance ({tag(f'models.{key}_gpus', number(p.gpus))} GPUs: "
                     f"one reader and one writer instance on the split), "
                     + " and ".join(reach))
    caption = (f"Goodput (both targets met: first word within "
               f"{tag('models.ttft_target', number(s.ttft_target))} s, gaps within "
               f"{tag('models.gap_target', number(s.gap_target * 1000))} ms) against load, for "
               f"three models on instances that hold them, with the same targets and traffic. "
               f"{tag('models.attainment', percent(s.attainment))} of requests are good with "
               + "; ".join(parts) + ". The bigger the model, the longer each of its reads "
               "stalls a shared instance's replies; the split's writers never stop for one.")
    return {"data": data, "layout": layout}, caption


# Figure 11's settings: 70B on two A100s an instance, one reader and one writer instance, with
# KV memory and room for 1,024 replies a step, so that memory alone limits the writer; replies
# long enough (800 words) that the writer, not the reader, is the bottleneck, so that its full
# memory pushes back on the reader
MEMORY = {"memory": "kv", "model": "70B", "tp": 2, "gpus": 4, "readers": 2, "reply": 800,
          "slots": 1024, "ttft_target": 2.0}
MEMORY_LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0)
MEASURES = (("reader_kv_peak", "readers' KV at peak", "#7570b3", "dot"),
            ("writer_kv_peak", "writers' KV at peak", "#e7298a", "dot"),
            ("backpressure", "readers held back", TARGET, "dash"))


def memory_loads(lab, s):
    return MEMORY_LOADS


def memory_needs(lab, s):
    """The split with memory, and without, at every load."""
    loads = memory_loads(lab, s)
    return runs_of(lab, [s.but(rps=v) for v in loads]
                   + [s.but(rps=v, memory="slots") for v in loads])


def memory_pushes_back(lab, s):
    """Figure 11: the split with KV memory along the load."""
    loads = memory_loads(lab, s)
    kv = [lab.compare(s.but(rps=v))["split"] for v in loads]
    slots = [lab.compare(s.but(rps=v, memory="slots"))["split"] for v in loads]
    layout = base_layout("requests a second", "share (%)",
                         yaxis={"range": [-3, 103], "ticksuffix": "%"},
                         xaxis={"type": "log", **log_ticks(loads)})
    data = [line("goodput, memory limits", loads, [r["goodput"] * 100 for r in kv], SPLIT, "%"),
            {**line("goodput, slots only", loads, [r["goodput"] * 100 for r in slots], SPLIT, "%"),
             "line": {"color": SPLIT, "width": 2.5, "dash": "dash"}}]
    for key, words, colour, dash in MEASURES:
        data.append({**line(words, loads, [r[key] * 100 for r in kv], colour, "%"),
                     "line": {"color": colour, "width": 2, "dash": dash}})
    pushed = next(((v, r) for v, r in zip(loads, kv) if r["backpressure"] > 0), None)
    full = max(zip(loads, kv), key=lambda vr: vr[1]["writer_kv_peak"])
    lost = max(zip(loads, kv, slots), key=lambda x: x[2]["goodput"] - x[1]["goodput"])
    caption = (f"The split with KV memory: {tag('memory.model', s.model)} on instances of "
               f"{tag('memory.tp', number(s.tp))} A100s, one reader and one writer instance, each "
               f"holding {tag('memory.room', number(lab_capacity(s)))} tokens of cache. ")
    if pushed is None:
        caption += "At no load shown are the readers held back. "
    else:
        held = percent(pushed[1]["backpressure"])
        caption += (f"From {tag('memory.pushed_rps', number(pushed[0]))} req/s the writers' "
                    f"memory is full often enough that the readers, holding caches with nowhere "
                    f"to go, stop reading: held back {tag('memory.pushed', held)} of the run "
                    f"there. ")
    peak = percent(full[1]["writer_kv_peak"])
    caption += (f"The writers' KV peaks at {tag('memory.writer_peak', peak)} (at "
                f"{tag('memory.writer_peak_rps', number(full[0]))} req/s). Memory costs the "
                f"most goodput at {tag('memory.lost_rps', number(lost[0]))} req/s: "
                f"{tag('memory.lost_kv', percent(lost[1]['goodput']))} with its limits against "
                f"{tag('memory.lost_slots', percent(lost[2]['goodput']))} with slots alone.")
    return {"data": data, "layout": layout}, caption


def lab_capacity(s):
    """The KV cache tokens one of the split's writer instances holds."""
    return capacity(s)["writers"][0]["kv_tokens"]
