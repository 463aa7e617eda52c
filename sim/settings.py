"""The settings: the one source of names, defaults, units and limits.

The CLI flags, the page's sliders and URL, and the tests all read this table. `limits` is
what the API accepts (wider than the sliders, narrow enough that nothing takes long:
a `compare` at the largest request count takes about a second); `slider` lists the exact
values a slider steps through, so the lesson's states are reachable by dragging.
"""

import math
from dataclasses import dataclass, field, fields
from operator import attrgetter


def _grid(numerators, denominator):
    """Slider values as exact quotients (k / d rounds the same in Python and JavaScript)."""
    return tuple(k / denominator for k in numerators)


# Requests a second: the lesson's quarter steps up to 20, then coarser steps up to 320, the
# load the explorer's charts reach with 32 GPUs (10 req/s per GPU), so the slider reaches
# every load a chart shows.
_RPS_LADDER = _grid(range(1, 81), 4) + tuple(
    float(v) for v in [*range(21, 41), *range(42, 81, 2), *range(85, 161, 5), *range(170, 321, 10)])

# A log-like ladder 0.1 ... 400 GB/s that holds every link speed the lesson names.
_LINK_LADDER = _grid(
    [m * 10**e for e in range(5) for m in (100, 125, 150, 200, 250, 300, 400, 500, 600, 800)
     if m * 10**e <= 400_000],
    1000,
)


def knob(default, label, unit, limits, whole=False, slider=None, shown=(1, None), log=False,
         page=None, help="", choices=None, group="lesson", look="", names=None, one=None,
         only=None):
    """A settings field with what the CLI, the page and the tests need to know about it."""
    meta = {
        "label": label,  # words the page puts by the slider
        "unit": unit,  # unit of the value itself
        "one": one or unit,  # the unit after exactly 1, where it differs: "1 GPU", "2 GPUs"
        "limits": limits,  # (lowest, highest) the API accepts, both included
        "whole": whole,  # must be a whole number
        "slider": slider,  # the exact values a slider offers, or None: not a slider
        "shown": shown,  # (factor, unit) the page uses to show it, e.g. (1000, "ms")
        "log": log,  # the slider's values are spaced on a log scale
        # (lowest, highest) the page takes from its URL: the slider's ends, or narrower
        # limits where a value would make the page slow
        "page": page or ((slider[0], slider[-1]) if slider else limits),
        "help": help,  # one line for --help and the page's tooltip
        "choices": choices,  # the names a named setting takes, or None: a number
        # "lesson": one of the lesson's six sliders (and the URL-only two); "explorer": one of
        # the settings that go further (docs/model.md: "Going further"), all of them off by
        # default; "model": the model, its GPUs per instance, its costs and its memory
        # (docs/model.md: "Bigger models, GPUs working as one, and memory"), which the page's
        # "Go further" panel sets in a section of its own (web/models.js); "price": a number with no slider (docs/model.md: "Price and power"), which
        # the page takes in a field of its own; "traffic": where the requests come from
        # (docs/model.md: "Real traffic"), which the page's Traffic section sets, a file of
        # your own included (web/traffic.js)
        "group": group,
        "look": look,  # what to look for when moving it, in the lesson's words (explorer)
        "names": names,  # words for each slider value, where a list reads better (layerwise)
        "only": only,  # the only values a number may take (tp: 1, 2, 4 or 8), or None: any
    }
    return field(default=default, metadata=meta)


def choice(default, label, choices, help, look="", group="explorer"):
    """A setting that takes one of a few names (routing=least-loaded, reader_gpu=H100)."""
    return knob(default, label, "", None, help=help, choices=choices, group=group, look=look)


def explorer(default, label, unit, limits, slider, help, look, **more):
    """A whole-number setting of the explorer."""
    return knob(default, label, unit, limits, whole=True, slider=slider, help=help,
                group="explorer", look=look, **more)


CHUNK_LADDER = (0, 64, 128, 256, 384, 512, 768, 1024, 1536, 2048)  # 0: chunked reading off
SLOTS_LADDER = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128)
CHIPS = ("A100", "H100", "H200", "B200")  # sim/model/costs.py has their datasheets
MODELS = ("8B", "70B", "405B")  # Llama 3.1, bf16 weights: sim/model/costs.py has their configs
TP = (1, 2, 4, 8)  # GPUs an instance may have (tensor parallel)
# Where the requests come from: the lesson's draws, the two Azure traces shipped in
# sim/workload/data/, or a trace file of your own (the API's trace=, the CLI's --trace FILE).
TRAFFIC = ("lesson", "azure-chat", "azure-code", "own")


@dataclass(frozen=True)
class Settings:
    # Load: requests a second, arriving at random (Poisson).
    rps: float = knob(4.0, "Requests a second", "req/s", (0.01, 1000.0),
                      slider=_RPS_LADDER, help="how many requests arrive each second")
    # Prompt length the requests vary around (x0.5, x1 or x1.5).
    # (The slider's steps widen past 8,000: DistServe's long-context prompts, up to 16,000.)
    prompt: int = knob(2000, "Prompt tokens", "tokens", (2, 131_072), whole=True, one="token",
                       slider=tuple(range(100, 8001, 100)) + tuple(range(9000, 16001, 1000)),
                       help="tokens to read per request")
    # Reply length the requests vary around (x0.5, x1 or x1.5).
    reply: int = knob(200, "Reply length", "words", (2, 10_000), whole=True, one="word",
                      slider=tuple(range(10, 1001, 10)), help="words (tokens) to write per request")
    # Speed of the link the KV cache crosses from reader to writer (split only).
    link: float = knob(25.0, "Link speed", "GB/s", (0.001, 10_000.0), slider=_LINK_LADDER,
                       log=True, help="how fast the KV cache crosses from reader to writer")
    # A request is good only if its first word comes within this ...
    ttft_target: float = knob(0.5, "First-word target", "s", (0.001, 3600.0),
                              slider=_grid(range(10, 501, 5), 100),
                              help="longest acceptable wait for the first word")
    # ... and no gap between its words is longer than this.
    gap_target: float = knob(0.1, "Gap target", "s", (0.001, 60.0),
                             slider=_grid(range(10, 501, 5), 1000), shown=(1000, "ms"),
                             help="longest acceptable pause between two words")
    # How many requests are simulated (the lesson uses 600).
    requests: int = knob(600, "Requests", "requests", (1, 200_000), whole=True, page=(1, 6000),
                         one="request",
                         help="how many requests to simulate")
    # Seed of the random.Random that draws the requests. Capped at 2**53 - 1 so that the
    # page's JavaScript and JSON carry every seed exactly.
    seed: int = knob(7, "Seed", "", (0, 2**53 - 1), whole=True, help="seed of the random draws")

    # ---- real traffic (docs/model.md: "Real traffic"): with traffic=lesson the two below have
    # no effect ----
    # Where the requests come from. With a trace, `requests` is the size of the window taken
    # from it, `rps` its mean rate, and each request has the trace's own prompt and reply.
    traffic: str = choice("lesson", "Traffic", TRAFFIC, group="traffic",
                          help="where the requests come from: the lesson's random ones, Azure's "
                               "chat or code trace, or a trace file of your own",
                          look="real traffic comes in bursts and lulls: the same lengths can "
                               "drown both layouts or be served")
    # recorded: the trace's own spacing, scaled to rps on average; poisson: the lesson's
    # random spacing at rps, with the trace's lengths in order.
    arrivals: str = choice("recorded", "Arrivals", ("recorded", "poisson"), group="traffic",
                           help="with a trace: its own spacing, bursts kept, scaled to the load; "
                                "or the lesson's random spacing",
                           look="the same lengths with and without the bursts")
    # The first request of the window, counted from 0 among the trace's usable requests.
    trace_start: int = knob(0, "Trace start", "", (0, 10**9), whole=True, group="traffic",
                            help="with a trace: which of its requests the window starts at, "
                                 "counting from zero",
                            look="another hour of the same service: is it as bursty?")

    # ---- the explorer (docs/model.md: "Going further"): every default gives the lesson's
    # numbers ----
    # GPUs in all; shared, chunked and split always use the same ones, differently.
    gpus: int = explorer(2, "GPUs", "GPUs", (2, 32), tuple(range(2, 33)), one="GPU",
                         help="GPUs in all, used by every layout",
                         look="more GPUs serve more load; watch which layout gains more")
    # Of them, the GPUs that only read on the split; the rest only write.
    readers: int = explorer(1, "Readers", "GPUs", (1, 31), tuple(range(1, 32)), one="GPU",
                            help="of the GPUs, how many only read prompts on the split",
                            look="chat needs few readers, summarizing many: find the best ratio")
    # How a request picks its GPU (shared, chunked) or its writer (split).
    routing: str = choice("alternate", "Routing", ("alternate", "least-loaded"),
                          help="how a request picks its GPU: in turn, or the one with fewest jobs",
                          look="least-loaded evens out bursts of long requests")
    # 0: off. Otherwise a third layout, chunked: shared GPUs that read this many prompt tokens
    # per writing step (chunked prefill), so a long read never stalls the replies for long.
    chunk: int = explorer(0, "Chunk", "tokens", (0, 16_384), CHUNK_LADDER, one="token",
                          help="prompt tokens a chunked GPU reads per step (off: no chunked layout)",
                          look="small chunks keep gaps short but make the first word later")
    # free: any number of caches cross the link at once; queued: one at a time.
    link_sharing: str = choice("free", "Link sharing", ("free", "queued"),
                               help="whether caches cross the link all at once or one at a time",
                               look="queued: a slow link makes caches wait for each other")
    # 1: the cache crosses layer by layer while the prompt is read (Splitwise).
    layerwise: int = explorer(0, "Cache crosses", "", (0, 1), (0, 1),
                              help="whether the cache crosses whole once read, or layer by layer while read",
                              look="on a slow link, crossing while reading hides most of it",
                              names=("whole, once the prompt is read",
                                     "layer by layer, while it is read"))
    # Prompts shorter than this are read by a writer itself: no crossing (Dynamo's rule).
    local_below: int = explorer(0, "Read locally below", "tokens", (0, 131_072),
                                tuple(range(0, 8001, 250)), one="token",
                                help="prompts shorter than this are read by the writer itself",
                                look="short reads stall little and save the crossing")
    # The kind of the GPUs that read on the split (GPUs 0 .. readers-1 in every layout) ...
    reader_gpu: str = choice("A100", "Reader GPU", CHIPS,
                             help="kind of the split's readers (the first GPUs, as many, in every layout)",
                             look="reading is compute-bound: a chip with more FLOP/s reads faster")
    # ... and of the others.
    writer_gpu: str = choice("A100", "Writer GPU", CHIPS,
                             help="kind of the other GPUs (the split's writers)",
                             look="writing is memory-bound: a chip with more bandwidth writes faster")
    # Replies one GPU writes at once.
    slots: int = explorer(32, "Slots", "replies", (1, 1024), SLOTS_LADDER, one="reply",
                          help="replies one GPU writes at once",
                          look="fewer slots: requests queue for a place to be written")
    # The share of good requests that DistServe's rate goodput asks for.
    attainment: float = knob(0.9, "Attainment", "", (0.001, 1.0), slider=_grid(range(50, 101), 100),
                             shown=(100, "%"), group="explorer",
                             help="share of good requests the rate goodput asks for",
                             look="rate goodput: the most load per GPU at which this share is good")

    # ---- chips and rules (docs/model.md: "Price and power"): every default gives the numbers
    # above ----
    # Power caps, a share of the kind's TDP. A capped GPU reads at that share of its peak
    # FLOP/s (reading is compute-bound), writes as fast (writing is memory-bound) and draws
    # that share of its TDP. Readers: GPUs 0 .. readers-1 in every layout; writers: the rest.
    reader_power: float = knob(1.0, "Reader power cap", "", (0.5, 1.0),
                               slider=_grid(range(50, 101, 5), 100), shown=(100, "%"),
                               group="explorer",
                               help="power cap of the readers (the first GPUs, in every layout), "
                                    "as a share of their TDP",
                               look="reading is compute-bound: a capped GPU reads slower")
    writer_power: float = knob(1.0, "Writer power cap", "", (0.5, 1.0),
                               slider=_grid(range(50, 101, 5), 100), shown=(100, "%"),
                               group="explorer",
                               help="power cap of the other GPUs (the split's writers), as a "
                                    "share of their TDP",
                               look="writing is memory-bound: capped writers write as fast on "
                                    "less power")
    # Dollars per GPU-hour; 0 takes the kind's example price (sim/model/economics.py). They
    # change no simulation, only the economics. No slider: a group of their own, which the
    # page gives a price field each in its "Go further" panel (web/economics.js; empty: 0).
    reader_price: float = knob(0.0, "Reader price", "$/GPU-hour", (0.0, 1000.0), group="price",
                               help="dollars an hour for one reader GPU (0: the kind's example price)")
    writer_price: float = knob(0.0, "Writer price", "$/GPU-hour", (0.0, 1000.0), group="price",
                               help="dollars an hour for one writer GPU (0: the kind's example price)")
    # 0: off. Otherwise a prompt is read by a writer itself also when, at its arrival, at
    # least this many prompts wait for a reader (Dynamo's rule, whole, with local_below).
    local_queue: int = explorer(0, "Read locally at a queue of", "prompts", (0, 200_000),
                                tuple(range(0, 17)), one="prompt",
                                # (no digits in the help: the page shows it, and marks every
                                # number it shows)
                                help="a prompt is also read by the writer itself when at least "
                                     "this many prompts wait for a reader (off: by length only)",
                                look="past a long queue, a writer's own read beats the wait")

    # ---- bigger models, GPUs working as one, costs that grow with context, memory that
    # pushes back (docs/model.md: "Bigger models, GPUs working as one, and memory"): every
    # default gives the numbers above ----
    # The model served: Llama 3.1 with bf16 weights. A bigger one reads and writes slower on
    # the same GPU, and its cache per token is larger.
    model: str = choice("8B", "Model", MODELS, group="model",
                        help="the language model served (Llama 3.1, bf16): the lesson's 8B, 70B "
                             "or 405B",
                        look="a bigger model reads and writes slower, and its cache is larger: "
                             "the balance between the pools moves")
    # GPUs that work as one instance (tensor parallel): every instance of the shared and
    # chunked layouts, and the split's writers. gpus and readers still count GPUs.
    tp: int = knob(1, "GPUs per instance", "GPUs", (1, 8), whole=True, slider=TP, one="GPU",
                   only=TP, group="model",
                   help="GPUs working as one instance (tensor parallel): each layout's, and the "
                        "split's writers'",
                   look="more GPUs per instance fit a bigger model and go faster, but talk to "
                        "each other at every layer")
    # GPUs per reader instance on the split; 0: the same as tp.
    reader_tp: int = knob(0, "GPUs per reader instance", "GPUs", (0, 8), whole=True,
                          slider=(0,) + TP, one="GPU", only=(0,) + TP, group="model",
                          help="GPUs working as one reader instance on the split (0: as many as "
                               "the writers')",
                          look="each pool can have the parallelism that suits its phase")
    # toy: the lesson's costs; roofline: every pass the longer of its arithmetic and its
    # memory traffic, so reading grows with the square of the prompt and writing with the
    # context held.
    costs: str = choice("toy", "Costs", ("toy", "roofline"), group="model",
                        help="the lesson's best-case costs, or costs that grow with the context "
                             "(the longer of a pass's arithmetic and its memory traffic)",
                        look="long prompts and long replies cost more than the toy says")
    # slots: only the slots limit an instance; kv: its KV memory too, and the split's readers
    # hold each cache until a writer has room for it (backpressure).
    memory: str = choice("slots", "Memory", ("slots", "kv"), group="model",
                         help="whether only the slots limit an instance, or its KV memory too "
                              "(a reader then holds each cache until a writer has room)",
                         look="when the writers are full, the readers stop reading: backpressure")

    def __post_init__(self):
        for f in fields(self):
            object.__setattr__(self, f.name, check(f.name, getattr(self, f.name)))
        self._check_together()

    def _check_together(self):
        """The rules between fields."""
        if self.readers > self.gpus - 1:  # the split needs at least one writer
            raise ValueError(f"readers must be a whole number from 1 to gpus - 1 = "
                             f"{self.gpus - 1}; got {self.readers!r} with gpus={self.gpus}")

    @classmethod
    def make(cls, **values):
        """Settings from keyword values; refuses unknown names with a clear ValueError."""
        refuse_unknown(values)
        return cls(**values)

    def but(self, **values):
        """The same settings with a few changed. Only those are checked (the others were):
        a chart's sweep makes dozens of these for every request of the page."""
        refuse_unknown(values)
        changed = object.__new__(type(self))  # a copy (copy.copy's way is slower)
        changed.__dict__.update(self.__dict__)
        for name, value in values.items():
            object.__setattr__(changed, name, check(name, value))
        changed._check_together()
        return changed

    def as_dict(self):
        return dict(zip(NAMES, _VALUES(self)))


FIELDS = {f.name: f for f in fields(Settings)}
NAMES = tuple(FIELDS)
_VALUES = attrgetter(*NAMES)  # every field's value, in NAMES's order


def refuse_unknown(names):
    """One clear ValueError for the first name that is not a setting."""
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        raise ValueError(f"unknown setting {unknown[0]!r}; known: {', '.join(NAMES)}")


def describe(name):
    """The allowed range of a field, in words, for error messages and --help."""
    meta = FIELDS[name].metadata
    if meta["choices"]:
        return "one of " + ", ".join(meta["choices"])
    if meta["only"]:
        return "one of " + ", ".join(map(str, meta["only"])) + (f" {meta['unit']}" if meta["unit"] else "")
    lo, hi = meta["limits"]
    unit = f" {meta['unit']}" if meta["unit"] else ""
    if meta["whole"]:
        return f"a whole number from {lo:,} to {hi:,}{unit}"
    return f"a number from {lo:g} to {hi:g}{unit}"


def check(name, value):
    """The value as the simulator uses it, or one ValueError naming field, value and range."""
    meta = FIELDS[name].metadata

    def problem(kind=""):  # worded only when needed: most values are fine
        return ValueError(f"{name} must be {describe(name)}; got {value!r}{kind}")

    if meta["choices"]:
        if not isinstance(value, str) or value not in meta["choices"]:
            raise problem()
        return value
    if meta["only"]:
        if isinstance(value, bool) or value not in meta["only"]:
            raise problem()
        return int(value)
    lo, hi = meta["limits"]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise problem(f" ({type(value).__name__})")
    if isinstance(value, float) and not math.isfinite(value):
        raise problem()
    if not lo <= value <= hi:  # compared exactly, so huge integers are refused, not rounded
        raise problem()
    if meta["whole"]:
        if value != int(value):
            raise problem()
        return int(value)
    return float(value)


def parse(name, text):
    """A field's value from text (CLI, URL), with the same one-line error as `check`."""
    refuse_unknown([name])
    if FIELDS[name].metadata["choices"]:
        return check(name, text)
    for kind in (int, float):  # "2000" stays an exact int; "2e3" and "0.25" are floats
        try:
            return check(name, kind(text))
        except (TypeError, ValueError, OverflowError):
            pass
    raise ValueError(f"{name} must be {describe(name)}; got {text!r}")


def schema():
    """The table above as JSON, for the page: names, defaults, units, limits, slider values."""
    return [{"name": f.name, "default": f.default, **f.metadata} for f in fields(Settings)]
