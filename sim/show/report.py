"""The reports: the headline, the introduction, the settings in a line, and the tables of
`python -m sim` (compare, rate, ratio, traffic, the settings' limits), for the CLI, the page
and the figures alike. Their numbers are written by numbers.py.
"""

from textwrap import fill as wrap

from ..settings import FIELDS, describe
from ..workload.azure import ATTRIBUTION, CITATION, NAMES
from ..workload.draws import sizes
from .capacity import model_words
from .numbers import layouts, ms, number, percent, plural, rate, setting, table, unsettled, untag, value

METRICS = (  # (key, words) in the order tables show them
    ("goodput", "goodput"),
    ("ttft_p50", "first word p50"),
    ("ttft_p99", "first word p99"),
    ("gap_p50", "gap p50"),
    ("gap_p99", "gap p99"),
    ("missed_ttft_only", "late first word only"),
    ("missed_gap_only", "gap too long only"),
    ("missed_both", "missed both"),
)

# What memory=kv adds to a layout's measures (docs/model.md: "Memory that pushes back"), in
# the order tables show them; "dropped" is in every result, shown only where it is not 0.
MEMORY = (
    ("dropped", "dropped (never fit)"),
    ("kv_peak", "KV held at peak"),
    ("reader_kv_peak", "readers' KV at peak"),
    ("writer_kv_peak", "writers' KV at peak"),
    ("backpressure", "readers held back"),
)

HEADLINE = ("Within both targets, sharing the two GPUs serves {shared.goodput} of requests; "
            "splitting them serves {split.goodput}.")  # {…}: a data-metric key, filled in


def headline(s, result=None):
    """The headline for settings s, as a template and the texts of its {headline.*} fields:
    the lesson's, in words that fit the GPUs (every number in it is a marked field), and
    from fewer requests than settle it, saying so. With a bigger model's settings it says the
    model and its instances too, and with memory=kv how many requests never fit (from the
    compare result, when given): sim.show.capacity.model_words."""
    thin, texts = untag(unsettled("headline", s.requests))
    said, model = model_words(s, "headline", result)  # ({}, {}) at the lesson's model
    lead, memory = f"With {said['what']}, within" if said else "Within", said.get("memory", "")
    if s.gpus == 2 and not s.chunk:
        return lead + HEADLINE[6:-1] + thin + "." + memory, {**texts, **model}
    writers = s.gpus - s.readers
    texts.update({"headline.gpus": number(s.gpus), "headline.readers": number(s.readers),
                  "headline.writers": number(writers), "headline.chunk": number(s.chunk)})
    text = (lead + " both targets, sharing the {headline.gpus} GPUs" + said.get("shared", "")
            + " serves {shared.goodput} of requests; splitting them into {headline.readers} "
            f"reader{'' if s.readers == 1 else 's'}{said.get('readers', '')} and "
            f"{{headline.writers}} writer{'' if writers == 1 else 's'}{said.get('writers', '')} "
            "serves {split.goodput}")
    if s.chunk:
        text += ("; sharing them, reading prompts {headline.chunk} tokens a step, serves "
                 "{chunked.goodput}")
    return text + thin + "." + memory, {**texts, **model}


def intro(s):
    """The introduction's sentences that depend on the GPUs, as templates whose {intro.*}
    fields the page fills (each number marked): {"gpus": ..., "split": ...}.
    At the lesson's two GPUs they are the lesson's own words; with a bigger model's settings
    they say the model and its instances (sim.show.capacity.model_words)."""
    said, model = model_words(s, "intro")  # ({}, {}) at the lesson's model
    writers = s.gpus - s.readers
    if s.gpus == 2:
        gpus, split = "Two GPUs serve a language model.", "one GPU only reads, the other only writes"
    else:
        gpus = "{intro.gpus} GPUs serve a language model."
        reads = ("one GPU only reads" if s.readers == 1 else
                 "{intro.readers} GPUs" + said.get("readers", "") + " only read")
        if writers == 1:
            writes = "the other only writes" if s.readers == 1 else "the other one only writes"
        else:
            writes = "the other {intro.writers}" + said.get("writers", "") + " only write"
        split = f"{reads}, {writes}"
    if said:
        gpus = f"{gpus[:-1]} ({said['about']})."
    texts = {"intro.gpus": number(s.gpus), "intro.readers": number(s.readers),
             "intro.writers": number(writers), **model}
    return {"gpus": gpus, "split": split}, texts


# How setting_line writes each of the lesson's settings: {} is its value.
SETTING_WORDS = {
    "rps": "{} req/s", "prompt": "prompts of {} tokens", "reply": "replies of {} words",
    "link": "link {} GB/s", "ttft_target": "first word within {} s", "gap_target": "gaps within {}",
    "requests": "{} requests", "seed": "seed {}",
}


def setting_line(s, trace=None, swept=None):
    """The settings in one line, as the CLI's tables are headed. trace: the trace s replays,
    if any. swept: (name, values) of a sweep, whose setting is written as the values it
    takes, not as the one it does not."""
    def words(name):
        write = ms if name == "gap_target" else setting
        if swept and swept[0] == name:
            value = " / ".join(map(write, swept[1]))
            return SETTING_WORDS[name].format(value) + " (swept)"
        return SETTING_WORDS[name].format(write(getattr(s, name)))

    targets = f"targets: {words('ttft_target')}, {words('gap_target')}"
    if s.traffic == "lesson":
        line = (f"{words('rps')}, {words('prompt')}, {words('reply')}, {words('link')}; "
                f"{targets}; {words('requests')}, {words('seed')}")
    else:  # the window says the load, its requests and their arrivals
        line = f"{window_words(s, trace)}; {words('link')}; {targets}"
        if swept and swept[0] in ("rps", "requests", "seed", "trace_start"):
            line += f"; {swept[0]}={' / '.join(map(setting, swept[1]))} (swept)"
    further = []
    for name, f in FIELDS.items():
        if f.metadata["group"] in ("lesson", "traffic"):  # the explorer's settings, the prices
            continue
        if swept and swept[0] == name:
            further.append(f"{name}={' / '.join(map(setting, swept[1]))} (swept)")
        elif getattr(s, name) != f.default:
            further.append(f"{name}={setting(getattr(s, name))}")
    return line + ("; " + " ".join(further) if further else "")


def trace_name(s, trace=None):
    return trace.name if trace is not None else NAMES.get(s.traffic, s.traffic)


def window_words(s, trace=None, of=""):
    """Which requests of a trace, arriving how: "<trace>, requests 0 to 599, ..."."""
    last = s.trace_start + s.requests - 1
    which = (f"request {s.trace_start:,}" if s.requests == 1 else
             f"requests {s.trace_start:,} to {last:,}")
    if s.arrivals == "recorded":
        how = f"with {'its' if s.requests == 1 else 'their'} own spacing scaled to {number(s.rps)} req/s"
    else:
        how = f"at random (Poisson, seed {s.seed}), {number(s.rps)} req/s on average"
    return f"{trace_name(s, trace)}: {which}{of}, {how}"


# What a trace's replay still leaves out (docs/model.md: "Real traffic"), said wherever a trace is chosen.
LEFT_OUT = ("prefix reuse between requests (Mooncake's hash_ids are read and ignored); the model "
            "and GPUs that served the trace (its token counts are served by the toy's "
            "Llama-3-8B on A100s); requests that fail or are cancelled; the time of day beyond "
            "the window.")


def either(texts):
    """"1, 2 or 3"."""
    *most, last = texts
    return f"{', '.join(most)} or {last}" if most else last


def traffic_report(t, s, trace=None):
    """`python -m sim traffic`: what the requests look like, as text (t: sim.traffic's)."""
    if trace is None:
        prompts, replies = (either(map(number, sizes(x))) for x in (s.prompt, s.reply))
        source = (f"The lesson's traffic: {plural(t['requests'], 'request')} at random "
                  f"(Poisson, seed {s.seed}), {number(s.rps)} req/s on average; prompts of "
                  f"{prompts} tokens and replies of {replies} words, each equally likely.")
    else:
        usable = (f"{t['trace_requests']:,}" if trace.whole else
                  f"at least {t['trace_requests']:,}")
        left = (f"; {plural(t['left_out'], 'row')} with 0 prompt or reply tokens left out"
                if t["left_out"] else "")
        read = "" if trace.whole else " (the file was read only as far as the window)"
        source = f"{window_words(s, trace, f' of its {usable} usable')}{left}{read}."
    rows = [[f"{name} {unit}", *(number(t[f"{name}_p{p}"]) for p in (50, 90, 99)),
             f"{t[f'{name}_mean']:,.1f}"] for name, unit in (("prompt", "tokens"), ("reply", "words"))]
    cv = t["gap_cv"]
    burst = ("none (one request, or all at one moment)" if cv is None else f"{cv:.2f}")
    lines = [wrap(source, 88), "", table(rows, ["", "p50", "p90", "p99", "mean"]), "",
             wrap(f"{plural(t['requests'], 'request')} over {t['span_s']:,.1f} s. Burstiness (the "
                  f"coefficient of variation of the gaps between arrivals): {burst}; random "
                  f"(Poisson) arrivals give about 1, bursts far more.", 88)]
    if s.traffic in NAMES:
        lines += ["", wrap(f"Data: {ATTRIBUTION}. Its owners ask that you cite {CITATION}.", 88)]
    if trace is not None:
        lines += ["", wrap(f"What a trace's replay leaves out: {LEFT_OUT}", 88)]
    return "\n".join(lines)


def compare_table(result):
    names = layouts(result)
    rows = [[words] + [value(key, result[layout][key]) for layout in names]
            for key, words in METRICS]
    for key, words in MEMORY:  # what memory=kv measures, where a layout has it
        found = [result[layout].get(key) for layout in names]
        if any(found) or (key != "dropped" and any(x is not None for x in found)):
            rows.append([words] + ["-" if x is None else value(key, x) for x in found])
    return table(rows, [""] + names)


LAYOUT_WORDS = {
    "shared": "shared (each GPU reads and writes)",
    "split": "split (readers, a link, writers)",
    "chunked": "chunked (each GPU reads in chunks)",
}


def rate_table(rates, s):
    """`python -m sim rate`: each layout's rate goodput, and the split's against sharing."""
    rows = [[LAYOUT_WORDS[layout], rate(x), rate(x * s.gpus)] for layout, x in rates.items()]
    lines = [f"Rate goodput (DistServe): the most requests a second at which at least "
             f"{percent(s.attainment)} of requests meet both targets, per GPU of {number(s.gpus)}.",
             "", table(rows, ["", "req/s per GPU", "req/s in all"])]
    if rates["shared"] > 0:
        lines += ["", f"split / shared: {rates['split'] / rates['shared']:.3g}x"]
    return "\n".join(lines)


def ratio_table(rows, s):
    """`python -m sim ratio`: the split at every reader:writer ratio of s.gpus."""
    best = max(rows, key=lambda r: (r["rate"], r["goodput"]))
    out = [[f"{r['readers']}:{s.gpus - r['readers']}", percent(r["goodput"]), rate(r["rate"]),
            ("best" if r is best else "") + (" (current)" if r["readers"] == s.readers else "")]
           for r in rows]
    return (f"The split with {number(s.gpus)} GPUs, readers:writers (goodput at "
            f"{number(s.rps)} req/s; rate goodput at {percent(s.attainment)}).\n\n"
            + table(out, ["readers:writers", "goodput", "rate goodput (req/s per GPU)", ""]))


def limits_table():
    """The settings as a Markdown table, for docs/simulator.md (a test keeps the two the same)."""
    rows = ["| setting | default | accepted by the API and CLI | page slider | meaning |",
            "|---|---|---|---|---|"]
    for name, f in FIELDS.items():
        meta = f.metadata
        where = " (the Traffic section)" if meta["group"] == "traffic" else ""
        if meta["choices"]:
            rows.append(f"| `{name}` | {f.default} | {describe(name)} | a choice of "
                        f"{len(meta['choices'])}{where} | {meta['help']} |")
            continue
        slider = meta["slider"]
        factor, shown_unit = meta["shown"]
        unit = shown_unit or meta["unit"]
        lo, hi = meta["page"]
        if slider:
            stops = (f"{number(slider[0] * factor)} to {number(slider[-1] * factor)} {unit}, "
                     f"{len(slider)} stops")
        elif meta["group"] == "price":  # a field of the Go further panel (web/economics.js)
            stops = f"a field: {number(lo)} to {number(hi)} (empty: the example price)"
        elif meta["group"] == "traffic":  # web/traffic.js: its reach is the trace's requests
            stops = f"a slider over the trace's requests{where}"
        else:
            stops = f"URL only: {number(lo)} to {number(hi)}"
        rows.append(f"| `{name}` | {number(f.default)} | {describe(name)} | {stops} | "
                    f"{meta['help']} |")
    return "\n".join(rows)
