"""The two traces shipped with the simulator: Azure's LLM inference traces of 16 November 2023
(data/, with their NOTICE: CC-BY 4.0, attribution and citation in data/README.md).

Each is parsed once per process, and only when it is used (`trace`). Its gzipped bytes are
read apart from that (`packed`), so that the page's memory snapshot can hold them: the
browser's Python boots from memory alone, with none of the wheel's files (snapshot.mjs
reads them before it takes the snapshot, and parsing stays lazy).
"""

import gzip
from functools import lru_cache
from pathlib import Path

from .tracefile import read

DATA = Path(__file__).resolve().parent / "data"
FILES = {  # traffic= name: the file in data/
    "azure-chat": "AzureLLMInferenceTrace_conv_2023.csv.gz",
    "azure-code": "AzureLLMInferenceTrace_code_2023.csv.gz",
}
NAMES = {  # what messages and summaries call them
    "azure-chat": "Azure LLM inference trace 2023 (conversation)",
    "azure-code": "Azure LLM inference trace 2023 (code)",
}
# The attribution the license asks for, and the paper the data's owners ask users to cite.
ATTRIBUTION = "Azure LLM inference trace 2023, Microsoft Azure, CC-BY 4.0"
CITATION = ("Patel et al., \"Splitwise: Efficient Generative LLM Inference Using Phase "
            "Splitting\", ISCA 2024")


@lru_cache(maxsize=None)
def packed(name):
    """A shipped trace's gzipped bytes, read once."""
    return (DATA / FILES[name]).read_bytes()


@lru_cache(maxsize=None)
def trace(name):
    """A shipped trace, parsed once per process."""
    return read(gzip.decompress(packed(name)), name=NAMES[name])
