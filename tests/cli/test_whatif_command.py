"""hwkb.cli.whatif: the whatif command, as the contract says."""
from __future__ import annotations

import json

import pytest

from conftest import build_kb, run_cli, share_kb_with_cli
from hwkb import KnowledgeBase

SCENARIOS = """\
rate-doubled:
  kind: scenario
  doc: twice the multiply-adds per SM per cycle
  source: tiny what-if
  facts:
    fma_rate[fp16]: 2048 FMA/cycle
"""
BOOST = """\
variables:
  boost: {unit: GHz, doc: the boost clock no law gives}
rules:
  boost_is_clock:
    kind: expectation
    doc: the peak is stated at the boost clock
    eq: boost = clock
    source: tiny book, page 3
"""


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory):
    """The tiny KB with a scenario entity and a clock that only an expectation ties to the others."""
    kb = build_kb(tmp_path_factory.mktemp("whatif") / "kb")
    (kb / "gpus" / "scenarios.yaml").write_text(SCENARIOS)
    (kb / "rules" / "boost.yaml").write_text(BOOST)
    return kb


@pytest.fixture(scope="module")
def whatif_kb(kb_dir):
    return KnowledgeBase.load([kb_dir], default=False)


@pytest.fixture(autouse=True)
def _one_kb(whatif_kb, monkeypatch, request):
    if request.node.name != "test_whatif_json_contract":  # that one loads the KB for real
        share_kb_with_cli(monkeypatch, whatif_kb)


run = run_cli


def test_whatif_json_contract(capsys, kb_dir):
    code, out, err = run(capsys, "whatif", "peak[bf16]", "--gpu", "arch", "--given", "clock=1GHz",
                         "--scenario", "rate-doubled", "--json", "--kb", str(kb_dir), "--no-default-kb")
    assert code == 0 and err == ""
    (row,) = json.loads(out)["rows"]
    assert {k: row[k] for k in ("variable", "baseline", "scenario", "unit", "change")} == \
        {"variable": "peak[bf16]", "baseline": 262.144, "scenario": 524.288, "unit": "TFLOPS", "change": 1.0}


def test_whatif_table_marks_the_overrides(capsys):
    code, out, _ = run(capsys, "whatif", "--gpu", "chip", "--set", "fma_rate[fp16]=2048")
    lines = out.splitlines()
    assert code == 0
    assert lines[:2] == ["baseline: chip", "scenario: fma_rate[fp16] = 2048 FMA/cycle"]
    assert lines[3].split() == ["fma_rate[fp16]", "1024", "2048", "FMA/cycle", "+100%", "[scenario]"]
    assert any(line.split()[:3] == ["peak[bf16]", "204.8", "409.6"] for line in lines)


def test_whatif_without_a_change_is_bad_input(capsys):
    code, out, err = run(capsys, "whatif", "clock", "--gpu", "chip")
    assert code == 2 and out == ""
    assert err == "error: a what-if needs a change; give --set VAR=VALUE or --scenario ID (e.g. sfu-doubled)\n"


def test_whatif_marks_what_is_not_settled_and_exits_1(capsys):
    code, out, _ = run(capsys, "whatif", "boost", "--gpu", "chip", "--with", "rate-doubled", "--set", "clock=2GHz")
    assert code == 1 and out.splitlines()[0] == "baseline: chip + rate-doubled"
    assert out.splitlines()[3].endswith("[baseline underdetermined, scenario underdetermined]")
    assert out.splitlines()[4].startswith("peak[fp16]") and out.splitlines()[4].endswith("[stated figure moved]")
    assert out.splitlines()[5] == "note: peak[fp16] (stated 204.8 TFLOPS) is recomputed from the change"


def test_the_table_prints_as_documented(capsys):
    code, out, _ = run(capsys, "whatif", "peak[bf16]", "fma_rate[bf16]", "--gpu", "arch", "--given", "clock=1GHz",
                       "--scenario", "rate-doubled")
    assert code == 0 and out == """\
baseline: arch, given clock = 1 GHz
scenario: fma_rate[fp16] = 2048 FMA/cycle (from rate-doubled)
variable        baseline  scenario  unit       change
peak[bf16]         262.1     524.3  TFLOPS      +100%
fma_rate[bf16]      1024      2048  FMA/cycle   +100%
"""
