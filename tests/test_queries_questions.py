"""The questions behind the exp-bound and operand-bandwidth tables (the tables themselves are in
test_queries.py): tensor-memory figures, the SFU what-if, closed forms, thresholds and sweeps."""
from __future__ import annotations

import pytest

from hwkb.questions.closed_forms import closed_form
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.questions.whatif import what_if


@pytest.fixture(scope="module")
def kb(real_kb):
    return real_kb


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
