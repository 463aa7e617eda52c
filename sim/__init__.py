"""pdsplit's simulator: two GPUs serving an LLM, shared or split into reader and writer.

    >>> import sim
    >>> r = sim.compare(rps=4)
    >>> round(r["shared"]["goodput"], 3), round(r["split"]["goodput"], 3)
    (0.135, 0.987)
"""

# The one place the version is written: pyproject.toml reads it, the build bakes it into the
# page (window.pdsplit.version), and `python -m sim check` compares the two.
__version__ = "0.1.0"

from .model.lab import Lab, capacity, compare, economics, rate, ratio, traffic, watch  # noqa: E402
from .settings import Settings  # noqa: E402
from .workload.tracefile import read as read_trace  # noqa: E402

__all__ = ["Lab", "Settings", "__version__", "capacity", "compare", "economics", "rate", "ratio",
           "read_trace", "traffic", "watch"]
