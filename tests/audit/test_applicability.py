"""hwkb.audit.applicability: an expectation an n/a fact takes out is reported not applicable, with the reason."""
from __future__ import annotations

import pytest

from hwkb.audit.applicability import withheld_expectations
from hwkb.audit.auditor import Auditor, audit

from conftest import kb_from_text

RATIO = """
variables:
  fp32:  {unit: TFLOPS, doc: FP32 peak}
  fp64:  {unit: TFLOPS, doc: FP64 peak}
  ratio: {unit: "", doc: the FP64 to FP32 ratio}
rules:
  ratio_rule:
    kind: expectation
    doc: FP64 is the ratio of FP32
    eq: fp64 = ratio * fp32
    source: test
"""

ENTITIES = """
family:
  kind: architecture
  facts:
    ratio: {value: n/a, doc: "the die decides"}
big-die:
  kind: die
  extends: family
  facts:
    ratio: 0.5
known:
  kind: datasheet
  extends: big-die
  facts: {fp32: 10 TFLOPS, fp64: 5 TFLOPS}
unknown-die:
  kind: datasheet
  extends: family
  facts: {fp32: 10 TFLOPS, fp64: 0.3 TFLOPS}
half-stated:
  kind: datasheet
  extends: family
  facts: {fp32: 10 TFLOPS}
"""


@pytest.fixture(scope="module")
def ratio_kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("ratio"), RATIO, ENTITIES)


def test_a_die_that_states_the_ratio_is_checked(ratio_kb):
    (known,) = audit(ratio_kb, ["known"]).entities
    assert [(c.rule, str(c.status)) for c in known.checks] == [("ratio_rule", "consistent")]
    assert known.not_applicable == ()


def test_an_unknown_die_is_not_applicable_with_the_reason(ratio_kb):
    (row,) = audit(ratio_kb, ["unknown-die"]).entities
    assert row.checks == () and str(row.status) != "inconsistent"
    (na,) = row.not_applicable
    assert (na.rule, na.fact, na.entity, na.reason) == ("ratio_rule", "ratio", "family", "the die decides")
    assert row.to_dict()["not_applicable"] == [{"rule": "ratio_rule", "fact": "ratio", "entity": "family",
                                               "reason": "the die decides"}]
    assert "ratio_rule not applicable: ratio is n/a on family (the die decides)" in str(audit(ratio_kb, ["unknown-die"]))


def test_a_row_that_lacks_another_figure_is_simply_not_checked(ratio_kb):
    (row,) = audit(ratio_kb, ["half-stated"]).entities
    assert row.not_applicable == () and "not_applicable" not in row.to_dict()


def test_a_database_summary_counts_them_by_rule_and_reason(ratio_kb):
    groups = {e: {"architecture": "family"} for e in ("known", "unknown-die")}
    summary = audit(ratio_kb, ["known", "unknown-die"], groups).summary
    assert summary["not_applicable"] == [{"rule": "ratio_rule", "reason": "the die decides", "entities": 1}]


def test_kept_per_pattern_each_row_keeps_its_own_reason(tmp_path):
    other_family = """
other-family:
  kind: architecture
  facts:
    ratio: {value: n/a, doc: "another reason"}
other-die:
  kind: datasheet
  extends: other-family
  facts: {fp32: 10 TFLOPS, fp64: 0.3 TFLOPS}
"""
    kb = kb_from_text(tmp_path, RATIO, ENTITIES + other_family)
    rows = Auditor(kb).rows(["known", "unknown-die", "half-stated", "other-die"])
    assert rows[1].pattern == rows[3].pattern
    known: dict = {}
    for row in rows + rows:
        assert withheld_expectations(row, kb, known) == withheld_expectations(row, kb)
    assert [[n.reason for n in withheld_expectations(row, kb, known)] for row in rows] == \
        [[], ["the die decides"], [], ["another reason"]]


OBSERVED = """
counted:
  kind: architecture
  facts:
    ratio: {value: 0.5, source: "a database: 9 of 10 rows give 1:2", observed: true}
vendor:
  kind: die
  extends: counted
  facts:
    ratio: {value: 0.5, source: "the vendor's sheet"}
agrees:
  kind: datasheet
  extends: counted
  facts: {fp32: 10 TFLOPS, fp64: 5 TFLOPS}
differs:
  kind: datasheet
  extends: counted
  facts: {fp32: 10 TFLOPS, fp64: 2.5 TFLOPS}
differs-from-vendor:
  kind: datasheet
  extends: vendor
  facts: {fp32: 10 TFLOPS, fp64: 2.5 TFLOPS}
"""


@pytest.fixture(scope="module")
def observed_kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("observed"), RATIO, OBSERVED)


def test_an_observed_fact_is_read_as_such(observed_kb):
    assert observed_kb.model.entities["counted"].facts["ratio"].observed
    assert not observed_kb.model.entities["vendor"].facts["ratio"].observed


def test_a_row_that_agrees_with_an_observed_figure_keeps_its_check(observed_kb):
    (row,) = audit(observed_kb, ["agrees"]).entities
    assert [(c.rule, str(c.status)) for c in row.checks] == [("ratio_rule", "consistent")]
    assert row.not_applicable == ()


def test_a_row_that_fails_only_through_an_observed_figure_is_not_inconsistent(observed_kb):
    report = audit(observed_kb, ["differs"])
    (row,) = report.entities
    assert row.checks == () and str(row.status) != "inconsistent"
    (na,) = row.not_applicable
    reason = "observed in the database audited (a database: 9 of 10 rows give 1:2)"
    assert (na.rule, na.fact, na.entity, na.reason, na.observed, na.deviation) == (
        "ratio_rule", "ratio", "counted", reason, True, -50.0)
    assert row.to_dict()["not_applicable"] == [{"rule": "ratio_rule", "fact": "ratio", "entity": "counted",
                                               "reason": reason, "observed": True, "deviation": -0.5}]
    assert ("ratio_rule not applicable: ratio on counted is observed in the database audited (a database: "
            "9 of 10 rows give 1:2); this row is -50 % off it") in str(report)
    assert "no rule has all its variables known" not in str(report)


def test_a_vendor_figure_over_an_observed_one_stays_a_full_check(observed_kb):
    (row,) = audit(observed_kb, ["differs-from-vendor"]).entities
    assert [(c.rule, str(c.status)) for c in row.checks] == [("ratio_rule", "inconsistent")]
    assert row.not_applicable == ()


def test_a_database_summary_counts_observed_failures_by_rule_and_source(observed_kb):
    groups = {e: {"architecture": "counted"} for e in ("agrees", "differs", "differs-from-vendor")}
    summary = audit(observed_kb, list(groups), groups).summary
    assert summary["not_applicable"] == [{"rule": "ratio_rule", "entities": 1,
                                          "reason": "observed in the database audited (a database: 9 of 10 rows give 1:2)"}]
    assert summary["counts"]["inconsistent"] == 1
