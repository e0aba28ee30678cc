"""hwkb.render.finding_words: an audit's findings in words, the same words every form and the JSON carry."""
from __future__ import annotations

import json

from conftest import FIXTURES
from finding_samples import check, figure, shaped
from hwkb import KnowledgeBase
from hwkb.audit.findings import EXPECTATION_CAVEAT, CheckKind, EntityAudit, Hint, Suspect, Verdict
from hwkb.render import json_data
from hwkb.render.finding_words import detail, entity_words, figure_text, routes, suspect_sentence


def test_figure_text():
    assert figure_text(figure("clock", 1.83)) == "1.83 GHz" and figure_text(figure("n", 3200, "")) == "3200"


def test_suspect_sentence():
    s = Suspect("sm_count", "a100", 118, "", "118", 108.0, 20.0, 2, 0, True)
    assert suspect_sentence(s) == "sm_count would be 108 if the others are right"
    assert suspect_sentence(Suspect("clock", None, 1.0, "GHz", "1", None, None, 1, 0, True)) == \
        "clock alone cannot reconcile the others"


def test_routes_name_each_derived_value_and_its_inputs():
    assert routes(check()) == ["clock = 1 GHz from peak_law (peak 0.4 TFLOPS, n 100)"]


def test_detail_of_an_expectation_and_of_a_law():
    text = detail(check())
    assert text.startswith("expectation: the peak is stated at the boost clock — boost = 1.5 GHz (stated); "
                           "boost_is_clock implies 1 GHz: disagree beyond the printed rounding, +50%")
    assert "[clock = 1 GHz from peak_law (peak 0.4 TFLOPS, n 100)]" in text
    assert f". {EXPECTATION_CAVEAT}; if a figure is wrong instead: boost would be 1 GHz" in text
    hint = Hint("power_of_two", "boost", 1.5, 0.75, "GHz", 2.0)
    law = detail(check(Verdict.WITHIN_ROUNDING, CheckKind.STATED_VS_DERIVED, hint=hint))
    assert law.startswith("stated vs derived: the peak is stated at the boost clock")
    assert "agree within the printed rounding" in law and "would be" not in law
    assert law.endswith("; hint: boost = 1.5 GHz is exactly 2x what the other figures imply (0.75 GHz): an exact power "
                        "of two — a precision (e.g. an FP16 rate under an FP32 key) or per-unit (per SM vs per "
                        "partition, FMA vs flop) mix-up")


def test_the_json_carries_the_words_where_it_did():
    """Each check's ``detail`` ends its object, each suspect's ``sentence`` ends its own: the JSON is as before."""
    entity = EntityAudit("sheet", "Sheet", (check(),), suspects=check().suspects)
    data = json.loads(json.dumps(entity_words(entity, entity.to_dict())))
    assert list(data["checks"][0])[-1] == "detail" and data["checks"][0]["detail"] == detail(check())
    assert [list(s)[-1] for s in (data["suspects"][0], data["checks"][0]["suspects"][0])] == ["sentence"] * 2
    assert data["suspects"][0]["sentence"] == "boost would be 1 GHz if the others are right"


def test_the_peer_files_audit_json_carries_the_words_of_each_entrys_checks():
    kb = KnowledgeBase.load([FIXTURES / "peers" / "kb"], default=False)
    audit = kb.audit_peer_files("epoch", [FIXTURES / "peers" / "epoch" / "planted.csv"])
    (check,) = audit.entries[0].internal.checks
    (entity,) = json_data(audit)["entities"]
    assert entity["checks"][0]["detail"] == detail(check) and "tf32_ratio implies" in detail(check)
    assert entity["checks"][0]["suspects"][0]["sentence"] == suspect_sentence(check.suspects[0])
    assert "detail" not in audit.to_dict()["entities"][0]["checks"][0]


def test_a_check_over_its_shape_is_worded_as_its_figures_are(monkeypatch):
    from hwkb.render import finding_words
    monkeypatch.setattr(finding_words, "_FRAMES", {})
    for status in Verdict:
        made, plain = shaped(status)
        assert detail(made) == detail(plain) and routes(made) == routes(plain) == \
            ["clock = 1 GHz from peak_law (peak 0.4 TFLOPS, n 100)"]
    assert len(finding_words._FRAMES) == len(Verdict) and made.shape in finding_words._FRAMES  # one a shape
