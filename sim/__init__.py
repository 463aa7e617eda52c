"""pdsplit's simulator: two GPUs serving an LLM, shared or split into reader and writer.

    >>> import sim
    >>> r = sim.compare(rps=4)
    >>> round(r["shared"]["goodput"], 3), round(r["split"]["goodput"], 3)
    (0.135, 0.987)
"""

from .lab import Lab, compare, rate, ratio
from .settings import Settings

__all__ = ["Lab", "Settings", "compare", "rate", "ratio"]
