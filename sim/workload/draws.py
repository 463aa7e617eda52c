"""The requests: drawn from a seeded `random.Random`, exactly as the model orders the draws
(docs/model.md: "The requests").

The random numbers do not depend on any setting: `expovariate(rps)` is `-log(1 - u) / rps`
and the prompt and reply multipliers are picks among three. So the draws are made once per
(seed, count) and scaled for each setting, giving bit-for-bit the same requests as calling
`expovariate` and `choice` directly.
"""

import random
from itertools import accumulate
from math import log
from operator import add

MULTIPLIERS = (0.5, 1, 1.5)  # a request's prompt and reply vary around the setting


def sizes(setting):
    """The prompt or reply lengths drawn for a setting, each equally often."""
    return [round(setting * m) for m in MULTIPLIERS]


class Draws:
    """The settings-free random numbers behind `count` requests."""

    __slots__ = ("seed", "count", "spacings", "prompt_picks", "reply_picks")

    def __init__(self, seed, count):
        rng = random.Random(seed)
        uniform, bits = rng.random, rng.getrandbits
        spacings, prompt_picks, reply_picks = [], [], []
        for _ in range(count):
            # Same order of draws as the model: gap, prompt, reply. `choice` among three is
            # `_randbelow(3)`: two random bits, drawn again while they read 3 (CPython 3.11
            # to 3.14). Inlined because it is most of the cost of drawing; the tests check it
            # against `rng.choice` itself.
            spacings.append(-log(1.0 - uniform()))
            k = bits(2)
            while k == 3:
                k = bits(2)
            prompt_picks.append(k)
            k = bits(2)
            while k == 3:
                k = bits(2)
            reply_picks.append(k)
        self.seed = seed
        self.count = count
        self.spacings = spacings  # expovariate(1) of each gap, before dividing by rps
        self.prompt_picks = prompt_picks  # index into MULTIPLIERS
        self.reply_picks = reply_picks


class Room:
    """The room each request needs in an instance's KV memory (memory=kv): its whole final
    context, prompt and reply tokens, worked out once for the layouts that ask (a workload's
    `prompts` and `replies` never change)."""

    __slots__ = ("_totals",)

    @property
    def totals(self):
        if self._totals is None:
            self._totals = list(map(add, self.prompts, self.replies))
        return self._totals


class Workload(Room):
    """The requests for one setting: arrival times, prompt tokens and reply words."""

    __slots__ = ("arrivals", "prompts", "replies")

    def __init__(self, draws, rps, prompt, reply):
        # accumulate adds left to right from the first gap, as `t += gap` does from 0.
        self.arrivals = list(accumulate([s / rps for s in draws.spacings]))
        self.prompts = list(map(sizes(prompt).__getitem__, draws.prompt_picks))
        self.replies = list(map(sizes(reply).__getitem__, draws.reply_picks))
        self._totals = None
