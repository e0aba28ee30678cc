"""hwkb.audit.analysis: routes from the one planner, the over-determinations it leaves, their kinds and targets."""
from __future__ import annotations

import pytest

from hwkb.audit.analysis import Analysis
from hwkb.audit.auditor import Auditor, audit
from hwkb.audit.findings import CheckKind
from hwkb.solving.plan import make_plan

from audit_kbs import FAMILY, FAMILY_GPUS, GRID, make_kb, sheet


@pytest.fixture(scope="module")
def grid_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "grid", GRID)


@pytest.fixture(scope="module")
def family_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "family", FAMILY, FAMILY_GPUS)


def test_laws_give_routes_round_by_round(grid_kb):
    routes, checks = Analysis(grid_kb).routes({"n", "rate", "peak", "boost"}, frozenset())
    derived = [(k, r.rule, r.inputs) for k, r in routes.items() if r.rule]
    assert derived == [("clock", "peak_law", ("peak", "n", "rate")), ("cycles_total", "cycles_law", ("n", "clock")),
                       ("unit_peak", "unit_peak_law", ("rate", "clock"))]
    assert str(routes["cycles_total"].expr) == "peak/rate"   # n cancels through the clock's route
    assert [grid_kb.relations[i].name for i in checks] == ["boost_is_clock"]


def test_routes_are_the_planners_steps_and_checks_its_leftovers(grid_kb):
    """The same plan the solver's planner makes with expectations as checks only and no blocks."""
    analysis = Analysis(grid_kb)
    known = {"n", "clock", "peak", "unit_peak", "boost"}
    routes, checks = analysis.routes(known, frozenset())
    relations = grid_kb.relations
    plan = make_plan(analysis.keysets, known, lambda r, k: relations[r].can_solve_for(k),
                     derives=lambda r: relations[r].kind == "law", blocks=False)
    assert [(k, r.rule) for k, r in routes.items() if r.rule] == \
        [(s.outputs[0], relations[s.relations[0]].name) for s in plan.steps] == [("rate", "peak_law"),
                                                                                ("cycles_total", "cycles_law")]
    assert checks == plan.checks and [relations[i].name for i in checks] == ["unit_peak_law", "boost_is_clock"]


def test_expectations_never_derive(grid_kb):
    """boost = clock would give the clock, and with it the peak; an expectation is a check only."""
    routes, checks = Analysis(grid_kb).routes({"n", "rate", "boost"}, frozenset())
    assert set(routes) == {"n", "rate", "boost"} and checks == ()
    routes, checks = Analysis(grid_kb).routes({"n", "rate", "boost", "cycles_total"}, frozenset())
    assert routes["clock"].rule == "cycles_law" and routes["peak"].rule == "peak_law"
    assert [grid_kb.relations[i].name for i in checks] == ["boost_is_clock"]


def test_checks_of_a_pattern_their_kinds_targets_and_defaults(family_kb):
    auditor = Auditor(family_kb)
    (row,) = auditor.rows(["chip"])
    checks = {c.relation.name: c for c in auditor.analysis.checks(row.pattern)}
    assert {name: c.kind for name, c in checks.items()} == {
        "peak_law": CheckKind.LAW, "width_law": CheckKind.LAW, "boost_is_clock": CheckKind.EXPECTATION}
    peak = checks["peak_law"]
    assert (peak.target, peak.variables, peak.defaults, peak.target_via) == ("peak", ("peak", "n", "clock"),
                                                                             ("rate",), None)
    assert peak.symbols == ("clock", "n", "peak", "rate")


def test_a_fact_stated_n_a_takes_its_relations_out(family_kb):
    auditor = Auditor(family_kb)
    (row,) = auditor.rows(["slow"])
    assert row.not_applicable == {"lanes"}
    assert [c.relation.name for c in auditor.analysis.checks(row.pattern)] == ["peak_law"]


def test_a_pattern_is_analysed_once_and_equal_expressions_share_functions(family_kb, tmp_path):
    auditor = Auditor(family_kb)
    chip, other = auditor.rows(["chip", sheet(family_kb, tmp_path, {"boost": "n/a"}, eid="no-boost",
                                              extends="chip")])
    assert chip.pattern != other.pattern
    first = auditor.analysis.checks(chip.pattern)
    assert auditor.analysis.checks(chip.pattern) is first
    peak = {c.relation.name: c for c in auditor.analysis.checks(other.pattern)}["peak_law"]
    assert peak.ratio is {c.relation.name: c for c in first}["peak_law"].ratio


def test_stated_vs_derived(grid_kb, tmp_path):
    """rate and clock from the unit peak and the unit-cycles: the peak is then both stated and derived."""
    facts = {"n": "100", "cycles_total": "150", "unit_peak": "0.006", "peak": "0.6"}
    (check,) = audit(grid_kb, [sheet(grid_kb, tmp_path, facts)]).entities[0].checks
    assert check.kind == "stated_vs_derived" and check.status == "consistent"
    assert set(check.variables) == {"peak", "n", "unit_peak"}  # the clock, and with it cycles_total, cancels


def test_a_check_of_defaults_alone_is_no_check(family_kb, tmp_path):
    """issue = rate holds two defaults: no evidence about any stated figure."""
    entity = sheet(family_kb, tmp_path, {"boost": "1.5 GHz"}, eid="bare")
    _, checks = Analysis(family_kb).routes({"boost", "rate", "issue"}, frozenset())
    assert [family_kb.relations[i].name for i in checks] == ["issue_is_rate"]
    (result,) = audit(family_kb, [entity]).entities
    assert result.checks == () and result.notes == ("no rule has all its variables known for this entity",)
