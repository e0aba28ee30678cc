"""hwkb.formats.load: KB directories to a Model, every problem at file:line:col, all of them in one load."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import BAD, TINY, build_kb, load_errors, write_kb
from hwkb.errors import KBErrors, Location
from hwkb.formats import load as loader
from hwkb.formats.load import load_entities, load_model

# ---------------------------------------------------------------- the adversarial KBs of tests/fixtures/bad

EXPECTED = {
    "yaml_unclosed_bracket": [
        "rules/bad.yaml:3:50: malformed YAML: expected ',' or ']', but got '}' while parsing a flow sequence; "
        "check the indentation and the brackets around this place"],
    "yaml_bad_indentation": [
        "rules/bad.yaml:5:4: malformed YAML: expected <block end>, but found '<block mapping start>' while parsing a "
        "block mapping; check the indentation and the brackets around this place"],
    "duplicate_key_variable": [
        "rules/bad.yaml:3:43: duplicate key 'unit' in variable 'memory_clock'; it is already given at line 3; keep one"],
    "duplicate_key_rule": [
        "rules/bad.yaml:7:5: duplicate key 'eq' in rule 'twice'; it is already given at line 5; keep one"],
    "duplicate_key_fact": [
        "gpus/bad.yaml:7:5: duplicate key 'sm_count' in the facts of 'twin'; it is already given at line 6; keep one"],
    "undeclared_variable_rule": ["rules/bad.yaml:5:9: unknown variable 'clok'; did you mean 'clock'?"],
    "undeclared_variable_fact": ["gpus/bad.yaml:6:5: unknown variable 'sm_cont'; did you mean 'sm_count'?"],
    "unknown_index_value": ["gpus/bad.yaml:6:5: unknown precision value 'fp32'; one of fp16, bf16"],
    "missing_index": ["gpus/bad.yaml:6:5: peak is indexed by precision; write peak[fp16] (one of fp16, bf16)"],
    "extends_missing": ["gpus/bad.yaml:4:12: unknown entity 'chipp'; did you mean 'chip'?"],
    "extends_cycle": ["gpus/bad.yaml:7:12: 'extends' forms a cycle: hen -> egg -> hen; an entity cannot extend itself"],
    "fact_unit_mismatch": [
        "gpus/bad.yaml:6:12: '5 TFLOPS' does not fit clock, which is in GHz; "
        "give it in GHz or a unit of the same dimension"],
    "unknown_unit_fact": [
        "gpus/bad.yaml:6:12: unknown unit 'furlongs' in '3 furlongs'; units are defined in units.txt; clock is in GHz"],
    "unknown_unit_variable": ["rules/bad.yaml:3:20: unknown unit 'parsec'; units are defined in units.txt"],
    "injection_import": [
        "rules/bad.yaml:5:17: only the built-in functions may be called in "
        "\"clock = __import__('os').system('touch pwned')\"; use min, max, floor, ceil, sqrt, exp, log"],
    "injection_attribute": [
        "rules/bad.yaml:5:17: attribute access is not allowed in 'clock = clock.real'; refer to variables by name"],
    "injection_lambda": ["rules/bad.yaml:5:29: lambda is not allowed in 'clock = min(clock, lambda: clock)'"],
    "injection_string": [
        "rules/bad.yaml:5:17: constant 'rm -rf /' is not allowed in \"clock = 'rm -rf /'\"; "
        "only numbers may appear as constants"],
    "injection_call": [
        "rules/bad.yaml:5:17: function 'eval' is not allowed in \"clock = eval('clock')\"; "
        "use min, max, floor, ceil, sqrt, exp, log"],
    "injection_dunder": [
        "rules/bad.yaml:5:17: name '__builtins__' is not allowed in 'clock = __builtins__'; "
        "names are letters, digits and single underscores, starting with a letter"],
    "injection_exponent": [
        "rules/bad.yaml:5:37: exponent 387420489 is larger than 64 in 'clock = clock * sm_count ** 9 ** 9 ** 9'"],
    "injection_units": [
        "units.txt:5: cannot read the unit definition \"evil = __import__('os').system('touch pwned') = ev\"; "
        "write 'name = definition = alias' as in Pint's definitions syntax"],
    "unknown_field": ["rules/bad.yaml:6:5: unknown field 'sorce' in rule 'misspelt'; did you mean 'source'?"],
    "rule_without_source": ["rules/bad.yaml:4:5: rule 'unsourced' lacks 'source'"],
    "unknown_rule_kind": ["rules/bad.yaml:4:11: unknown rule kind 'lemma'; use one of law, expectation, simulated, limit"],
    "several_errors": [
        "gpus/bad.yaml:4:3: unknown field 'nmae' in entity 'sloppy'; did you mean 'name'?",
        "gpus/bad.yaml:7:5: unknown variable 'clok'; did you mean 'clock'?",
        "gpus/bad.yaml:9:17: '5 GHz' does not fit peak[fp16], which is in TFLOPS; "
        "give it in TFLOPS or a unit of the same dimension",
        "gpus/bad.yaml:10:5: duplicate key 'sm_count' in the facts of 'sloppy'; it is already given at line 8; keep one"],
}
# not load errors of this module: a dimension error (test_relations) and a KB that loads (test_solve)
ELSEWHERE = {"unbalanced_law", "contradictory_facts"}


def test_every_bad_fixture_is_tested():
    assert {p.name for p in BAD.iterdir() if p.is_dir()} == set(EXPECTED) | ELSEWHERE
    assert len(EXPECTED) >= 15


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_kb_fails_with_exact_messages(name, bad_kb, no_env_payload):
    kb = bad_kb(name)
    messages = load_errors(kb)
    assert messages == EXPECTED[name]
    assert all("\n" not in m for m in messages)
    assert not (kb / "pwned").exists()  # the injection payloads would have created it


def test_errors_carry_file_and_line(bad_kb):
    kb = bad_kb("several_errors")
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    assert len(info.value.errors) == 4
    assert [(e.where.file, e.where.line) for e in info.value.errors] == [(str(kb / "gpus" / "bad.yaml"), n)
                                                                          for n in (4, 7, 9, 10)]
    assert info.value.errors[1].suggestions == ["clock"]


def test_errors_in_several_files_come_in_one_load(tmp_path, monkeypatch):
    kb = build_kb(tmp_path / "kb", BAD / "undeclared_variable_rule")
    (kb / "gpus" / "bad.yaml").write_text((BAD / "undeclared_variable_fact/gpus/bad.yaml").read_text())
    (kb / "rules" / "bad2.yaml").write_text((BAD / "unknown_rule_kind/rules/bad.yaml").read_text())
    monkeypatch.chdir(kb)
    assert load_errors(kb) == [
        "gpus/bad.yaml:6:5: unknown variable 'sm_cont'; did you mean 'sm_count'?",
        "rules/bad.yaml:5:9: unknown variable 'clok'; did you mean 'clock'?",
        "rules/bad2.yaml:4:11: unknown rule kind 'lemma'; use one of law, expectation, simulated, limit",
    ]


# ---------------------------------------------------------------- problems of the whole load

@pytest.mark.parametrize("files, messages", [
    ({"rules/bad.yaml": "variables:\n  clock: {unit: GHz, doc: again}\n"},
     ["rules/compute.yaml:9:3: 'clock' is declared twice; the first is at rules/bad.yaml:2:3"]),
    ({"gpus/bad.yaml": "chip: {kind: product}\n"},
     ["gpus/chips.yaml:10:1: 'chip' is declared twice; the first is at gpus/bad.yaml:1:1"]),
    ({"gpus/bad.yaml": "x: {kind: product, extends: x}\n"},
     ["gpus/bad.yaml:1:29: 'extends' forms a cycle: x -> x; an entity cannot extend itself"]),
])
def test_error_branches(files, messages, tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, files)
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    assert [str(e) for e in info.value.errors] == messages


def test_unreadable_file(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {})
    (kb / "rules" / "bad.yaml").write_bytes(b"variables: \xff\xfe\n")
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    (e,) = info.value.errors
    assert e.where == Location(str(kb / "rules" / "bad.yaml"))
    assert e.message.startswith("cannot read file: ")


def test_no_such_directory(tmp_path):
    with pytest.raises(KBErrors) as info:
        load_model([tmp_path / "missing"])
    assert [str(e) for e in info.value.errors] == [
        f"{tmp_path / 'missing'}: no such KB directory; --kb takes a directory holding rules/ and gpus/"]


def test_no_units_file(tmp_path):
    (tmp_path / "rules").mkdir()
    with pytest.raises(KBErrors) as info:
        load_model([tmp_path])
    assert [str(e) for e in info.value.errors] == [f"{tmp_path}: no units.txt in the KB directories"]


# ---------------------------------------------------------------- what a good load gives

def test_files_in_load_order(tiny_kb):
    assert [Path(f).relative_to(TINY).as_posix() for f in tiny_kb.model.files] == ["rules/compute.yaml",
                                                                                    "gpus/chips.yaml"]


def test_later_directories_add_to_earlier_ones(tmp_path, monkeypatch):
    extra = write_kb(tmp_path, monkeypatch, {"gpus/mine.yaml": "mine: {kind: product, extends: chip, "
                                                               "facts: {sm_count: 90}}\n"}, base=None)
    model, units = load_model([TINY, extra])
    assert list(model.entities) == ["arch", "chip", "mine"]
    assert model.ancestry("mine") == ["arch", "chip", "mine"]
    assert units.source == str(TINY / "units.txt")  # the last directory that has one


def test_extra_entity_files_join_the_load(tmp_path, monkeypatch):
    extra = write_kb(tmp_path, monkeypatch, {"sheet.yaml": "sheet: {kind: datasheet, extends: chip}\n"}, base=None)
    model, _ = load_model([TINY], [extra / "sheet.yaml"])
    assert list(model.entities) == ["arch", "chip", "sheet"]
    assert model.files[-1] == str(extra / "sheet.yaml")


def test_load_entities_of_an_extra_file(tiny_kb, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sheet = tmp_path / "sheet.yaml"
    sheet.write_text("sheet: {kind: datasheet, extends: chip, facts: {clock: 1.2 GHz}}\n")
    entities = load_entities(sheet, tiny_kb.model, tiny_kb.units)
    assert list(entities) == ["sheet"] and entities["sheet"].facts["clock"].value == 1.2
    assert "sheet" not in tiny_kb.model.entities
    sheet.write_text("sheet: {kind: datasheet, extends: chipp, facts: {clok: 1.2 GHz}}\n")
    with pytest.raises(KBErrors) as info:
        load_entities(sheet, tiny_kb.model, tiny_kb.units)
    assert [str(e) for e in info.value.errors] == [
        "sheet.yaml:1:35: unknown entity 'chipp'; did you mean 'chip'?",
        "sheet.yaml:1:50: unknown variable 'clok'; did you mean 'clock'?"]


def test_load_entities_finds_cycles_through_the_model(tiny_kb, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sheet = tmp_path / "sheet.yaml"
    sheet.write_text("a: {kind: datasheet, extends: b}\nb: {kind: datasheet, extends: [chip, a]}\n")
    with pytest.raises(KBErrors) as info:
        load_entities(sheet, tiny_kb.model, tiny_kb.units)
    assert [str(e) for e in info.value.errors] == [
        "sheet.yaml:2:31: 'extends' forms a cycle: a -> b -> a; an entity cannot extend itself"]


def test_module_surface():
    assert sorted(loader.__all__) == ["load_entities", "load_model"]


def test_every_yaml_under_a_kb_directory_outside_rules_holds_entities(tmp_path):
    """A derived file written beside gpus/ (``derive --write mykb/chip_derived.yaml``) is read, not ignored."""
    kb_dir = build_kb(tmp_path / "kb")
    (kb_dir / "chip_derived.yaml").write_text("chip-derived:\n  kind: product\n  extends: chip\n"
                                              "  facts: {clock: 1 GHz}\n")
    (kb_dir / "more" / "deep").mkdir(parents=True)
    (kb_dir / "more" / "deep" / "other.yaml").write_text("other:\n  kind: product\n  extends: arch\n")
    model, _ = load_model([kb_dir])
    assert {"chip-derived", "other"} <= set(model.entities)
    assert str(kb_dir / "chip_derived.yaml") in model.files


def test_a_yml_file_is_refused_by_name(tmp_path):
    kb_dir = build_kb(tmp_path / "kb")
    (kb_dir / "gpus" / "mine.yml").write_text("mine:\n  kind: product\n")
    with pytest.raises(KBErrors) as info:
        load_model([kb_dir])
    assert [e.message for e in info.value.errors] == [
        "hwkb reads KB files named *.yaml, and this one would be passed over"]


def test_a_users_datasheet_is_a_product_unless_it_says_otherwise(tmp_path):
    model, units = load_model([TINY])
    sheet = tmp_path / "sheet.yaml"
    sheet.write_text("my-chip:\n  extends: arch\n  facts: {sm_count: 100}\nmy-arch:\n  kind: architecture\n")
    entities = load_entities(sheet, model, units)
    assert entities["my-chip"].kind == "product" and entities["my-arch"].kind == "architecture"


def test_each_group_of_entities_extending_one_another_round_is_one_cycle():
    from types import SimpleNamespace
    _check_extends = loader._check_extends
    entities = {name: SimpleNamespace(extends=parents, extends_where=None, where=Location(f"{name}.yaml", 1, 1))
                for name, parents in [("a", ["c", "b"]), ("b", ["a"]), ("c", ["d"]), ("d", ["c"]), ("e", ["e"]),
                                      ("f", ["a"])]}
    assert [str(e) for e in _check_extends(entities)] == [
        "b.yaml:1:1: 'extends' forms a cycle: a -> b -> a; an entity cannot extend itself",
        "d.yaml:1:1: 'extends' forms a cycle: c -> d -> c; an entity cannot extend itself",
        "e.yaml:1:1: 'extends' forms a cycle: e -> e; an entity cannot extend itself"]
    acyclic = {"g": SimpleNamespace(extends=["h", "i"], extends_where=None, where=None),
               "h": SimpleNamespace(extends=["i"], extends_where=None, where=None),
               "i": SimpleNamespace(extends=[], extends_where=None, where=None)}
    assert _check_extends(acyclic) == []
