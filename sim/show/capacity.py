"""`python -m sim capacity`: each pool's instances and the memory they hold, in words
(docs/model.md: "Memory of an instance"). The numbers are sim.capacity's."""

from .report import number, table

POOLS = {
    "shared": "shared and chunked instances",
    "readers": "split: reader instances",
    "writers": "split: writer instances",
}


def gb(x):
    return f"{x / 1e9:,.1f} GB"


def capacity_table(found, s):
    """A row per pool (and kind): its instances, their GPUs, the usable memory, the weights,
    the KV cache they leave room for in tokens, and about how many replies of the lesson's
    traffic at these settings (a prompt and a reply of the settings' lengths) fit at once."""
    need = s.prompt + s.reply
    rows = []
    for pool, parts in found.items():
        for part in parts:
            kind = part["kind"] if part["power"] == 1.0 else f"{part['kind']} at {part['power']:.0%}"
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
