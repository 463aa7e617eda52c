"""The page's side of price and power (issue 19, chips-and-rules.md "On the page"): good requests
per dollar and per kWh in words beside the rate goodput, the price fields' placeholders, and the
three named states, each showing its point."""

import json
import re

import pytest

import build
import sim
from sim.model.economics import EXAMPLE_PRICE
from sim.show.chips import MIXES
from sim.show.economics import example_prices
from sim.show.figures import FIGURES
from sim.show.page import Page
from sim.show.states import group

WORDS = FIGURES["economics"]
EXPLORER_STATES = group("explorer")
STATES = {name: changes for name, _, changes in EXPLORER_STATES}


def test_the_economics_are_words_beside_the_rate_with_sim_economics_as_their_result():
    lab = sim.Lab()
    s = sim.Settings()
    out = WORDS.render(lab, s)
    assert out["figure"] is None and WORDS.number is None and WORDS.page is True
    assert out["result"] == sim.economics()
    e = sim.economics()
    assert out["shown"]["economics.shared_per_dollar"] == f"{e['shared']['per_dollar']:,.0f}"
    assert out["shown"]["economics.split_per_kwh"] == f"{e['split']['per_kwh']:,.0f}" == "29,927"
    assert out["caption"] == (
        "Good requests per dollar: shared 578, split 9,208. Per kWh: shared 1,879, split 29,927. "
        "Each layout at its rate goodput above, on the same 2 GPUs: 1 A100 reader at $1.30 an hour "
        "(the example price), uncapped (400 W); 1 A100 writer at $1.30 an hour (the example price), "
        "uncapped (400 W). They cost $2.60 an hour and draw 800 W (the power caps times the TDPs, "
        "while on: no idle power, nothing for the rest of the machine).")
    # every number of the words is a tagged one: none stands bare in the template
    assert not re.search(r"(^|[^a-z0-9{_.])\d", re.sub(r"\{[a-z_0-9.]+\}", "", out["template"]), re.I)


def test_they_say_which_prices_and_caps_they_used():
    out = WORDS.render(sim.Lab(), sim.Settings(gpus=8, readers=3, reader_gpu="H100", writer_price=1.1,
                                                writer_power=0.5, chunk=256))
    assert ("3 H100 readers at $3.00 an hour each (the example price), uncapped (700 W each); "
            "5 A100 writers at $1.10 an hour each (given), capped at 50.0% of its TDP (200 W each)") \
        in out["caption"]
    assert {"economics.chunked_per_dollar", "economics.chunked_per_kwh",
            "economics.writer_power"} <= set(out["shown"])
    assert "economics.reader_power" not in out["shown"]  # uncapped: no number to show


def test_a_price_alone_adds_no_run_and_the_rates_pieces_leave_only_cached_runs():
    lab = sim.Lab()
    s = sim.Settings(requests=200, gpus=3, readers=1)
    for piece in FIGURES["rate"].needs(lab, s):
        piece()
    before = lab.simulations
    for piece in WORDS.needs(lab, s):  # the rate's bisections are the economics'
        piece()
    assert lab.simulations == before
    for piece in FIGURES["chips"].needs(lab, s):
        piece()
    for name in ("goodput", "gap"):
        for piece in FIGURES[name].needs(lab, s):
            piece()
    before = lab.simulations
    priced = s.but(reader_price=7.25, writer_price=0.9)  # for the numbers, the charts, the mixes
    lab.compare(priced)
    for name in ("goodput", "gap", "economics", "chips"):
        for piece in FIGURES[name].needs(lab, priced):
            piece()
        FIGURES[name].render(lab, priced)
    assert lab.simulations == before


def test_the_price_fields_placeholders_are_the_example_prices_read_aloud():
    assert example_prices() == {"A100": "$1.30 for an A100", "H100": "$3.00 for an H100",
                                "H200": "$3.80 for an H200", "B200": "$5.50 for a B200"}
    assert set(example_prices()) == set(EXAMPLE_PRICE)


def test_the_page_asks_for_the_economics_in_pieces():
    page = Page()
    request = {"type": "figure", "name": "economics", "settings": {"requests": 100}, "part": 0}
    reply = json.loads(page.handle(json.dumps(request)))
    while "figure" not in reply:
        reply = json.loads(page.handle(json.dumps(dict(request, part=reply["next"]))))
    assert reply["figure"] is None
    assert reply["result"] == json.loads(json.dumps(sim.economics(requests=100)))
    assert "economics" in build.PAGE_FIGURES and "chips" in build.PAGE_FIGURES


# ---- the named states: each shows its point ----

def test_the_three_named_states_are_the_explorer_s():
    labels = {name: label for name, label, _ in EXPLORER_STATES}
    assert labels["splitwise-ha"] == "Splitwise-HA: H100s read, A100s write"
    assert labels["writers-capped"] == "Writers capped at 50%"
    assert labels["dynamo-queue"] == "Dynamo: read locally when the readers' queue passes 2"


def test_splitwise_ha_serves_most_per_dollar_of_figure_9_s_mixes_at_any_ratio():
    """At 3 readers to 5 writers, H100 readers and A100 writers serve more good requests per
    dollar than A100s alone, H100s alone or H100s with capped writers at their best ratios."""
    s = sim.Settings().but(**STATES["splitwise-ha"])
    assert (s.reader_gpu, s.writer_gpu, s.gpus, s.readers) == ("H100", "A100", 8, 3)
    ha = sim.economics(**s.as_dict())["split"]["per_dollar"]
    lab = sim.Lab()
    for _, _, _, mix in MIXES:
        if mix["reader_gpu"] == "H100" and mix["writer_gpu"] == "A100":
            continue
        best = max(lab.economics(s.but(readers=r, **mix))["split"]["per_dollar"] for r in range(1, 8))
        assert ha > best * 1.1, mix
    chips = FIGURES["chips"].render(lab, s)
    assert "Most per dollar: shared with H100s alone" in chips["caption"]
    assert "split with H100s reading for A100s (Splitwise-HA)" in chips["caption"]


def test_capped_writers_write_as_fast_on_a_quarter_less_power():
    s = sim.Settings().but(**STATES["writers-capped"])
    assert s.writer_power == 0.5 and s.as_dict() == sim.Settings(writer_power=0.5).as_dict()
    capped, lesson = sim.compare(**s.as_dict()), sim.compare()
    assert capped["split"] == lesson["split"]  # the split's numbers are the lesson's
    assert capped["shared"]["goodput"] < lesson["shared"]["goodput"]  # a shared GPU reads slower
    e, e0 = sim.economics(**s.as_dict())["split"], sim.economics()["split"]
    assert e["rate"] == e0["rate"] and e["watts"] == 600.0 and e0["watts"] == 800.0
    assert e["per_kwh"] == pytest.approx(e0["per_kwh"] * 4 / 3)


def test_reading_past_a_queue_of_more_than_two_doubles_the_split():
    s = sim.Settings().but(**STATES["dynamo-queue"])
    assert s.local_queue == 3  # "passes 2": at least 3 prompts waiting
    on, off = sim.compare(**s.as_dict())["split"], sim.compare(**s.but(local_queue=0).as_dict())["split"]
    assert on["goodput"] >= 2 * off["goodput"]
    assert on["ttft_p99"] < off["ttft_p99"] / 5
