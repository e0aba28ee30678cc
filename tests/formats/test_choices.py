"""Choices: a layer picks an index value (``matmul_precision: fp8``) and a law indexed by the choice
(``tc_peak[matmul_precision]``) holds only at that value; every mistake is a load error at its file:line."""
from __future__ import annotations

import pytest

from hwkb import KnowledgeBase
from tests.conftest import load_errors, write_kb

CHOICE = """
choices:
  run_precision:
    over: precision
    doc: the precision a job runs in
    default: bf16
    source: tiny book, page 3
variables:
  job_peak: {unit: TFLOPS, doc: the peak the job runs at}
rules:
  job_peak_law:
    doc: a job runs at the peak of its precision
    eq: job_peak = peak[run_precision]
    source: tiny book, page 3
"""

LAYERS = """
in-fp16:
  kind: scenario
  facts:
    run_precision: fp16
in-bf16:
  kind: scenario
  facts:
    run_precision: {value: bf16, source: "tiny book, page 4"}
"""


@pytest.fixture
def choice_kb(tmp_path, monkeypatch):
    kb_dir = write_kb(tmp_path, monkeypatch, {"rules/job.yaml": CHOICE, "gpus/layers.yaml": LAYERS})
    return KnowledgeBase.load([kb_dir], default=False)


def test_the_chosen_value_picks_the_instance(choice_kb):
    chip = "chip"
    fp16 = choice_kb.solve("peak[fp16]", gpu=chip).magnitude
    bf16 = choice_kb.solve("peak[bf16]", gpu=chip).magnitude
    assert choice_kb.solve("job_peak", gpu=chip, layers=["in-fp16"]).magnitude == fp16
    assert choice_kb.solve("job_peak", gpu=chip, layers=["in-bf16"]).magnitude == bf16
    assert choice_kb.solve("job_peak", gpu=chip).magnitude == bf16  # the default
    assert choice_kb.solve("job_peak", gpu=chip, layers=["in-bf16"], facts=["run_precision=fp16"]).magnitude == fp16


def test_the_chosen_instance_solves_backwards(choice_kb):
    solution = choice_kb.solve("peak[fp16]", layers=["in-fp16"], facts=["job_peak=100"])
    assert solution.magnitude == pytest.approx(100)
    assert str(choice_kb.solve("peak[bf16]", layers=["in-fp16"], facts=["job_peak=100"]).status) == "underdetermined"


def test_a_law_through_an_unknown_index_name_is_an_error_at_its_line(tmp_path, monkeypatch):
    kb_dir = write_kb(tmp_path, monkeypatch, {"rules/job.yaml": CHOICE.replace("peak[run_precision]",
                                                                               "peak[run_precison]")})
    assert load_errors(kb_dir) == [
        "rules/job.yaml:12:9: unknown precision value 'run_precison'; did you mean 'run_precision'?"]


def test_a_layer_choosing_no_value_of_the_set_is_an_error_at_its_line(tmp_path, monkeypatch):
    kb_dir = write_kb(tmp_path, monkeypatch, {"rules/job.yaml": CHOICE,
                                              "gpus/layers.yaml": LAYERS.replace("run_precision: fp16",
                                                                                 "run_precision: fp8")})
    assert load_errors(kb_dir) == ["gpus/layers.yaml:4:20: unknown precision value 'fp8'; one of fp16, bf16"]


def test_a_choice_over_an_unknown_index_set_is_an_error_at_its_line(tmp_path, monkeypatch):
    kb_dir = write_kb(tmp_path, monkeypatch, {"rules/job.yaml": CHOICE.replace("over: precision",
                                                                               "over: precisions")})
    errors = load_errors(kb_dir)
    assert errors[0] == "rules/job.yaml:3:11: unknown index set 'precisions'; did you mean 'precision'?"


def test_a_choice_named_like_an_index_value_is_an_error(tmp_path, monkeypatch):
    kb_dir = write_kb(tmp_path, monkeypatch, {"rules/job.yaml": CHOICE.replace("run_precision", "fp16")})
    assert load_errors(kb_dir)[0] == (
        "rules/job.yaml:2:3: choice 'fp16' is also the name of a value of index set 'precision'; give the choice a "
        "name of its own, so that name[index] reads one way")


def test_a_choice_over_another_set_than_the_variable_index_is_an_error(tmp_path, monkeypatch):
    other = CHOICE.replace("over: precision", "over: size").replace(
        "choices:", "indices:\n  size: {values: [small, large], doc: sizes}\nchoices:").replace("default: bf16",
                                                                                             "default: small")
    kb_dir = write_kb(tmp_path, monkeypatch, {"rules/job.yaml": other})
    assert load_errors(kb_dir) == [
        "rules/job.yaml:14:9: peak[run_precision] runs over size, but peak is indexed by precision"]


def test_the_real_kb_has_no_compute_rate_over_bf16(real_kb):
    assert "compute_rate_over_bf16" not in real_kb.model.variables
    assert real_kb.model.choices["matmul_precision"].over == "precision"


def test_list_choices_names_each_with_its_set_and_default(choice_kb):
    (item,) = choice_kb.listing("choices").items
    assert item == {"id": "run_precision", "doc": "the precision a job runs in", "over": "precision",
                    "values": ["fp16", "bf16"], "default": "bf16", "source": "tiny book, page 3"}
