"""hwkb.formats.entity_files: entities and their facts, each problem at file:line:col."""
from __future__ import annotations

import pytest

from conftest import load_errors, write_kb
from hwkb.formats import entity_files
from hwkb.formats.load import load_model


@pytest.mark.parametrize("gpus, messages", [
    ("- a\n", ["gpus/bad.yaml:1:1: an entities file must be a mapping of 'key: value' lines"]),
    ("x: {name: X}\n", ["gpus/bad.yaml:1:4: entity 'x' lacks 'kind'"]),
    ("x: {kind: gadget}\n",
     ["gpus/bad.yaml:1:11: unknown entity kind 'gadget'; use one of architecture, product, die, instruction, "
      "workload, scenario, datasheet, memory, vector-processor"]),
    ("x: {kind: product, extends: [chip, {a: b}]}\n",
     ["gpus/bad.yaml:1:29: extends must be a name or a list of names"]),
    ("x: {kind: product, facts: [clock]}\n",
     ["gpus/bad.yaml:1:27: the facts of 'x' must be a mapping of 'key: value' lines"]),
    ("x: {kind: product, facts: {'peak[fp32]': 1 TFLOPS, clok: 1 GHz}}\n",
     ["gpus/bad.yaml:1:28: unknown precision value 'fp32'; one of fp16, bf16",
      "gpus/bad.yaml:1:52: unknown variable 'clok'; did you mean 'clock'?"]),
])
def test_error_branches(gpus, messages, tmp_path, monkeypatch):
    assert load_errors(write_kb(tmp_path, monkeypatch, {"gpus/bad.yaml": gpus})) == messages


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


ALIASES = "variables:\n  gpcs: {unit: '', integer: true, doc: clusters, aliases: [shader_engines]}\n"


def test_a_fact_written_by_an_alias_is_stored_under_its_variable(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"rules/vendor.yaml": ALIASES,
                                          "gpus/x.yaml": "x: {kind: product, facts: {shader_engines: 8}}\n"})
    fact = load_model([kb])[0].entities["x"].facts["gpcs"]
    assert (fact.key, fact.value, fact.tolerance) == ("gpcs", 8.0, 0.0)


@pytest.mark.parametrize("facts, messages", [
    ("{gpcs: 8, shader_engines: 8}",
     ["gpus/x.yaml:1:37: 'x' states gpcs twice, as gpcs and as shader_engines; an alias names the same variable: "
      "keep one"]),
    ("{shader_engine: 8}", ["gpus/x.yaml:1:28: unknown variable 'shader_engine'; did you mean 'shader_engines'?"]),
])
def test_alias_errors_in_facts(facts, messages, tmp_path, monkeypatch):
    files = {"rules/vendor.yaml": ALIASES, "gpus/x.yaml": f"x: {{kind: product, facts: {facts}}}\n"}
    assert load_errors(write_kb(tmp_path, monkeypatch, files)) == messages


def test_other_documents_figures_are_kept_beside_the_chosen_one(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"gpus/x.yaml": """
        x:
          kind: product
          source: the final whitepaper
          facts:
            sm_count: {value: 100, also: [{value: 96, source: preliminary whitepaper, doc: before launch}]}
            clock: {value: 1.5 GHz, also: [{value: 1500 MHz, source: product page, tolerance: 5 MHz}]}
        """})
    facts = load_model([kb])[0].entities["x"].facts
    sm = facts["sm_count"]
    assert (sm.value, sm.source, len(sm.also)) == (100.0, "the final whitepaper", 1)
    other = sm.also[0]
    assert (other.key, other.value, other.source, other.doc, other.entity, other.tolerance) == \
        ("sm_count", 96.0, "preliminary whitepaper", "before launch", "x", 0.0)
    assert (other.where.line, other.where.col) == (5, 43)
    clock = facts["clock"].also[0]
    assert (clock.value, clock.unit, clock.tolerance) == (1500.0, "MHz", 5.0)


@pytest.mark.parametrize("fact, messages", [
    ("{value: 100, also: [{value: 96}]}", ["gpus/x.yaml:1:58: another document's figure of 'sm_count' lacks 'source'"]),
    ("{value: 100, also: [96]}", ["gpus/x.yaml:1:58: another document's figure of sm_count is a mapping "
                                  "{value: ..., source: ...}"]),
    ("{value: 100, also: {value: 96, source: s}}", ["gpus/x.yaml:1:57: the other documents' figures of 'sm_count' "
                                                     "must be a list"]),
    ("{value: n/a, also: [{value: 96, source: s}]}",
     ["gpus/x.yaml:1:57: sm_count is stated as n/a, so no other document's figure can be weighed against it; "
      "state the chosen figure in 'value'"]),
    ("{value: 100, also: [{value: n/a, source: s}]}",
     ["gpus/x.yaml:1:58: another document's figure of sm_count must be a value, not n/a"]),
    ("{value: 100, also: [{value: 96.5, source: s}]}",
     ["gpus/x.yaml:1:66: sm_count counts whole things, but '96.5' is not whole; give a whole number, or a tolerance "
      "if the figure is an estimate"]),
    ("{value: 100, also: [{value: 96, source: s, also: []}]}",
     ["gpus/x.yaml:1:81: unknown field 'also' in another document's figure of 'sm_count'; allowed: value, source, "
      "doc, tolerance"]),
])
def test_other_documents_errors(fact, messages, tmp_path, monkeypatch):
    files = {"gpus/x.yaml": f"x: {{kind: product, facts: {{sm_count: {fact}}}}}\n"}
    assert load_errors(write_kb(tmp_path, monkeypatch, files)) == messages


@pytest.mark.parametrize("fact, messages", [
    ("{value: 100, observed: yes}", ["gpus/x.yaml:1:61: observed of 'sm_count' must be true or false"]),
    ("{value: n/a, observed: true}",
     ["gpus/x.yaml:1:61: sm_count is stated as n/a, so it is not a figure observed in a database; drop 'observed', "
      "or state the observed figure in 'value'"]),
])
def test_observed_errors(fact, messages, tmp_path, monkeypatch):
    files = {"gpus/x.yaml": f"x: {{kind: product, facts: {{sm_count: {fact}}}}}\n"}
    assert load_errors(write_kb(tmp_path, monkeypatch, files)) == messages


def test_an_observed_figure_is_marked_and_others_are_not(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"gpus/x.yaml": "x: {kind: product, facts: {sm_count: {value: 100, "
                                                          "observed: true}, clock: 1.5 GHz}}\n"})
    facts = load_model([kb])[0].entities["x"].facts
    assert (facts["sm_count"].observed, facts["clock"].observed) == (True, False)
