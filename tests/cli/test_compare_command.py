"""``hwkb compare``: a row per variable, a column per GPU, derived values marked; text, Markdown, CSV, JSON."""
from __future__ import annotations

import json

from conftest import TINY, run_cli

TINY_KB = ("--kb", str(TINY), "--no-default-kb")


def test_table_marks_derived_values_and_keeps_printed_digits(capsys):
    code, out, _ = run_cli(capsys, "compare", "chip", "arch", *TINY_KB)
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["variable", "unit", "chip", "arch"]
    assert lines[1].split() == ["sm_count", "100", "128"]
    assert lines[2].split() == ["clock", "GHz", "1*", "-"]
    assert "peak[fp16]      TFLOPS      204.8      -" in lines
    assert lines[-1].startswith("* derived")


def test_vars_pick_rows_and_an_index_free_name_takes_every_index(capsys):
    code, out, _ = run_cli(capsys, "compare", "chip", *TINY_KB, "--vars", "peak,clock", "--format", "csv")
    assert code == 0 and out.splitlines() == ["variable,unit,chip", "peak[fp16],TFLOPS,204.8",
                                              "peak[bf16],TFLOPS,204.8", "clock,GHz,1.0"]


def test_markdown_and_json(capsys):
    code, md, _ = run_cli(capsys, "compare", "chip", "arch", *TINY_KB, "--vars", "sm_count", "--format", "markdown")
    assert code == 0 and md.splitlines()[:3] == ["| variable | unit | chip | arch |", "|---|---|---|---|",
                                                 "| sm_count |  | 100 | 128 |"]
    code, out, _ = run_cli(capsys, "compare", "chip", "arch", *TINY_KB, "--vars", "clock", "--json")
    document = json.loads(out)
    assert code == 0 and document["gpus"] == ["chip", "arch"]
    assert document["rows"] == [{"variable": "clock", "unit": "GHz",
                                 "values": [{"value": 1.0, "status": "derived"}, None]}]


def test_unknown_names_are_bad_input(capsys):
    code, _, err = run_cli(capsys, "compare", "chip", *TINY_KB, "--vars", "clok")
    assert code == 2 and err.startswith("error: unknown variable 'clok'")
    code, _, err = run_cli(capsys, "compare", "chipp", *TINY_KB)
    assert code == 2 and "unknown entity 'chipp'" in err


def test_html_is_one_escaped_page(capsys):
    code, page, _ = run_cli(capsys, "compare", "chip", *TINY_KB, "--vars", "peak", "--format", "html")
    assert code == 0 and page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<td>peak[fp16]</td><td>TFLOPS</td><td class=\"n\">204.8</td>" in page
