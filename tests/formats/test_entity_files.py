"""hwkb.formats.entity_files: entities and their facts, each problem at file:line:col."""
from __future__ import annotations

import pytest

from conftest import write_kb
from hwkb.errors import KBErrors
from hwkb.formats import entity_files
from hwkb.formats.load import load_model


@pytest.mark.parametrize("gpus, messages", [
    ("- a\n", ["gpus/bad.yaml:1:1: an entities file must be a mapping of 'key: value' lines"]),
    ("x: {name: X}\n", ["gpus/bad.yaml:1:4: entity 'x' lacks 'kind'"]),
    ("x: {kind: gadget}\n",
     ["gpus/bad.yaml:1:11: unknown entity kind 'gadget'; use one of architecture, product, die, instruction, "
      "workload, scenario, datasheet, memory"]),
    ("x: {kind: product, extends: [chip, {a: b}]}\n",
     ["gpus/bad.yaml:1:29: extends must be a name or a list of names"]),
    ("x: {kind: product, facts: [clock]}\n",
     ["gpus/bad.yaml:1:27: the facts of 'x' must be a mapping of 'key: value' lines"]),
    ("x: {kind: product, facts: {'peak[fp32]': 1 TFLOPS, clok: 1 GHz}}\n",
     ["gpus/bad.yaml:1:28: unknown precision value 'fp32'; one of fp16, bf16",
      "gpus/bad.yaml:1:52: unknown variable 'clok'; did you mean 'clock'?"]),
])
def test_error_branches(gpus, messages, tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"gpus/bad.yaml": gpus})
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    assert [str(e) for e in info.value.errors] == messages


def test_tiny_entities_as_written(tiny_kb):
    arch, chip = tiny_kb.model.entities["arch"], tiny_kb.model.entities["chip"]
    assert (arch.kind, arch.name, arch.doc, arch.source) == ("architecture", "Tiny architecture",
                                                            "what every chip of the generation shares", "tiny whitepaper")
    assert (chip.kind, chip.name, chip.source, chip.extends) == ("product", "Tiny chip", None, ("arch",))
    assert (chip.where.line, chip.where.col) == (10, 1)


def test_tiny_facts_as_written(tiny_kb):
    arch, chip = tiny_kb.model.entities["arch"], tiny_kb.model.entities["chip"]
    peak = chip.facts["peak[fp16]"]
    assert (peak.value, peak.unit, peak.text, peak.source, peak.entity) == (204.8, "TFLOPS", "204.8", "tiny datasheet",
                                                                            "chip")
    rate = arch.facts["fma_rate[fp16]"]
    assert (rate.value, rate.unit, rate.source) == (1024.0, "FMA/cycle", "tiny whitepaper, table 3")
    # a fact without a source of its own takes its entity's
    assert arch.facts["sm_count"].source == "tiny whitepaper"
    # an integer variable's facts are exact
    assert arch.facts["sm_count"].tolerance == 0.0 and peak.tolerance is None


def test_an_entity_without_name_is_named_by_its_id(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"gpus/x.yaml": "x: {kind: product, extends: [arch, chip]}\n"})
    x = load_model([kb])[0].entities["x"]
    assert (x.name, x.doc, x.extends, x.facts) == ("x", "", ("arch", "chip"), {})


def test_module_surface():
    assert sorted(entity_files.__all__) == ["build_entity", "read_entity_file"]
