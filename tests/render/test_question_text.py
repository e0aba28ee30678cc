"""hwkb.render.question_text: what-ifs and closed forms as the CLI prints them, on the tiny KB."""
from __future__ import annotations

import pytest

from hwkb.questions.closed_forms import solve_symbolic
from hwkb.render.question_text import format_change, render_symbolic, render_whatif
from hwkb.questions.whatif import what_if


def test_whatif_heading_rows_marks_and_notes(tiny_kb):
    result = what_if(tiny_kb, ["peak[fp16]", "clock"], gpu="chip", changes=["clock=2GHz"])
    assert render_whatif(result).splitlines() == [
        "baseline: chip",
        "scenario: clock = 2 GHz",
        "variable    baseline  scenario  unit    change",
        "peak[fp16]     204.8     409.6  TFLOPS   +100%  [stated figure moved]",
        "clock              1         2  GHz      +100%  [scenario]",
        "note: peak[fp16] (stated 204.8 TFLOPS) is recomputed from the change"]


def test_whatif_names_the_given_facts_and_the_scenario_entities(tiny_kb):
    result = what_if(tiny_kb, gpu="chip", given=["clock=1GHz"], scenarios=["arch"])
    assert render_whatif(result).splitlines()[:4] == [
        "baseline: chip, given clock = 1 GHz",
        "scenario: sm_count = 128 (from arch)",
        "variable    baseline  scenario  unit    change",
        "sm_count         100       128            +28%  [scenario]"]


def test_whatif_heading_names_the_entities_as_given(tiny_kb, block_kb):
    result = what_if(tiny_kb, ["sm_count"], gpu="chip", layers=["arch"], changes=["clock=2GHz"])
    assert render_whatif(result).splitlines()[0] == "baseline: chip + arch"
    result = what_if(block_kb, ["x"], layers=["pair"], changes=["a=12GHz"])
    assert render_whatif(result).splitlines()[:2] == ["baseline: pair", "scenario: a = 12 GHz"]


def test_whatif_where_nothing_changes(tiny_kb):
    assert render_whatif(what_if(tiny_kb, gpu="chip", changes=["sm_count=100"])) == \
        "baseline: chip\nscenario: sm_count = 100\nnothing changes"


def test_whatif_marks_what_is_not_settled(tiny_kb):
    lines = render_whatif(what_if(tiny_kb, ["clock"], gpu="arch", changes=["sm_count=64"])).splitlines()
    assert lines[3] == "clock            -         -  GHz        -  [baseline underdetermined, scenario underdetermined]"


@pytest.mark.parametrize("change, text", [(1.0, "+100%"), (-0.5, "-50%"), (0.0, "+0%"), (0.005, "+0.50%"),
                                          (None, "-")])
def test_format_change(change, text):
    assert format_change(change) == text


def test_symbolic_with_its_value_and_elasticities(tiny_kb):
    solution = solve_symbolic(tiny_kb, "peak[fp16]", tiny_kb.context("chip", facts=["clock=1.5GHz"]),
                              ["clock", "sm_count"], sensitivity=True)
    text = render_symbolic(solution).splitlines()
    assert text[:3] == ["peak[fp16] [TFLOPS] = 256*clock*sm_count/125", "  ≈ 2.048*clock*sm_count",
                        "  free: clock [GHz], sm_count"]
    assert text[-5:] == [r"  latex: \frac{256 \mathrm{clock} \mathrm{sm\_count}}{125}",
                         "  value at clock=1.5, sm_count=100: 204.8 TFLOPS",
                         "  elasticity ∂ln peak[fp16] / ∂ln x:", "    clock: 1", "    sm_count: 1"]
    assert "256⋅clock⋅sm_count" in text[4]
