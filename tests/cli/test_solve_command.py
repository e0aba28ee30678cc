"""hwkb.cli.solve: solve's JSON fields and exit codes, and its --symbolic and --sweep modes, as the contract says."""
from __future__ import annotations

import builtins
import json

import pytest
import sympy

from conftest import run_cli, run_cli_json, share_kb_with_cli


@pytest.fixture(autouse=True)
def _one_kb(real_kb, monkeypatch, request):
    if request.node.name != "test_solve_derived_json_fields":  # that one loads the KB for real
        share_kb_with_cli(monkeypatch, real_kb)


run = run_cli
run_json = run_cli_json


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
    (["--format", "csv"], "error: --format goes with --sweep"),
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


def test_a_closed_form_or_sweep_the_context_cannot_settle_is_underdetermined_exit_1(capsys):
    code, out, _ = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--symbolic", "--free", "d_qk",
                       "--json")
    document = json.loads(out)
    assert code == 1 and document["status"] == "underdetermined" and ["d_v"] in document["needs"]
    code, out, _ = run(capsys, "solve", "exp_utilization[bf16]", "--gpu", "h100-sxm", "--sweep", "d_qk=64:192:64")
    assert code == 1 and out.startswith("exp_utilization[bf16]: underdetermined")
