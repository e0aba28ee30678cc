"""hwkb.audit.documents: where two documents print different figures for one fact, the audit weighs them."""
from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, run_cli, run_cli_json, share_kb_with_cli
from hwkb import KnowledgeBase
from hwkb.render.audit import render
from hwkb.formats.load import load_entities
from hwkb.render.finding_words import detail

ALIASED = FIXTURES / "tiny_alias"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load([ALIASED], default=False)


def documents(report, entity="two-documents"):
    audit = next(e for e in report.entities if e.entity == entity)
    return {(c.target, c.implied.value): c for c in audit.checks if str(c.kind) == "documents"}


def test_each_other_document_is_one_check(kb):
    checks = documents(kb.audit(["two-documents"]))
    assert {k: str(c.status) for k, c in checks.items()} == {
        ("sm_count", 96): "inconsistent",            # a whole count printed differently: beyond any rounding
        ("sm_count", 100): "consistent",             # the same figure in another document
        ("clock", 1.0): "consistent",                # 1 GHz and 1.0 GHz are one number
        ("peak[fp16]", 205): "within_rounding"}      # 204.8 and 205 (204.5 .. 205.5) meet within the rounding
    check = checks[("sm_count", 96)]
    assert check.deviation == pytest.approx((100 / 96 - 1) * 100)
    assert (check.value.source, check.implied.source) == ("final whitepaper", "preliminary whitepaper")
    assert check.rule == "documents" and check.variables == ("sm_count",) and not check.suspects


def test_the_finding_names_both_figures_and_their_documents(kb):
    report = kb.audit(["two-documents"])
    check = documents(report)[("sm_count", 96)]
    assert detail(check) == ("documents: sm_count = 100 per final whitepaper (used); 96 per preliminary whitepaper: "
                            "disagree beyond the printed rounding, +4.17%")
    document = json.loads(json.dumps(check.to_dict()))
    assert (document["kind"], document["value"]["source"], document["implied"]["source"]) == \
        ("documents", "final whitepaper", "preliminary whitepaper")
    assert report.summary["by_kind"]["documents"] == {"inconsistent": 1, "implausible": 0, "within_rounding": 1, "consistent": 2}
    for fmt in ("table", "markdown", "html"):
        text = render(report, fmt, failed_only=True)
        assert "documents" in text and "96 per preliminary whitepaper" in text, fmt


def test_only_the_entity_that_keeps_the_documents_reports_them(kb, tmp_path):
    (tmp_path / "sheet.yaml").write_text("child: {extends: two-documents, facts: {clock: 1 GHz}}\n")
    child = load_entities(tmp_path / "sheet.yaml", kb.model, kb.units)["child"]
    report = kb.audit([child, "two-documents"])
    assert documents(report, "child") == {} and len(documents(report)) == 4


def test_a_disagreement_between_documents_is_no_broken_law(kb, monkeypatch, capsys):
    share_kb_with_cli(monkeypatch, kb)
    code, out, _ = run_cli(capsys, "audit", "--gpu", "two-documents", "--failed")
    assert code == 1 and "inconsistent  documents  documents  sm_count" in out
    code, doc, _ = run_cli_json(capsys, "audit", "--gpu", "two-documents", "--fail-on", "laws")
    assert code == 0 and doc["status"] == "inconsistent"
