"""A variable declared ``positive: true`` refuses zero wherever a value is given: a KB fact, an ``audit --file``
sheet, ``--set``, ``--given`` and a sweep; zero stays a value for a variable that is not declared so."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import kb_from_text, run_cli, share_kb_with_cli
from hwkb.errors import KBErrors

RULES = """
variables:
  units:   {unit: "", integer: true, positive: true, doc: units on the chip}
  clock:   {unit: GHz, positive: true, doc: the clock}
  peak:    {unit: TFLOPS, doc: the chip's peak}
  scratch: {unit: B, integer: true, doc: bytes a kernel asks for; zero is a real request}
  spare:   {unit: B, integer: true, doc: bytes left over}
  work:    {unit: flop/cycle, default: 1000 flop/cycle, source: test, doc: a unit's work per cycle}
  capacity: {unit: B, default: 1024 B, source: test, doc: bytes there are}
rules:
  peak_law:
    doc: the peak is units x clock x a unit's work
    eq: peak = units * clock * work
    source: test
  spare_law:
    doc: what is not asked for is left over
    eq: spare = capacity - scratch
    source: test
"""
GPUS = """
chip:
  kind: product
  facts:
    units: 100
    clock: 2 GHz
"""


@pytest.fixture
def kb(tmp_path, monkeypatch):
    kb = kb_from_text(tmp_path, RULES, GPUS)
    share_kb_with_cli(monkeypatch, kb)
    return kb


@pytest.mark.parametrize("argv, flag", [
    (("solve", "peak", "--gpu", "chip", "--set", "units=0"), "--set"),
    (("solve", "peak", "--gpu", "chip", "--set", "clock=0 MHz"), "--set"),
    (("whatif", "peak", "--gpu", "chip", "--given", "units=0", "--set", "clock=1GHz"), "--given"),
    (("solve", "peak", "--gpu", "chip", "--sweep", "units=0:4:1"), "--sweep 'units=0:4:1'"),
    (("solve", "peak", "--gpu", "chip", "--sweep", "clock=1,0"), "--sweep 'clock=1,0'"),
])
def test_zero_of_a_positive_variable_is_bad_input_naming_the_flag(kb, capsys, argv, flag):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"error: {flag}: ")
    assert "is zero, but" in err and "must be positive" in err


def test_zero_stays_a_value_where_it_is_one(kb, capsys):
    code, out, _ = run_cli(capsys, "solve", "spare", "--gpu", "chip", "--set", "scratch=0")
    assert code == 0 and out.startswith("spare = 1024 B")
    code, out, _ = run_cli(capsys, "solve", "spare", "--sweep", "scratch=0:512:512")
    assert code == 0 and "1024" in out and "512" in out


def load_errors_of(tmp_path, monkeypatch, rules: str, gpus: str) -> list[str]:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(KBErrors) as info:
        kb_from_text(tmp_path, rules, gpus)
    return [str(e) for e in info.value.errors]


def test_a_zero_fact_is_a_load_error_at_its_line(tmp_path, monkeypatch):
    (error,) = load_errors_of(tmp_path, monkeypatch, RULES, GPUS.replace("units: 100", "units: 0"))
    assert error.startswith("gpus/tiny.yaml:5:12: '0' is zero, but units must be positive")


def test_a_zero_in_a_users_sheet_is_bad_input_at_its_line(kb, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("sheet.yaml").write_text("mine:\n  extends: chip\n  facts:\n    clock: 0 GHz\n")
    code, out, err = run_cli(capsys, "audit", "--file", "sheet.yaml")
    assert code == 2 and out == ""
    assert err.startswith("error: sheet.yaml:4:12: '0 GHz' is zero, but clock must be positive")


def test_positive_must_be_a_flag(tmp_path, monkeypatch):
    rules = RULES.replace("positive: true, doc: the clock", "positive: maybe, doc: the clock")
    (error,) = load_errors_of(tmp_path, monkeypatch, rules, GPUS)
    assert error.startswith("rules/tiny.yaml:4:") and "positive" in error


def test_the_real_kbs_sm_count_is_positive(capsys):
    code, out, err = run_cli(capsys, "solve", "clock_tc", "--gpu", "hopper", "--set", "sm_count=0",
                             "--set", "tc_peak[fp16]=989.4TFLOPS")
    assert code == 2 and out == ""
    assert err == ("error: --set: '0' is zero, but sm_count must be positive; give a value above 0, or n/a where "
                   "the quantity does not exist\n")
