"""``hwkb compare``: a row per variable, a column per GPU, derived values marked; text, Markdown, CSV, JSON."""
from __future__ import annotations

import json

from conftest import TINY, run_cli

TINY_KB = ("--kb", str(TINY), "--no-default-kb")


def test_table_marks_derived_values_and_keeps_printed_digits(capsys):
    code, out, _ = run_cli(capsys, "compare", "chip", "arch", *TINY_KB)
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["variable", "unit", "Tiny", "chip", "Tiny", "architecture"]
    assert lines[1].split() == ["sm_count", "100", "128"]
    assert lines[2].split() == ["clock", "GHz", "1*", "-"]
    assert "peak[fp16]      TFLOPS         204.8                  -" in lines
    assert lines[-1].startswith("* derived")


def test_vars_pick_rows_and_an_index_free_name_takes_every_index(capsys):
    code, out, _ = run_cli(capsys, "compare", "chip", *TINY_KB, "--vars", "peak,clock", "--format", "csv")
    assert code == 0 and out.splitlines() == ["variable,unit,chip,chip status", "peak[fp16],TFLOPS,204.8,stated",
                                              "peak[bf16],TFLOPS,204.8,derived", "clock,GHz,1.0,derived"]


def test_markdown_and_json(capsys):
    code, md, _ = run_cli(capsys, "compare", "chip", "arch", *TINY_KB, "--vars", "sm_count", "--format", "markdown")
    assert code == 0 and md.splitlines()[:3] == ["| variable | unit | Tiny chip | Tiny architecture |", "|---|---|---|---|",
                                                 "| sm_count |  | 100 | 128 |"]
    code, out, _ = run_cli(capsys, "compare", "chip", "arch", *TINY_KB, "--vars", "clock", "--json")
    document = json.loads(out)
    assert code == 0 and document["columns"] == [{"id": "chip", "name": "Tiny chip"},
                                                 {"id": "arch", "name": "Tiny architecture"}]
    assert document["rows"] == [{"variable": "clock", "unit": "GHz", "section": "compute",
                                 "values": [{"value": 1.0, "status": "derived"}, None]}]


def test_unknown_names_are_bad_input(capsys):
    code, _, err = run_cli(capsys, "compare", "chip", *TINY_KB, "--vars", "clok")
    assert code == 2 and err.startswith("error: unknown variable 'clok'")
    code, _, err = run_cli(capsys, "compare", "chipp", *TINY_KB)
    assert code == 2 and "unknown entity 'chipp'" in err


def test_html_is_one_escaped_page(capsys):
    code, page, _ = run_cli(capsys, "compare", "chip", *TINY_KB, "--vars", "peak", "--format", "html")
    assert code == 0 and page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<td>peak[fp16]</td><td>TFLOPS</td><td class=\"n\">204.8</td>" in page and ">Tiny chip</th>" in page


def test_rows_every_gpu_lacks_are_left_out_and_counted(capsys):
    """``arch`` states no clock, so neither peak follows: an index-free name's empty rows go, with a line."""
    code, out, _ = run_cli(capsys, "compare", "arch", *TINY_KB, "--vars", "peak,sm_count")
    lines = out.splitlines()
    assert code == 0 and [line.split()[0] for line in lines[1:-2]] == ["sm_count"]
    assert lines[-2] == ("2 rows left out: no GPU compared has a figure for them "
                         "(name one exactly to show it, e.g. --vars 'peak[fp16]')")
    code, out, _ = run_cli(capsys, "compare", "arch", *TINY_KB, "--vars", "peak,sm_count", "--json")
    assert json.loads(out)["left_out"] == ["peak[fp16]", "peak[bf16]"]
    code, out, _ = run_cli(capsys, "compare", "arch", *TINY_KB, "--vars", "peak", "--format", "markdown")
    assert "2 rows left out" in out and "peak[" not in out.split("2 rows left out")[0]


def test_an_exact_key_is_shown_even_when_every_gpu_lacks_it(capsys):
    code, out, _ = run_cli(capsys, "compare", "arch", *TINY_KB, "--vars", "peak[bf16],clock")
    lines = out.splitlines()
    assert code == 0 and lines[1].split() == ["peak[bf16]", "TFLOPS", "-"] and lines[2].split() == ["clock", "GHz", "-"]
    assert "left out" not in out
    code, out, _ = run_cli(capsys, "compare", "chip", "arch", *TINY_KB, "--vars", "peak", "--json")
    document = json.loads(out)
    assert [r["variable"] for r in document["rows"]] == ["peak[fp16]", "peak[bf16]"] and document["left_out"] == []


def test_a_row_one_gpu_has_stays(capsys):
    code, out, _ = run_cli(capsys, "compare", "arch", "chip", *TINY_KB, "--vars", "peak", "--format", "csv")
    assert code == 0 and out.splitlines() == ["variable,unit,arch,arch status,chip,chip status",
                                              "peak[fp16],TFLOPS,,,204.8,stated", "peak[bf16],TFLOPS,,,204.8,derived"]


def test_a_name_picked_twice_is_one_row_and_exact_wins(capsys):
    code, out, _ = run_cli(capsys, "compare", "arch", *TINY_KB, "--vars", "peak,sm_count,peak[bf16],sm_count")
    rows = [line.split()[0] for line in out.splitlines()[1:] if line.split()[0] in ("peak[fp16]", "peak[bf16]", "sm_count")]
    assert code == 0 and rows == ["peak[bf16]", "sm_count"] and "1 row left out" in out



def test_the_default_is_a_headline_in_sections_with_product_names(capsys):
    code, out, _ = run_cli(capsys, "compare", "h100-sxm", "mi300x")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:2] == ["variable", "unit"] and "H100 SXM5" in lines[0]
    assert "AMD Instinct MI300X" in lines[0] and "h100-sxm" not in lines[0]
    sections = [line for line in lines if line.startswith("[")]
    assert sections == ["[memory and bandwidth]", "[peaks by precision]", "[power]", "[clocks]"]
    assert lines[2].split()[0] == "memory_size" and "gpc_count" not in out
    assert "a headline set: --all shows every figure, --vars picks rows" in lines
    code, every, _ = run_cli(capsys, "compare", "h100-sxm", "mi300x", "--all")
    assert code == 0 and "gpc_count" in every and "[compute]" in every and len(every.splitlines()) > 2 * len(lines)


def test_gpus_by_argument_and_by_gpu_flag_are_one_list(capsys):
    code, out, _ = run_cli(capsys, "compare", "chip", "--gpu", "arch", *TINY_KB, "--vars", "sm_count", "--json")
    document = json.loads(out)
    assert code == 0 and [c["id"] for c in document["columns"]] == ["chip", "arch"]
    code, _, err = run_cli(capsys, "compare", *TINY_KB)
    assert code == 2 and err.startswith("error: compare needs the GPUs to compare")
    code, _, err = run_cli(capsys, "compare", "chip", *TINY_KB, "--all", "--vars", "clock")
    assert code == 2 and "--vars and --all" in err


def test_a_kb_without_the_headline_variables_compares_every_figure(capsys):
    code, out, _ = run_cli(capsys, "compare", "chip", *TINY_KB, "--json")
    document = json.loads(out)
    assert code == 0 and document["headline"] is False and document["rows"][0]["variable"] == "sm_count"


def test_the_output_goes_to_a_file_atomically(capsys, tmp_path):
    target = tmp_path / "table.csv"
    code, out, _ = run_cli(capsys, "compare", "chip", *TINY_KB, "--vars", "clock", "--format", "csv",
                           "--output", str(target))
    assert code == 0 and out == f"wrote {target}: csv\n" and target.read_text().startswith("variable,unit,chip")
    code, _, err = run_cli(capsys, "compare", "chip", *TINY_KB, "--format", "csv", "--output", str(target))
    assert code == 2 and "exists" in err
    code, _, _ = run_cli(capsys, "compare", "chip", *TINY_KB, "--output", str(target), "--force")
    assert code == 0 and target.read_text().startswith("variable")


def test_the_python_door_renders_every_form():
    from hwkb import KnowledgeBase
    result = KnowledgeBase.load([TINY], default=False).compare(["chip", "arch"], ["clock"])
    assert result.render("markdown").splitlines()[0] == "| variable | unit | Tiny chip | Tiny architecture |"
    assert json.loads(result.render("json"))["command"] == "compare" and str(result) == result.render("text")
    assert result.render("csv").splitlines()[1] == "clock,GHz,1.0,derived,,"


def test_a_workload_rides_on_every_gpu_given_either_way(capsys):
    by_argument = run_cli(capsys, "compare", "h100-sxm", "mi300x", "--with", "llama-3-70b", "--with", "fp8",
                          "--set", "batch=1", "--vars", "decode_tokens_per_s")
    by_flag = run_cli(capsys, "compare", "--gpu", "h100-sxm", "--gpu", "mi300x", "--with", "llama-3-70b", "--with",
                      "fp8", "--set", "batch=1", "--vars", "decode_tokens_per_s")
    assert by_argument == by_flag and by_argument[0] == 0
    lines = by_argument[1].splitlines()
    assert lines[0] == "each GPU with llama-3-70b + fp8; given batch=1"
    assert lines[2].split() == ["decode_tokens_per_s", "token/s", "48.2*", "76.26*"]
    assert lines[3].split() == ["bound", "by", "decode_memory_time", "decode_memory_time"]


def test_a_figure_resting_on_an_n_a_is_n_a_not_blank(capsys):
    """The A100 states FP8 n/a (NVIDIA's table), so its FP6 rate and peak, which FP6's laws tie to FP8, do not
    exist: n/a as solve answers, not blank; they bring in no row where every GPU has them so (H100 and A100). The
    B200's FP6 peak derives from its FP8 one (NVIDIA's one 'FP8/FP6' row)."""
    code, out, _ = run_cli(capsys, "compare", "a100-80gb-sxm", "b200", "--vars", "tc_peak[fp6],tc_peak[fp8]",
                           "--format", "csv")
    assert code == 0 and out.splitlines()[1:] == ["tc_peak[fp6],TFLOPS,,not_applicable,4500.0,derived",
                                                  "tc_peak[fp8],TFLOPS,,not_applicable,4500.0,stated"]
    code, out, _ = run_cli(capsys, "solve", "tc_peak[fp6]", "--gpu", "a100-80gb-sxm")
    assert out.startswith("tc_peak[fp6]: not applicable")
    code, out, _ = run_cli(capsys, "compare", "a100-80gb-sxm", "h100-sxm")
    assert code == 0 and "tc_peak[fp8]" in out and "tc_peak[fp6]" not in out
