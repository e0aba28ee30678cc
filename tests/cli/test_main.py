"""hwkb.cli.main: the parser, the exit codes and the one-line errors of the contract, whatever the command."""
from __future__ import annotations

import os

import pytest

import hwkb
from hwkb.cli.main import COMMANDS, build_parser
from conftest import BAD, TINY, build_kb, run_cli, run_cli_json


run = run_cli
run_json = run_cli_json


def test_every_command_of_the_contract_is_registered():
    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if a.dest == "command"]
    assert list(subparsers.choices) == ["solve", "explain", "derive", "check", "list", "sources", "run", "simulate", "audit",
                                        "whatif", "compare", "sheet", "roofline", "export", "completion"]
    assert all(subparsers.choices[name].get_default("handler") for name in subparsers.choices)
    assert len(COMMANDS) == len(subparsers.choices)


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


def test_a_user_kb_on_its_own(capsys):
    code, doc, _ = run_json(capsys, "solve", "clock", "--kb", str(TINY), "--no-default-kb", "--gpu", "chip")
    assert code == 0 and doc["value"] == pytest.approx(1.0)


def test_simulate_bad_input_through_main_is_one_line(capsys):
    code, out, err = run(capsys, "simulate", "--warps", "0", "--ilp", "1", "--compute", "1", "--latency", "1")
    assert (code, out) == (2, "") and err == "error: warps must be an integer >= 1, got 0\n"
