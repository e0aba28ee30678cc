"""One JSON schema for every command: each ``--json`` document validates against ``hwkb/cli/schema.json``."""
from __future__ import annotations

import json

import pytest

from hwkb.cli import flags
from hwkb.cli.main import COMMANDS
from conftest import BAD, TINY, build_kb, run_cli, share_kb_with_cli
from json_schema_subset import errors

SCHEMA = json.loads(flags.SCHEMA.read_text(encoding="utf-8"))

DOCUMENTS = {
    "solve derived": ["solve", "clock_tc", "--gpu", "h100-sxm"],
    "solve stated": ["solve", "sm_count", "--gpu", "h100-sxm"],
    "solve underdetermined": ["solve", "clock_fp32", "--gpu", "b200"],
    "solve inconsistent": ["solve", "clock_tc", "--gpu", "hopper", "--set", "sm_count=132",
                           "--set", "tc_peak[bf16]=989.4TFLOPS", "--set", "tc_peak[fp8]=1000TFLOPS"],
    "solve whole counts": ["solve", "sm_count", "--set", "tc_peak[bf16]=989.4TFLOPS", "--set", "clock_tc=1.9GHz",
                           "--set", "tc_fma_per_sm_cycle[bf16]=2048"],
    "solve no whole count": ["solve", "sm_count", "--set", "tc_peak[bf16]=989.4TFLOPS", "--set", "clock_tc=1.832GHz",
                             "--set", "tc_fma_per_sm_cycle[bf16]=2048"],
    "solve above its ceiling": ["solve", "clock_fp64", "--gpu", "h100-sxm"],
    "solve beyond its ceiling": ["solve", "clock_fp64", "--gpu", "h100-sxm", "--set", "fp64_peak=36TFLOPS"],
    "solve intervals": ["solve", "d_qk", "--gpu", "h100-sxm", "--where", "d_v = d_qk",
                        "--where", "exp_utilization[fp8] <= 1"],
    "solve an upper bound": ["solve", "regs_per_thread", "--gpu", "h100-sxm", "--set", "threads_per_block=256",
                             "--set", "smem_per_block=48KiB", "--where", "occupancy >= 0.5"],
    "solve infeasible": ["solve", "regs_per_thread", "--gpu", "a100", "--set", "threads_per_block=256",
                         "--set", "smem_per_block=48KiB", "--where", "occupancy >= 0.5"],
    "solve an interval of solutions": ["solve", "problem_size", "--set", "threads_per_block=512",
                                       "--where", "blocks_per_grid = 16"],
    "a launch past a limit": ["solve", "occupancy", "--gpu", "h100-sxm", "--set", "threads_per_block=2048",
                              "--set", "regs_per_thread=32", "--set", "smem_per_block=0"],
    "solve symbolic": ["solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--symbolic", "--free", "d_qk,d_v"],
    "solve sweep": ["solve", "smem_share", "--gpu", "hopper", "--set", "tile_m=64", "--set", "a_rows=64",
                    "--set", "operand_bytes=2", "--sweep", "tile_n=64,128,256", "--where", "b_cols = tile_n"],
    "explain": ["explain", "clock_tc", "--gpu", "h100-sxm"],
    "solve implausible": ["solve", "clock_tc", "--gpu", "tpu-v6e", "--set", "mxus_per_sm=2"],
    "explain implausible": ["explain", "sfu_exp_rate", "--gpu", "h100-sxm", "--set", "tc_peak[bf16]=2000TFLOPS",
                            "--set", "tc_peak[fp8]=n/a", "--set", "tc_peak[fp16]=n/a", "--set", "tc_peak[tf32]=n/a",
                            "--set", "tc_peak[int8]=n/a", "--set", "fp32_peak=n/a"],
    "derive implausible": ["derive", "--gpu", "tpu-v6e", "--set", "mxus_per_sm=2"],
    "derive": ["derive", "--gpu", "a100"],
    "check": ["check"],
    "list entities": ["list"],
    "list variables": ["list", "variables"],
    "list rules": ["list", "rules"],
    "sources": ["sources"],
    "run": ["run", "peaks"],
    "run with no name": ["run"],
    "simulate": ["simulate", "--warps", "4,8", "--ilp", "1", "--compute", "16", "--latency", "500"],
    "audit": ["audit", "--gpu", "h100-sxm", "a100"],
    "audit documents": ["audit", "--gpu", "cc-12.0"],
    "explain other documents": ["explain", "max_blocks_per_sm", "--gpu", "cc-12.0"],
    "solve by an alias": ["solve", "cu_count", "--gpu", "mi300x"],
    "whatif": ["whatif", "exp_utilization[bf16]", "sfu_exp_rate", "--gpu", "b200", "--given", "d_qk=128",
               "--given", "d_v=128", "--scenario", "sfu-doubled"],
    "whatif with moved figures": ["whatif", "memory_bandwidth", "--gpu", "h100-sxm", "--set", "memory_bandwidth=4TB/s"],
    "compare vendors": ["compare", "h100-sxm", "mi300x", "--vars", "sm_count,tc_peak,tmem_per_sm"],
    "sheet of a TPU": ["sheet", "--gpu", "tpu-v5e"],
    "completion": ["completion", "bash"],
    "compare": ["compare", "a100", "h100-sxm"],
    "sheet": ["sheet", "--gpu", "a100"],
    "sheet with a clock above its ceiling": ["sheet", "--gpu", "h100-sxm"],
    "compare clocks above their ceiling": ["compare", "h100-sxm", "mi250", "--vars", "clock_fp64,clock_tc"],
    "compare a count no whole count fits": ["compare", "b200", "--vars", "sms_per_die", "--set", "sm_count=149"],
    "roofline": ["roofline", "--gpu", "a100", "--gpu", "h100-sxm"],
    "compare with a workload": ["compare", "h100-sxm", "mi300x", "--with", "llama-3-70b", "--with", "fp8",
                                "--set", "batch=1"],
    "roofline with a roof the GPU lacks": ["roofline", "--gpu", "a100-80gb-sxm", "--precision", "fp8",
                                           "--precision", "mxfp4"],
    "roofline with a workload": ["roofline", "--gpu", "h100-sxm", "--with", "llama-3-70b", "--set", "batch=1"],
    "solve a bandwidth the bus fixes": ["solve", "memory_bandwidth", "--gpu", "mi300x", "--with", "llama-3-70b",
                                        "--set", "batch=1", "--set", "target_tokens_per_s=100",
                                        "--where", "decode_tokens_per_s >= target_tokens_per_s"],
    "usage error": ["solve"],
    "unknown command": ["frobnicate"],
    "unknown variable": ["solve", "clock_tcc", "--gpu", "h100-sxm"],
    "bad --set": ["solve", "clock_tc", "--gpu", "h100-sxm", "--set", "sm_count=1GHz"],
    "simulate bad input": ["simulate", "--warps", "0", "--ilp", "1", "--compute", "1", "--latency", "1"],
}


def document(capsys, argv: list[str]) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, *argv, "--json")
    return code, json.loads(out), err


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_document_validates(capsys, monkeypatch, real_kb, name):
    share_kb_with_cli(monkeypatch, real_kb)  # the documents, not the loading, are under test: one load for all
    code, doc, _ = document(capsys, DOCUMENTS[name])
    assert errors(doc, SCHEMA) == []
    assert isinstance(doc["status"], str) and doc["command"] == (DOCUMENTS[name][0] if doc["command"] else None)
    assert (code == 2) == (doc["status"] == "error")


def test_a_broken_kb_validates_and_names_its_files_as_given(capsys, tmp_path, monkeypatch):
    kb = build_kb(tmp_path / "kb", BAD / "several_errors")
    monkeypatch.chdir(tmp_path)
    for argv in (["check", "--kb", "kb", "--no-default-kb"], ["solve", "x", "--kb", "kb", "--no-default-kb"]):
        code, doc, err = document(capsys, argv)
        assert code == 2 and doc["status"] == "error" and errors(doc, SCHEMA) == []
        assert all(e["file"].startswith("kb/") for e in doc["errors"]) and err.startswith("error: ")
    assert kb.is_dir()


def test_bad_input_with_json_is_the_error_document_and_one_line(capsys):
    code, out, err = run_cli(capsys, "solve", "clock_tcc", "--gpu", "h100-sxm", "--json")
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: unknown variable 'clock_tcc'")
    assert json.loads(out) == {"command": "solve", "status": "error", "errors": [
        {"file": None, "line": None, "column": None, "message": "unknown variable 'clock_tcc'",
         "hint": json.loads(out)["errors"][0]["hint"]}]}
    assert "clock_tc" in json.loads(out)["errors"][0]["hint"]


def test_ratios_are_fractions_and_audit_text_keeps_percent(capsys):
    _, doc, _ = document(capsys, ["audit", "--gpu", "h100-sxm"])
    check = next(c for c in doc["entities"][0]["checks"] if c["rule"] == "fp32_clock_is_tensor_clock")
    assert check["deviation"] == pytest.approx(0.0835, abs=5e-4)
    _, text, _ = run_cli(capsys, "audit", "--gpu", "h100-sxm")
    assert "+8.35%" in text
    _, doc, _ = document(capsys, DOCUMENTS["whatif"])
    assert doc["rows"][0]["change"] == pytest.approx(-0.5)


def test_numbers_come_with_units_and_integers_as_integers(capsys):
    _, doc, _ = document(capsys, ["run", "peaks"])
    assert doc["units"] == [None, "", "", "GHz", "flop/cycle", "GHz"] and len(doc["units"]) == len(doc["columns"])
    _, doc, _ = document(capsys, DOCUMENTS["solve sweep"])
    assert [row[0] for row in doc["rows"]] == [64, 128, 256] and all(type(r[0]) is int for r in doc["rows"])
    _, doc, _ = document(capsys, ["solve", "tc_peak[bf16]", "--gpu", "h100-sxm", "--sweep", "clock_tc=1.5,1.75"])
    assert [row[0] for row in doc["rows"]] == [1.5, 1.75] and doc["units"] == ["GHz", "TFLOPS"]
    _, doc, _ = document(capsys, DOCUMENTS["simulate"])
    assert doc["units"]["latency"] == "cycle"


def test_where_fields_do_not_depend_on_the_working_directory(capsys, monkeypatch, tmp_path):
    argv = ["solve", "clock", "--kb", str(TINY), "--no-default-kb", "--gpu", "chip"]
    _, here, _ = document(capsys, argv)
    monkeypatch.chdir(tmp_path)
    _, there, _ = document(capsys, argv)
    assert here == there and here["derivation"]["inputs"][0]["where"].startswith(str(TINY))


def test_every_command_has_a_schema():
    branches = {b["if"]["properties"]["command"]["const"] for b in SCHEMA["else"]["allOf"]}
    assert set(COMMANDS) == set(SCHEMA["$defs"]["commands"]) == branches


def test_the_validator_rejects_what_the_schema_forbids():
    assert "$: 'status' is missing" in errors({"command": "solve"}, SCHEMA)
    assert errors({"command": "whatif", "status": "ok", "rows": [{"variable": "x", "baseline": 1, "scenario": 2,
                   "unit": "", "change": 1, "baseline_status": {"a": 1}, "scenario_status": "derived"}]}, SCHEMA)
    assert errors({"command": "x", "status": "error", "errors": []}, SCHEMA) == ["$.errors: fewer than 1 items"]
    assert errors(1, {"minimum": 0}) == ["$: the validator does not know ['minimum']"]


def test_the_schema_names_each_thing_once():
    """A key given twice in a JSON object silently takes the last: a stricter first definition would never apply."""
    def once(pairs):
        names = [name for name, _ in pairs]
        assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
        return dict(pairs)

    json.loads(flags.SCHEMA.read_text(encoding="utf-8"), object_pairs_hook=once)
    branches = [b["if"]["properties"]["command"]["const"] for b in SCHEMA["else"]["allOf"]]
    assert len(branches) == len(set(branches))
