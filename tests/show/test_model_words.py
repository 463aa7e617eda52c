"""The headline and the introduction say the model and its instances whenever a bigger
model's settings (model, tp, reader_tp, costs, memory) are off their defaults; at their
defaults every word, every field and every text is the lesson's, byte for byte (the goldens
below were written from the code before the model's words were added)."""

import json
import re

import pytest

import sim
from sim.show.page import Page, compare_message
from sim.show.report import headline, intro
from sim.show.numbers import fill

# Settings at the model's defaults -> (headline template, its texts, intro templates, its
# texts), as they were before the model's words.
GOLDEN = [
    ({}, "Within both targets, sharing the two GPUs serves {shared.goodput} of requests; "
         "splitting them serves {split.goodput}.", {},
     {"gpus": "Two GPUs serve a language model.",
      "split": "one GPU only reads, the other only writes"},
     {"intro.gpus": "2", "intro.readers": "1", "intro.writers": "1"}),
    ({"chunk": 512}, "Within both targets, sharing the {headline.gpus} GPUs serves "
                     "{shared.goodput} of requests; splitting them into {headline.readers} reader "
                     "and {headline.writers} writer serves {split.goodput}; sharing them, reading "
                     "prompts {headline.chunk} tokens a step, serves {chunked.goodput}.",
     {"headline.gpus": "2", "headline.readers": "1", "headline.writers": "1",
      "headline.chunk": "512"},
     {"gpus": "Two GPUs serve a language model.",
      "split": "one GPU only reads, the other only writes"},
     {"intro.gpus": "2", "intro.readers": "1", "intro.writers": "1"}),
    ({"requests": 12}, "Within both targets, sharing the two GPUs serves {shared.goodput} of "
                       "requests; splitting them serves {split.goodput} (only {headline.thin} "
                       "requests: too few to settle it, which takes about {headline.settles}).",
     {"headline.thin": "12", "headline.settles": "200"},
     {"gpus": "Two GPUs serve a language model.",
      "split": "one GPU only reads, the other only writes"},
     {"intro.gpus": "2", "intro.readers": "1", "intro.writers": "1"}),
    ({"gpus": 4}, "Within both targets, sharing the {headline.gpus} GPUs serves {shared.goodput} "
                  "of requests; splitting them into {headline.readers} reader and "
                  "{headline.writers} writers serves {split.goodput}.",
     {"headline.gpus": "4", "headline.readers": "1", "headline.writers": "3", "headline.chunk": "0"},
     {"gpus": "{intro.gpus} GPUs serve a language model.",
      "split": "one GPU only reads, the other {intro.writers} only write"},
     {"intro.gpus": "4", "intro.readers": "1", "intro.writers": "3"}),
    ({"gpus": 3, "readers": 2, "chunk": 512},
     "Within both targets, sharing the {headline.gpus} GPUs serves {shared.goodput} of requests; "
     "splitting them into {headline.readers} readers and {headline.writers} writer serves "
     "{split.goodput}; sharing them, reading prompts {headline.chunk} tokens a step, serves "
     "{chunked.goodput}.",
     {"headline.gpus": "3", "headline.readers": "2", "headline.writers": "1",
      "headline.chunk": "512"},
     {"gpus": "{intro.gpus} GPUs serve a language model.",
      "split": "{intro.readers} GPUs only read, the other one only writes"},
     {"intro.gpus": "3", "intro.readers": "2", "intro.writers": "1"}),
    ({"gpus": 4, "readers": 1, "requests": 50},
     "Within both targets, sharing the {headline.gpus} GPUs serves {shared.goodput} of requests; "
     "splitting them into {headline.readers} reader and {headline.writers} writers serves "
     "{split.goodput} (only {headline.thin} requests: too few to settle it, which takes about "
     "{headline.settles}).",
     {"headline.thin": "50", "headline.settles": "200", "headline.gpus": "4",
      "headline.readers": "1", "headline.writers": "3", "headline.chunk": "0"},
     {"gpus": "{intro.gpus} GPUs serve a language model.",
      "split": "one GPU only reads, the other {intro.writers} only write"},
     {"intro.gpus": "4", "intro.readers": "1", "intro.writers": "3"}),
    ({"gpus": 8, "readers": 4, "reader_gpu": "H100"},
     "Within both targets, sharing the {headline.gpus} GPUs serves {shared.goodput} of requests; "
     "splitting them into {headline.readers} readers and {headline.writers} writers serves "
     "{split.goodput}.",
     {"headline.gpus": "8", "headline.readers": "4", "headline.writers": "4", "headline.chunk": "0"},
     {"gpus": "{intro.gpus} GPUs serve a language model.",
      "split": "{intro.readers} GPUs only read, the other {intro.writers} only write"},
     {"intro.gpus": "8", "intro.readers": "4", "intro.writers": "4"}),
    ({"gpus": 5, "readers": 2, "writer_gpu": "B200", "writer_power": 0.5, "chunk": 256},
     "Within both targets, sharing the {headline.gpus} GPUs serves {shared.goodput} of requests; "
     "splitting them into {headline.readers} readers and {headline.writers} writers serves "
     "{split.goodput}; sharing them, reading prompts {headline.chunk} tokens a step, serves "
     "{chunked.goodput}.",
     {"headline.gpus": "5", "headline.readers": "2", "headline.writers": "3",
      "headline.chunk": "256"},
     {"gpus": "{intro.gpus} GPUs serve a language model.",
      "split": "{intro.readers} GPUs only read, the other {intro.writers} only write"},
     {"intro.gpus": "5", "intro.readers": "2", "intro.writers": "3"}),
]


def name(settings):
    return " ".join(f"{k}={v}" for k, v in settings.items()) or "lesson"


@pytest.mark.parametrize("settings, template, texts, sentences, intro_texts", GOLDEN,
                         ids=[name(g[0]) for g in GOLDEN])
def test_at_the_models_defaults_every_word_is_as_before(settings, template, texts, sentences,
                                                        intro_texts):
    s = sim.Settings(**settings)
    lab = sim.Lab()
    for said in (headline(s), headline(s, lab.compare(s))):  # the result changes nothing here
        assert said[0] == template
        assert list(said[1].items()) == list(texts.items())  # the same keys, in the same order
    got, got_texts = intro(s)
    assert got == sentences and list(got_texts.items()) == list(intro_texts.items())


def test_the_pages_message_at_the_lessons_defaults_is_as_before():
    message = compare_message(sim.Lab(), sim.Settings(gpus=4, chunk=256, requests=100))
    assert message["headline"] == (
        "Within both targets, sharing the {headline.gpus} GPUs serves {shared.goodput} of "
        "requests; splitting them into {headline.readers} reader and {headline.writers} writers "
        "serves {split.goodput}; sharing them, reading prompts {headline.chunk} tokens a step, "
        "serves {chunked.goodput} (only {headline.thin} requests: too few to settle it, which "
        "takes about {headline.settles}).")
    words = {k: v for k, v in message["shown"].items() if k.split(".")[0] in ("headline", "intro")}
    assert list(words.items()) == [
        ("headline.thin", "100"), ("headline.settles", "200"), ("headline.gpus", "4"),
        ("headline.readers", "1"), ("headline.writers", "3"), ("headline.chunk", "256"),
        ("intro.gpus", "4"), ("intro.readers", "1"), ("intro.writers", "3")]


FIELD = re.compile(r"\{([^{}]*)\}")
KEY = re.compile(r"[a-z_0-9]+\.[a-z_0-9]+")  # as the page's showTemplate finds them


def ask(page, settings):
    reply = json.loads(page.handle(json.dumps({"type": "compare", "settings": settings})))
    assert "error" not in reply, reply
    return reply


def said(reply):
    """The headline and the introduction's two sentences as the page shows them; and every
    field of their templates has its text, named as the page marks it."""
    templates = [reply["headline"], reply["intro"]["gpus"], reply["intro"]["split"]]
    for template in templates:
        for key in FIELD.findall(template):
            assert KEY.fullmatch(key) and key in reply["shown"], (key, template)
    return [fill(template, reply["shown"]) for template in templates]


# (settings, the headline filled in, the introduction's two sentences filled in); few requests,
# so that the runs are quick: the headline says so.
FEW = " (only 60 requests: too few to settle it, which takes about 200)"
SAID = [
    ({"model": "70B", "tp": 2, "gpus": 4, "readers": 2, "memory": "kv"},
     "With 70B on 2 A100s per instance, within both targets, sharing the 4 GPUs (2 instances) "
     "serves {shared} of requests; splitting them into 2 readers (1 instance) and 2 writers "
     "(1 instance) serves {split}" + FEW + ". KV memory limits each instance.",
     "4 GPUs serve a language model (70B, on 2 A100s per instance; KV memory limits each "
     "instance).", "2 GPUs (1 instance) only read, the other 2 (1 instance) only write"),
    ({"model": "405B", "tp": 8, "gpus": 16, "readers": 8, "reader_gpu": "H200",
      "writer_gpu": "H200"},
     "With 405B on 8 H200s per instance, within both targets, sharing the 16 GPUs (2 instances) "
     "serves {shared} of requests; splitting them into 8 readers (1 instance) and 8 writers "
     "(1 instance) serves {split}" + FEW + ".",
     "16 GPUs serve a language model (405B, on 8 H200s per instance).",
     "8 GPUs (1 instance) only read, the other 8 (1 instance) only write"),
    ({"model": "70B", "tp": 4, "reader_tp": 2, "gpus": 8, "readers": 4},
     "With 70B on A100s, within both targets, sharing the 8 GPUs (2 instances of 4) serves "
     "{shared} of requests; splitting them into 4 readers (2 instances of 2) and 4 writers "
     "(1 instance of 4) serves {split}" + FEW + ".",
     "8 GPUs serve a language model (70B, on A100s).",
     "4 GPUs (2 instances of 2) only read, the other 4 (1 instance of 4) only write"),
    ({"model": "70B", "tp": 2, "reader_tp": 4, "gpus": 8, "readers": 4, "reader_gpu": "H100",
      "costs": "roofline"},
     "With 70B (readers on H100s, writers on A100s) and roofline costs, within both targets, "
     "sharing the 8 GPUs (4 instances of 2) serves {shared} of requests; splitting them into 4 "
     "readers (1 instance of 4) and 4 writers (2 instances of 2) serves {split}" + FEW + ".",
     "8 GPUs serve a language model (70B, readers on H100s, writers on A100s, with roofline "
     "costs).", "4 GPUs (1 instance of 4) only read, the other 4 (2 instances of 2) only write"),
    ({"model": "70B", "tp": 2, "gpus": 4, "readers": 2, "reader_gpu": "H100"},
     "With 70B on 2 GPUs per instance (readers on H100s, writers on A100s), within both "
     "targets, sharing the 4 GPUs (2 instances) serves {shared} of requests; splitting them "
     "into 2 readers (1 instance) and 2 writers (1 instance) serves {split}" + FEW + ".",
     "4 GPUs serve a language model (70B, on 2 GPUs per instance, readers on H100s, writers on "
     "A100s).", "2 GPUs (1 instance) only read, the other 2 (1 instance) only write"),
    # each of the five settings alone, at the lesson's two GPUs: the lesson's sentence, led by
    # the model and its GPUs
    ({"costs": "roofline"},
     "With 8B on 1 A100 per instance and roofline costs, within both targets, sharing the two "
     "GPUs serves {shared} of requests; splitting them serves {split}" + FEW + ".",
     "Two GPUs serve a language model (8B, on 1 A100 per instance, with roofline costs).",
     "one GPU only reads, the other only writes"),
    ({"memory": "kv"},
     "With 8B on 1 A100 per instance, within both targets, sharing the two GPUs serves {shared} "
     "of requests; splitting them serves {split}" + FEW + ". KV memory limits each instance.",
     "Two GPUs serve a language model (8B, on 1 A100 per instance; KV memory limits each "
     "instance).", "one GPU only reads, the other only writes"),
    ({"reader_tp": 1},
     "With 8B on 1 A100 per instance, within both targets, sharing the two GPUs serves {shared} "
     "of requests; splitting them serves {split}" + FEW + ".",
     "Two GPUs serve a language model (8B, on 1 A100 per instance).",
     "one GPU only reads, the other only writes"),
    ({"model": "70B", "reader_gpu": "B200", "writer_gpu": "B200"},
     "With 70B on 1 B200 per instance, within both targets, sharing the two GPUs serves {shared} "
     "of requests; splitting them serves {split}" + FEW + ".",
     "Two GPUs serve a language model (70B, on 1 B200 per instance).",
     "one GPU only reads, the other only writes"),
    ({"tp": 2, "gpus": 6, "readers": 2, "chunk": 512},
     "With 8B on 2 A100s per instance, within both targets, sharing the 6 GPUs (3 instances) "
     "serves {shared} of requests; splitting them into 2 readers (1 instance) and 4 writers "
     "(2 instances) serves {split}; sharing them, reading prompts 512 tokens a step, serves "
     "{chunked}" + FEW + ".",
     "6 GPUs serve a language model (8B, on 2 A100s per instance).",
     "2 GPUs (1 instance) only read, the other 4 (2 instances) only write"),
]


@pytest.mark.parametrize("settings, said_headline, said_gpus, said_split", SAID,
                         ids=[name(s[0]) for s in SAID])
def test_off_the_defaults_the_text_says_the_model_and_its_instances(settings, said_headline,
                                                                    said_gpus, said_split):
    reply = ask(Page(), {**settings, "requests": 60})
    goodputs = {layout: reply["shown"][f"{layout}.goodput"]
                for layout in ("shared", "split", "chunked") if layout in reply["result"]}
    assert said(reply) == [said_headline.format(**goodputs), said_gpus, said_split]
    # the model and the GPUs per instance are marked numbers of their own
    assert reply["shown"]["headline.model"] == reply["shown"]["intro.model"] == settings.get("model", "8B")
    assert reply["shown"]["headline.tp"] == str(settings.get("tp", 1))


def test_requests_that_never_fit_are_counted():
    settings = {"memory": "kv", "prompt": 30000, "reply": 500, "model": "70B", "tp": 2,
                "gpus": 4, "readers": 2, "rps": 0.2, "ttft_target": 10, "requests": 100}
    reply = ask(Page(), settings)
    dropped = reply["result"]["shared"]["dropped"]
    assert dropped == reply["result"]["split"]["dropped"] > 1
    headline_said = said(reply)[0]
    assert headline_said.endswith(f"KV memory limits each instance: {dropped:,} requests never "
                                  "fit and were dropped.")
    assert reply["shown"]["headline.dropped"] == f"{dropped:,}"
    # without the result (the command line's way) it says only that memory limits
    template, _ = headline(sim.Settings(**settings))
    assert template.endswith("). KV memory limits each instance.")


def test_where_the_layouts_drop_different_requests_each_says_its_own():
    # the readers (2 A100s) hold 41,233 tokens, the others (4 A100s) 513,092: the split drops
    # the longest prompts (45,000 tokens), the shared and chunked layouts none
    settings = {"memory": "kv", "prompt": 30000, "reply": 500, "model": "70B", "tp": 4,
                "reader_tp": 2, "gpus": 8, "readers": 4, "rps": 0.2, "requests": 60, "chunk": 2048}
    reply = ask(Page(), settings)
    result = reply["result"]
    assert result["shared"]["dropped"] == result["chunked"]["dropped"] == 0 < result["split"]["dropped"]
    assert reply["headline"].endswith(
        "KV memory limits each instance: requests that never fit were dropped (shared "
        "{shared.dropped}, split {split.dropped}, chunked {chunked.dropped}).")
    assert said(reply)[0].endswith(f"(shared 0, split {result['split']['dropped']:,}, chunked 0).")


def test_one_request_that_never_fit_reads_in_the_singular():
    s = sim.Settings(memory="kv", model="70B", tp=2, gpus=4, readers=2)
    result = {"settings": {}, "shared": {"dropped": 1}, "split": {"dropped": 1}}
    template, texts = headline(s, result)
    assert template.endswith(": {headline.dropped} request never fit and was dropped.")
    assert texts["headline.dropped"] == "1"
