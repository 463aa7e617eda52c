"""`python -m sim capacity`: each pool's instances and the memory they hold, in words
(docs/model.md: "Memory of an instance"). The numbers are sim.capacity's. Also the same in one
line for the page (`capacity_line`), and the words with which the page's headline and
introduction say the model and its instances (`model_words`)."""

from ..model.instances import reader_tp
from ..settings import FIELDS
from .numbers import layouts, number, table

POOLS = {
    "shared": "shared and chunked instances",
    "readers": "split: reader instances",
    "writers": "split: writer instances",
}
# The settings of a bigger model (docs/model.md: "Bigger models, GPUs working as one, and
# memory"). With all of them at their defaults the page's text is the lesson's, byte for byte.
MODEL = ("model", "tp", "reader_tp", "costs", "memory")


def gb(x):
    return f"{x / 1e9:,.1f} GB"


def gpus_of(kind, power, n):
    """n GPUs of a kind, as the text names them: "A100", "H100s", "A100s at 50%"."""
    return kind + ("" if n == 1 else "s") + ("" if power == 1.0 else f" at {power:.0%}")


def capacity_table(found, s):
    """A row per pool (and kind): its instances, their GPUs, the usable memory, the weights,
    the KV cache they leave room for in tokens, and about how many replies of the lesson's
    traffic at these settings (a prompt and a reply of the settings' lengths) fit at once."""
    need = s.prompt + s.reply
    rows = []
    for pool, parts in found.items():
        for part in parts:
            kind = gpus_of(part["kind"], part["power"], 1)
            rows.append([f"{POOLS[pool]} ({kind})", number(part["instances"]), number(part["gpus"]),
                         gb(part["usable_bytes"]), gb(part["weights_bytes"]),
                         number(part["kv_tokens"]), number(part["kv_tokens"] // need)])
    head = (f"The memory of each instance, with model={s.model} (bf16 weights, "
            f"{number(found['writers'][0]['kv_bytes_per_token'])} bytes of KV cache a token), each "
            f"GPU's memory 90% usable. A request needs room for its prompt and its whole reply "
            f"({number(need)} tokens at these settings, prompt {number(s.prompt)} and reply "
            f"{number(s.reply)}).")
    return head + "\n\n" + table(rows, ["", "instances", "GPUs each", "usable", "weights",
                                        "KV cache (tokens)", "requests that fit"])


def capacity_line(found, s):
    """The page's capacity line for settings s (found: sim.capacity's for them), as a template
    whose {capacity.*} fields are its numbers, and their texts: per pool (and kind) its
    instances × GPUs, the weights each instance holds in its usable memory, the KV cache they
    leave room for in tokens, and about how many requests of the settings' prompt and reply
    fit in it (the readers': prompts, all they hold of a request), as capacity_table counts."""
    texts = {"capacity.need": number(s.prompt + s.reply), "capacity.prompt": number(s.prompt)}

    def pool(name, what, tokens):
        said = []
        for i, part in enumerate(found[name]):
            k = f"capacity.{name}" + (f"_{i + 1}" if i else "")
            n, fit = part["instances"], part["kv_tokens"] // tokens
            texts.update({f"{k}_instances": number(n), f"{k}_gpus": number(part["gpus"]),
                          f"{k}_kind": gpus_of(part["kind"], part["power"], part["gpus"]),
                          f"{k}_weights": gb(part["weights_bytes"]),
                          f"{k}_usable": gb(part["usable_bytes"]),
                          f"{k}_kv": number(part["kv_tokens"]), f"{k}_fit": number(fit)})
            size = "{capacity.need}" if what == "request" else "{capacity.prompt}"
            if fit:
                room = f"about {{{k}_fit}} {what}{'' if fit == 1 else 's'} of {size} tokens"
                room += "" if fit == 1 else " each"
            else:
                room = f"not one {what} of {size} tokens"
            said.append(f"{{{k}_instances}} instance{'' if n == 1 else 's'} × {{{k}_gpus}} "
                        f"{{{k}_kind}}, each {{{k}_weights}} of weights in {{{k}_usable}} usable, "
                        f"room for {{{k}_kv}} tokens of KV: {room}")
        return "; ".join(said)

    line = (f"{'Shared and chunked' if s.chunk else 'Shared'}: "
            f"{pool('shared', 'request', s.prompt + s.reply)}. Split: readers "
            f"{pool('readers', 'prompt', s.prompt)}; writers "
            f"{pool('writers', 'request', s.prompt + s.reply)}.")
    return line, texts


def model_words(s, key, result=None):
    """How the text at `key` ("headline", "intro") says the model and its instances, with the
    texts of their {key.*} fields; ({}, {}) with every setting of MODEL at its default (the
    text is the lesson's). The words: "what" (the headline's, "70B on 2 A100s per instance
    and roofline costs") and "about" (the introduction's, "70B, on 2 A100s per instance, with
    roofline costs; KV memory limits each instance"); each pool's instances, " (2 instances)"
    or, where the readers' instances differ in size from the others, " (1 instance of 4)",
    for "shared", "readers" and "writers" (only where an instance is more than one GPU, and
    not for a pool of one GPU); and with memory=kv "memory", the headline's sentence that
    says so, and how many requests never fit (from the compare result, when given)."""
    if all(getattr(s, name) == FIELDS[name].default for name in MODEL):
        return {}, {}
    k, rtp, writers = key + ".", reader_tp(s), s.gpus - s.readers
    texts = {k + "model": s.model, k + "tp": number(s.tp), k + "reader_tp": number(rtp)}
    if (s.reader_gpu, s.reader_power) == (s.writer_gpu, s.writer_power):  # one kind
        texts[k + "gpu"] = gpus_of(s.writer_gpu, s.writer_power, s.tp if rtp == s.tp else 2)
        on = f"on {{{k}tp}} {{{k}gpu}} per instance" if rtp == s.tp else f"on {{{k}gpu}}"
        kinds = ""
    else:  # two: the kinds' names (as in "on A100s")
        texts[k + "reader_gpu"] = gpus_of(s.reader_gpu, s.reader_power, 2)
        texts[k + "writer_gpu"] = gpus_of(s.writer_gpu, s.writer_power, 2)
        on = f"on {{{k}tp}} GPU{'' if s.tp == 1 else 's'} per instance" if rtp == s.tp else ""
        kinds = f"readers on {{{k}reader_gpu}}, writers on {{{k}writer_gpu}}"
    roofline = s.costs == "roofline"
    what = " ".join(filter(None, [f"{{{k}model}}", on, kinds and f"({kinds})"]))
    about = ", ".join(filter(None, [f"{{{k}model}}", on, kinds, roofline and "with roofline costs"]))
    said = {"what": what + (" and roofline costs" if roofline else ""),
            "about": about + ("; KV memory limits each instance" if s.memory == "kv" else "")}
    if max(s.tp, rtp) > 1:  # instances of more than one GPU: how many each pool has
        for pool, gpus, t, name in (("shared", s.gpus, s.tp, "instances"),
                                    ("readers", s.readers, rtp, "reader_instances"),
                                    ("writers", writers, s.tp, "writer_instances")):
            texts[k + name] = number(gpus // t)
            size = "" if rtp == s.tp else f" of {{{k}{'reader_tp' if pool == 'readers' else 'tp'}}}"
            plural = "" if gpus // t == 1 else "s"
            said[pool] = f" ({{{k}{name}}} instance{plural}{size})" if gpus > 1 else ""
    if s.memory == "kv":
        said["memory"] = " KV memory limits each instance" + dropped(k, result, texts) + "."
    return said, texts


def dropped(k, result, texts):
    """": 201 requests never fit and were dropped" (each layout's number where they differ),
    or "" when none was (or no result is given)."""
    found = {layout: result[layout]["dropped"] for layout in layouts(result)} if result else {}
    if not any(found.values()):
        return ""
    if len(set(found.values())) > 1:
        each = ", ".join(f"{layout} {{{layout}.dropped}}" for layout in found)
        return f": requests that never fit were dropped ({each})"
    n = next(iter(found.values()))
    texts[k + "dropped"] = number(n)
    were = " never fit and was" if n == 1 else "s never fit and were"
    return f": {{{k}dropped}} request{were} dropped"
