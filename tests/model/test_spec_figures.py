"""The engine and the oracle each reproduce the specs' figures, to the digit shown.

The model's definition (docs/model.md, from the specs lesson-model.md, explore-model.md and
traffic.md) ends each part with a table of "figures a faithful simulator gives". The oracle is written from those specs alone and the engine is not;
both are checked against the tables, so that their agreement means agreement with the specs.

The `local_below=1500` row (78.8%, 473 good) fixes one reading of the lesson's loop where a
writer holds both kinds of job: a round either reads one prompt, or takes the jobs that arrived
with nothing to read and then writes one step. The other reading (taking as a round of its own,
so that a read can follow a take with no step between) gives 77.7% (466).
"""

import functools

import pytest

import oracle
import sim
from sim.model.chunked import ChunkedGpu
from sim.model.costs import CHIPS

IMPLEMENTATIONS = {
    "engine": (lambda **s: {layout: m for layout, m in sim.Lab().compare(sim.Settings(**s)).items()
                            if layout != "settings"}, sim.rate, sim.ratio, sim.traffic),
    "oracle": (oracle.compare, oracle.rate, oracle.ratio, oracle.traffic),
}
@functools.lru_cache(maxsize=None)
def _compare(implementation, items):
    return IMPLEMENTATIONS[implementation][0](**dict(items))


@pytest.fixture(params=IMPLEMENTATIONS)
def compare(request):
    return lambda **settings: _compare(request.param, tuple(sorted(settings.items())))


@pytest.fixture(params=IMPLEMENTATIONS)
def rate_and_ratio(request):
    return IMPLEMENTATIONS[request.param][1:3]


@pytest.fixture(params=IMPLEMENTATIONS)
def traffic(request):
    return IMPLEMENTATIONS[request.param][3]


def pct(share):
    return f"{share * 100:.1f}"


def ms(seconds):
    return f"{seconds * 1e3:.1f}"


# The lesson's table (lesson-model.md), every new setting at its default.

def test_lesson_defaults(compare):
    got = compare()
    assert set(got) == {"shared", "split"}  # no chunked layout while chunk is 0
    shared, split = got["shared"], got["split"]
    assert (pct(shared["goodput"]), pct(split["goodput"])) == ("13.5", "98.7")
    assert (ms(shared["ttft_p50"]), ms(shared["ttft_p99"])) == ("106.6", "267.0")
    assert (ms(split["ttft_p50"]), ms(split["ttft_p99"])) == ("143.0", "616.3")
    assert (ms(shared["gap_p50"]), ms(shared["gap_p99"])) == ("7.9", "110.8")
    assert (ms(split["gap_p50"]), ms(split["gap_p99"])) == ("7.9", "7.9")


@pytest.mark.parametrize("settings, shared, split", [
    (dict(rps=10.0), "1.7", "32.2"),
    (dict(link=0.25), "13.5", "0.0"),
    (dict(prompt=200), "100.0", "100.0"),
])
def test_lesson_goodput(compare, settings, shared, split):
    got = compare(**settings)
    assert (pct(got["shared"]["goodput"]), pct(got["split"]["goodput"])) == (shared, split)


@pytest.mark.parametrize("link, split", [(100.0, "98.7"), (25.0, "98.7"), (12.5, "98.7"),
                                         (1.25, "86.3"), (0.125, "0.0")])
def test_lesson_split_goodput_by_link(compare, link, split):
    assert pct(compare(link=link)["split"]["goodput"]) == split


def test_lesson_derived_facts():
    jobs = oracle.draw(4.0, 2000, 200, 600, 7)
    assert f"{jobs[-1][0]:.1f}" == "148.9"  # the last request arrives at 148.9 s
    assert f"{oracle.READ_COST * 1e6:.3f}" == "51.476"
    assert f"{oracle.STEP * 1e3:.4f}" == "7.8767"
    assert ms(2000 * oracle.READ_COST) == "103.0"
    cache = 2000 * oracle.CACHE_PER_TOKEN
    assert f"{cache / 1e6:.1f}" == "262.1"
    assert ms(cache / (25.0 * 1e9)) == "10.5"
    assert f"{oracle.CACHE_PER_TOKEN / oracle.READ_COST / 1e9:.2f}" == "2.55"
    assert ms(2000 * oracle.READ_COST + oracle.STEP) == "110.8"


# The explorer's table (explore-model.md): 600 requests, seed 7, other settings at defaults.
# (settings, layout, metric, figure shown)
EXPLORER = [
    (dict(chunk=512), "shared", "goodput", "13.5"),
    (dict(chunk=512), "shared", "gap_p99", "110.8"),
    (dict(chunk=512), "split", "goodput", "98.7"),
    (dict(chunk=512), "chunked", "goodput", "100.0"),
    (dict(chunk=512), "chunked", "ttft_p99", "281.9"),
    (dict(chunk=512), "chunked", "gap_p99", "26.7"),
    (dict(gpus=3, readers=2, chunk=512, rps=8.0), "shared", "goodput", "7.2"),
    (dict(gpus=3, readers=2, chunk=512, rps=8.0), "split", "goodput", "99.8"),
    (dict(gpus=3, readers=2, chunk=512, rps=8.0), "split", "ttft_p99", "338.0"),
    (dict(gpus=3, readers=2, chunk=512, rps=8.0), "chunked", "goodput", "100.0"),
    (dict(gpus=3, readers=2, chunk=512, rps=8.0), "chunked", "gap_p99", "26.8"),
    (dict(reader_gpu="H100"), "shared", "goodput", "56.0"),
    (dict(reader_gpu="H100"), "shared", "gap_p99", "53.5"),
    (dict(reader_gpu="H100"), "split", "goodput", "100.0"),
    (dict(reader_gpu="H100"), "split", "ttft_p99", "105.0"),
    (dict(local_below=1500), "shared", "goodput", "13.5"),
    (dict(local_below=1500), "split", "goodput", "78.8"),
    (dict(local_below=1500), "split", "gap_p99", "59.4"),
    (dict(layerwise=1, link=0.5), "shared", "goodput", "13.5"),
    (dict(layerwise=1, link=0.5), "split", "goodput", "36.8"),
    (dict(layerwise=1, link=0.5), "split", "ttft_p99", "1087.4"),
    (dict(link_sharing="queued", link=5.0), "shared", "goodput", "13.5"),
    (dict(link_sharing="queued", link=5.0), "split", "goodput", "98.3"),
    (dict(link_sharing="queued", link=5.0), "split", "ttft_p99", "664.5"),
    (dict(routing="least-loaded", rps=6.0), "shared", "goodput", "5.2"),
    (dict(routing="least-loaded", rps=6.0), "shared", "ttft_p99", "358.9"),
    (dict(routing="least-loaded", rps=6.0), "split", "goodput", "94.7"),
    (dict(slots=8), "shared", "goodput", "13.5"),
    (dict(slots=8), "shared", "ttft_p99", "364.6"),
    (dict(slots=8), "split", "goodput", "63.0"),
]


@pytest.mark.parametrize("settings, layout, metric, shown", EXPLORER,
                         ids=lambda x: " ".join(f"{k}={v}" for k, v in x.items())
                         if isinstance(x, dict) else str(x))
def test_explorer_figure(compare, settings, layout, metric, shown):
    got = compare(**settings)
    assert set(got) == ({"shared", "split", "chunked"} if settings.get("chunk") else
                        {"shared", "split"})
    value = got[layout][metric]
    assert (pct(value) if metric == "goodput" else ms(value)) == shown


def test_rate_goodput_at_the_defaults(rate_and_ratio):
    got = rate_and_ratio[0]()
    assert set(got) == {"shared", "split"}
    assert f"{got['shared']:.3f}" == "0.209"
    assert f"{got['split']:.2f}" == "3.33"


def test_best_ratio_row(rate_and_ratio):
    rows = rate_and_ratio[1](gpus=8, rps=16.0)
    assert [row["readers"] for row in rows] == [1, 2, 3, 4, 5, 6, 7]
    assert [pct(row["goodput"]) for row in rows] == [
        "1.5", "96.7", "100.0", "100.0", "100.0", "100.0", "95.7"]
    assert all(row["rate"] > 0 for row in rows)


def test_worked_example_of_chunked_reading():
    """One A100, chunk=512: a 1,000-token prompt with a 3-word reply at 0, a 100-token prompt
    with a 2-word reply at 30 ms."""
    gpu = oracle.ChunkedGpu("A100", slots=32, chunk=512)
    gpu.give(oracle.Job(0, 0.0, 1000, 3, read=True))
    gpu.give(oracle.Job(1, 0.030, 100, 2, read=True))
    gpu.walk()
    first, second = gpu.words[0], gpu.words[1]
    assert f"{512 * oracle.READ_COST * 1e3:.3f}" == "26.356"  # step 1, before the 2nd arrives
    assert f"{488 * oracle.READ_COST * 1e3:.3f}" == "25.120"  # step 2
    assert f"{first.first * 1e3:.3f}" == "51.476"
    assert f"{second.first * 1e3:.3f}" == "59.353"
    assert [f"{g * 1e3:.3f}" for g in first.gaps] == ["7.877", "7.877"]  # step 3 = writing step
    assert f"{first.last * 1e3:.3f}" == f"{second.last * 1e3:.3f}" == "67.229"
    assert len(second.gaps) == 1


def test_worked_example_in_the_engine():
    """The same example through the engine's chunked GPU."""
    gpu = ChunkedGpu(CHIPS["A100"], slots=32, chunk=512)
    gpu.take(0.0, 3, 1000)
    gpu.take(0.030, 2, 100)
    served = gpu.served()
    assert [f"{t * 1e3:.3f}" for t in served.first] == ["51.476", "59.353"]
    assert [f"{t * 1e3:.3f}" for t in gpu.finished] == ["67.229", "67.229"]
    assert served.last_step == [4, 4] and served.gaps == 3
    assert [f"{g * 1e3:.3f}" for g in served.max_gap] == ["7.877", "7.877"]


# The traffic table (traffic.md): 600 requests, seed 7, other settings at their defaults.
CODE_CHUNKED = dict(traffic="azure-code", gpus=4, readers=2, chunk=512, rps=6.0)
TRAFFIC = [
    (dict(traffic="azure-chat"), "shared", "goodput", "70.7"),
    (dict(traffic="azure-chat"), "shared", "gap_p99", "58.3"),
    (dict(traffic="azure-chat"), "split", "goodput", "100.0"),
    (dict(traffic="azure-chat"), "split", "ttft_p99", "269.8"),
    (dict(traffic="azure-code"), "shared", "goodput", "9.3"),
    (dict(traffic="azure-code"), "shared", "ttft_p99", "8671.9"),
    (dict(traffic="azure-code"), "split", "goodput", "9.5"),
    (dict(traffic="azure-code"), "split", "gap_p99", "13.1"),
    (dict(traffic="azure-code", arrivals="poisson"), "shared", "goodput", "82.7"),
    (dict(traffic="azure-code", arrivals="poisson"), "split", "goodput", "88.3"),
    (dict(traffic="azure-code", arrivals="poisson"), "split", "ttft_p99", "1004.1"),
    (CODE_CHUNKED, "shared", "goodput", "20.7"),
    (CODE_CHUNKED, "split", "goodput", "16.7"),
    (CODE_CHUNKED, "chunked", "goodput", "52.8"),
    (CODE_CHUNKED, "chunked", "gap_p99", "26.9"),
]


@pytest.mark.parametrize("settings, layout, metric, shown", TRAFFIC,
                         ids=lambda x: " ".join(f"{k}={v}" for k, v in x.items())
                         if isinstance(x, dict) else str(x))
def test_traffic_figure(compare, settings, layout, metric, shown):
    value = compare(**settings)[layout][metric]
    assert (pct(value) if metric == "goodput" else ms(value)) == shown


def test_rate_goodput_of_azure_chat(rate_and_ratio):
    got = rate_and_ratio[0](traffic="azure-chat")
    assert (f"{got['shared']:.3f}", f"{got['split']:.2f}") == ("0.739", "4.99")


AZURE_CHAT_RATIO = ["74.2", "100.0", "100.0", "100.0", "100.0", "100.0", "19.3"]


def test_best_ratio_of_azure_chat(compare):
    """The table gives the split's goodput at each ratio (the oracle's rate bisections for
    all seven would take half a minute, and the table gives no rate)."""
    got = [pct(compare(traffic="azure-chat", gpus=8, rps=16.0, readers=r)["split"]["goodput"])
           for r in range(1, 8)]
    assert got == AZURE_CHAT_RATIO


def test_the_engine_s_best_ratio_of_azure_chat():
    rows = sim.ratio(traffic="azure-chat", gpus=8, rps=16.0)
    assert [pct(row["goodput"]) for row in rows] == AZURE_CHAT_RATIO
    assert all(row["rate"] > 0 for row in rows)


@pytest.mark.parametrize("settings, prompt, reply, burstiness", [
    (dict(traffic="azure-chat"), ("994", "4088"), ("217", "585"), "1.27"),
    (dict(traffic="azure-code"), ("1421", "7436"), ("13", "239"), "13.90"),
    (dict(traffic="azure-code", arrivals="poisson"), ("1421", "7436"), ("13", "239"), "1.02"),
])
def test_traffic_summary(traffic, settings, prompt, reply, burstiness):
    got = traffic(**settings)
    assert (str(got["prompt_p50"]), str(got["prompt_p99"])) == prompt
    assert (str(got["reply_p50"]), str(got["reply_p99"])) == reply
    assert f"{got['gap_cv']:.2f}" == burstiness


# Watch it run (watch.md): the events of a window, at the defaults.
WATCH = {"engine": sim.watch, "oracle": oracle.watch}


@pytest.fixture(params=WATCH)
def watch(request):
    return WATCH[request.param]


def seconds(t):
    return f"{t:.5f}"


def test_watch_shared_figure(watch):
    events = watch("shared", 22.4, 22.8)
    reads = [e for e in events if e["kind"] == "read"]
    assert (len(events), len(reads)) == (85, 1)
    read = reads[0]
    assert (read["lane"], read["index"], read["request"], f"{read['tokens']:,}") == ("gpu", 1, 79, "3,000")
    assert (seconds(read["start"]), seconds(read["end"])) == ("22.51238", "22.66681")


def test_watch_split_figure(watch):
    events = watch("split", 22.4, 22.8)
    reads = [e for e in events if e["kind"] == "read"]
    assert (len(events), len(reads)) == (54, 1)
    read = reads[0]
    assert (read["lane"], read["index"], read["request"]) == ("reader", 0, 79)
    assert (seconds(read["start"]), seconds(read["end"])) == ("22.51196", "22.66638")
    crossing = [e for e in events if e["kind"] == "cross" and e["request"] == 79]
    assert [(seconds(e["start"]), seconds(e["end"])) for e in crossing] == [("22.66638", "22.68211")]
