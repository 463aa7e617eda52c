"""The engine's word-by-word record (for figure 1) matches the oracle's clock, word for word."""

import pytest

import oracle
import sim
from sim.show import timeline
from sim.model.link import hand_over
from sim.workload.draws import Draws, Workload


def oracle_word_times(jobs, read):
    """The oracle's loop again, keeping every word's time."""
    clock, slots, out, nxt = 0.0, [], {}, 0
    while nxt < len(jobs) or slots:
        if not slots and nxt < len(jobs) and jobs[nxt][0] > clock:
            clock = jobs[nxt][0]
        if nxt < len(jobs) and jobs[nxt][0] <= clock and len(slots) < oracle.SLOTS:
            a, p, r, i = jobs[nxt]
            nxt += 1
            if read:
                clock += p * oracle.READ_COST
            out[i] = [clock if read else a]
            if r > 1:
                slots.append([i, r - 1])
            continue
        clock += oracle.STEP
        for s in slots:
            out[s[0]].append(clock)
            s[1] -= 1
        slots = [s for s in slots if s[1] > 0]
    return out


def same(got, want, start, end):
    want = {j: [t for t in ts if start <= t <= end] for j, ts in want.items()}
    want = {j: ts for j, ts in want.items() if ts}
    assert got.keys() == want.keys()
    for j in got:
        assert got[j] == pytest.approx(want[j], abs=1e-9)


@pytest.mark.parametrize("changes", [{}, {"rps": 10}, {"rps": 20, "prompt": 100, "reply": 1000},
                                     {"rps": 0.5, "reply": 10}])
def test_word_times_match_the_oracle(changes):
    s = sim.Settings().but(**changes)
    work = Workload(Draws(s.seed, s.requests), s.rps, s.prompt, s.reply)
    served, arrivals, prompts, replies = timeline.shared_gpu(work, s)
    want = oracle_word_times([(a, p, r, k) for k, (a, p, r) in
                              enumerate(zip(arrivals, prompts, replies))], read=True)
    for start, end in [(10, 10.3), (50, 52), (100, 100.2)]:
        same(timeline.words(served, replies, start, end), want, start, end)
    served, order, replies = timeline.writer(work, s)
    handed, _ = hand_over(work, s)
    want = oracle_word_times([(handed[i], work.prompts[i], work.replies[i], k)
                              for k, i in enumerate(order)], read=False)
    for start, end in [(10, 10.3), (50, 52)]:
        same(timeline.words(served, replies, start, end), want, start, end)


def test_recording_changes_nothing_else():
    work = Workload(Draws(7, 600), 4.0, 2000, 200)
    plain = sim.model.layouts.shared(work, sim.Settings())
    served, *_ = timeline.shared_gpu(work, sim.Settings())
    # GPU 0's jobs are requests 0, 2, 4, ... (alternate routing), which the run keeps by index
    assert [f - a for f, a in zip(served.first, work.arrivals[0::2])] == plain.ttft[0::2]
    assert served.max_gap == plain.max_gap[0::2]
