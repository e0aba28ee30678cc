"""hwkb.formats.load: KB files to a Model, every problem at file:line:col, all of them in one load."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from conftest import BAD, TINY, build_kb, load_errors
from hwkb.formats import load as loader
from hwkb.errors import KBErrors, Location
from hwkb.formats.load import load_entities, load_model, read_yaml

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
    "extends_missing": ["gpus/bad.yaml:2:1: unknown entity 'chipp'; did you mean 'chip'?"],
    "extends_cycle": ["gpus/bad.yaml:5:1: 'extends' forms a cycle: hen -> egg -> hen; an entity cannot extend itself"],
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
    "unknown_rule_kind": ["rules/bad.yaml:4:11: unknown rule kind 'lemma'; use one of law, expectation, simulated"],
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
        "rules/bad2.yaml:4:11: unknown rule kind 'lemma'; use one of law, expectation, simulated",
    ]


# ---------------------------------------------------------------- more error branches, written on the spot

def write(tmp_path, monkeypatch, files: dict[str, str], base: Path | None = TINY) -> Path:
    kb = tmp_path / "kb"
    if base is not None:
        build_kb(kb, base=base)
    for name, text in files.items():
        path = kb / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    monkeypatch.chdir(kb)
    return kb


@pytest.mark.parametrize("files, messages", [
    ({"rules/bad.yaml": "- a\n- b\n"}, ["rules/bad.yaml:1:1: a rules file must be a mapping of 'key: value' lines"]),
    ({"rules/bad.yaml": "varaibles: {}\n"},
     ["rules/bad.yaml:1:1: unknown field 'varaibles' in a rules file; did you mean 'variables'?"]),
    ({"rules/bad.yaml": "variables:\n  x: 3\n"},
     ["rules/bad.yaml:2:6: variable 'x' must be a mapping of 'key: value' lines"]),
    ({"rules/bad.yaml": "variables:\n  x: {doc: a thing}\n"}, ["rules/bad.yaml:2:6: variable 'x' lacks 'unit'"]),
    ({"rules/bad.yaml": "variables:\n  x: {unit: GHz, doc: a thing, integer: maybe}\n"},
     ["rules/bad.yaml:2:41: integer must be true or false"]),
    ({"rules/bad.yaml": "variables:\n  x: {unit: GHz, doc: a thing, index: precison}\n"},
     ["rules/bad.yaml:2:39: unknown index set 'precison'; did you mean 'precision'?"]),
    ({"rules/bad.yaml": "variables:\n  x: {unit: GHz, doc: a thing, source: a book}\n"},
     ["rules/bad.yaml:2:32: 'source' on a variable belongs to its 'default'; "
      "give a default value or move the source to the facts"]),
    ({"rules/bad.yaml": "variables:\n  x: {unit: GHz, doc: [a, list]}\n"},
     ["rules/bad.yaml:2:23: doc must be a single line of text"]),
    ({"rules/bad.yaml": "variables:\n  x: {unit: GHz, doc: a thing, default: 5 TFLOPS}\n"},
     ["rules/bad.yaml:2:41: '5 TFLOPS' does not fit x, which is in GHz; "
      "give it in GHz or a unit of the same dimension"]),
    ({"rules/bad.yaml": "variables:\n  clock: {unit: GHz, doc: again}\n"},
     ["rules/compute.yaml:9:3: 'clock' is declared twice; the first is at rules/bad.yaml:2:3"]),
    ({"rules/bad.yaml": "indices:\n  size: {doc: no values}\n"}, ["rules/bad.yaml:2:9: index set 'size' lacks 'values'"]),
    ({"rules/bad.yaml": "rules:\n  r: {doc: d, source: s}\n"}, ["rules/bad.yaml:2:3: rule 'r' lacks 'eq'; write eq: LHS = RHS"]),
    ({"rules/bad.yaml": "rules:\n  r: {doc: d, source: s, eq: clock <= clock}\n"},
     ["rules/bad.yaml:2:30: a rule states an equation, not '<='; constraints belong in a query's --where"]),
    ({"rules/bad.yaml": "rules:\n  r: {doc: d, source: s, for: size, eq: clock = clock}\n"},
     ["rules/bad.yaml:2:31: unknown index set 'size'; one of precision"]),
    ({"rules/bad.yaml": "rules:\n  r: {doc: d, source: s, eq: 'clock[fp16] = clock'}\n"},
     ["rules/bad.yaml:2:30: clock has no index, but is written clock[fp16]; write clock"]),
    ({"rules/bad.yaml": "rules:\n  r: {doc: d, source: s, eq: 'peak = clock'}\n"},
     ["rules/bad.yaml:2:30: peak is indexed by precision; write peak[precision] with 'for: precision', or peak[fp16]"]),
    ({"rules/bad.yaml": "indices:\n  size: {values: [a, b]}\n"
                        "rules:\n  r: {doc: d, source: s, for: size, eq: 'peak[size] = peak[size]'}\n"},
     ["rules/bad.yaml:4:41: peak[size] runs over size, but peak is indexed by precision"]),
    ({"rules/bad.yaml": "rules:\n  r: {doc: d, source: s, eq: 'peak[fp32] = peak[fp16]'}\n"},
     ["rules/bad.yaml:2:30: unknown precision value 'fp32'; one of fp16, bf16"]),
    ({"rules/bad.yaml": "rules:\n  r: {source: s, eq: clok = clock}\n"},
     ["rules/bad.yaml:2:6: rule 'r' lacks 'doc'", "rules/bad.yaml:2:22: unknown variable 'clok'; did you mean 'clock'?"]),
    ({"rules/bad.yaml": "rules:\n  r: {doc: d, source: s, tolerance: lots, eq: clock = clock}\n"},
     ["rules/bad.yaml:2:37: tolerance 'lots' must be a fraction, e.g. '1 %' or 0.01"]),
    ({"rules/bad.yaml": "rules:\n  r: {doc: d, source: s, kind: simulated}\n"},
     ["rules/bad.yaml:2:3: a simulated rule needs 'model'"]),
    ({"gpus/bad.yaml": "- a\n"}, ["gpus/bad.yaml:1:1: an entities file must be a mapping of 'key: value' lines"]),
    ({"gpus/bad.yaml": "x: {name: X}\n"}, ["gpus/bad.yaml:1:4: entity 'x' lacks 'kind'"]),
    ({"gpus/bad.yaml": "x: {kind: gadget}\n"},
     ["gpus/bad.yaml:1:11: unknown entity kind 'gadget'; use one of architecture, product, die, instruction, "
      "workload, scenario, datasheet, memory"]),
    ({"gpus/bad.yaml": "x: {kind: product, facts: {clock: [1, GHz]}}\n"},
     ["gpus/bad.yaml:1:35: the value of 'clock' must be a number with its unit, e.g. '1.83 GHz', or n/a"]),
    ({"gpus/bad.yaml": "x: {kind: product, facts: {clock: }}\n"},
     ["gpus/bad.yaml:1:34: the value of 'clock' must be a number with its unit, e.g. '1.83 GHz', or n/a"]),
    ({"gpus/bad.yaml": "x: {kind: product, facts: {clock: {source: s}}}\n"},
     ["gpus/bad.yaml:1:35: fact 'clock' lacks 'value'"]),
    ({"gpus/bad.yaml": "x: {kind: product, facts: {clock: {value: 1 GHz, sauce: s}}}\n"},
     ["gpus/bad.yaml:1:50: unknown field 'sauce' in fact 'clock'; did you mean 'source'?"]),
    ({"gpus/bad.yaml": "x: {kind: product, facts: {clock: fast}}\n"},
     ["gpus/bad.yaml:1:35: cannot read 'fast' as a value of clock; write a number and a unit that fits GHz, "
      "e.g. '1 GHz'"]),
    ({"gpus/bad.yaml": "x: {kind: product, facts: {clock: 1e999 GHz}}\n"},
     ["gpus/bad.yaml:1:35: '1e999 GHz' is not a finite number"]),
    ({"gpus/bad.yaml": "x: {kind: product, facts: {clock: 1 GHz**99999}}\n"},
     ["gpus/bad.yaml:1:35: unit 'gigahertz ** 99999' is out of range in '1 GHz**99999'; "
      "use a unit within 1e-300 .. 1e300"]),
    ({"gpus/bad.yaml": "x: {kind: product, facts: {clock: {value: 1 GHz, tolerance: lots}}}\n"},
     ["gpus/bad.yaml:1:61: tolerance 'lots' must be in the fact's unit or a percentage"]),
    ({"gpus/bad.yaml": "chip: {kind: product}\n"},
     ["gpus/chips.yaml:10:1: 'chip' is declared twice; the first is at gpus/bad.yaml:1:1"]),
    ({"gpus/bad.yaml": "x: {kind: product, extends: x}\n"},
     ["gpus/bad.yaml:1:1: 'extends' forms a cycle: x -> x; an entity cannot extend itself"]),
    ({"gpus/bad.yaml": "x: {kind: product, extends: [chip, {a: b}]}\n"},
     ["gpus/bad.yaml:1:29: extends must be a name or a list of names"]),
])
def test_error_branches(files, messages, tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, files)
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    assert [str(e) for e in info.value.errors] == messages


def test_a_quoted_expression_is_placed_after_its_quote(tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {"rules/bad.yaml": "rules:\n  r:\n    doc: d\n    source: s\n"
                                                         "    eq: 'clock = foo(clock)'\n"})
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    assert [str(e) for e in info.value.errors] == [
        "rules/bad.yaml:5:18: function 'foo' is not allowed in 'clock = foo(clock)'; "
        "use min, max, floor, ceil, sqrt, exp, log"]


def test_unreadable_file(tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {})
    (kb / "rules" / "bad.yaml").write_bytes(b"variables: \xff\xfe\n")
    with pytest.raises(KBErrors) as info:
        load_model([kb])
    (e,) = info.value.errors
    assert e.where == Location(str(kb / "rules" / "bad.yaml"))
    assert e.message.startswith("cannot read file: ")


def test_read_yaml_appends_instead_of_raising(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("a: [1\n")
    errors = []
    assert read_yaml(path, errors) is None
    assert len(errors) == 1 and errors[0].where.line == 2
    path.write_text("a: 1\n")
    assert read_yaml(path, errors).value[0][0].value == "a"
    assert len(errors) == 1


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
    assert (arch.kind, arch.name, arch.doc, arch.source) == ("architecture", "Tiny architecture",
                                                            "what every chip of the generation shares", "tiny whitepaper")
    assert (chip.kind, chip.name, chip.source) == ("product", "Tiny chip", None)


def test_tiny_rules_as_written(tiny_kb):
    rule = tiny_kb.model.rules["peak_law"]
    assert (rule.kind, rule.text, rule.source, rule.over, rule.tolerance) == (
        "law", "peak[precision] = sm_count * fma_rate[precision] * clock", "tiny book, page 1", ("precision",), 0.0)
    assert [str(r) for r in rule.relation.references()] == ["peak[precision]", "sm_count", "fma_rate[precision]", "clock"]


def test_files_in_load_order(tiny_kb):
    assert [Path(f).relative_to(TINY).as_posix() for f in tiny_kb.model.files] == ["rules/compute.yaml",
                                                                                    "gpus/chips.yaml"]


@pytest.mark.parametrize("text, value, unit, printed", [
    ("1.5GHz", 1.5, "GHz", "1.5"), ("1500 MHz", 1500.0, "MHz", "1500"), ("1e9Hz", 1e9, "Hz", "1e9"),
    ("2", 2.0, "GHz", "2"), ("n/a", None, "GHz", "n/a"), ("N/A", None, "GHz", "N/A"), ("none", None, "GHz", "none"),
    ("1_000 MHz", 1000.0, "MHz", "1_000"), (".5 GHz", 0.5, "GHz", ".5"),
])
def test_fact_values(text, value, unit, printed, tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {"gpus/x.yaml": f"x: {{kind: product, facts: {{clock: '{text}'}}}}\n"})
    fact = load_model([kb])[0].entities["x"].facts["clock"]
    assert (fact.value, fact.unit, fact.text) == (value, unit, printed)


@pytest.mark.parametrize("text", ["2 /cycle", "2/cycle", "2 1/cycle"])
def test_a_unit_written_per_something(text, tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {"rules/x.yaml": "variables:\n  per_cycle: {unit: 1/cycle, doc: d}\n",
                                       "gpus/x.yaml": f"x: {{kind: product, facts: {{per_cycle: '{text}'}}}}\n"})
    model, units = load_model([kb])
    fact = model.entities["x"].facts["per_cycle"]
    assert (fact.value, fact.unit, fact.text) == (2.0, "1/cycle", "2")
    assert units.to_canonical(fact.value, fact.unit) == 2.0


def test_a_unit_starting_with_e_is_not_an_exponent(tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {"units.txt": (TINY / "units.txt").read_text() + "exp = [] = exps\n",
                                       "rules/x.yaml": "variables:\n  exps_per_cycle: {unit: exp/cycle, doc: d}\n",
                                       "gpus/x.yaml": "x: {kind: product, facts: {exps_per_cycle: 16exp/cycle}}\n"})
    fact = load_model([kb])[0].entities["x"].facts["exps_per_cycle"]
    assert (fact.value, fact.unit) == (16.0, "exp/cycle")


@pytest.mark.parametrize("tolerance, expected", [("0.5 GHz", 0.5), ("500 MHz", 0.5), ("10 %", 0.15), ("0.01", 0.015)])
def test_fact_tolerance(tolerance, expected, tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {"gpus/x.yaml": "x: {kind: product, facts: "
                                                      f"{{clock: {{value: 1.5 GHz, tolerance: '{tolerance}'}}}}}}\n"})
    assert load_model([kb])[0].entities["x"].facts["clock"].tolerance == pytest.approx(expected)


def test_count_tolerance_is_absolute_unless_a_percentage(tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {"gpus/x.yaml": "x: {kind: product, facts: {"
                                                      "sm_count: {value: 100, tolerance: 2}, "
                                                      "'peak[fp16]': {value: 200 TFLOPS, tolerance: 1 %}}}\n"})
    facts = load_model([kb])[0].entities["x"].facts
    assert facts["sm_count"].tolerance == 2.0
    assert facts["peak[fp16]"].tolerance == pytest.approx(2.0)


def test_rule_tolerance_is_relative(tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {"rules/x.yaml": "rules:\n  r: {kind: expectation, doc: d, source: s, "
                                                       "tolerance: 2 %, eq: 'peak[bf16] = peak[fp16]'}\n"})
    rule = load_model([kb])[0].rules["r"]
    assert (rule.kind, rule.tolerance) == ("expectation", pytest.approx(0.02))


def test_variable_default(tmp_path, monkeypatch):
    kb = write(tmp_path, monkeypatch, {"rules/x.yaml": "variables:\n  lanes: {unit: FMA/cycle, doc: d, "
                                                       "default: 1 FMA/cycle, source: a book}\n"})
    default = load_model([kb])[0].variables["lanes"].default
    assert (default.key, default.value, default.unit, default.source, default.entity) == (
        "lanes", 1.0, "FMA/cycle", "a book", None)


def test_later_directories_add_to_earlier_ones(tmp_path, monkeypatch):
    extra = write(tmp_path, monkeypatch, {"gpus/mine.yaml": "mine: {kind: product, extends: chip, "
                                                            "facts: {sm_count: 90}}\n"}, base=None)
    model, units = load_model([TINY, extra])
    assert list(model.entities) == ["arch", "chip", "mine"]
    assert model.ancestry("mine") == ["arch", "chip", "mine"]
    assert units.source == str(TINY / "units.txt")  # the last directory that has one


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
        "sheet.yaml:1:1: unknown entity 'chipp'; did you mean 'chip'?",
        "sheet.yaml:1:50: unknown variable 'clok'; did you mean 'clock'?"]


def test_module_surface():
    assert sorted(loader.__all__) == ["NOT_APPLICABLE", "load_entities", "load_model", "read_yaml"]
    assert loader.NOT_APPLICABLE == ("n/a", "na", "none")


def test_the_loader_is_the_only_importer_of_ruamel():
    package = Path(loader.__file__).parent.parent
    users = sorted(p.name for p in package.rglob("*.py") if "ruamel" in p.read_text())
    assert "load.py" in users
    assert set(users) <= {"load.py", "query_files.py", "node_cache.py"}  # the reader, its users and its cache


def test_the_real_kb_loads(real_kb):
    assert {"h100-sxm", "h100-pcie", "b200", "v100", "a100", "hopper"} <= set(real_kb.model.entities)
    assert os.path.basename(real_kb.units.source) == "units.txt"
