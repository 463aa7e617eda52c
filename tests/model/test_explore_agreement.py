"""The fast engine agrees with the step-by-step oracle on the explorer's settings: every
option and their combinations, overloaded settings and the limits."""

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

import sim
from agreement import agree
from sim.settings import CHIPS, FIELDS

def slider(name):
    return st.sampled_from(FIELDS[name].metadata["slider"])


@st.composite
def explorer_settings(draw):
    gpus = draw(st.sampled_from((2, 2, 3, 4, 5, 8, 12)))
    return sim.Settings(
        rps=draw(slider("rps")), prompt=draw(slider("prompt")), reply=draw(st.integers(2, 400)),
        link=draw(slider("link")), ttft_target=draw(slider("ttft_target")),
        gap_target=draw(slider("gap_target")), requests=draw(st.integers(1, 120)),
        seed=draw(st.integers(0, 2**53 - 1)), gpus=gpus, readers=draw(st.integers(1, gpus - 1)),
        routing=draw(st.sampled_from(("alternate", "least-loaded"))),
        chunk=draw(st.sampled_from((0, 0, 1, 64, 300, 512, 2048, 16_384))),
        link_sharing=draw(st.sampled_from(("free", "queued"))), layerwise=draw(st.sampled_from((0, 1))),
        local_below=draw(st.sampled_from((0, 0, 500, 1500, 4000, 131_072))),
        reader_gpu=draw(st.sampled_from(CHIPS)), writer_gpu=draw(st.sampled_from(CHIPS)),
        slots=draw(st.sampled_from((1, 2, 4, 8, 32, 64))))


@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(explorer_settings())
def test_hypothesis_explorer_settings(s):
    agree(s)


LIMITS = [  # the ends of the new settings' ranges, alone and together
    sim.Settings(gpus=32, readers=31, requests=300, rps=40.0),
    sim.Settings(gpus=32, readers=1, routing="least-loaded", requests=300, rps=40.0),
    sim.Settings(gpus=32, readers=16, chunk=512, routing="least-loaded", requests=300, rps=30.0),
    sim.Settings(slots=1, requests=200),
    sim.Settings(slots=1, chunk=512, routing="least-loaded", gpus=3, readers=2, requests=200),
    sim.Settings(chunk=1, requests=100),
    sim.Settings(chunk=1, prompt=8000, slots=2, requests=60),
    sim.Settings(chunk=16_384, requests=300, prompt=8000),
    sim.Settings(slots=1024, reply=1000, rps=20.0, prompt=100, chunk=64, requests=300),
    sim.Settings(local_below=131_072, requests=300),
    sim.Settings(local_below=131_072, gpus=5, readers=4, routing="least-loaded", requests=300),
    sim.Settings(reader_gpu="B200", writer_gpu="H100", gpus=4, readers=3, chunk=2048, requests=300),
]
OVERLOADED = [  # slots full, readers far behind, the link queued up
    sim.Settings(rps=20.0, prompt=8000, reply=1000, link=0.1, link_sharing="queued", gpus=4,
                 readers=2, routing="least-loaded", chunk=256, requests=200),
    sim.Settings(rps=20.0, prompt=100, reply=1000, slots=8, gpus=3, readers=1, chunk=64,
                 routing="least-loaded", requests=300),
    sim.Settings(rps=12.0, prompt=8000, reply=10, layerwise=1, link=1.0, link_sharing="queued",
                 ttft_target=5.0, gap_target=0.5, requests=300),
    sim.Settings(rps=8.0, prompt=4000, reply=400, local_below=5000, slots=4, gpus=6, readers=3,
                 routing="least-loaded", requests=300),
]


@pytest.mark.parametrize("s", LIMITS + OVERLOADED, ids=lambda s: s.as_dict().__repr__()[:90])
def test_limits_and_overload(s):
    agree(s)
