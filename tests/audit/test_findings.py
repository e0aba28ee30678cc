"""hwkb.audit.findings: verdicts and check kinds as enums that print plain strings, and the result types as data."""
from __future__ import annotations

import json

from finding_samples import check, figure, shaped
from hwkb.audit.findings import CheckKind, EntityAudit, Figure, Hint, SideShape, Sides, Verdict


def test_verdicts_most_severe_first_and_plain_in_json():
    assert list(Verdict) == ["inconsistent", "implausible", "within_rounding", "consistent"]
    assert [v.rank for v in Verdict] == [0, 1, 2, 3] and Verdict.WITHIN_ROUNDING.label == "within rounding"
    assert list(CheckKind) == ["law", "stated_vs_derived", "expectation", "documents", "plausibility"]
    assert CheckKind.STATED_VS_DERIVED.label == "stated vs derived"
    document = json.loads(json.dumps(check().to_dict()))
    assert (document["status"], document["kind"]) == ("inconsistent", "expectation")
    assert type(check().to_dict()["status"]) is str and type(check().to_dict()["kind"]) is str


def test_a_figure_and_a_hint_as_data():
    hint = Hint("sparse", "peak", 624.0, 312.0, "TFLOPS", 2.0, twin="peak_sparse")
    assert check(hint=hint).to_dict()["hint"] == {"kind": "sparse", "key": "peak", "stated": 624.0, "implied": 312.0,
                                                  "unit": "TFLOPS", "rule": None}
    assert "inputs" not in figure("clock", 1.0).to_dict()
    assert figure("clock", 1.0, via="peak_law", inputs=("peak",)).to_dict()["inputs"] == ["peak"]


def test_findings_are_data_the_render_stage_words_them():
    assert "detail" not in check().to_dict() and "sentence" not in check().suspects[0].to_dict()
    assert not any(hasattr(check(), name) for name in ("detail", "routes", "suspects_lead"))


def test_an_entity_is_as_severe_as_its_worst_check():
    checks = (check(Verdict.CONSISTENT), check(Verdict.INCONSISTENT), check(Verdict.WITHIN_ROUNDING))
    entity = EntityAudit("sheet", "Sheet", checks)
    assert entity.status == Verdict.INCONSISTENT and EntityAudit("x", "X", ()).status is None
    assert entity.counts() == {"inconsistent": 1, "implausible": 0, "within_rounding": 1, "consistent": 1}
    document = entity.to_dict()
    assert document["status"] == "inconsistent" and type(document["status"]) is str
    assert "groups" not in document and "notes" not in document
    assert [c.severity for c in checks] == [3, 0, 2]


def test_sides_stand_for_the_stated_figures_they_make_when_asked():
    shapes = (SideShape("boost", "GHz", None, ()), SideShape("clock", "GHz", "peak_law", ("peak", "n")))
    sides = Sides(shapes, (1.5, 1.0))
    figures = (Figure("boost", 1.5, "GHz", 1.5, 1.5), Figure("clock", 1.0, "GHz", 1.0, 1.0, "peak_law", ("peak", "n")))
    assert len(sides) == 2 and sides[1] == figures[1] and sides[-1:] == figures[-1:] and tuple(sides) == figures
    assert sides == figures and sides == Sides(shapes, (1.5, 1.0)) and sides != Sides(shapes, (1.5, 2.0))
    assert hash(sides) == hash(figures) and repr(sides) == repr(figures) and figures[0] in sides


def test_a_check_over_its_shape_is_the_check_of_figures():
    made, plain = shaped()
    assert made == plain and hash(made) == hash(plain) and made.to_dict() == plain.to_dict()
