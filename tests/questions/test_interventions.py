"""hwkb.questions.interventions: a change recomputes what it drives and holds what it does not.

On the tiny KB the chip states its FP16 peak and its SM count; its clock follows from them.
"""
from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings, strategies as st

from conftest import kb_from_text
from hwkb.questions import interventions, set_aside
from hwkb.questions.interventions import BASELINE_SOURCE, intervene, release
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.questions.closed_forms import closed_form
from hwkb.questions.thresholds import solve_constrained
from hwkb.questions.whatif import what_if
from hwkb.render.note_words import note_text


def rows(result):
    return {r.variable: (r.baseline.magnitude, r.scenario.magnitude) for r in result.rows}


def test_a_faster_clock_moves_the_stated_peak_not_the_rate(tiny_kb):
    result = rows(what_if(tiny_kb, ["peak[fp16]", "fma_rate[bf16]"], gpu="chip", changes=["clock=2GHz"]))
    base, scenario = result["peak[fp16]"]
    assert (base, scenario) == (204.8, pytest.approx(100 * 2048 * 2e-3))  # 100 SMs x 2048 flop x 2 GHz
    assert result["fma_rate[bf16]"] == (1024.0, 1024.0)                   # per cycle: unchanged


def test_more_sms_hold_the_clock_the_peak_gave(tiny_kb):
    result = rows(what_if(tiny_kb, ["peak[fp16]", "clock"], gpu="chip", changes=["sm_count=200"]))
    assert result["clock"][0] == result["clock"][1]
    assert result["peak[fp16]"][1] == pytest.approx(204.8 * 200 / 100)


def test_changing_the_peak_moves_the_clock(tiny_kb):
    result = rows(what_if(tiny_kb, ["clock"], gpu="chip", changes=["peak[fp16]=409.6TFLOPS"]))
    assert result["clock"][1] == pytest.approx(result["clock"][0] * 409.6 / 204.8)


def test_held_values_say_so(tiny_kb):
    base = tiny_kb.context("chip")
    context, notes = intervene(tiny_kb, base, tiny_kb.context("chip", facts=["sm_count=200"]), ["sm_count"])
    assert "peak[fp16]" not in context.facts and context.facts["clock"].source == BASELINE_SOURCE
    assert notes == ("peak[fp16] (stated 204.8 TFLOPS) is recomputed from the change",
                     "held at their baseline values: clock")


def test_nothing_changes_when_nothing_is_stale(tiny_kb):
    context = tiny_kb.context("chip", facts=["peak[bf16]=204.8TFLOPS"])  # no law has it on its right side
    assert intervene(tiny_kb, tiny_kb.context("chip"), context, ["peak[bf16]"]) == (context, ())


def test_sweeps_and_closed_forms_free_what_they_drive(tiny_kb):
    result = sweep(tiny_kb, "peak[fp16]", tiny_kb.context("chip"), [parse_axis(tiny_kb, "clock=1.5,2")])
    assert list(result.values) == pytest.approx([100 * 2048 * 1.5e-3, 100 * 2048 * 2e-3])
    form = closed_form(tiny_kb, "peak[fp16]", tiny_kb.context("chip"), ["sm_count", "clock"])
    assert form.text == "256*clock*sm_count/125"


# ---------------------------------------------------------------- one release rule for a what-if and a backward question

STACK_RULES = """
variables:
  bus:       {unit: "", integer: true, doc: pins}
  rate:      {unit: Gbit/s, doc: data rate of one pin}
  bw:        {unit: GB/s, doc: bandwidth}
  stacks:    {unit: "", integer: true, doc: HBM stacks}
  per_stack: {unit: GB/s, doc: bandwidth of one stack}
rules:
  bw_law:    {doc: pins at their rate, eq: bw = bus * rate, source: test}
  stack_law: {doc: stacks at their bandwidth, eq: bw = stacks * per_stack, source: test}
"""
STACK_GPUS = """
hbm:
  kind: product
  source: test
  facts: {bus: 8192, rate: 5.2 Gbit/s, bw: 5300 GB/s, stacks: 8}
"""


@pytest.fixture(scope="module")
def stack_kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("stacks"), STACK_RULES, STACK_GPUS)


def test_a_new_data_rate_moves_the_bandwidth_and_the_stack_follows_it(stack_kb):
    """The MI300X's shape: the stack's bandwidth was worked back from the stated bandwidth, by a law the data rate
    does not drive, so it follows the recomputed bandwidth rather than holding it at 5300 GB/s."""
    base = stack_kb.context("hbm")
    freed = release(stack_kb, base, ["rate"], stack_kb.context("hbm", facts=["rate=6.4"]))
    assert [f.key for f in freed.released] == ["bw"] and freed.routes == {"bw": ("bw_law",)} and freed.held == ()
    result = what_if(stack_kb, ["bw", "per_stack"], gpu="hbm", changes=["rate=6.4"])
    rows = {r.variable: (r.baseline.magnitude, r.scenario.magnitude, str(r.scenario_status)) for r in result.rows}
    assert rows == {"bw": (5300, pytest.approx(8192 * 6.4 / 8), "derived"),
                    "per_stack": (5300 / 8, pytest.approx(8192 * 6.4 / 8 / 8), "derived")}
    assert result.notes == ("bw (stated 5300 GB/s) is recomputed from the change",)


def test_a_backward_question_releases_what_the_asked_figure_drives_and_holds_the_clock(tiny_kb):
    """Asked for the SM count a peak needs, the stated peak goes and the clock the baseline worked back holds."""
    base = tiny_kb.context("chip")
    freed = release(tiny_kb, base, ["sm_count"], base.without(["sm_count"]))
    assert [f.key for f in freed.released] == ["peak[fp16]"] and freed.routes == {"peak[fp16]": ("peak_law",)}
    assert [(f.key, f.source) for f in freed.held] == [("clock", BASELINE_SOURCE)]
    solution = solve_constrained(tiny_kb, "sm_count", base, ["peak[fp16] >= 409.6 TFLOPS"])
    assert (solution.status, solution.magnitude, solution.extra["bound"]) == ("derived", 200, "lower")  # 100 x 2
    assert tuple(map(note_text, solution.notes[:3])) == ("set aside sm_count = 100  (chip) to solve for it",
                                  "set aside peak[fp16] = 204.8 TFLOPS (chip) too: it follows sm_count through "
                                  "peak_law",
                                  "held at their baseline values: clock")


def test_the_what_if_and_the_backward_question_ask_the_one_rule(tiny_kb, monkeypatch):
    asked = []

    def spy(kb, baseline, moved, context, where=()):
        asked.append(sorted(moved))
        return release(kb, baseline, moved, context, where)

    monkeypatch.setattr(interventions, "release", spy)
    monkeypatch.setattr(set_aside, "release", spy)
    what_if(tiny_kb, ["peak[fp16]"], gpu="chip", changes=["sm_count=200"])
    solve_constrained(tiny_kb, "sm_count", tiny_kb.context("chip"), ["peak[fp16] >= 409.6 TFLOPS"])
    assert asked == [["sm_count"], ["sm_count"]]


# ---------------------------------------------------------------- the real KB: the two questions of issue 25

H100_BF16, H100_SMS = 989.4, 132  # NVIDIA's H100 SXM datasheet and the chapter
STATED = {"h100-sxm": (H100_BF16, H100_SMS), "b200": (2250, 148)}  # dense BF16 TFLOPS and SMs, as the KB states


def test_a_backward_sm_count_on_an_h100_answers_at_the_clock_its_peak_gave(real_kb):
    solution = real_kb.solve("sm_count", gpu="h100-sxm", where=["tc_peak[bf16] >= 1200 TFLOPS"])
    assert solution.status == "derived" and solution.extra["bound"] == "lower"
    assert solution.magnitude == math.ceil(1200 / H100_BF16 * H100_SMS) == 161
    assert ("held at their baseline values: clock_fp32, clock_fp64, clock_tc, die_fp16_fp32_ratio, die_fp64_fp32_ratio, "
            "tc_fma_per_sm_cycle[fp64]") in solution.notes


def test_the_mi300x_data_rate_what_if_moves_the_stack_bandwidth(real_kb):
    result = real_kb.what_if(["memory_bandwidth", "memory_bandwidth_per_stack"], gpu="mi300x",
                             changes=["memory_data_rate=6.4"])
    rows = {r.variable: (r.baseline.magnitude, r.scenario.magnitude, str(r.scenario_status)) for r in result.rows}
    assert rows == {"memory_bandwidth": (5300, pytest.approx(8192 * 6.4 / 8), "derived"),      # 8192-bit bus
                    "memory_bandwidth_per_stack": (5300 / 8, pytest.approx(8192 * 6.4 / 8 / 8), "derived")}
    assert result.notes == ("memory_bandwidth (stated 5.3 TB/s) is recomputed from the change",)


@settings(max_examples=6, deadline=None)
@given(sms=st.integers(2, 1000), gpu=st.sampled_from(["h100-sxm", "b200"]))  # 1 SM: every count would do
@example(sms=160, gpu="b200")
def test_the_backward_sm_count_reads_the_what_if_backwards(real_kb, sms, gpu):
    """What-if at N SMs gives a peak; asking for that peak gives N back: one rule holds the same clock both ways."""
    peak = real_kb.what_if(["tc_peak[bf16]"], gpu=gpu, changes=[f"sm_count={sms}"]).rows[0].scenario.magnitude
    assert peak == pytest.approx(STATED[gpu][0] * sms / STATED[gpu][1], rel=1e-12)  # at the held clock
    asked = real_kb.solve("sm_count", gpu=gpu, where=[f"tc_peak[bf16] >= {peak * (1 - 1e-9)!r} TFLOPS"])
    assert asked.magnitude == sms
