"""The catalogue of today's accelerators (kb/gpus/catalogue_*.yaml): every product loads with sourced facts,
its peaks decompose within their printed rounding, and the audit finds only the findings kb/README.md lists."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

CATALOGUE_FILES = ("catalogue_nvidia.yaml", "catalogue_amd.yaml", "catalogue_google.yaml", "catalogue_intel.yaml")

#: (entity, rule) of every inconsistent check the audit reports on the catalogue, each explained in kb/README.md
KNOWN_FINDINGS = {
    ("tpu-v5e", "system_peak[bf16]"),   # 256 x 197 TFLOPS = 50.43 PFLOPS, the page prints 50.63: 197 is 197.8 cut short
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
            assert fact.source and not fact.source.startswith("definition"), (entity.id, key)
            assert any(vendor in fact.source for vendor in ("NVIDIA", "AMD", "Google", "Intel")), (entity.id, key)


def test_the_audit_finds_only_the_listed_findings(kb):
    report = kb.audit(sorted(catalogue_entities(kb)))
    found = {(audit.entity, check.rule) for audit in report.entities for check in audit.checks
             if str(check.status) == "inconsistent"}
    assert found == KNOWN_FINDINGS


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
    assert "AMD" in str(solution.to_dict()) or "Google" in str(solution.to_dict())


def test_aggregates_decompose_into_units(kb):
    assert kb.solve("die_count", gpu="mi325x").magnitude == pytest.approx(8)
    assert kb.solve("tc_fma_per_sm_cycle[bf16]", gpu="tpu-v6e").magnitude == pytest.approx(131072)
    assert kb.solve("system_tc_peak[bf16]", gpu="tpu-v5p").magnitude == pytest.approx(8960 * 459e-3)


def test_a_precision_ratio_is_the_architecture_s_not_a_global_law(kb):
    """TPU v5p prints FP8 at the BF16 rate; a global FP8 = 2 x BF16 law would flag it, a per-architecture ratio derives 1."""
    assert kb.solve("tc_fp8_bf16_ratio", gpu="tpu-v5p").magnitude == pytest.approx(1)
    assert kb.solve("tc_fp8_bf16_ratio", gpu="mi300x").magnitude == pytest.approx(2, rel=1e-3)
    assert kb.solve("tc_int8_fp16_ratio", gpu="mi250").magnitude == pytest.approx(1)


def test_a_blackwell_ultra_like_sheet_with_fp4_three_times_fp8_audits_clean(tmp_path):
    """Made-up figures: an architecture stating FP4 = 3 x FP8 makes such a sheet consistent; on Blackwell it is flagged."""
    from hwkb import KnowledgeBase
    (tmp_path / "gpus").mkdir()
    (tmp_path / "gpus" / "ultra.yaml").write_text(textwrap.dedent("""\
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
        """))
    kb = KnowledgeBase.load([tmp_path])
    ultra, plain = kb.audit(["ultra-sheet"]).entities[0], kb.audit(["plain-sheet"]).entities[0]
    assert ultra.checks and not [c for c in ultra.checks if str(c.status) == "inconsistent"]
    assert [c for c in plain.checks if str(c.status) == "inconsistent"]


def test_compare_puts_four_vendors_side_by_side(capsys):
    from conftest import run_cli
    code, out, _ = run_cli(capsys, "compare", "h100-sxm", "mi300x", "tpu-v5p", "gaudi3",
                           "--vars", "sm_count,clock_tc,tc_peak[bf16],memory_bandwidth")
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:-1]}
    assert code == 0 and out.splitlines()[0].split()[2:] == ["h100-sxm", "mi300x", "tpu-v5p", "gaudi3"]
    assert rows["sm_count"] == ["132", "304", "2", "-"]
    assert rows["clock_tc"] == ["GHz", "1.83*", "2.1*", "1.751*", "-"]
    assert rows["tc_peak[bf16]"] == ["TFLOPS", "989.4", "1307.4", "459", "1835"]
