"""hwkb.formats.ceilings: a variable's ``at_most`` ceiling, read once every rule file is, and its errors."""
from __future__ import annotations

import pytest

from conftest import write_kb
from hwkb.definitions.model import Ceiling
from hwkb.errors import KBErrors
from hwkb.formats import ceilings
from hwkb.formats.load import load_model

def errors_of(tmp_path, monkeypatch, rules: str) -> list[str]:
    kb = write_kb(tmp_path, monkeypatch, {"rules/bad.yaml": rules})  # on the tiny KB: clock (GHz), peak (TFLOPS)
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    return [str(e) for e in info.value.errors]


def test_all_names_exist():
    assert sorted(ceilings.__all__) == ["add_ceilings", "read_ceiling"]


def test_a_ceiling_may_name_another_files_variable(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/ok.yaml": (
        "variables:\n  tc: {unit: GHz, doc: the tensor clock, at_most: {variable: clock, source: a datasheet}}\n")})
    ceiling = load_model([kb])[0].variables["tc"].at_most
    assert (ceiling.variable, ceiling.source, ceiling.where.line) == ("clock", "a datasheet", 2)
    assert isinstance(ceiling, Ceiling)


@pytest.mark.parametrize("declared, messages", [
    ("at_most: {variable: clok, source: s}",
     ["rules/bad.yaml:2:52: unknown variable 'clok'; did you mean 'clock'?"]),
    ("at_most: {variable: peak, source: s}",
     ["rules/bad.yaml:2:41: the ceiling of 'x' is 'peak', in TFLOPS, but 'x' is in GHz; "
      "name a variable of the same unit"]),
    ("at_most: {variable: clock}",
     ["rules/bad.yaml:2:41: the ceiling of 'x' lacks 'source'; "
      "give the variable it should not exceed and the document or reason that says so"]),
    ("at_most: {variable: clock, source: s, why: w}",
     ["rules/bad.yaml:2:70: unknown field 'why' in the ceiling of 'x'; allowed: variable, source"]),
])
def test_ceiling_error_branches(declared, messages, tmp_path, monkeypatch):
    rules = f"variables:\n  x: {{unit: GHz, doc: a clock, {declared}}}\n"
    assert errors_of(tmp_path, monkeypatch, rules) == messages
