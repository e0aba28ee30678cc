"""hwkb.audit.suspects: the perturbed fact is the top suspect with the value it should have; hints applied."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hwkb.audit.auditor import audit
from hwkb.render.finding_words import detail, hint_text

from audit_kbs import GRID, GRID_FACTS, HINTS, by_rule, digits, exact_facts, make_kb, sheet


@pytest.fixture(scope="module")
def grid_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "grid", GRID)


@pytest.fixture(scope="module")
def hints_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "hints", HINTS)


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
exact = st.tuples(st.integers(10, 200), st.integers(1000, 9999), st.integers(1000, 3000))


@SETTINGS
@given(values=exact, which=st.sampled_from(GRID_FACTS), delta=st.floats(0.02, 0.5), sign=st.sampled_from((-1, 1)),
       step=st.integers(1, 5))
def test_a_perturbed_fact_is_the_top_suspect_with_the_value_it_should_have(grid_kb, tmp_path, values, which, delta,
                                                                           sign, step):
    facts = exact_facts(*values)
    true = float(facts[which])
    if which == "n":
        facts["n"] = str(int(true) + sign * step)
    elif which in ("rate", "clock"):
        facts[which] = f"{true * (1 + sign * delta / 2):.3f}"
    else:
        facts[which] = digits(true * (1 + sign * delta))
    (entity,) = audit(grid_kb, [sheet(grid_kb, tmp_path, facts)]).entities
    assert any(c.status == "inconsistent" for c in entity.checks)
    top = entity.suspects[0]
    assert top.fact == which and top.in_every_failed
    assert top.implied == pytest.approx(true, rel=1e-9 if which not in ("rate", "clock") else 1e-6)
    for check in entity.checks:
        if check.status == "inconsistent":
            assert check.suspects[0].fact == which


def test_a_count_that_would_come_out_fractional_is_implausible(grid_kb, tmp_path):
    """100 x 1.5 x 1.0 GHz is 0.3 TFLOPS; 0.335 would need 111.67 units."""
    facts = {"n": "100", "rate": "1.500", "clock": "1.000", "peak": "0.3350"}
    (entity,) = audit(grid_kb, [sheet(grid_kb, tmp_path, facts)]).entities
    suspects = {s.fact: s for s in entity.suspects}
    assert not suspects["n"].plausible and suspects["n"].implied == pytest.approx(111.67, rel=1e-3)
    assert all(s.plausible for s in entity.suspects if s.fact != "n")
    assert [s.fact for s in entity.suspects][-1] == "n"
    whole = audit(grid_kb, [sheet(grid_kb, tmp_path, {**facts, "peak": "0.3300"}, eid="whole", name="w.yaml")])
    assert {s.fact: s for s in whole.entities[0].suspects}["n"].implied == 110.0


def test_a_broken_law_outranks_a_broken_expectation(grid_kb, tmp_path):
    """The expectation's suspects are ranked among the failed expectations, the entity's among the failed laws."""
    facts = {**exact_facts(100, 1500, 1000), "peak": digits(0.3 * 1.2), "boost": "1.5"}
    (entity,) = audit(grid_kb, [sheet(grid_kb, tmp_path, facts)]).entities
    assert entity.suspects[0].fact == "peak"
    expectation = by_rule(entity)["boost_is_clock"]
    assert expectation.status == "inconsistent" and expectation.suspects[0].fact == "boost"
    assert entity.conflicts == (("clock", "n", "peak", "rate"),)


def test_hint_sparse_figure_under_a_dense_key(hints_kb, tmp_path):
    """100 SMs x 1024 FMA x 1.5 GHz is 307.2 TFLOPS dense; 614.4 is the sparse figure."""
    facts = {"n": "100", "rate": "1024", "clock": "1.5", "peak": "614.4 TFLOPS"}
    (result,) = audit(hints_kb, [sheet(hints_kb, tmp_path, facts)]).entities
    (check,) = result.checks
    assert hint_text(check.hint).startswith("peak = 614.4 TFLOPS is exactly 2x")
    assert "looks like a sparse figure under a dense key (a sheet's 2:4 sparsity figure belongs to peak_sparse)" \
        in hint_text(check.hint)
    assert result.suspects[0].fact == "peak" and result.suspects[0].implied == pytest.approx(307.2)
    assert detail(check).endswith(f"; hint: {hint_text(check.hint)}")


def test_hint_bits_vs_bytes(hints_kb, tmp_path):
    facts = {"bus_bits": "5120", "data_rate": "2.43 Gbit/s", "bandwidth": "12441.6 GB/s"}
    (check,) = audit(hints_kb, [sheet(hints_kb, tmp_path, facts)]).entities[0].checks
    assert check.status == "inconsistent" and "bits vs bytes" in hint_text(check.hint)
    assert check.deviation == pytest.approx(700.0)


def test_hint_binary_vs_decimal_prefix(hints_kb, tmp_path):
    """100 SMs x 256 KiB is 25 MiB; 26.214 under a MiB key is that number of MB."""
    facts = {"n": "100", "register_file": "256 KiB", "register_total": "26.214 MiB"}
    (check,) = audit(hints_kb, [sheet(hints_kb, tmp_path, facts)]).entities[0].checks
    assert (check.kind, check.status) == ("law", "inconsistent")
    assert "binary vs decimal prefix" in hint_text(check.hint) and "1.04858" in hint_text(check.hint)


def test_no_hint_for_a_factor_no_mistake_explains(hints_kb, tmp_path):
    facts = {"n": "100", "rate": "1024", "clock": "1.5", "peak": "350 TFLOPS"}
    (check,) = audit(hints_kb, [sheet(hints_kb, tmp_path, facts)]).entities[0].checks
    assert check.status == "inconsistent" and check.hint is None and "hint" not in detail(check)


@SETTINGS
@given(values=exact, which=st.sampled_from(GRID_FACTS), factor=st.sampled_from((2.0, 8.0, 1000.0, 1.3)))
def test_suspects_and_hints_assessed_once_for_a_row_are_those_assessed_afresh(grid_kb, tmp_path, values, which,
                                                                             factor):
    from hwkb.audit.auditor import Auditor
    from hwkb.audit.suspects import check_hint, rank_suspects, with_implied
    facts = exact_facts(*values)
    facts[which] = str(int(float(facts[which]) * factor)) if which == "n" else digits(float(facts[which]) * factor)
    auditor = Auditor(grid_kb)
    (row,) = auditor.rows([sheet(grid_kb, tmp_path, facts)])
    evaluations = auditor.evaluate(auditor.prepare([row]))
    (audited,) = auditor.report([row], evaluations)
    failed = [e for e in evaluations if e.status == "inconsistent"]
    passing = [e for e in evaluations if e.status != "inconsistent"]
    assert failed
    laws = [e for e in failed if e.check.kind != "expectation"]
    assert list(audited.suspects) == rank_suspects(row, laws or failed, passing, grid_kb)
    checks = by_rule(audited)
    for e in failed:
        check = checks[e.check.relation.name]
        assert check.suspects == tuple(with_implied(s, row, e.fact_implied.get(s.fact), grid_kb, e.spread)
                                       for s in check.suspects)
        assert check.hint == check_hint(grid_kb, e, check.value, check.implied, check.suspects)
