"""Native expectations of the named states, worked out once: a state's numbers (the page's
compare message) and every figure the page draws of it, as a native run gives them.

The build works them out already, natively and by the same calls (build.bake: the page's
compare_message and FIGURES[key].render, in this machine's CPython), and writes them to
dist/states.json. Where it did so from the very sources of sim/ in this tree
(build/baked.json names their digest, and the file's), those are the expectations: the
models' states take minutes on one core, and making them again in the tests doubled that.
Otherwise (a tree edited since the build, or another dist/) they are worked out here, once
per session. tests/page/test_build.py holds the bake to fresh native runs: every state's
numbers, and every figure of each state but the models', whose runs take minutes.
"""

import functools
import hashlib
import json

import build
import sim
from conftest import DIST
from sim.show.figures import FIGURES
from sim.show.page import compare_message


@functools.cache
def _bake():
    """{state name: {"settings", "compare", "figures"}} from dist/states.json, if the build
    wrote it from these sources; else {}."""
    try:
        noted = json.loads(build.BAKED.read_text())
        data = (DIST / build.STATES_FILE).read_bytes()
    except (OSError, ValueError):
        return {}
    if noted.get("out") != str(DIST) or noted.get("sources") != build.sources_digest() \
            or noted.get("states") != hashlib.sha256(data).hexdigest():
        return {}
    return {state["name"]: state for state in json.loads(data)}


def baked_from_these_sources():
    """Whether dist/states.json is the bake of this tree's sim/ (else each state is made)."""
    return bool(_bake())


@functools.lru_cache(maxsize=2)  # (a state's figures share its runs; a Lab may hold ~130 MB)
def _lab(settings):
    return sim.Lab()


def _settings(settings):
    return tuple(sorted(sim.Settings().but(**settings).as_dict().items()))


def state_message(name, settings):
    """The compare message (the page's numbers and headline) of the named state `name` at
    `settings` (a dict of every setting)."""
    found = _bake().get(name)
    if found is not None and found["settings"] == settings:
        return found["compare"]
    key = _settings(settings)
    return json.loads(json.dumps(compare_message(_lab(key), sim.Settings(**settings))))


def state_figure(name, settings, figure):
    """FIGURES[figure].render of the named state `name` at `settings`, as JSON gives it."""
    found = _bake().get(name)
    if found is not None and found["settings"] == settings and figure in found["figures"]:
        return found["figures"][figure]
    key = _settings(settings)
    return json.loads(json.dumps(FIGURES[figure].render(_lab(key), sim.Settings(**settings))))
