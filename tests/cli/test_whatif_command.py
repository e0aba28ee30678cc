"""hwkb.cli.whatif: the whatif command, as the contract says."""
from __future__ import annotations

import json

import pytest

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


def test_whatif_marks_what_is_not_settled_and_exits_1(capsys):
    code, out, _ = run(capsys, "whatif", "exp_utilization[bf16]", "--gpu", "b200", "--with", "sfu-doubled",
                       "--set", "clock_tc=2GHz")
    assert code == 1 and out.splitlines()[0] == "baseline: b200 + sfu-doubled"
    assert out.splitlines()[3].endswith("[baseline underdetermined, scenario underdetermined]")
    assert out.splitlines()[4] == "note: tc_peak[bf16] (stated 2250 TFLOPS) is recomputed from the change"


def test_the_readme_example_prints_as_documented(capsys):
    code, out, _ = run(capsys, "whatif", "exp_utilization[bf16]", "sfu_exp_rate", "--gpu", "b200", "--given",
                       "d_qk=128", "--given", "d_v=128", "--scenario", "sfu-doubled")
    assert code == 0 and out == """\
baseline: b200, given d_qk = 128, d_v = 128
scenario: sfu_exp_per_unit_cycle = 2 exp/cycle (from sfu-doubled)
variable                baseline   scenario  unit   change
exp_utilization[bf16]          1        0.5           -50%
sfu_exp_rate           4.395e+12  8.789e+12  exp/s   +100%
"""
