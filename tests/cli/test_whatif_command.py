"""hwkb.cli.whatif: the whatif command and solve's --symbolic and --sweep, as the contract says."""
from __future__ import annotations

import builtins
import json

import pytest
import sympy

from conftest import run_cli, share_kb_with_cli


@pytest.fixture(autouse=True)
def _one_kb(real_kb, monkeypatch, request):
    if request.node.name != "test_whatif_json_contract":  # that one loads the KB for real
        share_kb_with_cli(monkeypatch, real_kb)


run = run_cli


def test_whatif_json_contract(capsys):
    code, out, err = run(capsys, "whatif", "exp_utilization[bf16]", "--gpu", "b200", "--given", "d_qk=128",
                         "--given", "d_v=128", "--scenario", "sfu-doubled", "--json")
    assert code == 0 and err == ""
    (row,) = json.loads(out)["rows"]
    assert {k: row[k] for k in ("variable", "baseline", "scenario", "unit", "change")} == \
        {"variable": "exp_utilization[bf16]", "baseline": 1.0, "scenario": 0.5, "unit": "", "change": -0.5}


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
    assert out == "d_qk,exp_utilization[fp8]\n64.0,2.0\n"


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


def test_threshold_through_the_cli(capsys):
    code, out, _ = run(capsys, "solve", "d_qk", "--gpu", "h100-sxm", "--where", "d_v = d_qk",
                       "--where", "exp_utilization[fp8] <= 1", "--json")
    document = json.loads(out)
    assert code == 0 and document["value"] == 128
    assert document["intervals"] == [{"lower": 128.0, "upper": None, "lower_closed": True, "upper_closed": False}]


def test_a_closed_form_or_sweep_the_context_cannot_settle_is_underdetermined_exit_1(capsys):
    code, out, _ = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--symbolic", "--free", "d_qk",
                       "--json")
    document = json.loads(out)
    assert code == 1 and document["status"] == "underdetermined" and ["d_v"] in document["needs"]
    code, out, _ = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--sweep", "d_qk=64:192:64")
    assert code == 1 and out.startswith("exp_utilization[bf16]: underdetermined")


def test_whatif_marks_what_is_not_settled_and_exits_1(capsys):
    code, out, _ = run(capsys, "whatif", "exp_utilization[bf16]", "--gpu", "b200", "--with", "sfu-doubled",
                       "--set", "clock_tc=2GHz")
    assert code == 1 and out.splitlines()[0] == "baseline: b200 + sfu-doubled"
    assert out.splitlines()[3].endswith("[baseline underdetermined, scenario underdetermined]")
    assert out.splitlines()[4] == "note: tc_peak[bf16] (stated 2250 TFLOPS) is recomputed from the change"
