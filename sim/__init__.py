"""pdsplit's simulator: two GPUs serving an LLM, shared or split into reader and writer.

    >>> import sim
    >>> r = sim.compare(rps=4)
    >>> round(r["shared"]["goodput"], 3), round(r["split"]["goodput"], 3)
    (0.135, 0.987)
"""

# The one place the version is written: pyproject.toml reads it, the build bakes it into the
# page (window.pdsplit.version), and `python -m sim check` compares the two.
__version__ = "0.1.0"

from .model.instances import capacity as _capacity  # noqa: E402
from .model.lab import Lab, compare, economics, rate, ratio, traffic, watch  # noqa: E402
from .settings import Settings  # noqa: E402
from .workload.tracefile import read as read_trace  # noqa: E402



def capacity(**settings):
    """{pool: [{"kind", "power", "instances", "gpus", "usable_bytes", "weights_bytes",
    "kv_bytes_per_token", "kv_tokens"}]} for the given settings: each pool's instances ("shared":
    the shared and chunked layouts', by kind; "readers", "writers": the split's) and the KV
    cache tokens each holds (docs/model.md: "Memory of an instance")."""
    return _capacity(Settings.make(**settings))


__all__ = ["Lab", "Settings", "__version__", "capacity", "compare", "economics", "rate", "ratio",
           "read_trace", "traffic", "watch"]
