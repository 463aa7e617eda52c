"""What a run and a finding depend on: the lab's cache keys (lab.py).

A layout's run depends on the requests (the lesson's draws, or a trace's window and the load)
and on the layout's own settings, never on the targets or the attainment, which only score it:
so moving a target re-scores the cached runs. A finding (a crossover, a rate goodput, a best
ratio) depends on every setting but the one it searches along, and the prices, which change
no simulation (only the economics read them, and add them to their key).
"""

from operator import attrgetter

from ..settings import NAMES

# The lesson's requests: the draws and their load.
WORKLOAD = ("rps", "prompt", "reply", "requests", "seed")
MODEL = ("model", "tp", "costs", "memory")  # docs/model.md: "Bigger models, GPUs working as one, and memory"
# Each layout's own settings.
LAYOUT = {
    "shared": ("gpus", "routing", "slots") + MODEL,
    "chunked": ("gpus", "routing", "slots", "chunk") + MODEL,
    "split": ("gpus", "readers", "routing", "slots", "link", "link_sharing", "layerwise",
              "local_below", "reader_gpu", "writer_gpu")
    + ("reader_power", "writer_power", "local_queue")  # docs/model.md: "Price and power"
    + MODEL + ("reader_tp",),
}
# A layout's key getters, with the lesson's requests and with a trace's: by attrgetter, since
# a chart asks ~80 times for a key (a generator's was a third of its cached draw)
_DEPENDS = {layout: attrgetter(*WORKLOAD, *names) for layout, names in LAYOUT.items()}
_TRACED = {layout: attrgetter("rps", *names) for layout, names in LAYOUT.items()}


def depends(layout, s, source=None):
    """The settings a layout's run depends on, as a cache key; with a trace, `source` (the
    lab's key for its requests) and the load stand for the lesson's requests. The shared and
    chunked layouts see `readers` only through the kinds of their GPUs and their power caps."""
    key = _DEPENDS[layout](s) if source is None else source + _TRACED[layout](s)
    if layout != "split":
        kinds = ((s.reader_gpu, s.reader_power), (s.writer_gpu, s.writer_power))
        key += (kinds, s.readers) if kinds[0] != kinds[1] else (kinds,)
    return key


PRICES = ("reader_price", "writer_price")
prices = attrgetter(*PRICES)  # a settings' prices, as a tuple


def but(s, *names):
    """What a finding depends on: every setting but these (and the prices)."""
    return tuple(getattr(s, name) for name in NAMES if name not in names and name not in PRICES)
