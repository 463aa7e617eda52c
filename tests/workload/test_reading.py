"""Reading trace files (traffic.md, "Trace files"): every accepted form, as the tools that
write them write them, with the quirks the spec allows; the shipped traces and their NOTICE."""

import gzip
import hashlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

import sim
from sim.workload import azure
from sim.workload.tracefile import read_text
from sim.workload.window import Window

DATA = ROOT / "sim" / "workload" / "data"
SHARED = ROOT.parent / "shared" / "data"  # the spec's copies, where this checkout has them


def rows(trace):
    return list(zip(trace.lines, trace.prompts, trace.replies))


@pytest.mark.parametrize("name, file, requests", [
    ("azure-chat", "AzureLLMInferenceTrace_conv_2023.csv.gz", 19_366),
    ("azure-code", "AzureLLMInferenceTrace_code_2023.csv.gz", 8_819),
])
def test_the_shipped_traces_are_azure_s_files_with_their_notice(name, file, requests):
    unpacked = gzip.decompress((DATA / file).read_bytes())
    notice = (DATA / "README.md").read_text()
    digest = hashlib.sha256(unpacked).hexdigest()
    assert re.search(rf"`{re.escape(file)}` \| `{name}` \| {requests:,} \| .* \| `{digest}` \|", notice)
    assert "Azure LLM inference trace 2023, Microsoft Azure, CC-BY 4.0" in notice
    assert "Splitwise" in notice and "ISCA 2024" in notice
    original = SHARED / file.removesuffix(".gz")
    if original.is_file():
        assert original.read_bytes() == unpacked
    trace = azure.trace(name)
    assert (trace.usable, trace.left_out, trace.whole, trace.clock) == (requests, 0, True, "date-time")
    assert trace.lines[0] == 2 and trace.lines[-1] == requests + 1  # below the header


def test_the_shipped_traces_are_parsed_once_and_only_when_used():
    code = ("import sim\nfrom sim.workload import azure\n"
            "print(azure.packed.cache_info().currsize, azure.trace.cache_info().currsize)\n"
            "sim.compare(traffic='azure-code'); sim.compare(traffic='azure-code', rps=2)\n"
            "sim.traffic(traffic='azure-code', trace_start=5)\n"
            "info = azure.trace.cache_info()\nprint(info.misses, info.hits > 0, "
            "azure.trace.cache_info().currsize)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "0", "1", "True", "1"]


AZURE = ("TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
         "2023-11-16 18:15:46.6805900,374,44\r\n"
         "2023-11-16 18:15:50.9951690,396,109\r\n"
         "2023-11-16 18:15:51.2224670,879,55")  # CRLF, no line end after the last row
VIDUR = ("arrived_at,num_prefill_tokens,num_decode_tokens\n"
         "0.0,1204,301\n0.4376,3201,37\n1.25,77,5\n")
BURSTGPT = ("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
            "5,ChatGPT,472,18,490,Conversation log\n"
            "45,ChatGPT,1087,0,1087,Conversation log\n"  # a failed request
            "118,GPT-4,417,276,693,API log\n")
MOONCAKE = ('{"timestamp": 0, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47]}\n'
            '{"timestamp": 27482, "input_length": 6472, "output_length": 26, "hash_ids": [46]}\n'
            '\n{"timestamp": 30535, "input_length": 0, "output_length": 5}\n'
            '{"timestamp": 30535, "input_length": 8, "output_length": 5}\n')
PLAIN = "arrival_s,prompt_tokens,reply_tokens\n0,2000,200\n0.25,1000,100\n0.25,3000,300\n"


@pytest.mark.parametrize("text, clock, want, left_out, taus", [
    (AZURE, "date-time", [(2, 374, 44), (3, 396, 109), (4, 879, 55)], 0,
     [0.0, 4.314579, 4.541877]),
    (VIDUR, "seconds", [(2, 1204, 301), (3, 3201, 37), (4, 77, 5)], 0, [0.0, 0.4376, 1.25]),
    (BURSTGPT, "seconds", [(2, 472, 18), (4, 417, 276)], 1, [0.0, 113.0]),
    (MOONCAKE, "milliseconds", [(1, 6955, 52), (2, 6472, 26), (5, 8, 5)], 1,
     [0.0, 27.482, 30.535]),
    (PLAIN, "seconds", [(2, 2000, 200), (3, 1000, 100), (4, 3000, 300)], 0, [0.0, 0.25, 0.25]),
])
def test_each_tool_s_file_reads_as_it_is(text, clock, want, left_out, taus):
    trace = sim.read_trace(text)
    assert trace.clock == clock and rows(trace) == want and trace.left_out == left_out
    assert Window(trace, 0, len(want)).taus == taus


def test_date_times_are_exact_nanoseconds():
    trace = read_text("timestamp,prompt_tokens,reply_tokens\n"
                      "2023-11-16T23:59:59.999999999,1,1\n2023-11-17 00:00:00,1,1\n"
                      "2024-02-29 00:00:00.5,1,1\n2024-03-01 00:00:00.000000001,1,1\n")
    ns = trace.times
    assert [b - a for a, b in zip(ns, ns[1:])] == [1, 104 * 86_400 * 10**9 + 5 * 10**8,
                                                   86_400 * 10**9 - 5 * 10**8 + 1]
    assert Window(trace, 0, 4).taus[1] == 1e-9  # one true division of whole numbers


QUIRKS = ("\ufeff"  # a BOM
          "  Arrival_S , PROMPT_TOKENS,note,reply_tokens,prompt_tokens\r\n"  # trimmed, any case
          "\r\n   \n"  # blank lines, and one of spaces
          '"0.5"," 12 ","a ""quoted"" note, with a comma",7,99\r\n'  # the leftmost column wins
          '1.5,4,"a note over\r\ntwo lines",3,99\n'  # a quoted field holds a line break
          "1.5,0,x,9,99\n"  # 0 prompt tokens: a failed request, left out
          "1.5,5,,0,99\n"  # 0 reply tokens: left out too
          "2,6,,1,99")


def test_the_quirks_the_spec_allows():
    trace = read_text(QUIRKS)
    assert rows(trace) == [(4, 12, 7), (5, 4, 3), (9, 6, 1)]  # a record by the line it starts on
    assert trace.left_out == 2 and trace.usable == 3 and trace.times == [0.5, 1.5, 2.0]


def test_every_way_of_giving_a_trace_reads_the_same(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_bytes(QUIRKS.encode())
    want = rows(read_text(QUIRKS))
    for source in (QUIRKS, QUIRKS.encode(), path, str(path), io.BytesIO(QUIRKS.encode()),
                   read_text(QUIRKS)):
        assert rows(sim.read_trace(source)) == want
    assert sim.read_trace(path).name == str(path)
    assert sim.read_trace(QUIRKS).name == "the trace"
    # one JSON line is a text, not a path, though it has no line break
    assert rows(sim.read_trace('{"timestamp": 3, "input_length": 4, "output_length": 5}')) == [(1, 4, 5)]


def test_a_window_keeps_only_its_requests_and_stops_reading():
    text = PLAIN + "".join(f"{1 + k},{10 + k},{20 + k}\n" for k in range(100)) + "this,is,not read\n"
    trace = read_text(text, keep=(10, 20))
    assert (trace.first, len(trace), trace.usable, trace.whole) == (10, 10, 20, False)
    assert trace.prompts == [10 + k for k in range(7, 17)]
    whole = read_text(text[:text.index("this")])
    assert whole.prompts[10:20] == trace.prompts and whole.whole
    assert Window(trace, 10, 10).taus == Window(whole, 10, 10).taus


def test_a_trace_s_identity_is_its_rows():
    a, b = read_text(PLAIN), read_text(PLAIN.replace("\n", "\r\n"))
    assert a is not b and a.digest == b.digest
    assert read_text(PLAIN.replace("3000,300", "3000,301")).digest != a.digest


def test_the_attribution_is_in_the_readme_and_the_package():
    readme = (ROOT / "README.md").read_text()
    assert azure.ATTRIBUTION in readme and "Splitwise" in readme
    assert Path(azure.__file__).with_name("data").joinpath("README.md").is_file()
