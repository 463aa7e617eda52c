"""Words that stay true at the edges a learner reaches (issue 46, tried again as a learner):
a caption under a trace speaks of the trace's prompts, not the slider's it ignores; a ratio
with a zero in it is not shown as "0x"; and where no mix serves any request, none is named
the one that serves most; a p99 gap within its target says what it hides."""

import sim
from sim.show import chips, curves, ratio
from sim.show.numbers import TAGGED


def plain(text):
    return TAGGED.sub(r"\2", text)


def test_a_trace_s_captions_give_its_own_prompts():
    lab = sim.Lab()
    s = sim.Settings(traffic="azure-chat")
    median = lab.traffic(s)["prompt_p50"]
    assert median != s.prompt
    caption = plain(curves.goodput_by_rps(lab, s)[1])
    assert f"the trace's prompts (median {median:,.0f} tokens)" in caption
    assert f"{s.prompt:,}-token" not in caption
    lesson = plain(curves.goodput_by_rps(lab, sim.Settings())[1])
    assert "at 2,000-token prompts and a 25 GB/s link" in lesson


def test_a_rate_goodput_of_zero_is_said_in_words_not_as_a_ratio():
    """At a 0.5 GB/s link, layer by layer, the split keeps 90% good at no load."""
    lab = sim.Lab()
    s = sim.Settings(link=0.5, layerwise=1)
    rates = lab.rate(s)
    assert rates["split"] == 0 < rates["shared"]
    text = plain(ratio.rate_goodput(lab, s)[1])
    assert "0x" not in text and "The split cannot keep that share good at any load." in text


def test_no_mix_is_most_where_none_serves_any():
    lab = sim.Lab()
    s = sim.Settings(link=0.5, layerwise=1, gpus=8, readers=3)
    _, caption = chips.chip_mix(lab, s)
    text = plain(caption)
    said = text.split("Most per dollar: ", 1)[1].split(". ", 1)[0]
    assert "split, none of the mixes (0 each)" in said and "shared with " in said
    for name in ("shared", "split"):
        part = [p for p in said.split("; ") if p.startswith(name)][0]
        zero = part.endswith("(0 each)")
        assert zero == ("none of the mixes" in part), part


def test_a_p99_within_the_target_says_what_it_hides():
    """Azure chat: the shared layout's p99 gap stays within 100 ms at every load, yet 29.3% of
    its requests fail on a gap; the caption says both, and why. The lesson's caption is as it
    was (its p99 passes the target)."""
    lab = sim.Lab()
    s = sim.Settings(traffic="azure-chat")
    shared = lab.compare(s)["shared"]
    caption = plain(curves.gap_by_rps(lab, s)[1])
    assert shared["gap_p99"] < s.gap_target and shared["missed_gap_only"] > 0.2
    assert "stays within the 100.0 ms target, yet at 4 req/s 29.3% of its requests had a gap over it" in caption
    lesson = plain(curves.gap_by_rps(lab, sim.Settings())[1])
    assert lesson.startswith("The shared layout's p99 gap passes the 100.0 ms target at 4 req/s (110.8 ms);")
    assert "had a gap over it" not in lesson
