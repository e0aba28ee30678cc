"""hwkb.audit.findings: verdicts and check kinds as enums that print plain strings, and the result types' texts."""
from __future__ import annotations

import json

from hwkb.audit.findings import (EXPECTATION_CAVEAT, Check, CheckKind, EntityAudit, Figure, Suspect, Verdict,
                                 quantity)


def figure(key: str, value: float, unit: str = "GHz", via: str | None = None, inputs=()) -> Figure:
    return Figure(key, value, unit, value * 0.99, value * 1.01, via, tuple(inputs))


def check(status: Verdict = Verdict.INCONSISTENT, kind: CheckKind = CheckKind.EXPECTATION, **changes) -> Check:
    fields = dict(
        rule="boost_is_clock", kind=kind, status=status, deviation=50.0, variables=("n", "peak", "boost"),
        target="boost", value=figure("boost", 1.5), implied=figure("boost", 1.0, via="boost_is_clock"),
        sides=(figure("boost", 1.5), figure("clock", 1.0, via="peak_law", inputs=("peak", "n")),
               figure("peak", 0.4, "TFLOPS"), figure("n", 100, "")),
        doc="the peak is stated at the boost clock", source="test",
        suspects=(Suspect("boost", "sheet", 1.5, "GHz", "1.5", 1.0, 10.0, 1, 0, True),))
    fields.update(changes)
    return Check(**fields)


def test_verdicts_most_severe_first_and_plain_in_json():
    assert list(Verdict) == ["inconsistent", "implausible", "within_rounding", "consistent"]
    assert [v.rank for v in Verdict] == [0, 1, 2, 3] and Verdict.WITHIN_ROUNDING.label == "within rounding"
    assert list(CheckKind) == ["law", "stated_vs_derived", "expectation", "documents", "plausibility"]
    assert CheckKind.STATED_VS_DERIVED.label == "stated vs derived"
    document = json.loads(json.dumps(check().to_dict()))
    assert (document["status"], document["kind"]) == ("inconsistent", "expectation")
    assert type(check().to_dict()["status"]) is str and type(check().to_dict()["kind"]) is str


def test_quantity_and_figure_text():
    assert quantity(1.983, "GHz") == "1.983 GHz" and quantity(3200, "") == "3200" and quantity(None, "GHz") == "-"
    assert figure("clock", 1.83).text == "1.83 GHz"
    assert "inputs" not in figure("clock", 1.0).to_dict()
    assert figure("clock", 1.0, via="peak_law", inputs=("peak",)).to_dict()["inputs"] == ["peak"]


def test_suspect_sentence():
    s = Suspect("sm_count", "a100", 118, "", "118", 108.0, 20.0, 2, 0, True)
    assert s.sentence == "sm_count would be 108 if the others are right"
    assert Suspect("clock", None, 1.0, "GHz", "1", None, None, 1, 0, True).sentence == \
        "clock alone cannot reconcile the others"
    assert s.to_dict()["sentence"] == s.sentence


def test_routes_name_each_derived_value_and_its_inputs():
    assert check().routes == ["clock = 1 GHz from peak_law (peak 0.4 TFLOPS, n 100)"]


def test_detail_of_an_expectation_and_of_a_law():
    text = check().detail
    assert text.startswith("expectation: the peak is stated at the boost clock — boost = 1.5 GHz (stated); "
                           "boost_is_clock implies 1 GHz: disagree beyond the printed rounding, +50%")
    assert "[clock = 1 GHz from peak_law (peak 0.4 TFLOPS, n 100)]" in text
    assert f". {EXPECTATION_CAVEAT}; if a figure is wrong instead: boost would be 1 GHz" in text
    law = check(Verdict.WITHIN_ROUNDING, CheckKind.STATED_VS_DERIVED, hint="look here").detail
    assert law.startswith("stated vs derived: the peak is stated at the boost clock")
    assert "agree within the printed rounding" in law and "would be" not in law and law.endswith("; hint: look here")


def test_an_entity_is_as_severe_as_its_worst_check():
    checks = (check(Verdict.CONSISTENT), check(Verdict.INCONSISTENT), check(Verdict.WITHIN_ROUNDING))
    entity = EntityAudit("sheet", "Sheet", checks)
    assert entity.status == Verdict.INCONSISTENT and EntityAudit("x", "X", ()).status is None
    assert entity.counts() == {"inconsistent": 1, "implausible": 0, "within_rounding": 1, "consistent": 1}
    document = entity.to_dict()
    assert document["status"] == "inconsistent" and type(document["status"]) is str
    assert "groups" not in document and "notes" not in document
    assert [c.severity for c in checks] == [3, 0, 2]
