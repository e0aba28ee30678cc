"""hwkb.audit.auditor: the audit end to end on small KBs: clean sheets, facts stacked as contexts stack them,
entities named twice, user files, errors, and the stages the benchmark times."""
from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hwkb.audit.auditor import Auditor, audit
from hwkb.errors import QueryError, UnknownNameError
from hwkb.formats.load import load_entities
from hwkb.render.finding_words import detail

from audit_kbs import FAMILY, FAMILY_GPUS, GRID, exact_facts, make_kb, sheet


@pytest.fixture(scope="module")
def grid_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "grid", GRID)


@pytest.fixture(scope="module")
def family_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "family", FAMILY, FAMILY_GPUS)


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
exact = st.tuples(st.integers(10, 200), st.integers(1000, 9999), st.integers(1000, 3000))


@SETTINGS
@given(values=exact)
def test_an_entity_built_from_exact_values_audits_clean(grid_kb, tmp_path, values):
    report = audit(grid_kb, [sheet(grid_kb, tmp_path, exact_facts(*values))])
    (entity,) = report.entities
    assert {c.rule for c in entity.checks} == {"peak_law", "cycles_law", "unit_peak_law"}
    assert all(c.status in ("consistent", "within_rounding") for c in entity.checks)
    assert report.exit_code() == 0 and entity.suspects == ()


def test_an_expectation_is_labelled_and_its_derived_side_named(grid_kb, tmp_path):
    facts = {"n": "100", "rate": "2.000", "peak": "0.4000", "boost": "1.500"}   # the peak implies a 1.0 GHz clock
    (check,) = audit(grid_kb, [sheet(grid_kb, tmp_path, facts)]).entities[0].checks
    assert (check.rule, check.kind, check.status, check.target) == ("boost_is_clock", "expectation", "inconsistent",
                                                                     "boost")
    assert check.implied.value == pytest.approx(1.0) and check.deviation == pytest.approx(50.0)
    assert [(s.key, s.via) for s in check.sides if s.via] == [("clock", "peak_law")]
    assert detail(check).startswith("expectation: the peak is stated at the boost clock")
    assert "without any of its figures being wrong" in detail(check)


def test_rows_stack_facts_as_contexts_do(family_kb):
    auditor = Auditor(family_kb)
    for eid in ("chip", "slow"):
        (row,) = auditor.rows([eid])
        context = family_kb.context(eid)
        assert row.facts == {k: f for k, f in context.facts.items() if f.applicable}
        assert row.not_applicable == context.not_applicable
    (row,) = auditor.rows(["chip"])
    assert row.radius["rate"] == 0.0 and row.radius["n"] == 0.0 and row.radius["clock"] > 0.0
    assert row.pattern[1] == {"rate", "issue"}


def test_an_entity_named_twice_is_audited_once(family_kb):
    assert [e.entity for e in audit(family_kb, ["chip", "chip"]).entities] == ["chip"]


def test_a_user_datasheet_file(family_kb, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(textwrap.dedent("""\
        mine:
          kind: datasheet
          extends: arch
          facts:
            n: 80
            clock: 1.25 GHz
            peak: 0.4 TFLOPS
            boost: 1.25 GHz
        """))
    entities = list(load_entities(path, family_kb.model, family_kb.units).values())
    report = audit(family_kb, entities)
    assert report.exit_code() == 0 and report.entities[0].entity == "mine"
    assert report.summary["counts"]["inconsistent"] == 0 and report.summary["checks"] == 2


def test_unknown_entity_and_nothing_to_audit(family_kb):
    with pytest.raises(UnknownNameError, match="did you mean 'chip'"):
        audit(family_kb, ["chp"])
    with pytest.raises(QueryError, match="nothing to audit"):
        audit(family_kb, [])


def test_the_stages_are_timed_and_analyses_kept(family_kb):
    auditor = Auditor(family_kb)
    first = auditor.audit(["chip", "slow"])
    assert set(auditor.timings) == {"facts", "compile", "checks", "report"}
    assert auditor.audit(["slow", "chip"]).to_dict() == first.to_dict()
