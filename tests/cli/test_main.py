"""hwkb.cli.main: the commands, flags, JSON fields and exit codes of the contract."""
from __future__ import annotations

import json
import os

import pytest

import hwkb
from conftest import BAD, TINY, build_kb, run_cli


run = run_cli


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    return code, json.loads(out), err


def test_the_public_api_is_pinned():
    assert sorted(hwkb.__all__) == ["KBError", "KBErrors", "KnowledgeBase", "Solution", "Value"]


# ---------------------------------------------------------------- solve

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


# ---------------------------------------------------------------- bad input: one line, exit 2

@pytest.mark.parametrize("argv, message", [
    (["solve", "clock_tcc", "--gpu", "h100-sxm"], "error: unknown variable 'clock_tcc'; did you mean 'clock_tc'"),
    (["solve", "clock_tc", "--gpu", "h100"], "error: --gpu: unknown entity 'h100'; did you mean"),
    (["solve", "clock_tc", "--gpu", "h100-sxm", "--set", "sm_count=1GHz"],
     "error: --set: '1GHz' does not fit sm_count"),
    (["solve", "clock_tc", "--gpu", "h100-sxm", "--set", "sm_cont=3"], "error: --set: unknown variable 'sm_cont'"),
    (["solve", "clock_tc", "--where", "__import__('os').system('true') = 1"], "error: --where"),
    (["solve"], "error: "),
    (["frobnicate"], "error: "),
    (["run", "no_such_query"], "error: "),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


def test_an_injected_where_runs_nothing(capsys, no_env_payload):
    code, _, err = run(capsys, "solve", "clock_tc", "--gpu", "h100-sxm",
                       "--where", f"clock_tc = __import__('os').putenv('{no_env_payload}', '1')")
    assert code == 2 and "may be called" in err
    assert no_env_payload not in os.environ


def test_a_broken_kb_names_file_and_line(capsys, tmp_path, monkeypatch):
    kb = build_kb(tmp_path / "kb", BAD / "unbalanced_law")
    monkeypatch.chdir(kb)
    code, out, err = run(capsys, "solve", "clock", "--kb", str(kb), "--no-default-kb", "--gpu", "chip")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and ".yaml:" in err and "does not balance" in err


# ---------------------------------------------------------------- explain, derive, check, list, run

def test_explain_prints_the_tree_with_sources(capsys):
    code, out, _ = run(capsys, "explain", "clock_tc", "--gpu", "h100-sxm")
    assert code == 0
    assert "tensor_peak[bf16]" in out and "also, by an independent route" in out
    assert "sm_count = 132   [h100-sxm, chapter 'From the whole chip to an SM'" in out


def test_derive_lists_values_not_stated(capsys):
    code, doc, _ = run_json(capsys, "derive", "--gpu", "a100")
    assert code == 0 and doc["entity"] == "a100"
    derived = {d["variable"]: d for d in doc["derived"]}
    assert "clock_tc" in derived and "sm_count" not in derived
    assert all({"variable", "value", "unit", "derivation"} <= set(d) for d in doc["derived"])


def test_derive_write_is_refused_over_an_existing_file(capsys, tmp_path):
    target = tmp_path / "a100-derived.yaml"
    target.write_text("keep me\n")
    code, _, err = run(capsys, "derive", "--gpu", "a100", "--write", str(target))
    assert code == 2 and "--force" in err
    assert target.read_text() == "keep me\n"


def test_check_ok_and_broken(capsys, tmp_path):
    code, doc, _ = run_json(capsys, "check")
    assert (code, doc) == (0, {"ok": True, "errors": []})
    kb = build_kb(tmp_path / "kb", BAD / "several_errors")
    code, doc, _ = run_json(capsys, "check", "--kb", str(kb), "--no-default-kb")
    assert code == 2 and doc["ok"] is False and len(doc["errors"]) >= 2
    assert all({"file", "line", "message"} <= set(e) for e in doc["errors"])


@pytest.mark.parametrize("what, expected", [("entities", "h100-sxm"), ("variables", "sm_count"),
                                            ("rules", "tensor_peak")])
def test_list(capsys, what, expected):
    code, items, _ = run_json(capsys, "list", what)
    assert code == 0 and expected in {i["id"] for i in items}
    assert all(i["doc"] for i in items if i.get("kind") in (None, "law", "expectation", "architecture", "product"))


def test_run_by_name_and_by_path(capsys):
    code, doc, _ = run_json(capsys, "run", "peaks")
    assert code == 0 and {"title", "columns", "rows"} <= set(doc)
    path = os.path.join(os.path.dirname(hwkb.__file__), "..", "..", "queries", "peaks.yaml")
    if os.path.exists(path):
        code, again, _ = run_json(capsys, "run", path)
        assert again["rows"] == doc["rows"]


def test_a_user_kb_on_its_own(capsys):
    code, doc, _ = run_json(capsys, "solve", "clock", "--kb", str(TINY), "--no-default-kb", "--gpu", "chip")
    assert code == 0 and doc["value"] == pytest.approx(1.0)


@pytest.mark.parametrize("flags, message", [
    (["--free", "d_qk"], "error: --free goes with --symbolic"),
    (["--sensitivity"], "error: --sensitivity goes with --symbolic"),
    (["--format", "csv"], "error: --format goes with --sweep"),
    (["--plot", "x.png"], "error: --plot goes with --sweep"),
])
def test_a_flag_of_another_mode_is_refused(capsys, flags, message):
    code, _, err = run(capsys, "solve", "clock_tc", "--gpu", "h100-sxm", *flags)
    assert code == 2 and err.startswith(message)
