"""hwkb.solving.plausibility: a derived value outside its variable's range is implausible, never derived.

The fixture ``tests/fixtures/tiny_ranges`` holds a chip as a textbook describes it (16 SIMD lanes read as 32 FP32
units per SM: the P100's case of issue 19) beside the vendor's figures, and a chip that states an odd clock.
"""
from __future__ import annotations

import pytest

from conftest import FIXTURES
from hwkb import KnowledgeBase
from hwkb.solving import plausibility
from hwkb.solving.solution import Status
from hwkb.render.note_words import note_text

RANGES = FIXTURES / "tiny_ranges"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load([RANGES], default=False)


def test_all_names_exist():
    assert sorted(plausibility.__all__) == ["Implausible", "implausible_values", "outside_range"]


def test_a_derived_value_outside_its_range_is_implausible(kb):
    solution = kb.solve("clock", gpu="chip-textbook")
    assert solution.status == Status.IMPLAUSIBLE and round(solution.magnitude, 3) == 2.79
    assert solution.determined
    (found,) = solution.implausible
    assert found.value.key == "clock" and str(found.range) == "[0.1, 2.5]"
    assert [f.key for f in found.facts] == ["peak", "sm_count", "lanes", "lane_rate"]
    assert str(solution).splitlines() == [
        "clock = 2.79 GHz  (implausible)",
        "  implausible: clock = 2.79 GHz is outside [0.1, 2.5] GHz, the range real hardware spans "
        "(tiny survey: no chip of it clocks above 2.1 GHz)",
        "    from the stated peak = 10 TFLOPS [chip-textbook], sm_count = 56 [chip-textbook], lanes = 32 "
        "[chip-textbook], lane_rate = 1 FMA/cycle [default]: one of them is likely misread or does not apply "
        "(hwkb audit ranks them)"]


def test_the_vendors_figures_give_a_derived_value(kb):
    solution = kb.solve("clock", gpu="chip-vendor")
    assert solution.status == Status.DERIVED and not solution.implausible
    assert "implausible" not in solution.to_dict()


def test_a_value_resting_on_an_implausible_one_is_implausible_too(kb):
    solution = kb.solve("exp_rate", gpu="chip-textbook")
    assert solution.status == Status.IMPLAUSIBLE
    assert [i.value.key for i in solution.implausible] == ["clock"]
    assert str(solution).splitlines()[1].startswith(
        "  implausible: it rests on clock = 2.79 GHz, outside [0.1, 2.5] GHz")


def test_the_json_names_the_range_and_the_facts(kb):
    doc = kb.solve("clock", gpu="chip-textbook").to_dict()
    assert doc["status"] == "implausible"
    (found,) = doc["implausible"]
    assert found["range"] == {"lower": 0.1, "upper": 2.5, "lower_closed": True, "upper_closed": True, "unit": "GHz",
                              "source": "tiny survey: no chip of it clocks above 2.1 GHz"}
    assert [(f["fact"], f["entity"]) for f in found["facts"]] == [
        ("peak", "chip-textbook"), ("sm_count", "chip-textbook"), ("lanes", "chip-textbook"), ("lane_rate", None)]


def test_explain_marks_it_and_prints_the_tree(kb):
    text = str(kb.explain("clock", gpu="chip-textbook"))
    assert text.startswith("clock = 2.79 GHz  (implausible)\n  implausible: clock = 2.79 GHz is outside")
    assert "clock = 2.79 GHz   by law peak_law" in text
    assert kb.explain("clock", gpu="chip-textbook").to_dict()["status"] == "implausible"


def test_derive_marks_each_implausible_value_and_what_rests_on_it(kb):
    derived = kb.derive("chip-textbook")
    assert not derived.plausible and derived.consistent and derived.status == Status.IMPLAUSIBLE
    assert str(derived).splitlines()[:2] == [
        "clock           2.79 GHz         via peak_law  [implausible: outside [0.1, 2.5] GHz]",
        "exp_rate         2.5 Texp/s      via exp_law  [implausible: rests on clock = 2.79 GHz]"]
    doc = derived.to_dict()
    assert doc["status"] == "implausible"
    assert [(d["variable"], d["status"]) for d in doc["derived"]] == [("clock", "implausible"),
                                                                       ("exp_rate", "implausible")]
    assert kb.derive("chip-vendor").to_dict()["status"] == "derived"


def test_a_stated_figure_outside_its_range_stays_stated_with_a_note(kb):
    """A user's what-if may state an odd figure: said, not refused, and not called implausible (the audit reports
    a KB figure outside its range)."""
    solution = kb.solve("clock", gpu="chip-odd")
    assert solution.status == Status.STATED and not solution.implausible
    assert solution.notes[0].range.upper == 2.5  # the note is data: the render stage words it
    assert tuple(map(note_text, solution.notes)) == ("the stated clock lies outside [0.1, 2.5] GHz, the range real hardware spans "
                              "(tiny survey: no chip of it clocks above 2.1 GHz)",)
    assert kb.solve("clock", facts=["clock=9GHz"]).status == Status.STATED


def test_a_derived_value_from_an_odd_what_if_is_checked_like_any_other(kb):
    assert kb.solve("clock", gpu="chip-vendor", facts=["lanes=32", "peak=10TFLOPS"]).status == Status.IMPLAUSIBLE
    assert kb.solve("clock", gpu="chip-vendor", facts=["lanes=32", "peak=5TFLOPS"]).status == Status.DERIVED


@pytest.mark.parametrize("facts, status", [
    (["work=3cycle", "span=4cycle"], Status.DERIVED),
    (["work=4cycle", "span=4cycle"], Status.DERIVED),       # max: 1 is inside
    (["work=5cycle", "span=4cycle"], Status.IMPLAUSIBLE),
    (["work=0cycle", "span=4cycle"], Status.IMPLAUSIBLE),   # above: 0 excludes 0
])
def test_open_and_closed_ends(kb, facts, status):
    assert kb.solve("busy", facts=facts).status == status


def test_routes_that_disagree_stay_inconsistent_and_say_it_is_implausible(kb):
    solution = kb.solve("clock", gpu="chip-textbook", facts=["exp_rate=0.5e12exp/s"])
    assert solution.status == Status.INCONSISTENT
    assert [i.value.key for i in solution.implausible] == ["clock"]


def test_a_fraction_out_of_range_reads_in_percent(kb):
    assert str(kb.solve("busy", facts=["work=5cycle", "span=4cycle"])).splitlines()[:2] == [
        "busy = 125 %  (implausible)",
        "  implausible: busy = 125 % is outside (0, 100] %, the range real hardware spans (a fraction of cycles)"]


def test_of_routes_that_disagree_the_one_outside_its_range_is_named(kb):
    """The vendor's chip stating its clock, asked with 16 lanes per SM: the stated 1.5 GHz is plausible, the peak's
    route gives 5.9 GHz, outside the range."""
    solution = kb.solve("clock", gpu="chip-vendor", facts=["clock=1.5GHz", "lanes=16"])
    assert solution.status == Status.INCONSISTENT and solution.value.stated
    assert [(i.value.key, round(i.value.magnitude, 2)) for i in solution.implausible] == [("clock", 5.92)]
    assert "  implausible: another route gives clock = 5.915 GHz, outside [0.1, 2.5] GHz" in str(solution)
