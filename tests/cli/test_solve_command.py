"""hwkb.cli.solve: solve's JSON fields and exit codes, and its --symbolic and --sweep modes, as the contract says."""
from __future__ import annotations

import builtins
import json

import pytest
import sympy

from conftest import TINY, run_cli, run_cli_json, share_kb_with_cli


@pytest.fixture(autouse=True)
def _one_kb(tiny_kb, monkeypatch, request):
    if request.node.name != "test_solve_derived_json_fields":  # that one loads the KB for real
        share_kb_with_cli(monkeypatch, tiny_kb)


run = run_cli
run_json = run_cli_json


def test_solve_derived_json_fields(capsys):
    code, doc, err = run_json(capsys, "solve", "clock", "--gpu", "chip", "--kb", str(TINY), "--no-default-kb")
    assert code == 0 and err == ""
    assert {"variable", "value", "unit", "status", "derivation"} <= set(doc)
    assert (doc["variable"], doc["unit"], doc["status"]) == ("clock", "GHz", "derived")
    assert doc["value"] == pytest.approx(204.8e12 / (100 * 1024 * 2) / 1e9)
    tree = doc["derivation"]
    assert tree["rule"] == "peak_law[fp16]"
    facts = {i["fact"]: i for i in tree["inputs"] if "fact" in i}
    assert facts["sm_count"]["entity"] == "chip" and facts["sm_count"]["source"]
    assert facts["peak[fp16]"]["value"] == 204.8


def test_solve_stated_and_set_with_units(capsys):
    code, doc, _ = run_json(capsys, "solve", "peak[fp16]", "--gpu", "chip")
    assert (code, doc["status"], doc["value"], doc["derivation"]["entity"]) == (0, "stated", 204.8, "chip")
    code, doc, _ = run_json(capsys, "solve", "peak[fp16]", "--gpu", "chip", "--set", "clock=1000MHz",
                            "--set", "peak[fp16]=n/a")
    assert doc["status"] == "not_applicable"
    code, doc, _ = run_json(capsys, "solve", "sm_count", "--set", "fma_rate[fp16]=1024", "--set", "clock=1GHz",
                            "--set", "peak[fp16]=204.8TFLOPS")
    assert code == 0 and doc["value"] == pytest.approx(100, rel=1e-3)
    assert doc["derivation"]["inputs"][0]["source"] == "given on the command line"


@pytest.mark.parametrize("clock, code, lines", [
    ("1.9GHz", 0, ["sm_count = 50–54   (derived)",
                   "  any whole sm_count from 50 to 54 lies within the rounding of the figures it comes from "
                   "(49.94 to 54.11; 52.6316 as computed)"]),
    ("1.001GHz", 0, ["sm_count = 100   (derived)",
                     "  100: the one whole sm_count within the rounding of the figures it comes from "
                     "(99.68 to 100; 99.9001 as computed)"]),
    ("1.024GHz", 1, ["sm_count = 97.66   (inconsistent)",
                     "  no whole sm_count lies within the rounding of the figures it comes from "
                     "(97.44 to 97.8; 97.6562 as computed): they contradict one another"]),
])
def test_a_count_from_given_figures_is_shown_as_whole_counts(capsys, clock, code, lines):
    got = run(capsys, "solve", "sm_count", "--set", "fma_rate[fp16]=1024", "--set", f"clock={clock}",
              "--set", "peak[fp16]=204.8TFLOPS")
    assert got[:2] == (code, "\n".join(lines) + "\n")


def test_solve_underdetermined_names_what_would_settle_it(capsys):
    code, doc, _ = run_json(capsys, "solve", "clock", "--set", "sm_count=100")
    assert code == 1 and doc["status"] == "underdetermined"
    needs = {tuple(n) for n in doc["needs"]}
    assert ("fma_rate[fp16]", "peak[fp16]") in needs
    # the two peaks fix only a ratio of the rates between them: structure alone would offer them
    assert ("peak[bf16]", "peak[fp16]") not in needs


def test_solve_inconsistent_shows_every_route(capsys):
    code, out, _ = run(capsys, "solve", "clock", "--gpu", "chip", "--set", "peak[bf16]=300TFLOPS")
    assert code == 1
    assert "inconsistent" in out and "independent routes disagree" in out


def test_solve_the_least_warp_count_through_the_simulation(capsys, monkeypatch, scheduler_kb):
    share_kb_with_cli(monkeypatch, scheduler_kb)
    code, doc, _ = run_json(capsys, "solve", "warps", "--set", "loads=4", "--set", "compute=64", "--set", "latency=500",
                            "--where", "busy >= 0.9")
    assert code == 0 and doc["value"] == 8
    (interval,) = doc["intervals"]
    assert (interval["lower"], interval["upper"], interval["lower_closed"]) == (8, None, True)


def test_threshold_through_the_cli(capsys, monkeypatch, scheduler_kb):
    share_kb_with_cli(monkeypatch, scheduler_kb)
    # Little's law: (500 + loads + 16) / (loads + 16) <= 2  <=>  loads >= 484
    code, out, _ = run(capsys, "solve", "loads", "--set", "latency=500", "--set", "compute=16",
                       "--where", "needed <= 2", "--json")
    document = json.loads(out)
    assert code == 0 and document["value"] == 484
    assert document["intervals"] == [{"lower": 484.0, "upper": None, "lower_closed": True, "upper_closed": False}]


@pytest.mark.parametrize("flags, message", [
    (["--free", "sm_count"], "error: --free goes with --symbolic"),
    (["--sensitivity"], "error: --sensitivity goes with --symbolic"),
    (["--plot", "x.png"], "error: --plot goes with --sweep"),
])
def test_a_flag_of_another_mode_is_refused(capsys, flags, message):
    code, _, err = run(capsys, "solve", "clock", "--gpu", "chip", *flags)
    assert code == 2 and err.startswith(message)


def test_symbolic_json_parses_back(capsys):
    code, out, _ = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--symbolic", "--free", "sm_count,clock",
                       "--sensitivity", "--set", "sm_count=100", "--set", "clock=1GHz", "--json")
    document = json.loads(out)
    assert code == 0 and document["free"] == ["sm_count", "clock"]
    assert document["expression"] == "256*clock*sm_count/125"
    assert document["latex"] == r"\frac{256 \mathrm{clock} \mathrm{sm\_count}}{125}"
    sm_count, clock = sympy.symbols("sm_count clock", positive=True)
    assert sympy.parse_expr(document["expression"], local_dict={"sm_count": sm_count, "clock": clock}) == \
        sympy.Rational(256, 125) * clock * sm_count
    assert [s["elasticity"] for s in document["sensitivity"]] == [1.0, 1.0]


def test_symbolic_text(capsys):
    code, out, _ = run(capsys, "solve", "peak[fp16]", "--gpu", "chip", "--symbolic", "--free", "clock")
    assert code == 0
    assert out.splitlines()[:3] == ["peak[fp16] [TFLOPS] = 1024*clock/5", "  ≈ 204.8*clock", "  free: clock [GHz]"]


def test_symbolic_text_with_sensitivity(capsys, monkeypatch, scheduler_kb):
    share_kb_with_cli(monkeypatch, scheduler_kb)
    code, out, _ = run(capsys, "solve", "needed", "--symbolic", "--free", "loads,compute", "--sensitivity",
                       "--set", "latency=100", "--set", "loads=50", "--set", "compute=50")
    assert code == 0 and out.splitlines()[0] == "needed = (compute + loads + 100)/(compute + loads)"
    assert out.splitlines()[-4:] == [
        "  value at loads=50, compute=50: 2",
        "  elasticity ∂ln needed / ∂ln x:",
        "    loads: 100*loads/((-compute - loads)*(compute + loads + 100)) = -0.25",
        "    compute: 100*compute/((-compute - loads)*(compute + loads + 100)) = -0.25"]


def test_symbolic_errors(capsys):
    code, _, err = run(capsys, "solve", "clock", "--gpu", "chip", "--symbolic", "--free", "smcount")
    assert code == 2 and err.startswith("error: --free: unknown variable 'smcount'; did you mean")
    code, _, err = run(capsys, "solve", "sm_count", "--symbolic", "--where", "sm_count >= 1")
    assert code == 2 and "--symbolic takes only equalities in --where" in err


def test_sweep_json_and_csv(capsys):
    code, out, _ = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--sweep", "sm_count=64:128:64",
                       "--sweep", "clock=1,2", "--json")
    document = json.loads(out)
    assert code == 0 and document["columns"] == ["sm_count", "clock", "peak[bf16]"]
    assert document["rows"] == [[64.0, 1.0, 131.072], [64.0, 2.0, 262.144], [128.0, 1.0, 262.144],
                                [128.0, 2.0, 524.288]]
    code, out, _ = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--sweep", "sm_count=64",
                       "--set", "clock=1", "--format", "csv")
    assert out == "sm_count,peak[bf16] [TFLOPS]\n64,131.072\n"  # a count in integers


def test_sweep_errors_are_one_line(capsys):
    code, out, err = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--sweep", "sm_cont=1,2")
    assert code == 2 and out == "" and err.count("\n") == 1 and "did you mean 'sm_count'?" in err
    code, _, err = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--sweep", "sm_count=1:2")
    assert code == 2 and err == "error: --sweep 'sm_count=1:2': a range is START:STOP:STEP; e.g. d_qk=64:256:64\n"


def test_sweep_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "peak.png"
    code, _, _ = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--sweep", "sm_count=64:512:64",
                     "--sweep", "clock=1,2", "--plot", str(path))
    assert code == 0 and path.stat().st_size > 1000


def test_sweep_plot_without_matplotlib(capsys, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code, out, err = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--sweep", "sm_count=64",
                         "--set", "clock=1", "--plot", str(tmp_path / "x.png"))
    assert code == 2 and out == ""
    assert err == "error: plotting needs matplotlib, which is not installed; install it with: pip install matplotlib (hwkb's 'plot' extra)\n"


def test_a_closed_form_or_sweep_the_context_cannot_settle_is_underdetermined_exit_1(capsys):
    code, out, _ = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--symbolic", "--free", "sm_count", "--json")
    document = json.loads(out)
    assert code == 1 and document["status"] == "underdetermined" and ["clock"] in document["needs"]
    code, out, _ = run(capsys, "solve", "peak[bf16]", "--gpu", "arch", "--sweep", "sm_count=64:192:64")
    assert code == 1 and out.startswith("peak[bf16]: underdetermined")
