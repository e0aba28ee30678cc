"""The questions on the real KB: thresholds, closed forms, sweeps, what-ifs and interventions in its figures,
and the questions behind the exp-bound and operand-bandwidth tables (the tables themselves are in test_queries.py).

The engine's behaviour is tested on small KBs in tests/questions; these tests
pin kb/'s own figures, so editing a fact of kb/ may change them.
"""
from __future__ import annotations

import math

import pytest
import sympy
from hypothesis import given, settings, strategies as st

from hwkb.errors import DimensionError, KBError, NoClosedForm, QueryError, UnknownNameError
from hwkb.questions.closed_forms import closed_form, default_free, parse_free, solve_symbolic
from hwkb.questions.interventions import BASELINE_SOURCE, intervene
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.questions.thresholds import solve_constrained
from hwkb.questions.whatif import scenario_contexts, what_if
from hwkb.render.note_words import note_text
from hwkb.solving.points import PointEvaluator
from hwkb.solving.solution import Interval


@pytest.fixture(scope="module")
def kb(real_kb):
    return real_kb


# ---------------------------------------------------------------- thresholds

def test_dimension_mismatch_in_where_is_an_error(kb):
    with pytest.raises(DimensionError):
        solve_constrained(kb, "clock_tc", kb.context("h100-sxm"), ["tc_peak[bf16] >= 1000"])


def test_head_dimension_threshold_in_fp8(kb):
    solution = kb.solve("d_qk", gpu="h100-sxm", where=["d_v = d_qk", "exp_utilization[fp8] <= 1"])
    assert solution.status == "derived" and solution.magnitude == 128
    assert solution.intervals == (Interval(128.0, None, True, False),)
    inputs = {v.key: v.magnitude for v in solution.value.origin.inputs}
    assert inputs == {"exp_utilization[fp8]": 1.0}


def test_symbolic_threshold_agrees_with_bisection_on_the_numeric_form(kb):
    where = ["exp_utilization[bf16] <= 0.9"]
    context = kb.context("b200", facts=["d_v=100"])
    solution = solve_constrained(kb, "d_qk", context, where)
    evaluate = PointEvaluator(kb, context, ["d_qk"], ["exp_utilization[bf16]"])
    f = lambda d: evaluate({"d_qk": d})["exp_utilization[bf16]"].magnitude - 0.9
    lo, hi = 1.0, 4096.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if f(mid) <= 0 else (mid, hi)
    assert solution.intervals[0].lower == pytest.approx(hi, rel=1e-9)
    assert solution.magnitude == math.ceil(hi)


@settings(max_examples=4, deadline=None)
@given(d_v=st.integers(1, 1024), bound=st.sampled_from([0.25, 0.5, 0.9, 1.0, 2.0]))
def test_exact_and_numeric_thresholds_agree(kb, d_v, bound):
    context = kb.context("h100-sxm", facts=[f"d_v={d_v}"])
    where = [f"exp_utilization[fp8] <= {bound}"]
    exact = solve_constrained(kb, "d_qk", context, where, method="exact")
    numeric = solve_constrained(kb, "d_qk", context, where, method="numeric")
    assert exact.magnitude == numeric.magnitude


def test_least_warps_by_search_through_the_simulation(kb):
    solution = kb.solve("warps_per_scheduler", facts=["loads_per_round=4", "compute_per_round=64", "latency_cycles=500"],
                        where=["scheduler_utilization >= 0.9"])
    assert solution.status == "derived" and solution.magnitude == 8
    assert solution.intervals[0].lower == 8.0
    assert any("simulated rule scheduler_model" in n for n in solution.notes)


@pytest.mark.parametrize("variable, layers, where, intervals, value", [
    ("tile_n", ["tcgen05-m128n256k16"], ["accumulators_in_tmem >= 2"], [(1.0, 256.0, True, True)], 256),
    ("tmem_cell_bits", ["tcgen05-m128n256k16"], ["accumulators_in_tmem >= 3", "accumulators_in_tmem < 4"],
     [(48.0, 64.0, True, False)], 48.0),
    ("tmem_cell_bits", ["tcgen05-m128n256k16"], ["accumulators_in_tmem >= 2", "accumulators_in_tmem < 4"],
     [(32.0, 64.0, True, False)], 32.0),
])
def test_numeric_windows_find_both_ends_and_their_closedness(kb, variable, layers, where, intervals, value):
    s = kb.solve(variable, gpu="b200", layers=layers, where=where)
    assert [(i.lower, i.upper, i.lower_closed, i.upper_closed) for i in s.intervals] == \
        [pytest.approx(i) for i in intervals]
    assert s.magnitude == pytest.approx(value)


def test_an_integer_variable_without_an_integer_in_range_is_infeasible(kb):
    s = kb.solve("d_qk", where=["d_qk > 100", "d_qk < 101"])
    assert s.status == "infeasible" and s.notes[-1] == "no positive integer satisfies 'd_qk > 100' and 'd_qk < 101'"


def test_the_search_stops_where_the_simulation_refuses(kb):
    s = kb.solve("warps_per_scheduler", facts=["loads_per_round=4", "compute_per_round=64", "latency_cycles=500"],
                 where=["scheduler_utilization >= 0.9"])
    assert s.magnitude == 8 and "512 warps at 100 iters is too large to simulate" in s.notes[-1]


# ---------------------------------------------------------------- closed forms

def test_the_text_parses_back(kb):
    form = closed_form(kb, "exp_utilization[fp8]", kb.context("b200"), ["d_qk", "d_v", "tc_fma_per_sm_cycle[fp8]"])
    names = {s.name: s for s in form.expression.free_symbols}
    assert set(names) == {"d_qk", "d_v", "tc_fma_per_sm_cycle__fp8"}
    assert form.text == "tc_fma_per_sm_cycle__fp8/(16*(d_qk + d_v))"
    assert sympy.simplify(sympy.parse_expr(form.text, local_dict=names) - form.expression) == 0


def test_h100_bf16_exp_utilization_in_the_head_dimensions(kb):
    form = closed_form(kb, "exp_utilization[bf16]", kb.context("h100-sxm"), ["d_qk", "d_v"])
    assert form.text == "128/(d_qk + d_v)"
    assert form.latex == r"\frac{128}{\mathrm{d\_qk} + \mathrm{d\_v}}"
    assert {k: float(e) for k, e in form.elasticities({"d_qk": 64, "d_v": 192}).items()} == \
        {"d_qk": -0.25, "d_v": -0.75}


def test_the_targets_own_fact_is_set_aside(kb):
    form = closed_form(kb, "tc_peak[bf16]", kb.context("h100-sxm"), ["clock_tc"])
    assert form.approximate == "540.672*clock_tc"


def test_simulated_rules_have_no_closed_form(kb):
    context = kb.context(facts=["loads_per_round=4", "compute_per_round=64", "latency_cycles=500"])
    with pytest.raises(NoClosedForm) as info:
        closed_form(kb, "scheduler_utilization", context, ["warps_per_scheduler"])
    assert "simulated rule scheduler_model" in str(info.value)


def test_unknown_free_variable_suggests(kb):
    with pytest.raises(UnknownNameError) as info:
        parse_free(kb, "d_qk, d_vv")
    assert str(info.value) == "--free: unknown variable 'd_vv'; did you mean 'd_v'?"


def test_default_free_expands_the_defining_rules(kb):
    assert default_free(kb, "exp_utilization[bf16]", kb.context("h100-sxm"))[0] == ("d_qk", "d_v")
    assert default_free(kb, "exp_utilization[bf16]", kb.context("h100-sxm"), ["d_v = d_qk"])[0] == ("d_qk",)
    given = kb.context("h100-sxm", facts=["d_qk=64", "d_v=64"])
    assert default_free(kb, "exp_utilization[bf16]", given) == (("d_qk", "d_v"), "the facts given for this query")


def test_solve_symbolic_gives_the_contract_fields(kb):
    context = kb.context("h100-sxm", facts=["d_qk=128", "d_v=128"])
    solution = solve_symbolic(kb, "exp_utilization[bf16]", context, ["d_qk", "d_v"], sensitivity=True)
    document = solution.to_dict()
    assert document["expression"] == "128/(d_qk + d_v)" and document["free"] == ["d_qk", "d_v"]
    assert document["value"] == 0.5 and document["status"] == "derived"
    assert document["sensitivity"] == [
        {"variable": "d_qk", "expression": "-d_qk/(d_qk + d_v)", "elasticity": -0.5},
        {"variable": "d_v", "expression": "-d_v/(d_qk + d_v)", "elasticity": -0.5}]


@settings(max_examples=12, deadline=None)
@given(d_qk=st.integers(1, 2048), d_v=st.integers(1, 2048),
       case=st.sampled_from([("h100-sxm", "bf16"), ("h100-sxm", "fp8"), ("b200", "fp4"), ("a100", "tf32"),
                             ("v100", "fp16"), ("b300-like", "bf16")]))
def test_real_closed_forms_equal_the_solver(kb, d_qk, d_v, case):
    gpu, precision = case
    key = f"exp_utilization[{precision}]"
    form = closed_form(kb, key, kb.context(gpu), ["d_qk", "d_v"])
    numeric = kb.solve(key, gpu=gpu, facts=[f"d_qk={d_qk}", f"d_v={d_v}"])
    assert form.evaluate({"d_qk": d_qk, "d_v": d_v}) == pytest.approx(numeric.magnitude, rel=1e-9)


# ---------------------------------------------------------------- sweeps

def test_ranges_include_their_stop(kb):
    assert parse_axis(kb, "d_qk=64:256:64").values == (64.0, 128.0, 192.0, 256.0)
    assert parse_axis(kb, "d_qk=64:250:64").values == (64.0, 128.0, 192.0)
    assert parse_axis(kb, "d_v=64, 128,576").values == (64.0, 128.0, 576.0)


def test_values_may_carry_units(kb):
    axis = parse_axis(kb, "clock_tc=1500MHz:2GHz:0.25GHz")
    assert axis.unit == "GHz" and axis.values == (1.5, 1.75, 2.0)


@pytest.mark.parametrize("text, message", [
    ("d_qk", "cannot read --sweep 'd_qk'; write VAR=START:STOP:STEP or VAR=v1,v2,..., e.g. d_qk=64:256:64"),
    ("d_qk=64:256", "--sweep 'd_qk=64:256': a range is START:STOP:STEP; e.g. d_qk=64:256:64"),
    ("d_qk=64:256:0", "--sweep 'd_qk=64:256:0': the step must be positive; e.g. d_qk=64:256:64"),
    ("d_qk=256:64:8", "--sweep 'd_qk=256:64:8': STOP is below START; write START:STOP:STEP with START <= STOP"),
    # the one quantity syntax of KB files, --set and --sweep, with the same messages
    ("d_qk=a,b", "--sweep 'd_qk=a,b': cannot read 'a' as a value of d_qk; write a number, optionally with a unit "
                 "of a count"),
    ("clock_tc=1:2:1s", "--sweep 'clock_tc=1:2:1s': '1s' does not fit clock_tc, which is in GHz; give it in GHz"),
    ("d_qk=-64,0", "--sweep 'd_qk=-64,0': '-64' is negative, and no KB quantity is; give the size of d_qk"),
    ("d_qk=64,n/a", "--sweep 'd_qk=64,n/a': 'n/a' is not a value to sweep over; write numbers in plain numbers, "
                    "e.g. 64"),
    ("d_qk=64.5", "--sweep 'd_qk=64.5': d_qk counts whole things; sweep whole numbers, e.g. 64:256:64"),
    ("d_qk=1:2:1e-20", "--sweep 'd_qk=1:2:1e-20' has more than 10000000 points; take a larger step"),
])
def test_malformed_sweeps_are_one_line_errors(kb, text, message):
    with pytest.raises(KBError) as info:
        parse_axis(kb, text)
    assert str(info.value) == message


def test_unknown_sweep_variable_suggests(kb):
    with pytest.raises(UnknownNameError) as info:
        parse_axis(kb, "d_kq=1,2")
    assert "did you mean 'd_qk'?" in str(info.value)


def test_sweep_agrees_with_single_solves(kb):
    axes = [parse_axis(kb, "d_qk=64,128,576"), parse_axis(kb, "d_v=64,512")]
    result = sweep(kb, "exp_utilization[fp8]", kb.context("h100-sxm"), axes)
    assert result.method == "closed form" and result.columns == ["d_qk", "d_v", "exp_utilization[fp8]"]
    for d_qk, d_v, value in result.rows():
        single = kb.solve("exp_utilization[fp8]", gpu="h100-sxm", facts=[f"d_qk={d_qk:g}", f"d_v={d_v:g}"])
        assert value == pytest.approx(single.magnitude, rel=1e-12)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(1, 4096), min_size=1, max_size=5, unique=True), st.sampled_from(["a100", "b200"]))
def test_closed_form_and_point_by_point_agree(kb, values, gpu):
    axes = [parse_axis(kb, "d_qk=" + ",".join(map(str, values)))]
    context = kb.context(gpu, facts=["d_v=128"])
    fast = sweep(kb, "exp_utilization[bf16]", context, axes)
    slow = sweep(kb, "exp_utilization[bf16]", context, axes, method="point by point")
    assert fast.values.tolist() == pytest.approx(slow.values.tolist(), rel=1e-12)


def test_a_simulated_target_is_swept_point_by_point(kb):
    context = kb.context(facts=["loads_per_round=4", "compute_per_round=64", "latency_cycles=500"])
    result = sweep(kb, "scheduler_utilization", context, [parse_axis(kb, "warps_per_scheduler=1,2,4,8,16")])
    assert result.method == "point by point"
    assert [f"{v:.0%}" for v in result.values] == ["12%", "24%", "48%", "95%", "99%"]


def test_swept_facts_override_the_context(kb):
    context = kb.context("h100-sxm", facts=["d_qk=999", "d_v=128"])
    result = sweep(kb, "exp_utilization[bf16]", context, [parse_axis(kb, "d_qk=128")])
    assert result.values.tolist() == [0.5]


def test_outputs_csv_json_and_table(kb):
    result = sweep(kb, "smem_share", kb.context("hopper", ["wgmma-m64n64k16"]),
                   [parse_axis(kb, "tile_n=64,256"), parse_axis(kb, "b_cols=64,256")])
    assert result.render("csv").splitlines() == ["tile_n,b_cols,smem_share [fraction]", "64,64,1.0", "64,256,2.5",
                                            "256,64,0.25", "256,256,0.625"]  # counts in integers
    document = result.to_dict()
    assert document["columns"] == ["tile_n", "b_cols", "smem_share"] and document["rows"][3] == [256.0, 256.0, 0.625]
    assert result.render().splitlines()[0].split() == ["tile_n", "b_cols", "smem_share", "[%]"]
    assert result.render().splitlines()[4].split() == ["256", "256", "62.5"]  # text: the fraction in percent


def test_sweep_errors(kb):
    context = kb.context("h100-sxm")
    with pytest.raises(QueryError, match="both the target and swept"):
        sweep(kb, "d_qk", context, [parse_axis(kb, "d_qk=1,2")])
    with pytest.raises(QueryError, match="swept twice"):
        sweep(kb, "exp_utilization[bf16]", context, [parse_axis(kb, "d_qk=1"), parse_axis(kb, "d_qk=2")])
    with pytest.raises(QueryError, match="does not follow"):
        sweep(kb, "exp_utilization[bf16]", context, [parse_axis(kb, "d_qk=1,2")])


def test_point_evaluator_reruns_only_what_changes(kb):
    evaluate = PointEvaluator(kb, kb.context("h100-sxm", facts=["d_v=128"]), ["d_qk"], ["exp_utilization[bf16]"])
    assert [s.outputs for s in evaluate.steps] == [("flop_per_score",), ("exp_demand_per_sm_cycle[bf16]",),
                                                    ("exp_utilization[bf16]",)]
    assert evaluate({"d_qk": 384})["exp_utilization[bf16]"].magnitude == 0.25


def test_points_that_break_a_given_equality_are_left_empty(kb):
    result = sweep(kb, "smem_share", kb.context("hopper", layers=["wgmma-m64n64k16"]),
                   [parse_axis(kb, "tile_n=64,128,256")], where=["b_cols = tile_n"])  # b_cols is stated: 64
    assert result.values[0] == 1.0 and all(math.isnan(v) for v in result.values[1:])
    assert result.notes == ("'b_cols = tile_n' does not hold at 2 of 3 points: those are left empty",)


def test_a_point_the_simulation_refuses_is_left_empty_with_a_note(kb):
    context = kb.context(facts=["loads_per_round=1", "compute_per_round=16", "latency_cycles=500"])
    result = sweep(kb, "scheduler_utilization", context, [parse_axis(kb, "warps_per_scheduler=16,512")])
    assert result.values[0] == pytest.approx(0.52, abs=0.01) and math.isnan(result.values[1])
    assert note_text(result.notes[-1]).startswith("1 point could not be evaluated and is left empty, e.g. warps")


# ---------------------------------------------------------------- what-if

GIVEN = ["d_qk=128", "d_v=128"]


def test_sfu_doubled_halves_the_exp_utilization(kb):
    result = what_if(kb, ["exp_utilization[bf16]", "sfu_exp_per_sm_cycle"], gpu="b200", given=GIVEN,
                     scenarios=["sfu-doubled"])
    rows = {r.variable: (r.baseline.magnitude, r.scenario.magnitude, r.change) for r in result.rows}
    assert rows == {"exp_utilization[bf16]": (1.0, 0.5, -0.5), "sfu_exp_per_sm_cycle": (16.0, 32.0, 1.0)}
    assert result.changes == ("sfu_exp_per_unit_cycle",)


def test_without_variables_every_changed_value_is_shown(kb):
    result = what_if(kb, gpu="b200", given=GIVEN, changes=["sfu_exp_per_unit_cycle=2"])
    keys = [r.variable for r in result.rows]
    assert keys[0] == "sfu_exp_per_unit_cycle" and result.rows[0].overridden
    assert {"sfu_exp_per_sm_cycle", "sfu_exp_rate", "exp_utilization[bf16]", "exp_utilization[fp8]"} <= set(keys)
    assert "tc_peak[bf16]" not in keys and "d_qk" not in keys
    assert all(r.change is not None for r in result.rows)


def test_the_scenario_fact_carries_scenario_provenance(kb):
    (row,) = what_if(kb, ["exp_utilization[bf16]"], gpu="b200", given=GIVEN, scenarios=["sfu-doubled"]).rows
    facts = {v.key: v.origin for v in row.scenario.facts()}
    assert facts["sfu_exp_per_unit_cycle"].via == "scenario"
    assert facts["sfu_exp_per_unit_cycle"].entity == "sfu-doubled"
    assert facts["d_qk"].via == "given"
    baseline = {v.key: v.origin for v in row.baseline.facts()}
    assert baseline["sfu_exp_per_unit_cycle"].via == "default"


def test_a_scenario_entity_contributes_only_what_differs(kb):
    baseline, scenario, _ = scenario_contexts(kb, gpu="b200", given=GIVEN, scenarios=["b300-like"])
    assert [k for k, v in scenario.overrides.items() if v == "scenario"] == ["sfu_exp_per_unit_cycle"]
    assert baseline.overrides == {"d_qk": "given", "d_v": "given"}


def test_set_wins_over_the_scenario_entity_and_given_stays(kb):
    result = what_if(kb, ["sfu_exp_per_unit_cycle", "d_qk"], gpu="b200", given=GIVEN, scenarios=["sfu-doubled"],
                     changes=["sfu_exp_per_unit_cycle=4"])
    assert [(r.baseline.magnitude, r.scenario.magnitude) for r in result.rows] == [(1.0, 4.0), (128.0, 128.0)]


def test_a_what_if_needs_a_change(kb):
    with pytest.raises(QueryError) as info:
        what_if(kb, ["sfu_exp_rate"], gpu="b200")
    assert str(info.value) == "a what-if needs a change; give --set VAR=VALUE or --scenario ID (e.g. sfu-doubled)"


def test_unknown_scenario_suggests(kb):
    with pytest.raises(UnknownNameError) as info:
        what_if(kb, gpu="b200", scenarios=["sfu-double"])
    assert str(info.value) == "--scenario: unknown entity 'sfu-double'; did you mean 'sfu-doubled'?"


def test_thresholds_compare_too(kb):
    (row,) = what_if(kb, ["d_qk"], gpu="h100-sxm", scenarios=["sfu-doubled"],
                     where=["d_v = d_qk", "exp_utilization[fp8] <= 1"]).rows
    assert (row.baseline.magnitude, row.scenario.magnitude, row.change) == (128.0, 64.0, -0.5)


# ---------------------------------------------------------------- interventions

def rows(result):
    return {r.variable: (r.baseline.magnitude, r.scenario.magnitude) for r in result.rows}


def test_a_faster_clock_moves_the_stated_peak_not_the_rate(kb):
    result = rows(what_if(kb, ["tc_peak[bf16]", "exp_utilization[bf16]"], gpu="b200",
                          given=["d_qk=128", "d_v=128"], changes=["clock_tc=2GHz"]))
    base, scenario = result["tc_peak[bf16]"]
    assert (base, scenario) == (2250, pytest.approx(148 * 8192 * 2e-3))  # 148 SMs x 8192 flop x 2 GHz
    assert result["exp_utilization[bf16]"] == (1.0, 1.0)                             # per cycle: unchanged


def test_more_sms_hold_the_clock_the_peak_gave(kb):
    result = rows(what_if(kb, ["tc_peak[bf16]", "clock_tc"], gpu="b200", changes=["sm_count=160"]))
    assert result["clock_tc"][0] == result["clock_tc"][1]
    assert result["tc_peak[bf16]"][1] == pytest.approx(2250 * 160 / 148)


def test_changing_the_peak_moves_the_clock(kb):
    result = rows(what_if(kb, ["clock_tc"], gpu="b200", changes=["tc_peak[bf16]=3000TFLOPS"]))
    assert result["clock_tc"][1] == pytest.approx(result["clock_tc"][0] * 3000 / 2250)


def test_held_values_say_so(kb):
    base = kb.context("b200")
    context, notes = intervene(kb, base, kb.context("b200", facts=["sm_count=160"]), ["sm_count"])
    assert "tc_peak[bf16]" not in context.facts and context.facts["clock_tc"].source == BASELINE_SOURCE
    assert any(note.startswith("tc_peak[bf16] (stated 2250 TFLOPS) is recomputed") for note in notes)


def test_nothing_changes_when_nothing_is_stale(kb):
    context = kb.context("h100-sxm", facts=["sfu_exp_per_unit_cycle=2"])
    assert intervene(kb, kb.context("h100-sxm"), context, ["sfu_exp_per_unit_cycle"]) == (context, ())


def test_sweeps_and_closed_forms_free_what_they_drive(kb):
    result = sweep(kb, "tc_peak[fp8]", kb.context("h100-sxm"), [parse_axis(kb, "clock_tc=1.5,2")])
    assert list(result.values) == pytest.approx([132 * 8192 * 1.5e-3, 132 * 8192 * 2e-3])
    form = closed_form(kb, "tc_peak[fp8]", kb.context("h100-sxm"), ["sm_count", "clock_tc"])
    assert form.text == "1024*clock_tc*sm_count/125"


# ---------------------------------------------------------------- the chapter's questions: tensor memory, the SFU what-if, closed forms, thresholds and sweeps

@pytest.mark.parametrize("variable, gpu, layers, expected", [
    ("tmem_per_sm", "b200", [], 256.0),                                    # 128 rows x 512 columns x 32 bit
    ("accumulators_in_tmem", "b200", ["tcgen05-m128n256k16"], 2.0),       # exactly two 128 x 256 accumulators
    ("accumulator_registers_per_thread", "hopper", ["wgmma-m64n256k16"], 128.0),
    ("smem_share", "hopper", ["wgmma-m64n128k16"], 0.75),
    ("sfu_exp_per_sm_cycle", "b300-like", [], 32.0),
])
def test_operand_and_tensor_memory_figures(kb, variable, gpu, layers, expected):
    solution = kb.solve(variable, gpu=gpu, layers=layers)
    assert solution.status == "derived" and solution.magnitude == pytest.approx(expected)


def test_a_128x256_accumulator_would_need_256_registers_per_thread(kb):
    solution = kb.solve("accumulator_registers_per_thread", gpu="blackwell", layers=["tcgen05-m128n256k16"],
                        facts=["accumulator_threads=128"])
    assert solution.magnitude == 256.0  # past the limit of 255 per thread


def test_whatif_sfu_doubled_on_b200(kb):
    (row,) = what_if(kb, ["exp_utilization[bf16]"], gpu="b200", given=["d_qk=64", "d_v=64"],
                     scenarios=["sfu-doubled"]).rows
    assert (f"{row.baseline.magnitude:.0%}", f"{row.scenario.magnitude:.0%}", row.change) == ("200%", "100%", -0.5)


def test_symbolic_exp_utilization_and_fp8_threshold(kb):
    assert closed_form(kb, "exp_utilization[fp8]", kb.context("h100-sxm"), ["d_qk", "d_v"]).text == \
        "256/(d_qk + d_v)"
    solution = kb.solve("d_qk", gpu="h100-sxm", where=["d_v = d_qk", "exp_utilization[fp8] <= 1"])
    assert solution.magnitude == 128  # FP8 on an H100 stops being exp-bound at head dimension 128


def test_smem_share_scales_as_the_chapter_says(kb):
    result = sweep(kb, "smem_share", kb.context("hopper", facts=["tile_m=64", "a_rows=64", "operand_bytes=2"]),
                   [parse_axis(kb, "tile_n=64,128,256")], where=["b_cols = tile_n"])
    assert [f"{v:.0%}" for v in result.values] == ["100%", "75%", "62%"]


def test_tensor_memory_is_blackwells_alone(kb):
    assert kb.solve("accumulators_in_tmem", gpu="hopper", layers=["tcgen05-m128n256k16"]).status == "not_applicable"


def test_raising_an_h100s_bandwidth_lists_the_data_rate_it_moved(kb):
    """Issue 19: the data rate rose with the bandwidth without a word; now it is a row marked as worked back."""
    result = what_if(kb, ["memory_bandwidth"], gpu="h100-sxm", changes=["memory_bandwidth=4TB/s"])
    moved = {r.variable: r.moved for r in result.rows}
    assert moved == {"memory_bandwidth": None, "memory_data_rate": "worked back from the change"}
    rate = next(r for r in result.rows if r.variable == "memory_data_rate")
    assert rate.scenario.magnitude == pytest.approx(4000 * 8 / 5120)
