"""``hwkb sheet --gpu ID``: every stated and derived value with its source or rule, failed checks beside them."""
from __future__ import annotations

import json
import textwrap

from conftest import TINY, build_kb, run_cli

TINY_KB = ("--kb", str(TINY), "--no-default-kb")


def test_text_sheet_gives_sources_and_rules(capsys):
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "chip", *TINY_KB)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Tiny chip (chip)"
    assert lines[1].split() == ["sm_count", "100", "tiny", "datasheet"]
    assert lines[2].split()[:3] == ["clock", "1*", "GHz"] and "peak_law[fp16] (" in lines[2]
    assert "tiny whitepaper, table 3 [arch]" in out


def test_markdown_and_json(capsys):
    code, md, _ = run_cli(capsys, "sheet", "--gpu", "chip", *TINY_KB, "--format", "markdown")
    assert code == 0 and md.splitlines()[0] == "# Tiny chip (`chip`)"
    assert "| sm_count | 100 |  | tiny datasheet |  |" in md.splitlines()
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "chip", *TINY_KB, "--json")
    document = json.loads(out)
    assert code == 0 and document["status"] == "ok" and document["entity"] == "chip"
    assert document["rows"][0] == {"variable": "sm_count", "unit": "", "value": 100.0, "status": "stated",
                                   "origin": "tiny datasheet", "findings": []}


def test_a_failed_check_stands_beside_its_figures(capsys, tmp_path):
    kb = build_kb(tmp_path / "kb", TINY)
    (kb / "gpus" / "bad.yaml").write_text(textwrap.dedent("""\
        bad-chip:
          kind: product
          extends: arch
          facts:
            sm_count: 100
            clock: 1.000 GHz
            peak[fp16]: 300 TFLOPS
        """))
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "bad-chip", "--kb", str(kb), "--no-default-kb")
    assert code == 0 and out.count("! inconsistent law peak_law[fp16]") == 4  # a display: findings are notes
    assert out.splitlines()[-1] == "note: 1 failed audit check (marked !): hwkb audit --gpu bad-chip explains it"
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "bad-chip", "--kb", str(kb), "--no-default-kb", "--json")
    document = json.loads(out)
    assert code == 0 and document["status"] == "ok"
    assert document["findings"] == [{"status": "inconsistent", "kind": "law", "rule": "peak_law[fp16]",
                                     "deviation": document["findings"][0]["deviation"],
                                     "variables": document["findings"][0]["variables"]}]
    assert "peak[fp16]" in document["findings"][0]["variables"]


def test_sheet_needs_a_gpu(capsys):
    code, _, err = run_cli(capsys, "sheet", *TINY_KB)
    assert code == 2 and err.startswith("error: sheet needs --gpu ID")


def test_html_sheet(capsys):
    code, page, _ = run_cli(capsys, "sheet", "--gpu", "chip", *TINY_KB, "--format", "html")
    assert code == 0 and page.startswith("<!DOCTYPE html>") and "<h1>Tiny chip (chip)</h1>" in page
    assert "<td>tiny whitepaper, table 3 [arch]</td>" in page
