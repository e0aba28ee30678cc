"""hwkb.questions.interventions: a change recomputes what it drives and holds what it does not."""
from __future__ import annotations

import pytest

from hwkb.questions.interventions import BASELINE_SOURCE, intervene
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.questions.closed_forms import closed_form
from hwkb.questions.whatif import what_if


@pytest.fixture(scope="module")
def kb(real_kb):
    return real_kb


def rows(result):
    return {r.variable: (r.baseline.magnitude, r.scenario.magnitude) for r in result.rows}


def test_a_faster_clock_moves_the_stated_peak_not_the_rate(kb):
    result = rows(what_if(kb, ["tc_peak[bf16]", "exp_utilization[bf16]"], gpu="b200",
                          given=["d_qk=128", "d_v=128"], changes=["clock_tc=2GHz"]))
    base, scenario = result["tc_peak[bf16]"]
    assert (base, scenario) == (2250, pytest.approx(148 * 8192 * 2e-3))  # 148 SMs x 8192 flop x 2 GHz
    assert result["exp_utilization[bf16]"] == (1.0, 1.0)                             # per cycle: unchanged


def test_more_sms_hold_the_clock_the_peak_gave(kb):
    result = rows(what_if(kb, ["tc_peak[bf16]", "clock_tc"], gpu="b200", changes=["sm_count=160"]))
    assert result["clock_tc"][0] == result["clock_tc"][1]
    assert result["tc_peak[bf16]"][1] == pytest.approx(2250 * 160 / 148)


def test_changing_the_peak_moves_the_clock(kb):
    result = rows(what_if(kb, ["clock_tc"], gpu="b200", changes=["tc_peak[bf16]=3000TFLOPS"]))
    assert result["clock_tc"][1] == pytest.approx(result["clock_tc"][0] * 3000 / 2250)


def test_held_values_say_so(kb):
    base = kb.context("b200")
    context, notes = intervene(kb, base, kb.context("b200", facts=["sm_count=160"]), ["sm_count"])
    assert "tc_peak[bf16]" not in context.facts and context.facts["clock_tc"].source == BASELINE_SOURCE
    assert notes[0].startswith("tc_peak[bf16] (stated 2250 TFLOPS) is recomputed")


def test_nothing_changes_when_nothing_is_stale(kb):
    context = kb.context("h100-sxm", facts=["sfu_exp_per_unit_cycle=2"])
    assert intervene(kb, kb.context("h100-sxm"), context, ["sfu_exp_per_unit_cycle"]) == (context, ())


def test_sweeps_and_closed_forms_free_what_they_drive(kb):
    result = sweep(kb, "tc_peak[fp8]", kb.context("h100-sxm"), [parse_axis(kb, "clock_tc=1.5,2")])
    assert list(result.values) == pytest.approx([132 * 8192 * 1.5e-3, 132 * 8192 * 2e-3])
    form = closed_form(kb, "tc_peak[fp8]", kb.context("h100-sxm"), ["sm_count", "clock_tc"])
    assert form.text == "1024*clock_tc*sm_count/125"
