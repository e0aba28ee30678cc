"""hwkb.audit.verdicts: rounding-aware verdicts over arrays, the value a fact would need, undefined checks."""
from __future__ import annotations

import numpy as np
import pytest

from hwkb.audit.auditor import Auditor, audit
from hwkb.audit.findings import Verdict
from hwkb.audit.verdicts import evaluate, evaluate_all, solve_for_fact
from hwkb.render.finding_words import suspect_sentence

from audit_kbs import FAMILY, FAMILY_GPUS, GRID, by_rule, exact_facts, make_kb, sheet


@pytest.fixture(scope="module")
def grid_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "grid", GRID)


@pytest.fixture(scope="module")
def family_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "family", FAMILY, FAMILY_GPUS)


def test_verdicts_follow_the_printed_digits(grid_kb, tmp_path):
    """1000 x 1.5 FMA x 1.0 GHz = 3 TFLOPS: '3' agrees, '3.02' within the rounding of rate and clock, '3.5' within
    their truncation (1.59 and 1.09 printed cut short give 3.47), '3.6' not."""
    base = {"n": "1000", "rate": "1.5", "clock": "1.0"}
    verdicts = {}
    for text in ("3", "3.02", "3.5", "3.6"):
        entity = sheet(grid_kb, tmp_path, {**base, "peak": text}, eid=f"p{text.replace('.', '_')}",
                       name=f"{text}.yaml")
        verdicts[text] = by_rule(audit(grid_kb, [entity]).entities[0])["peak_law"]
    assert [verdicts[t].status for t in ("3", "3.02", "3.5", "3.6")] == [
        "consistent", "within_rounding", "within_rounding", "inconsistent"]
    assert verdicts["3.6"].deviation == pytest.approx(100 * (3.6 / 3 - 1))
    check = verdicts["3.02"]   # clock 1.0 means 0.95 .. 1.1 (rounded or cut short), rate 1.5 means 1.45 .. 1.6
    assert check.implied.lower < 3 * 1.45 / 1.5 * 0.95 + 1e-9 and check.implied.upper > 3 * 1.6 / 1.5 * 1.1 - 1e-9
    assert check.value.lower == pytest.approx(3.015) and check.value.upper == pytest.approx(3.03)
    assert (check.reading, verdicts["3.5"].reading) == (None, "truncated")


def test_a_tolerance_overrides_the_printed_digits(grid_kb, tmp_path):
    facts = {"n": "1000", "rate": "1.500", "clock": "1.000", "peak": "{value: 3.2 TFLOPS, tolerance: 10 %}"}
    check = by_rule(audit(grid_kb, [sheet(grid_kb, tmp_path, facts)]).entities[0])["peak_law"]
    assert check.status == "within_rounding"


def test_one_evaluation_per_row_with_verdicts_and_the_values_facts_would_need(family_kb, tmp_path):
    auditor = Auditor(family_kb)
    fast = sheet(family_kb, tmp_path, {"peak": "0.8 TFLOPS"}, eid="fast", extends="chip")
    rows = auditor.rows(["chip", fast])
    (pattern,) = auditor.prepare(rows)
    peak = {c.relation.name: c for c in auditor.analysis.checks(pattern)}["peak_law"]
    chip, fast = evaluate(peak, rows, family_kb)
    assert (chip.status, fast.status) == (Verdict.CONSISTENT, Verdict.INCONSISTENT)
    assert fast.deviation == pytest.approx(100 / 3) and chip.fact_implied == {}
    assert fast.own[0] == pytest.approx(0.8) and fast.implied[0] == pytest.approx(0.6)   # TFLOPS, the display unit
    assert fast.fact_implied["peak"] == pytest.approx(0.6e12, rel=1e-9)    # canonical: FMA/s
    assert fast.fact_implied["n"] == pytest.approx(400 / 3, rel=1e-9)
    assert fast.fact_implied["clock"] == pytest.approx(2e9, rel=1e-9)
    assert fast.spread < 0.2


SUM = """
variables:
  a:     {unit: GB, doc: one part}
  b:     {unit: GB, doc: the other part}
  total: {unit: GB, doc: both parts}
rules:
  sum_law:
    doc: the parts add up
    eq: total = a + b
    source: test
"""


def test_solve_for_fact_is_nan_where_no_positive_value_works(tmp_path):
    """5 + b = 3 needs b = -2: b alone cannot reconcile the others, a and total can."""
    kb = make_kb(tmp_path / "sum", SUM, "parts:\n  kind: datasheet\n  facts: {a: 5 GB, b: 1 GB, total: 3 GB}\n")
    auditor = Auditor(kb)
    rows = auditor.rows(["parts"])
    (pattern,) = auditor.prepare(rows)
    (check,) = auditor.analysis.checks(pattern)
    failed = np.array([0])
    assert np.isnan(solve_for_fact(check, rows, failed, "b")[0])
    assert solve_for_fact(check, rows, failed, "a")[0] == pytest.approx(rows[0].mid["a"] * 2 / 5, rel=1e-9)
    (result,) = audit(kb, ["parts"]).entities
    sentences = {s.fact: suspect_sentence(s) for s in result.suspects}
    assert sentences["b"] == "b alone cannot reconcile the others"
    assert sentences["a"] == "a would be 2 GB if the others are right"


def test_vectorised_and_entity_by_entity_agree(grid_kb, tmp_path):
    entities = [sheet(grid_kb, tmp_path, exact_facts(n, 1500 + n, 1000 + 7 * n), eid=f"s{n}", name=f"s{n}.yaml")
                for n in (10, 50, 120)]
    entities.append(sheet(grid_kb, tmp_path, {**exact_facts(64, 2000, 1500), "peak": "0.5"}, eid="bad"))
    fast, slow = Auditor(grid_kb).audit(entities), Auditor(grid_kb).audit(entities, vectorised=False)
    assert fast.to_dict() == slow.to_dict() and fast.exit_code() == 1


def test_a_zero_figure_is_noted_not_evaluated(family_kb, tmp_path):
    entity = sheet(family_kb, tmp_path, {"n": "0"}, eid="zero", extends="chip")
    (result,) = audit(family_kb, [entity]).entities
    assert [c.rule for c in result.checks] == ["boost_is_clock"]
    assert result.notes == ("peak_law, width_law cannot be evaluated here: a zero figure makes them infinite or "
                            "undefined; check the figures they use",)


def test_a_pattern_evaluated_at_once_is_each_check_evaluated_alone(family_kb, tmp_path):
    """The figures gathered once for all a pattern's checks, and every fact's needed value found in one Newton run,
    give what each check evaluated alone and :func:`solve_for_fact` per fact give."""
    auditor = Auditor(family_kb)
    sheets = [sheet(family_kb, tmp_path, {"peak": peak}, eid=f"s{i}", extends="chip", name=f"s{i}.yaml")
              for i, peak in enumerate(("0.8 TFLOPS", "0.6 TFLOPS", "0.4 TFLOPS", "0.61 TFLOPS"))]
    rows = auditor.rows(["chip", *sheets])
    (pattern,) = auditor.prepare(rows)
    checks = auditor.analysis.checks(pattern)
    together = evaluate_all(checks, rows, family_kb)
    alone = [e for check in checks for e in evaluate(check, rows, family_kb)]
    assert len(checks) > 1 and together == alone
    failed = [e for e in together if e.status == Verdict.INCONSISTENT]
    assert len(failed) >= 2
    for e in failed:
        which = np.array([rows.index(e.row)])
        for key, value in e.fact_implied.items():
            assert np.array_equal(solve_for_fact(e.check, rows, which, key), [value], equal_nan=True)
