"""hwkb.questions.sweeps: grids through the vectorised closed form agree with single solves."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from hwkb.errors import KBError, QueryError, UnknownNameError
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.solving.points import PointEvaluator


@pytest.fixture(scope="module")
def kb(real_kb):
    return real_kb


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
    ("d_qk=1e-300:1:1e-300", "--sweep 'd_qk=1e-300:1:1e-300' has more than 10000000 points; take a larger step"),
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
    assert result.to_csv().splitlines() == ["tile_n,b_cols,smem_share", "64.0,64.0,1.0", "64.0,256.0,2.5",
                                            "256.0,64.0,0.25", "256.0,256.0,0.625"]
    document = result.to_dict()
    assert document["columns"] == ["tile_n", "b_cols", "smem_share"] and document["rows"][3] == [256.0, 256.0, 0.625]
    assert result.render().splitlines()[0].split() == ["tile_n", "b_cols", "smem_share"]


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
    assert "1 points could not be evaluated" in result.notes[-1]
