"""Every named state tells the truth: a label that states a result (a best ratio, a lull then
bursts) is the result the simulator finds for the state's own settings, worked out from the
same runs as the figure that shows it; a state whose label the runs contradict is refused."""

import re
import subprocess
import sys

import pytest

import sim
from sim.show import states
from sim.show.figures import FIGURES
from sim.show.ratio import best
from sim.show.states import BEST, EXPLORER_STATES, HOLDS, STATES, TRAFFIC_STATES, found, named

from conftest import ROOT

# Words with which a label claims a result of the runs: such a label must be worked out.
CLAIMS = re.compile(r"\b(best|wins?|ties?|falls?|most|lull|bursts?|doubles?)\b", re.I)
WRITTEN = STATES + EXPLORER_STATES + TRAFFIC_STATES


def test_every_label_that_claims_a_result_has_it_worked_out():
    for name, label, changes in WRITTEN:
        if CLAIMS.search(label):
            assert changes.get("readers") == BEST or name in HOLDS, (name, label)
        if changes.get("readers") == BEST:  # and the label says the result found
            assert re.search(r"\{(ratio|readers|writers)\}", label), (name, label)


@pytest.mark.parametrize("name", [n for n, _, c in WRITTEN if c.get("readers") == BEST])
def test_a_best_ratio_state_is_set_to_the_ratio_its_figure_rings(name):
    group, _, label, changes = next(state for state in found() if state[1] == name)
    s = sim.Settings().but(**changes)
    lab = sim.Lab()
    figure = FIGURES["traces_ratio" if s.traffic != "lesson" else "ratio"].render(lab, s)
    assert figure["figure"]["layout"]["meta"]["best"][0] == s.readers  # the ring: this ratio
    ratio = f"{s.readers}:{s.gpus - s.readers}"
    first = "traces.chat_best" if s.traffic != "lesson" else "ratio.these_best"
    assert figure["shown"][first] == ratio
    assert ratio in label or f"{s.readers} readers to {s.gpus - s.readers} writer" in label
    # the API and the command line find it too
    assert best(sim.ratio(**s.as_dict()))["readers"] == s.readers
    flags = [f"--{key.replace('_', '-')}={value}" for key, value in changes.items() if key != "readers"]
    done = subprocess.run([sys.executable, "-m", "sim", "ratio", *flags], cwd=ROOT,
                          capture_output=True, text=True)
    row = next(line for line in done.stdout.splitlines() if line.startswith(f"{ratio} "))
    assert "best" in row, done.stdout


def test_the_issue_s_three_labels_now_say_what_the_figures_find():
    labels = {name: label for _, name, label, _ in found()}
    assert labels["chat"] == "Chat at 12 req/s: the best ratio, 4 readers to 3 writers"
    assert labels["summarizing"].endswith("the best ratio 7:1")
    assert labels["azure-chat-8"] == "Azure chat on 8 GPUs: the best ratio, 3:5"


def test_a_trace_s_description_holds_for_its_window_and_can_fail():
    lab = sim.Lab()
    code = sim.Settings(traffic="azure-code")
    assert states.lull_then_bursts(lab, code)
    assert not states.lull_then_bursts(lab, code.but(arrivals="poisson"))
    assert not states.lull_then_bursts(lab, sim.Settings(traffic="azure-chat"))
    assert states.without_bursts(lab, code.but(arrivals="poisson"))
    assert not states.without_bursts(lab, code)


def test_the_build_refuses_a_state_its_runs_contradict(monkeypatch):
    wrong = (("azure-code", "Azure code: a lull, then bursts",
              {"traffic": "azure-code", "arrivals": "poisson"}),)
    monkeypatch.setattr(states, "TRAFFIC_STATES", wrong)
    with pytest.raises(ValueError, match="does not hold for its window"):
        named(sim.Lab())


def test_a_state_without_a_claim_is_as_written():
    for (_, name, label, changes), (name2, label2, changes2) in zip(found(), WRITTEN):
        assert name == name2
        if changes2.get("readers") != BEST:
            assert (label, changes) == (label2, changes2)


@pytest.mark.parametrize("group, name, label, changes", found(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_state_s_button_can_set_every_setting_it_names(group, name, label, changes):
    """The page takes each value from its URL and its controls only within their page limits,
    on a slider's stops: a state outside them would show settings other than its label's
    (figure 11's 1,024 slots once became the slider's 128)."""
    from sim.settings import FIELDS
    for key, value in changes.items():
        meta = FIELDS[key].metadata
        if meta["choices"]:
            assert value in meta["choices"], (key, value)
            continue
        lo, hi = meta["page"]
        assert lo <= value <= hi, (key, value, meta["page"])
        if meta["slider"]:
            assert value in meta["slider"], (key, value)
        if meta["only"]:
            assert value in meta["only"], (key, value)
