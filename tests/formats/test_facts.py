"""hwkb.formats.facts: a fact as a KB file writes it, its value in the one quantity syntax."""
from __future__ import annotations

import pytest

from conftest import TINY, write_kb
from hwkb.errors import KBErrors, UnitError
from hwkb.formats import facts as facts_module
from hwkb.formats.load import load_model


def fact_of(tmp_path, monkeypatch, value: str, key: str = "clock"):
    kb = write_kb(tmp_path, monkeypatch, {"gpus/x.yaml": f"x: {{kind: product, facts: {{'{key}': {value}}}}}\n"})
    return load_model([kb])[0].entities["x"].facts[key]


def errors_of(tmp_path, monkeypatch, gpus: str) -> list[KBErrors]:
    kb = write_kb(tmp_path, monkeypatch, {"gpus/bad.yaml": gpus})
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    return info.value.errors


@pytest.mark.parametrize("gpus, messages", [
    ("x: {kind: product, facts: {clock: [1, GHz]}}\n",
     ["gpus/bad.yaml:1:35: the value of 'clock' must be a number with its unit, e.g. '1.83 GHz', or n/a"]),
    ("x: {kind: product, facts: {clock: }}\n",
     ["gpus/bad.yaml:1:34: the value of 'clock' must be a number with its unit, e.g. '1.83 GHz', or n/a"]),
    ("x: {kind: product, facts: {clock: {source: s}}}\n", ["gpus/bad.yaml:1:35: fact 'clock' lacks 'value'"]),
    ("x: {kind: product, facts: {clock: {value: 1 GHz, sauce: s}}}\n",
     ["gpus/bad.yaml:1:50: unknown field 'sauce' in fact 'clock'; did you mean 'source'?"]),
    ("x: {kind: product, facts: {clock: fast}}\n",
     ["gpus/bad.yaml:1:35: cannot read 'fast' as a value of clock; write a number and a unit that fits GHz, "
      "e.g. '1 GHz'"]),
    ("x: {kind: product, facts: {clock: 1e999 GHz}}\n", ["gpus/bad.yaml:1:35: '1e999 GHz' is not a finite number"]),
    ("x: {kind: product, facts: {clock: -1 GHz}}\n",
     ["gpus/bad.yaml:1:35: '-1 GHz' is negative, and no KB quantity is; "
      "give the size of clock; every variable is a count, rate, size or time"]),
    ("x: {kind: product, facts: {clock: 1 GHz**99999}}\n",
     ["gpus/bad.yaml:1:35: unit 'GHz**99999': exponent 99999 exceeds the limit of 8"]),
    ("x: {kind: product, facts: {clock: {value: 1 GHz, tolerance: lots}}}\n",
     ["gpus/bad.yaml:1:61: tolerance 'lots' must be in the fact's unit or a percentage"]),
    ("x: {kind: product, facts: {sm_count: 107.5}}\n",
     ["gpus/bad.yaml:1:38: sm_count counts whole things, but '107.5' is not whole; "
      "give a whole number, or a tolerance if the figure is an estimate"]),
    # too small to be physical: refused as 0 is, not audited consistent
    ("x: {kind: product, facts: {clock: 1e-307 GHz}}\n",
     ["gpus/bad.yaml:1:35: '1e-307 GHz' is below the smallest value clock can have (1e-30 GHz); "
      "give a physical value, or n/a where the quantity does not exist"]),
    ("x: {kind: product, facts: {sm_count: 1e-320}}\n",
     ["gpus/bad.yaml:1:38: '1e-320' is below the smallest value sm_count can have (1e-30); "
      "give a physical value, or n/a where the quantity does not exist"]),
    ("x: {kind: product, facts: {clock: 1e-24 Hz}}\n",   # 1e-33 GHz: the floor is in the variable's unit
     ["gpus/bad.yaml:1:35: '1e-24 Hz' is below the smallest value clock can have (1e-30 GHz); "
      "give a physical value, or n/a where the quantity does not exist"]),
])
def test_error_branches(gpus, messages, tmp_path, monkeypatch):
    assert [str(e) for e in errors_of(tmp_path, monkeypatch, gpus)] == messages


def test_a_value_that_cannot_be_read_is_a_unit_error(tmp_path, monkeypatch):
    (error,) = errors_of(tmp_path, monkeypatch, "x: {kind: product, facts: {clock: 5 TFLOPS}}\n")
    assert isinstance(error, UnitError) and (error.where.line, error.where.col) == (1, 35)


@pytest.mark.parametrize("text, value, unit, printed", [
    ("1.5GHz", 1.5, "GHz", "1.5"), ("1500 MHz", 1500.0, "MHz", "1500"), ("1e9Hz", 1e9, "Hz", "1e9"),
    ("2", 2.0, "GHz", "2"), ("n/a", None, "GHz", "n/a"), ("N/A", None, "GHz", "N/A"), ("none", None, "GHz", "none"),
    ("1_000 MHz", 1000.0, "MHz", "1_000"), (".5 GHz", 0.5, "GHz", ".5"),
])
def test_fact_values(text, value, unit, printed, tmp_path, monkeypatch):
    fact = fact_of(tmp_path, monkeypatch, f"'{text}'")
    assert (fact.value, fact.unit, fact.text) == (value, unit, printed)


@pytest.mark.parametrize("text", ["2 /cycle", "2/cycle", "2 1/cycle"])
def test_a_unit_written_per_something(text, tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/x.yaml": "variables:\n  per_cycle: {unit: 1/cycle, doc: d}\n",
                                          "gpus/x.yaml": f"x: {{kind: product, facts: {{per_cycle: '{text}'}}}}\n"})
    model, units = load_model([kb])
    fact = model.entities["x"].facts["per_cycle"]
    assert (fact.value, fact.unit, fact.text) == (2.0, "1/cycle", "2")
    assert units.to_canonical(fact.value, fact.unit) == 2.0


def test_a_unit_starting_with_e_is_not_an_exponent(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"units.txt": (TINY / "units.txt").read_text() + "exp = [] = exps\n",
                                          "rules/x.yaml": "variables:\n  exps_per_cycle: {unit: exp/cycle, doc: d}\n",
                                          "gpus/x.yaml": "x: {kind: product, facts: {exps_per_cycle: 16exp/cycle}}\n"})
    fact = load_model([kb])[0].entities["x"].facts["exps_per_cycle"]
    assert (fact.value, fact.unit) == (16.0, "exp/cycle")


@pytest.mark.parametrize("tolerance, expected", [("0.5 GHz", 0.5), ("500 MHz", 0.5), ("10 %", 0.15), ("0.01", 0.015)])
def test_fact_tolerance(tolerance, expected, tmp_path, monkeypatch):
    fact = fact_of(tmp_path, monkeypatch, f"{{value: 1.5 GHz, tolerance: '{tolerance}'}}")
    assert fact.tolerance == pytest.approx(expected)


def test_count_tolerance_is_absolute_unless_a_percentage(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"gpus/x.yaml": "x: {kind: product, facts: {"
                                                         "sm_count: {value: 100, tolerance: 2}, "
                                                         "'peak[fp16]': {value: 200 TFLOPS, tolerance: 1 %}}}\n"})
    facts = load_model([kb])[0].entities["x"].facts
    assert facts["sm_count"].tolerance == 2.0
    assert facts["peak[fp16]"].tolerance == pytest.approx(2.0)


def test_a_count_with_a_tolerance_need_not_be_whole(tmp_path, monkeypatch):
    fact = fact_of(tmp_path, monkeypatch, "{value: 107.5, tolerance: 1}", key="sm_count")
    assert (fact.value, fact.tolerance) == (107.5, 1.0)


def test_a_mapping_fact_keeps_its_source_and_doc(tmp_path, monkeypatch):
    fact = fact_of(tmp_path, monkeypatch, "{value: n/a, source: a book, doc: not on this chip}")
    assert (fact.value, fact.source, fact.doc, fact.applicable) == (None, "a book", "not on this chip", False)


def test_module_surface():
    assert facts_module.__all__ == ["read_fact", "read_tolerance"]


@pytest.mark.parametrize("variables, facts, message", [
    ("", "{'peak[fp16]': 100 token/s}",
     "gpus/bad.yaml:1:42: '100 token/s' does not fit peak[fp16], which is in TFLOPS; "
     "give it in TFLOPS or a unit of the same dimension"),
    ("  max_warps_per_sm: {unit: warp, doc: most warps resident on one SM}\n",
     "{max_warps_per_sm: 2048 thread}",
     "gpus/bad.yaml:1:46: '2048 thread' does not fit max_warps_per_sm, which is in warp; "
     "give it in warp or a unit of the same dimension"),
    ("  max_threads_per_block: {unit: thread/block, doc: most threads one block may have}\n",
     "{max_threads_per_block: 1024 thread}",
     "gpus/bad.yaml:1:51: '1024 thread' does not fit max_threads_per_block, which is in thread/block; "
     "give it in thread/block or a unit of the same dimension"),
])
def test_a_figure_in_a_count_of_another_kind_is_refused_where_the_file_states_it(tmp_path, monkeypatch, variables,
                                                                                facts, message):
    """With the project's units, operations, tokens, warps, threads and blocks are dimensions: a peak written in
    token/s, or a warp limit in threads, is an error at its place in the file, not a figure read as another count."""
    from hwkb.formats.resources import default_kb_dirs
    real_units = (default_kb_dirs()[0] / "units.txt").read_text()
    files = {"units.txt": real_units, "gpus/bad.yaml": f"x: {{kind: product, facts: {facts}}}\n"}
    if variables:
        files["rules/counts.yaml"] = "variables:\n" + variables
    kb = write_kb(tmp_path, monkeypatch, files)
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    assert [str(e) for e in info.value.errors] == [message]
