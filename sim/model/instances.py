"""GPUs working as one: which instances each layout has, whether the settings allow them, and
what memory each holds (docs/model.md: "Bigger models, GPUs working as one, and memory").

`gpus` and `readers` count GPUs. An instance is t GPUs of one kind and power cap: on the split,
readers / reader_tp reader instances and (gpus - readers) / tp writer instances; in the shared
and chunked layouts gpus / tp instances, instance k made of GPUs k·tp .. k·tp + tp - 1, so it
is of the readers' kind when k·tp < readers, as GPUs are with tp = 1. Settings that would cut
an instance in two, mix two kinds in one, or give it a model it cannot hold are refused here,
with one message that names the settings and says what would fit.
"""

from .costs import GIB, KINDS, MODELS, USABLE, instance
from ..settings import TP


def reader_tp(s):
    """GPUs per reader instance on the split (reader_tp, or tp when it is 0)."""
    return s.reader_tp or s.tp


def pools(s):
    """{pool: (kind, power, GPUs per instance, instances)} of the settings' GPUs: "shared" (the
    shared and chunked layouts' instances, of the readers' kind first), "readers" and
    "writers" (the split's)."""
    first = -(-s.readers // s.tp)  # instances whose first GPU is a reader
    shared = [(s.reader_gpu, s.reader_power, s.tp, first),
              (s.writer_gpu, s.writer_power, s.tp, s.gpus // s.tp - first)]
    if shared[0][:2] == shared[1][:2]:  # one kind and power cap: one part
        shared = [(s.reader_gpu, s.reader_power, s.tp, s.gpus // s.tp)]
    return {
        "shared": shared,
        "readers": [(s.reader_gpu, s.reader_power, reader_tp(s), s.readers // reader_tp(s))],
        "writers": [(s.writer_gpu, s.writer_power, s.tp, (s.gpus - s.readers) // s.tp)],
    }


def check(s):
    """The settings, if every layout's instances can be made; else one clear ValueError."""
    rtp = reader_tp(s)
    if s.gpus % s.tp:
        raise ValueError(f"gpus={s.gpus} is not a multiple of tp={s.tp}: the shared layout's "
                         f"instances have {s.tp} GPUs each")
    if s.readers % rtp:
        named = f"reader_tp={rtp}" if s.reader_tp else f"tp={rtp} (reader_tp=0: the same)"
        raise ValueError(f"readers={s.readers} is not a multiple of {named}: the split's reader "
                         f"instances have {rtp} GPUs each")
    if (s.gpus - s.readers) % s.tp:
        raise ValueError(f"gpus - readers = {s.gpus - s.readers} is not a multiple of tp={s.tp}: "
                         f"the split's writer instances have {s.tp} GPUs each")
    mixed = (s.reader_gpu, s.reader_power) != (s.writer_gpu, s.writer_power)
    if mixed and s.readers % s.tp:
        raise ValueError(f"readers={s.readers} is not a multiple of tp={s.tp}, and the readers' GPUs "
                         f"({kind_words(s.reader_gpu, s.reader_power)}) differ from the writers' "
                         f"({kind_words(s.writer_gpu, s.writer_power)}): a shared instance would "
                         "mix them")
    for pool, parts in pools(s).items():
        for kind, power, t, count in parts:
            if count and instance(kind, power, s.model, t, s.costs).capacity < 0:
                raise ValueError(too_big(s, kind, t, pool))
    return s


def too_big(s, kind, t, pool):
    """Why a model does not fit an instance, and the smallest tp that would hold it."""
    model = s.model
    weights = 2 * MODELS[model].params
    usable = t * KINDS[kind].memory * USABLE[0] // USABLE[1]
    fits = [n for n in TP if n * KINDS[kind].memory * USABLE[0] // USABLE[1] >= weights]
    setting = f"reader_tp={s.reader_tp}" if pool == "readers" and s.reader_tp else f"tp={s.tp}"
    where = {"shared": "an instance", "readers": "a reader instance",
             "writers": "a writer instance"}[pool] + f" ({setting})"
    would = (f"the smallest tp that holds it on {kind}s is {fits[0]}" if fits else
             f"no instance of up to {TP[-1]} {kind}s holds it")
    gpus = f"{t} {kind}" + ("s" if t > 1 else "")
    return (f"model={model} does not fit: its weights are {weights / 1e9:.1f} GB, and {where} of "
            f"{gpus} may use {usable / 1e9:.1f} GB ({USABLE[0] * 100 // USABLE[1]}% of "
            f"{t * KINDS[kind].memory // GIB} GiB); {would}")


def kind_words(kind, power):
    return kind if power == 1.0 else f"{kind} at {power:.0%}"


def allowed(s, **changes):
    """Whether the settings with these changes can be made (the ratio tries only those)."""
    try:
        check(s.but(**changes))
    except ValueError:
        return False
    return True


def chip(s, g):
    """The instance that GPU g is part of in the shared and chunked layouts (with tp = 1, GPU g
    itself): of the readers' kind and power cap if its first GPU is one of the readers."""
    if g // s.tp * s.tp < s.readers:
        return instance(s.reader_gpu, s.reader_power, s.model, s.tp, s.costs)
    return writer_chip(s)


def writer_chip(s):
    """The split's writer instances: tp GPUs of kind writer_gpu, capped at writer_power."""
    return instance(s.writer_gpu, s.writer_power, s.model, s.tp, s.costs)


def shared_instances(s):
    """The shared and chunked layouts' instances, in order."""
    return [chip(s, k * s.tp) for k in range(s.gpus // s.tp)]


def simple(c):
    """Whether an instance's passes cost what the fast loops assume: one GPU, the toy's costs."""
    return c.tp == 1 and not c.roofline


def capacity(s):
    """Per pool ("shared": the shared and chunked layouts' instances, by kind; "readers",
    "writers": the split's): the instances, their GPUs, the usable memory, the weights and the
    KV capacity C in tokens, each instance's (docs/model.md: "Memory of an instance")."""
    check(s)
    out = {}
    for pool, parts in pools(s).items():
        out[pool] = [{"kind": kind, "power": power, "instances": count, "gpus": t,
                      "usable_bytes": chip.usable, "weights_bytes": 2 * chip.model.params,
                      "kv_bytes_per_token": chip.model.cache, "kv_tokens": chip.capacity}
                     for kind, power, t, count in parts if count
                     for chip in (instance(kind, power, s.model, t, s.costs),)]
    return out
