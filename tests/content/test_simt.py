"""The textbook's SIMT laws (H&P 4.4) and its P100 on the real KB, each against the figure the section prints."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("lanes, clocks", [(16, 2), (8, 4), (32, 1)])
def test_a_warp_instruction_takes_its_width_over_the_lanes(real_kb, lanes, clocks):
    # H&P 4.4: 8 or 16 lanes and 32-wide SIMD threads give a chime of 4 or 2 clocks
    answer = real_kb.solve("issue_cycles_per_warp_instruction", gpu="p100", facts=[f"simd_lanes={lanes}"])
    assert answer.magnitude == clocks


def test_the_launch_of_the_8192_element_multiply(real_kb):
    facts = ["problem_size=8192", "threads_per_block=512"]
    assert real_kb.solve("blocks_per_grid", gpu="p100", facts=facts).magnitude == 16      # 8192 / 512
    assert real_kb.solve("warps_per_block", gpu="p100", facts=facts).magnitude == 16      # 512 / 32
    assert real_kb.solve("issue_cycles_per_warp_instruction", gpu="a100").magnitude == 2  # 16 per partition


@pytest.mark.parametrize("depth, efficiency", [(2, 0.25), (3, 0.125)])
def test_nested_divergence(real_kb, depth, efficiency):
    answer = real_kb.solve("simd_efficiency", gpu="p100", facts=[f"branch_nesting_depth={depth}"])
    assert answer.magnitude == efficiency
    back = real_kb.solve("branch_nesting_depth", gpu="p100", facts=[f"simd_efficiency={efficiency}"])
    assert back.magnitude == pytest.approx(depth)


@pytest.mark.parametrize("stride, element, transactions", [(1, 4, 1), (2, 4, 2), (1, 8, 2), (32, 4, 32), (64, 4, 32)])
def test_coalescing(real_kb, stride, element, transactions):
    # a unit-stride warp of 4-byte words is one block transfer of 32 consecutive words
    facts = [f"access_stride={stride}", f"element_bytes={element}", "memory_transaction_bytes=128"]
    assert real_kb.solve("memory_transactions_per_warp", gpu="p100", facts=facts).magnitude == transactions


def test_registers_per_lane_and_per_simd_thread(real_kb):
    # Figure 4.15: 32,768 registers over 32 lanes, 1024 each; 256 registers x 32 elements = 8192
    lane = real_kb.solve("registers_per_lane", facts=["register_file_per_sm=32768register", "fp32_lanes_per_sm=32"])
    assert lane.magnitude == 1024
    assert real_kb.solve("register_elements_per_warp", gpu="pascal-textbook", facts=[]).value.canonical == \
        pytest.approx(8192 * 32)                                                          # in bits


def test_littles_law_for_memory(real_kb):
    answer = real_kb.solve("loads_in_flight_per_sm", gpu="h100-sxm", facts=["memory_latency=500ns", "bytes_per_load=512"])
    assert answer.magnitude == pytest.approx(3.35e12 * 500e-9 / (132 * 512))


def test_the_p100_reproduces_the_section_and_audits_clean(real_kb):
    assert real_kb.solve("sm_count", gpu="p100").magnitude == 56
    assert real_kb.solve("interconnect_link_bandwidth", gpu="p100").magnitude == 40       # 2 x 20 GB/s per direction
    assert real_kb.solve("compute_capability", gpu="p100").magnitude == 6.0
    report = real_kb.audit(["p100"]).to_dict()
    checks = report["entities"][0]["checks"]
    assert all(c["status"] != "inconsistent" for c in checks if c["kind"] != "documents")
    rules = {c["rule"] for c in checks}
    assert {"fp64_ratio_of_the_die", "fp16_ratio_of_the_die", "memory_bandwidth_law"} <= rules  # NVIDIA's 1:2, 2:1
    assert real_kb.solve("compute_capability", gpu="t4").magnitude == 7.5
    assert real_kb.solve("tc_fma_per_sm_cycle[fp16]", gpu="t4").magnitude == 512


def test_the_p100_runs_at_nvidias_clock_on_nvidias_lanes(real_kb):
    """The whitepaper's 10.6 TFLOPS over 56 SMs x 64 FP32 units x 2 flop is its 1480 MHz boost clock; the textbook's
    16 lanes, read as a partition's FP32 units, gave 2.79 GHz."""
    assert real_kb.solve("fp32_lanes_per_sm", gpu="p100").magnitude == 64
    clock = real_kb.solve("clock_fp32", gpu="p100")
    assert clock.status == "derived" and clock.magnitude == pytest.approx(10.6e12 / (56 * 64 * 2) / 1e9)
    assert real_kb.solve("simd_lanes", gpu="p100").magnitude == 32
    assert real_kb.solve("issue_cycles_per_warp_instruction", gpu="pascal-textbook").magnitude == 2


@pytest.mark.parametrize("entity, target, vendor, textbook", [
    ("p100", "fp32_peak", 10.6, 10), ("p100", "fp64_peak", 5.3, 5), ("p100", "fp16_peak", 21.2, 20),
    ("gp100", "simd_lanes", 32, 16), ("gp100", "smem_max_per_sm", 64, 48)])
def test_the_textbooks_figures_are_documents_findings_beside_nvidias(real_kb, entity, target, vendor, textbook):
    checks = real_kb.audit([entity]).to_dict()["entities"][0]["checks"]
    check = next(c for c in checks if c["kind"] == "documents" and c["target"] == target)
    assert (check["value"]["value"], check["implied"]["value"]) == (vendor, textbook)
    assert check["value"]["source"].startswith("nvidia-gp100-whitepaper, ")
    assert check["implied"]["source"].startswith("hp-computer-architecture-4.4, ")
    assert check["status"] in ("within_rounding", "inconsistent")


def test_the_textbooks_register_questions_answer_on_the_p100(real_kb):
    assert real_kb.solve("registers_per_lane", gpu="p100").magnitude == 1024        # H&P 4.4: 1024 per lane
    assert real_kb.solve("register_file_total", gpu="p100").value.canonical == pytest.approx(14336 * 1024 * 8)
    assert real_kb.solve("max_warps_per_sm", gpu="p100").magnitude == 64
    assert real_kb.solve("sfu_exp_per_sm_cycle", gpu="p100").magnitude == 16                 # 2 x 8 SFUs
    assert real_kb.solve("ldst_units_per_partition", gpu="p100").magnitude == 16
    facts = ["threads_per_block=256", "smem_per_block=0B"]
    assert real_kb.solve("occupancy", gpu="p100", facts=facts + ["regs_per_thread=32"]).magnitude == 1
    assert real_kb.solve("occupancy", gpu="p100", facts=facts + ["regs_per_thread=64"]).magnitude == 0.5
    smem = real_kb.solve("occupancy", gpu="p100", facts=["threads_per_block=256", "regs_per_thread=32",
                                                         "smem_per_block=20KiB"])
    assert smem.magnitude == pytest.approx(3 * 8 / 64)                            # 64 KB holds three 20 KB blocks


@pytest.mark.parametrize("entity, target, figures", [("hopper-textbook", "fp32_lanes_per_sm", (128, 64)),
                                                     ("pascal-textbook", "max_regs_per_thread", (256, 255))])
def test_where_the_texts_disagree_the_audit_shows_it(real_kb, entity, target, figures):
    checks = real_kb.audit([entity]).to_dict()["entities"][0]["checks"]
    check = next(c for c in checks if c["kind"] == "documents" and c["target"] == target)
    assert check["status"] == "inconsistent"
    assert (check["value"]["value"], check["implied"]["value"]) == figures
    assert "hp-computer-architecture-4.4, " in check["value"]["source"] + check["implied"]["source"]


@pytest.mark.parametrize("where, headline, extra", [
    ("blocks_per_grid = 16 block", 7681, {"bound": "both", "upper": 8192.0}),   # ceil(n / 512) = 16: 7681 .. 8192
    ("blocks_per_grid <= 16 block", 8192, {"bound": "upper"}),
    ("blocks_per_grid >= 16 block", 7681, {"bound": "lower"}),
])
def test_the_launch_geometry_inverted_through_its_ceiling(real_kb, where, headline, extra):
    answer = real_kb.solve("problem_size", facts=["threads_per_block=512"], where=[where])
    assert (str(answer.status), answer.magnitude, answer.extra) == ("derived", headline, extra)


def test_an_equality_the_laws_invert_is_still_solved_exactly(real_kb):
    answer = real_kb.solve("problem_size", facts=["threads_per_block=512"], where=["blocks_per_grid = 16 block"])
    assert str(answer).startswith("problem_size = 7681–8192 thread  (derived)")
    back = real_kb.solve("simd_efficiency", gpu="p100", where=["branch_nesting_depth = 2"])
    assert back.magnitude == 0.25 and "bound" not in back.extra


@pytest.mark.parametrize("where, side, value", [("simd_efficiency >= 0.2", "upper", 2),
                                                ("simd_efficiency <= 0.2", "lower", 3)])
def test_nesting_depth_is_a_whole_number_in_both_directions(real_kb, where, side, value):
    answer = real_kb.solve("branch_nesting_depth", gpu="p100", where=[where])
    assert (answer.extra["bound"], answer.magnitude) == (side, value)


def test_a_sweep_of_nesting_depth_takes_whole_levels(real_kb):
    from hwkb.errors import QueryError
    from hwkb.questions.sweeps import parse_axis
    with pytest.raises(QueryError, match="branch_nesting_depth counts whole things"):
        parse_axis(real_kb, "branch_nesting_depth=0:2:0.5")
    assert parse_axis(real_kb, "branch_nesting_depth=0:3:1").values == (0.0, 1.0, 2.0, 3.0)
