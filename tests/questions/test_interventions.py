"""hwkb.questions.interventions: a change recomputes what it drives and holds what it does not.

On the tiny KB the chip states its FP16 peak and its SM count; its clock follows from them.
"""
from __future__ import annotations

import pytest

from hwkb.questions.interventions import BASELINE_SOURCE, intervene
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.questions.closed_forms import closed_form
from hwkb.questions.whatif import what_if


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
