"""hwkb.questions.sweeps: grids through the vectorised closed form agree with single solves."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from hwkb.errors import KBError, QueryError, UnknownNameError
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.solving.points import PointEvaluator
from hwkb.render.note_words import note_text


def test_ranges_include_their_stop(tiny_kb):
    assert parse_axis(tiny_kb, "sm_count=64:256:64").values == (64.0, 128.0, 192.0, 256.0)
    assert parse_axis(tiny_kb, "sm_count=64:250:64").values == (64.0, 128.0, 192.0)
    assert parse_axis(tiny_kb, "sm_count=64, 128,576").values == (64.0, 128.0, 576.0)


def test_values_may_carry_units(tiny_kb):
    axis = parse_axis(tiny_kb, "clock=1500MHz:2GHz:0.25GHz")
    assert axis.unit == "GHz" and axis.values == (1.5, 1.75, 2.0)


@pytest.mark.parametrize("text, message", [
    ("sm_count", "cannot read --sweep 'sm_count'; write VAR=START:STOP:STEP or VAR=v1,v2,..., e.g. d_qk=64:256:64"),
    ("sm_count=64:256", "--sweep 'sm_count=64:256': a range is START:STOP:STEP; e.g. d_qk=64:256:64"),
    ("sm_count=64:256:0", "--sweep 'sm_count=64:256:0': the step must be positive; e.g. d_qk=64:256:64"),
    ("sm_count=256:64:8",
     "--sweep 'sm_count=256:64:8': STOP is below START; write START:STOP:STEP with START <= STOP"),
    # the one quantity syntax of KB files, --set and --sweep, with the same messages
    ("sm_count=a,b", "--sweep 'sm_count=a,b': cannot read 'a' as a value of sm_count; write a number, optionally "
                     "with a unit of a count"),
    ("clock=1:2:1s", "--sweep 'clock=1:2:1s': '1s' does not fit clock, which is in GHz; give it in GHz"),
    ("sm_count=-64,0", "--sweep 'sm_count=-64,0': '-64' is negative, and no KB quantity is; give the size of sm_count"),
    ("sm_count=64,n/a", "--sweep 'sm_count=64,n/a': 'n/a' is not a value to sweep over; write numbers in plain "
                        "numbers, e.g. 64"),
    ("sm_count=64.5", "--sweep 'sm_count=64.5': sm_count counts whole things; sweep whole numbers, e.g. 64:256:64"),
    ("sm_count=1:2:1e-20", "--sweep 'sm_count=1:2:1e-20' has more than 10000000 points; take a larger step"),
    ("sm_count=1e-300:1:1", "--sweep 'sm_count=1e-300:1:1': '1e-300' is below the smallest value sm_count can have "
                            "(1e-30); give a physical value, or n/a where the quantity does not exist"),
])
def test_malformed_sweeps_are_one_line_errors(tiny_kb, text, message):
    with pytest.raises(KBError) as info:
        parse_axis(tiny_kb, text)
    assert str(info.value) == message


def test_unknown_sweep_variable_suggests(tiny_kb):
    with pytest.raises(UnknownNameError) as info:
        parse_axis(tiny_kb, "sm_cont=1,2")
    assert "did you mean 'sm_count'?" in str(info.value)


def test_sweep_agrees_with_single_solves(tiny_kb):
    axes = [parse_axis(tiny_kb, "sm_count=50,100,200"), parse_axis(tiny_kb, "clock=1,2")]
    result = sweep(tiny_kb, "peak[bf16]", tiny_kb.context("arch"), axes)
    assert result.method == "closed form" and result.columns == ["sm_count", "clock", "peak[bf16]"]
    for sm_count, clock, value in result.rows():
        single = tiny_kb.solve("peak[bf16]", gpu="arch", facts=[f"sm_count={sm_count:g}", f"clock={clock:g}"])
        assert value == pytest.approx(single.magnitude, rel=1e-12)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(1, 4096), min_size=1, max_size=5, unique=True), st.sampled_from(["arch", "chip"]))
def test_closed_form_and_point_by_point_agree(tiny_kb, values, gpu):
    axes = [parse_axis(tiny_kb, "sm_count=" + ",".join(map(str, values)))]
    context = tiny_kb.context(gpu, facts=["clock=1.5GHz"])
    fast = sweep(tiny_kb, "peak[bf16]", context, axes)
    slow = sweep(tiny_kb, "peak[bf16]", context, axes, method="point by point")
    assert fast.values.tolist() == pytest.approx(slow.values.tolist(), rel=1e-12)


def test_a_simulated_target_is_swept_point_by_point(scheduler_kb):
    context = scheduler_kb.context("round")  # 4 loads and 64 compute instructions a round, 500 cycles of latency
    result = sweep(scheduler_kb, "busy", context, [parse_axis(scheduler_kb, "warps=1,2,4,8,16")])
    assert result.method == "point by point"
    assert [f"{v:.0%}" for v in result.values] == ["12%", "24%", "48%", "95%", "99%"]


def test_swept_facts_override_the_context(tiny_kb):
    context = tiny_kb.context("arch", facts=["sm_count=999", "clock=1GHz"])
    result = sweep(tiny_kb, "peak[bf16]", context, [parse_axis(tiny_kb, "sm_count=100")])
    assert result.values.tolist() == [pytest.approx(204.8)]


def test_outputs_csv_json_and_table(tiny_kb):
    result = sweep(tiny_kb, "peak[bf16]", tiny_kb.context("arch"),
                   [parse_axis(tiny_kb, "sm_count=50,100"), parse_axis(tiny_kb, "clock=1,2")])
    assert result.render("csv").splitlines() == ["sm_count,clock [GHz],peak[bf16] [TFLOPS]", "50,1.0,102.4",
                                            "50,2.0,204.8", "100,1.0,204.8", "100,2.0,409.6"]  # a count in integers
    document = result.to_dict()
    assert document["columns"] == ["sm_count", "clock", "peak[bf16]"] and document["rows"][3] == [100.0, 2.0, 409.6]
    assert document["units"] == ["", "GHz", "TFLOPS"]
    assert result.render().splitlines()[0].split() == ["sm_count", "clock", "[GHz]", "peak[bf16]", "[TFLOPS]"]


def test_sweep_errors(tiny_kb):
    context = tiny_kb.context("arch")
    with pytest.raises(QueryError, match="both the target and swept"):
        sweep(tiny_kb, "sm_count", context, [parse_axis(tiny_kb, "sm_count=1,2")])
    with pytest.raises(QueryError, match="swept twice"):
        sweep(tiny_kb, "peak[bf16]", context, [parse_axis(tiny_kb, "sm_count=1"), parse_axis(tiny_kb, "sm_count=2")])
    with pytest.raises(QueryError, match="does not follow"):
        sweep(tiny_kb, "peak[bf16]", context, [parse_axis(tiny_kb, "sm_count=1,2")])


def test_point_evaluator_reruns_only_what_changes(tiny_kb):
    evaluate = PointEvaluator(tiny_kb, tiny_kb.context("chip"), ["peak[fp16]"], ["peak[bf16]"])
    assert [s.outputs for s in evaluate.steps] == [("clock",), ("peak[bf16]",)]  # not the rate it does not drive
    assert evaluate({"peak[fp16]": 409.6})["peak[bf16]"].magnitude == pytest.approx(409.6)


def test_points_that_break_a_given_equality_are_left_empty(tiny_kb):
    context = tiny_kb.context("arch", facts=["clock=1GHz"])  # the architecture states fma_rate[fp16] = 1024
    result = sweep(tiny_kb, "peak[bf16]", context, [parse_axis(tiny_kb, "fma_rate[bf16]=1024,512,2048")],
                   where=["fma_rate[bf16] = fma_rate[fp16]"])
    assert result.values[0] == pytest.approx(262.144) and all(math.isnan(v) for v in result.values[1:])
    assert result.notes == ("'fma_rate[bf16] = fma_rate[fp16]' does not hold at 2 of 3 points: those are left empty",)


def test_a_point_the_simulation_refuses_is_left_empty_with_a_note(scheduler_kb):
    context = scheduler_kb.context("round", facts=["loads=1", "compute=16"])
    result = sweep(scheduler_kb, "busy", context, [parse_axis(scheduler_kb, "warps=16,512")])
    assert result.values[0] == pytest.approx(0.52, abs=0.01) and math.isnan(result.values[1])
    assert note_text(result.notes[-1]).startswith("1 point could not be evaluated and is left empty, e.g. warps")
