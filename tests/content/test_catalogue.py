"""The catalogue of today's accelerators (kb/gpus/catalogue_*.yaml): every product loads with sourced facts,
its peaks decompose within their printed rounding, and the audit finds only the findings kb/README.md lists."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hwkb.definitions.citations import split_citation

CATALOGUE_FILES = ("catalogue_nvidia.yaml", "catalogue_amd.yaml", "catalogue_google.yaml", "catalogue_intel.yaml",
                   "catalogue_aws.yaml", "architectures_nvidia.yaml")
#: the files whose products make up each vendor's list (nvidia.yaml holds the chapter's NVIDIA parts)
VENDOR_FILES = {"NVIDIA": ("nvidia.yaml", "catalogue_nvidia.yaml"), "AMD": ("catalogue_amd.yaml",),
                "Google": ("catalogue_google.yaml",), "Intel": ("catalogue_intel.yaml",), "AWS": ("catalogue_aws.yaml",)}

#: (entity, rule) of every inconsistent check the audit reports on the catalogue, each explained in kb/README.md
KNOWN_FINDINGS = {
    ("b300", "sparse_is_twice_dense[fp4]"),   # NVIDIA prints FP4 18 PFLOPS sparse, 14 dense: dense raised, sparse not
    ("tpu-v5e", "documents"),           # the English page: 819 GB/s; another version: 800 GiB/s
    ("mi300x", "documents"),            # CDNA 3 white paper Table 1: TF32 490.3 TFLOPS; its Table 2 and ROCm: 653.7
    ("mi250", "documents"),             # the same white paper's endnotes: MI250 500 W (MI300-14), 560 W (MI300-15)
    ("gb200", "documents"),             # NVIDIA's MLPerf v5.1 description: 186 GB; a NIM support matrix: 192 GB
    ("tpu-v6e", "documents"),           # the v6e page vs v5e: 4 MXUs per TensorCore; other versions: two 256x256
    ("gaudi3", "documents"),            # Hot Chips 2024: BF16 and FP8 1835 TFLOPS; Intel's 2025 paper: 1678
}
#: findings of an audit that read every figure as rounded and capacities as decimal, withdrawn: each check as it is
#: now, and the reading it needs (None: the figures agree exactly)
WITHDRAWN = {
    ("tpu-v5e", "system_peak[bf16]", "within_rounding", "truncated"),     # 197.8 TFLOPS per chip printed as 197
    ("mi325x", "memory_bandwidth_law", "within_rounding", "truncated"),   # 6.14 TB/s printed as "up to 6.0"
    ("mi100", "documents", "consistent", None),     # 32 GiB in AMD's table, "32GB" on its MI100 page: JEDEC's GB
    ("tpu-v5p", "documents", "consistent", None),   # 95 GiB on the v5p page, "95GB" on its v5p-training version
}


def catalogue_entities(kb):
    return {eid: e for eid, e in kb.model.entities.items() if Path(e.where.file).name in CATALOGUE_FILES}


@pytest.fixture(scope="module")
def kb():
    from hwkb import KnowledgeBase
    return KnowledgeBase.load()


def test_every_catalogue_file_holds_products_of_its_vendor(kb):
    entities = catalogue_entities(kb)
    files = {Path(e.where.file).name for e in entities.values()}
    assert files == set(CATALOGUE_FILES)
    products = [e for e in entities.values() if e.kind == "product"]
    assert len(products) >= 12
    assert {"mi300x", "mi250", "tpu-v5p", "tpu-v6e", "gaudi3", "gaudi2"} <= {p.id for p in products}


def test_every_catalogue_fact_names_its_document(kb):
    for entity in catalogue_entities(kb).values():
        assert entity.facts, entity.id
        for key, fact in entity.facts.items():
            document = kb.model.sources[split_citation(fact.source)[0]]
            assert document.id != "definition", (entity.id, key)
            assert any(vendor in document.publisher for vendor in ("NVIDIA", "AMD", "Google", "Intel", "Amazon")), (
                entity.id, key)


def test_the_audit_finds_only_the_listed_findings(kb):
    report = kb.audit(sorted(catalogue_entities(kb)))
    found = {(audit.entity, check.rule) for audit in report.entities for check in audit.checks
             if str(check.status) == "inconsistent"}
    assert found == KNOWN_FINDINGS


def test_a_jedec_capacity_or_a_truncated_figure_is_no_finding(kb):
    report = kb.audit(sorted({eid for eid, *_ in WITHDRAWN}))
    checks = {(a.entity, c.rule, str(c.status), c.reading) for a in report.entities for c in a.checks
              if c.rule != "documents" or c.target == "memory_size"}
    assert WITHDRAWN <= checks


@pytest.mark.parametrize("gpu, peaks", [
    ("mi300x", ["fp16", "bf16", "fp8", "int8", "tf32"]),
    ("mi250", ["fp16", "bf16", "int8"]),
])
def test_every_stated_tensor_peak_decomposes_within_rounding(kb, gpu, peaks):
    report = kb.audit([gpu])
    checks = {c.rule: str(c.status) for c in report.entities[0].checks}
    for precision in peaks:
        assert checks[f"tensor_peak[{precision}]"] in ("consistent", "within_rounding"), precision


@pytest.mark.parametrize("gpu, clock_ghz", [("mi300x", 2.1), ("mi250", 1.7), ("tpu-v5p", 1.751), ("tpu-v4", 1.049),
                                            ("tpu-v5e", 1.503)])
def test_the_tensor_clock_follows_from_the_peaks(kb, gpu, clock_ghz):
    solution = kb.solve("clock_tc", gpu=gpu)
    assert str(solution.status) in ("derived", "Status.DERIVED")
    assert solution.unit == "GHz" and solution.magnitude == pytest.approx(clock_ghz, abs=0.001)
    assert "'amd-" in str(solution.to_dict()) or "'google-" in str(solution.to_dict())


def test_aggregates_decompose_into_units(kb):
    assert kb.solve("die_count", gpu="mi325x").magnitude == pytest.approx(8)
    assert kb.solve("tc_fma_per_sm_cycle[bf16]", gpu="tpu-v6e").magnitude == pytest.approx(4 * 256 * 256)
    assert kb.solve("system_tc_peak[bf16]", gpu="tpu-v5p").magnitude == pytest.approx(8960 * 459e-3)


def test_a_precision_ratio_is_the_architecture_s_not_a_global_law(kb):
    """TPU v5p prints FP8 at the BF16 rate; a global FP8 = 2 x BF16 law would flag it, a per-architecture ratio derives 1."""
    assert kb.solve("tc_fp8_bf16_ratio", gpu="tpu-v5p").magnitude == pytest.approx(1)
    assert kb.solve("tc_fp8_bf16_ratio", gpu="mi300x").magnitude == pytest.approx(2, rel=1e-3)
    assert kb.solve("tc_int8_fp16_ratio", gpu="mi250").magnitude == pytest.approx(1)


def _kb_with_sheet(tmp_path, text: str):
    """The built-in KB with one file of entities of one's own (indented text, dedented here) on top."""
    from hwkb import KnowledgeBase
    (tmp_path / "gpus").mkdir()
    (tmp_path / "gpus" / "sheet.yaml").write_text(textwrap.dedent(text))
    return KnowledgeBase.load([tmp_path])


def test_a_blackwell_ultra_like_sheet_with_fp4_three_times_fp8_audits_clean(tmp_path):
    """Made-up figures: an architecture stating FP4 = 3 x FP8 makes such a sheet consistent; on Blackwell it is flagged."""
    kb = _kb_with_sheet(tmp_path, """\
        ultra-like:
          kind: architecture
          extends: blackwell
          facts:
            tc_fp4_fp8_ratio: {value: 3, tolerance: 0}
        ultra-sheet:
          kind: datasheet
          extends: ultra-like
          facts:
            sm_count: 100
            tc_peak[fp8]: 1638.4 TFLOPS
            tc_peak[fp4]: 4915.2 TFLOPS
        plain-sheet:
          kind: datasheet
          extends: blackwell
          facts:
            sm_count: 100
            tc_peak[fp8]: 1638.4 TFLOPS
            tc_peak[fp4]: 4915.2 TFLOPS
        """)
    ultra, plain = kb.audit(["ultra-sheet"]).entities[0], kb.audit(["plain-sheet"]).entities[0]
    assert ultra.checks and not [c for c in ultra.checks if str(c.status) == "inconsistent"]
    assert [c for c in plain.checks if str(c.status) == "inconsistent"]


def test_compare_puts_four_vendors_side_by_side(capsys):
    from conftest import run_cli
    code, out, _ = run_cli(capsys, "compare", "h100-sxm", "mi300x", "tpu-v5p", "gaudi3",
                           "--vars", "sm_count,clock_tc,tc_peak[bf16],memory_bandwidth")
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:-1]}
    assert code == 0 and out.splitlines()[0].startswith("variable")
    assert [name in out.splitlines()[0] for name in ("H100 SXM5", "MI300X", "TPU v5p", "Gaudi 3")] == [True] * 4
    assert rows["sm_count"] == ["132", "304", "2", "-"]
    assert rows["clock_tc"] == ["GHz", "1.83*", "2.1*", "1.751*", "-"]
    assert rows["tc_peak[bf16]"] == ["TFLOPS", "989.4", "1307.4", "459", "1835"]


def test_vendor_aliases_resolve_on_the_real_kb(kb):
    mi300x = kb.solve("cu_count", gpu="mi300x")
    assert (mi300x.variable, mi300x.alias, mi300x.magnitude) == ("sm_count", "cu_count", 304)
    assert kb.solve("xcd_count", gpu="mi300x").magnitude == 8
    assert kb.solve("matrix_peak[bf16]", gpu="mi300x").magnitude == pytest.approx(1307.4)
    nvlink = kb.solve("nvlink_bandwidth", gpu="p100")      # issue 8's contract name: the textbook's 160 GB/s
    assert (nvlink.variable, nvlink.magnitude, nvlink.unit) == ("interconnect_bandwidth", 160, "GB/s")
    tpu = kb.solve("tpu_tensorcore_count", gpu="tpu-v5p")
    assert (tpu.variable, tpu.alias, tpu.magnitude) == ("sm_count", "tpu_tensorcore_count", 2)
    assert kb.solve("clock_tc", gpu="mi300x", facts=["cu_count=304"]).magnitude == pytest.approx(2.1, rel=1e-3)


def test_no_name_reads_as_both_a_tpus_tensorcores_and_a_gpus_tensor_cores(kb):
    """``tensorcore_count`` once answered a B200's 148 SMs beside ``tensor_core_count``, NVIDIA's Tensor Cores."""
    from hwkb.errors import UnknownNameError
    with pytest.raises(UnknownNameError) as caught:
        kb.solve("tensorcore_count", gpu="b200")
    assert str(caught.value) == ("unknown variable 'tensorcore_count'; did you mean 'tensor_core_count' or "
                                 "'tpu_tensorcore_count'?")
    assert kb.solve("tensor_core_count", gpu="b200").variable == "tensor_core_count"


AMD_STYLE_SHEET = Path(__file__).resolve().parents[1] / "fixtures" / "amd_style_sheet.yaml"


def test_a_datasheet_in_amd_s_words_audits_as_kb_readme_shows(capsys):
    from conftest import run_cli, run_cli_json
    code, doc, _ = run_cli_json(capsys, "audit", "--file", str(AMD_STYLE_SHEET))
    audit = doc["entities"][0]
    assert code == 0 and audit["entity"] == "my-mi300-like" and audit["status"] in ("consistent", "within_rounding")
    checked = {c["rule"] for c in audit["checks"]}
    assert {"sms_over_dies", "tensor_peak[bf16]", "tensor_peak[fp8]"} <= checked       # CUs = XCDs x CUs per XCD
    code, out, _ = run_cli(capsys, "audit", "--file", str(AMD_STYLE_SHEET))
    assert code == 0 and "sms_over_dies" in out


def test_the_precisions_datasheets_print_and_what_an_architecture_lacks(kb):
    values = kb.model.indices["precision"].values
    assert values[:7] == ("fp64", "tf32", "fp16", "bf16", "fp8", "int8", "fp4")      # DESIGN's, in its order
    assert {"fp6", "int4", "mxfp8", "mxfp6", "mxfp4", "nvfp4"} <= set(values)
    for precision in ("fp6", "int4", "mxfp8", "mxfp6", "mxfp4", "nvfp4"):
        assert str(kb.solve(f"tc_fma_per_sm_cycle[{precision}]", gpu="h100-sxm").status) == "not_applicable"
    assert str(kb.solve("tc_fma_per_sm_cycle[int4]", gpu="v100").status) == "not_applicable"
    # a sheet that states a new precision's peak decomposes it like any other
    answer = kb.solve("tc_fma_per_sm_cycle[mxfp4]", facts=["sm_count=100", "clock_tc=2GHz", "tc_peak[mxfp4]=1638.4"])
    assert answer.magnitude == pytest.approx(4096)
    six = kb.solve("tc_fma_per_sm_cycle[fp6]", gpu="blackwell", facts=["tc_fp6_fp8_ratio=1"])
    assert six.magnitude == kb.solve("tc_fma_per_sm_cycle[fp8]", gpu="blackwell").magnitude
    checks = kb.audit(["h100-sxm", "v100", "b200"]).entities
    assert not [c.rule for e in checks for c in e.checks if str(c.status) == "inconsistent"
                and any(p in c.rule for p in ("fp6", "int4", "mxfp", "nvfp4"))]


def test_thirty_products_from_four_vendors_load_and_audit(kb):
    products = {e.id: Path(e.where.file).name for e in kb.model.entities.values() if e.kind == "product"}
    by_vendor = {vendor: sorted(p for p, f in products.items() if f in files) for vendor, files in VENDOR_FILES.items()}
    assert sum(map(len, by_vendor.values())) >= 30 and all(by_vendor.values()), by_vendor
    assert {"a100-80gb-sxm", "h200-sxm", "l40s", "b300", "gb300", "rtx-pro-6000-server", "mi100"} <= set(products)
    report = kb.audit(sorted(p for names in by_vendor.values() for p in names))
    assert len(report.entities) == sum(map(len, by_vendor.values()))


def test_list_entities_shows_the_catalogue(capsys):
    from conftest import run_cli
    code, out, _ = run_cli(capsys, "list", "entities")
    listed = {line.split()[0] for line in out.splitlines() if len(line.split()) > 1 and line.split()[1] == "product"}
    assert code == 0 and len(listed) >= 30 and {"gb200", "l4", "mi300a", "tpu-v6e", "gaudi3"} <= listed


@pytest.mark.parametrize("gpu, capability", [("l40s", 8.9), ("h200-sxm", 9.0), ("gb200", 10.0), ("b300", 10.3),
                                              ("gb300", 10.3), ("rtx-pro-6000-server", 12.0), ("a100-80gb-pcie", 8.0)])
def test_each_nvidia_architecture_names_its_compute_capability(kb, gpu, capability):
    assert kb.solve("compute_capability", gpu=gpu).magnitude == pytest.approx(capability)


@pytest.mark.parametrize("gpu, rules", [
    ("h200-sxm", ["tensor_peak[bf16] with tensor_peak[fp8]", "tensor_peak[bf16] with tensor_peak[int8]"]),
    ("gb200", ["tensor_peak[bf16] with tensor_peak[fp4]", "tensor_peak[bf16] with tensor_peak[fp8]"]),
    ("a100-80gb-sxm", ["tensor_peak[int8]", "boost_clock_is_tensor_clock"]),  # the A100's SMs and clock, inherited
    ("mi100", ["fp64_vector_peak", "memory_bandwidth_law"]),
    ("mi300x", ["boost_clock_is_tensor_clock", "tensor_peak[fp8]"]),
    ("b200", ["documents"]),            # DGX B200's 8 TB/s against AIConfigurator's HGX B200 7.7 TB/s
    ("mi355x", ["tensor_peak[fp8]", "fp64_clock_is_fp32_clock", "boost_clock_is_tensor_clock", "interconnect_total"]),
    ("mi350x", ["tensor_peak[int8]", "boost_clock_is_fp32_clock", "sparse_is_twice_dense[fp16]", "memory_bandwidth_law"]),
    ("h100-pcie", ["tensor_peak[bf16]", "tf32_rate", "fp64_clock_is_fp32_clock"]),   # whitepaper Table 1, PCIe column
])
def test_the_new_products_peaks_decompose_within_rounding(kb, gpu, rules):
    checks = {c.rule: str(c.status) for c in kb.audit([gpu]).entities[0].checks}
    for rule in rules:
        assert checks[rule] in ("consistent", "within_rounding"), (gpu, rule, checks)


def test_compare_leaves_out_the_precisions_no_compared_product_prints(kb):
    compare = lambda _, gpus, names: kb.compare(gpus, names)
    result = kb.compare(["h100-sxm", "mi300x", "tpu-v5p", "gaudi3"], ["tc_peak"])
    shown = [row.variable for row in result.rows]
    assert {"tc_peak[bf16]", "tc_peak[fp8]", "tc_peak[fp64]"} <= set(shown) and "tc_peak[fp6]" in result.left_out
    assert all(any(cell is not None for cell in row.cells) for row in result.rows)
    assert len(shown) + len(result.left_out) == len(kb.model.indices["precision"].values)
    assert [r.variable for r in compare(kb, ["h100-sxm", "mi300x"], ["tc_peak[fp6]"]).rows] == ["tc_peak[fp6]"]
    assert [r.variable for r in compare(kb, ["mi300x"], ["tdp", "tbp"]).rows] == ["tdp"]   # AMD's word, one row


def test_the_h100_sxm_states_its_memory_and_tpu_v5p_keeps_both_versions_of_its_page(kb):
    memory = kb.solve("memory_size", gpu="h100-sxm")
    assert (memory.magnitude, memory.unit) == (pytest.approx(80), "GiB")  # NVIDIA's "80 GB", a JEDEC capacity
    checks = {(c.rule, str(c.target)): str(c.status) for c in kb.audit(["tpu-v5p"]).entities[0].checks}
    assert checks[("documents", "memory_size")] == "consistent"          # "95 GiB" and JEDEC's "95GB"
    assert checks[("documents", "memory_bandwidth")] == "within_rounding"  # 2765 GBps is 2575 GiBps


@pytest.mark.parametrize("gpu, watts", [("mi250", 500), ("mi250x", 560), ("mi300x", 750), ("mi325x", 1000),
                                        ("mi300a", 760), ("tpu-v4", 192), ("gaudi3", 900), ("gaudi2", 600)])
def test_power_is_sourced_and_gives_the_efficiency(kb, gpu, watts):
    assert kb.solve("tdp", gpu=gpu).magnitude == pytest.approx(watts)
    assert kb.solve("tc_peak_per_watt[bf16]", gpu=gpu).magnitude > 0


@pytest.mark.parametrize("gpu, rules", [
    ("mi300a", ["tensor_peak[bf16]", "tensor_peak[fp8]", "tensor_peak[tf32]", "memory_bandwidth_law"]),
    ("mi325x", ["tensor_peak[bf16]", "tensor_peak[fp8]", "boost_clock_is_tensor_clock"]),
    ("mi250x", ["tensor_peak[bf16]", "fp64_clock_is_fp32_clock", "memory_bandwidth_law"]),
    ("mi300x", ["memory_bandwidth_law", "sparse_is_twice_dense[fp8]"]),
])
def test_the_cdna3_white_paper_figures_decompose(kb, gpu, rules):
    checks = {c.rule: str(c.status) for c in kb.audit([gpu]).entities[0].checks}
    for rule in rules:
        assert checks[rule] in ("consistent", "within_rounding"), (gpu, rule, checks)


@pytest.mark.parametrize("gpu, memory_gb, capability", [("gh200", 96, 9.0), ("gh200-144gb", 144, 9.0),
                                                        ("h100-nvl", 94, 9.0), ("a100-40gb-pcie", 40, 8.0),
                                                        ("rtx-4090", 24, 8.9), ("rtx-pro-6000-workstation", 96, 12.0)])
def test_the_nvidia_parts_with_only_memory_sourced_load(kb, gpu, memory_gb, capability):
    """Memory as NVIDIA's MLPerf system descriptions and NIM support matrices print it; the architecture gives the
    compute capability, and the audit finds nothing to contradict."""
    entity = kb.model.entities[gpu]
    document = kb.model.sources[split_citation(entity.facts["memory_size"].source)[0]]
    assert entity.kind == "product" and "NVIDIA" in document.publisher
    assert kb.solve("memory_size", gpu=gpu).magnitude == pytest.approx(memory_gb)
    assert kb.solve("compute_capability", gpu=gpu).magnitude == pytest.approx(capability)
    assert not [c.rule for c in kb.audit([gpu]).entities[0].checks if str(c.status) == "inconsistent"]


def test_a_grace_hopper_superchip_is_one_gpu_beside_one_cpu(kb):
    for gpu in ("gh200", "gh200-144gb"):
        assert kb.solve("gpus_per_superchip", gpu=gpu).magnitude == 1
        assert kb.solve("cpus_per_superchip", gpu=gpu).magnitude == 1
    assert kb.solve("interconnect_bandwidth", gpu="h100-nvl").magnitude == pytest.approx(600)


@pytest.mark.parametrize("gpu, watts, capability", [("a10", 150, 8.6), ("h100-nvl", 400, 9.0),
                                                    ("a100-40gb-pcie", 250, 8.0)])
def test_nvidia_s_mlperf_harness_table_gives_power_and_compute_capability(kb, gpu, watts, capability):
    """known_hardware.py of NVIDIA's MLPerf Inference v5.1 code: max_power_limit and compute_sm per board."""
    assert "known_hardware.py" in kb.model.entities[gpu].facts["tdp"].source
    assert kb.solve("tdp", gpu=gpu).magnitude == pytest.approx(watts)
    assert kb.solve("compute_capability", gpu=gpu).magnitude == pytest.approx(capability)


def test_the_a10_is_a_ga10x_part_not_a_ga100_one(kb):
    assert kb.solve("fp32_lanes_per_sm", gpu="a10").magnitude == 128
    assert kb.solve("fp32_lanes_per_sm", gpu="a100-40gb-pcie").magnitude == 64
    assert kb.solve("max_threads_per_sm", gpu="a10").magnitude == 1536


def test_nvidia_s_mlperf_descriptions_give_memory_and_nvlink(kb):
    assert kb.solve("memory_size", gpu="h200-sxm").magnitude == pytest.approx(141)
    assert kb.solve("interconnect_link_bandwidth", gpu="h200-sxm").magnitude == pytest.approx(50)   # 900 / 18
    assert kb.solve("pcie_generation", gpu="h200-sxm").magnitude == 5
    for gpu in ("gb200", "gb300"):
        assert kb.solve("interconnect_bandwidth", gpu=gpu).magnitude == pytest.approx(1800)
        assert kb.solve("cpus_per_superchip", gpu=gpu).magnitude == 1
    for gpu, memory_gb in (("gb300", 288), ("b300", 288), ("h200-nvl", 141), ("l40s", 48)):
        assert kb.solve("memory_size", gpu=gpu).magnitude == pytest.approx(memory_gb)
    assert kb.solve("compute_capability", gpu="h200-nvl").magnitude == pytest.approx(9.0)


def test_nvidia_documents_that_agree_are_consistent_and_the_gb200_memory_is_not(kb):
    for gpu, target in (("h200-sxm", "tdp"), ("gb300", "memory_size"), ("gb300", "tdp"), ("gb200", "tdp"),
                        ("h100-nvl", "memory_size"), ("gh200-144gb", "memory_size")):
        checks = {(c.rule, str(c.target)): str(c.status) for c in kb.audit([gpu]).entities[0].checks}
        assert checks[("documents", target)] == "consistent", (gpu, target)
    checks = {(c.rule, str(c.target)): str(c.status) for c in kb.audit(["gb200"]).entities[0].checks}
    assert checks[("documents", "memory_size")] == "inconsistent"     # 186 GB (MLPerf) against 192 GB (NIM)


FLAGSHIPS = ("h100-sxm", "mi300x", "b200", "tpu-v5p", "gaudi3")
#: the rows issue 23 asks for on every flagship: a figure, or n/a with the vendor's reason
FIRST_ASKED = ("memory_size", "memory_bandwidth", "tc_peak[bf16]", "tc_peak[fp8]", "fp64_peak", "tdp",
               "interconnect_bandwidth")


def test_compare_fills_the_first_asked_rows_for_every_flagship(capsys):
    from conftest import run_cli
    code, out, _ = run_cli(capsys, "compare", *FLAGSHIPS, "--vars", ",".join(FIRST_ASKED))
    rows = {line.split()[0]: line.split()[-len(FLAGSHIPS):] for line in out.splitlines()
            if line.split() and line.split()[0] in FIRST_ASKED}
    assert code == 0 and set(rows) == set(FIRST_ASKED)
    assert not {(row, gpu) for row, cells in rows.items() for gpu, cell in zip(FLAGSHIPS, cells) if cell == "-"}


def test_a_figure_a_vendor_does_not_publish_is_n_a_with_the_reason(kb):
    for gpu, variable, reason in (("tpu-v5p", "tdp", "not published"), ("tpu-v5p", "fp64_peak", "no FP64 units"),
                                  ("gaudi3", "fp64_peak", "no FP64 figure")):
        solution = kb.solve(variable, gpu=gpu)
        assert str(solution.status) == "not_applicable", (gpu, variable)
        assert reason in solution.notes[0], solution.notes


def test_the_catalogue_holds_at_least_48_products_from_five_vendors(kb):
    products = {e.id: Path(e.where.file).name for e in kb.model.entities.values() if e.kind == "product"}
    assert len(products) >= 48
    assert {"mi350x", "tpu7x", "trainium2", "trainium3", "h20", "l40", "rtx-6000-ada"} <= set(products)
    assert {products[p] for p in ("trainium2", "trainium3")} == {"catalogue_aws.yaml"}


def test_neuroncores_are_sms_in_the_vendor_neutral_vocabulary(kb):
    answer = kb.solve("neuroncore_count", gpu="trainium2")
    assert (answer.variable, answer.alias, answer.magnitude) == ("sm_count", "neuroncore_count", 8)


def test_the_b300_sm_count_answers_with_its_secondary_source_visible(capsys):
    from conftest import run_cli
    code, out, _ = run_cli(capsys, "explain", "sm_count", "--gpu", "b300")
    assert code == 0 and "sm_count = 158" in out and "SECONDARY" in out and "not an NVIDIA document" in out


def test_an_mi300x_sheet_with_amd_s_lane_count_audits_clean_at_2_1_ghz(tmp_path):
    """AMD prints 64 stream processors per CU and Vector FP32 163.4 TFLOPS: packed FP32 (2 FMA per lane) makes
    that 2.1 GHz, the clock every matrix peak gives, where one FMA per lane made it 4.2 GHz."""
    kb = _kb_with_sheet(tmp_path, """\
        mi300x-like:
          kind: datasheet
          extends: cdna3
          facts:
            cu_count: 304
            fp32_lanes_per_sm: 64
            fp32_peak: 163.4 TFLOPS
            matrix_peak[bf16]: 1307.4 TFLOPS
            fp64_peak: 81.7 TFLOPS
        """)
    audit = kb.audit(["mi300x-like"]).entities[0]
    statuses = {c.rule: str(c.status) for c in audit.checks}
    assert statuses["fp32_clock_is_tensor_clock"] in ("consistent", "within_rounding")
    assert "inconsistent" not in statuses.values()
    assert kb.solve("clock_fp32", gpu="mi300x-like").magnitude == pytest.approx(2.1, abs=0.001)


def test_cdna2_prints_its_packed_fp32_peak_beside_the_plain_one(kb):
    checks = {c.rule: str(c.status) for c in kb.audit(["mi250"]).entities[0].checks}
    assert checks["fp32_packed_peak_law"] in ("consistent", "within_rounding")
    assert kb.solve("fp32_packed_peak", gpu="mi250x").magnitude == pytest.approx(95.7, abs=0.1)


def test_a_b200_sheet_with_nvidia_s_exp_rate_breaks_no_law(tmp_path):
    """NVIDIA's 5 TExp/s is 148 SMs x 16 SFUs x 2.11 GHz, the clock of the 80 TFLOPS FP32 figure: the SFUs run at
    the FP32 clock. Only the expectation that one clock serves FP32 and the tensor peaks fails, as on the H100: a
    per-pipe clock difference, no figure wrong."""
    kb = _kb_with_sheet(tmp_path, """\
        b200-like:
          kind: datasheet
          extends: blackwell
          facts:
            sm_count: 148
            fp32_peak: 80 TFLOPS
            tc_peak[bf16]: 2250 TFLOPS
            sfu_exp_rate: 5 Texp/s
        """)
    statuses = {c.rule: str(c.status) for c in kb.audit(["b200-like"]).entities[0].checks}
    assert statuses["sfu_exp_gpu"] in ("consistent", "within_rounding")
    assert {rule for rule, status in statuses.items() if status == "inconsistent"} == {"fp32_clock_is_tensor_clock"}
    assert kb.solve("clock_fp32", gpu="b200-like").magnitude == pytest.approx(2.111, abs=0.001)


@pytest.mark.parametrize("gpu, memory_gb", [("a100", 40), ("a100-80gb-sxm", 80), ("l4", 24)])
def test_the_a100s_and_the_l4_state_their_memory_from_nvidia_s_mlperf_descriptions(kb, gpu, memory_gb):
    fact = kb.model.entities[gpu].facts["memory_size"]
    assert fact.source.startswith("mlperf-inference-") and "closed/NVIDIA/systems/" in fact.source
    assert kb.solve("memory_size", gpu=gpu).magnitude == pytest.approx(memory_gb)


def test_the_a100_80gb_sxm_is_an_a100_with_its_own_memory(kb):
    """It extends the A100 SXM4: the SM count, clocks and 5120-bit bus are the A100's, memory and bandwidth its own,
    and the bus and the 2.039 TB/s give HBM2e's data rate without a finding."""
    assert kb.model.entities["a100-80gb-sxm"].extends == ("a100",)
    assert kb.solve("sm_count", gpu="a100-80gb-sxm").magnitude == 108
    assert kb.solve("memory_bandwidth", gpu="a100-80gb-sxm").magnitude == pytest.approx(2039)
    assert kb.solve("memory_data_rate", gpu="a100-80gb-sxm").magnitude == pytest.approx(2039e9 * 8 / 5120 / 1e9)
    assert not [c.rule for c in kb.audit(["a100-80gb-sxm"]).entities[0].checks if str(c.status) == "inconsistent"]


def test_blackwell_ultra_takes_its_sm_limits_from_nvidia_s_cccl_table(kb):
    """cc-10.3 states sm_103's limits as NVIDIA's libcu++ arch_traits gives them (sm_100's), cited first-hand; the
    B300 inherits them, and no carve-out table is invented for 10.3."""
    assert kb.model.entities["blackwell-ultra"].extends == ("cc-10.3",)
    facts = kb.model.entities["cc-10.3"].facts
    assert all(f.source.startswith(("nvidia-cccl-arch-traits,", "cuda-occupancy-h,")) for f in facts.values())
    assert not any(k.startswith("smem_capacity") for k in facts)
    assert kb.solve("max_blocks_per_sm", gpu="b300").magnitude == 32
    assert kb.solve("smem_per_block_max", gpu="gb300").magnitude == pytest.approx(227)


def test_the_mi355x_states_amd_s_matrix_peaks(kb):
    """AMD's ROCm blog on CDNA 4 Matrix Cores prints the MI355X's theoretical peaks (no clock: the per-CU rates stay
    unstated, so the audit has nothing to weigh them against)."""
    facts = kb.model.entities["mi355x"].facts
    assert all(facts[k].source.startswith("amd-rocm-blog-matrix-cores-cdna,")
               for k in ("tc_peak[fp64]", "tc_peak[fp16]", "tc_peak[fp8]", "tc_peak[fp6]", "tc_peak[fp4]"))
    assert kb.solve("tc_peak[fp8]", gpu="mi355x").magnitude == pytest.approx(5000)
    assert kb.solve("tc_peak[fp4]", gpu="mi355x").magnitude == pytest.approx(10000)


def test_the_rtx_6000_ada_fp32_peak_gives_its_boost_clock(kb):
    """NVIDIA's 91.1 TFLOPS single-precision figure on 142 SMs of 128 FP32 lanes is a 2.506 GHz clock (NVIDIA
    prints 2505 MHz boost): the KB derives it, having no clock of its own for the card."""
    answer = kb.solve("clock_fp32", gpu="rtx-6000-ada")
    assert answer.magnitude == pytest.approx(91.1e12 / (142 * 128 * 2) / 1e9, rel=1e-9)
    assert round(answer.magnitude, 3) == 2.506


def test_the_cdna4_white_papers_per_cu_rates_give_amds_clocks(kb):
    """256 CUs at 4096 BF16 and 128 FP64 FLOPS/clock/CU (CDNA 4 white paper, Table 1) give the MI355X's 2.5 PF and
    78.6 TF at the 2,400 MHz of Table 2, and the MI350X's FP8 4.614 PF at its 2.2 GHz."""
    assert kb.solve("clock_fp64", gpu="mi355x").magnitude == pytest.approx(2.4, abs=0.002)
    assert kb.solve("clock_fp64", gpu="mi350x").magnitude == pytest.approx(2.2, abs=0.002)
    assert str(kb.solve("tc_peak[tf32]", gpu="mi350x").status) == "not_applicable"   # TF32 moved to software


def test_the_mi350x_datasheets_transposed_fp16_digits_are_caught(kb):
    """AMD's datasheet prints FP16 and BF16 2.3096 PFLOPS where 256 x 4096 x 2.2 GHz is 2.3069, while its FP8 4.614
    agrees with the arithmetic: the tensor clock's routes disagree beyond their rounding (kb/README.md, notes)."""
    solution = kb.solve("clock_tc", gpu="mi350x")
    assert str(solution.status) == "inconsistent"
    assert "2.203 GHz via tensor_peak[fp16]" in str(solution) and "2.2 GHz via tensor_peak[fp8]" in str(solution)


def test_fp6_runs_at_the_fp8_rate_on_blackwell(kb):
    """NVIDIA prints one "FP8/FP6 Tensor Core" row for the HGX B200 and B300: the B200's FP6 peak is its FP8 one."""
    solution = kb.solve("tc_peak[fp6]", gpu="b200")
    assert str(solution.status) == "derived" and solution.magnitude == pytest.approx(4500)
    assert str(kb.solve("tc_peak[mxfp4]", gpu="a100").status) == "not_applicable"   # Ampere's formats end at INT4
