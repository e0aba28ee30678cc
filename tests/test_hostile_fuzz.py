"""Fuzzing the doors of hwkb: random YAML trees and text through the loader, random quantity and expression text
through their parsers, random --set/--where/--sweep strings through ``hwkb.cli.main.main`` in this process.

Each case gives a result or a :class:`~hwkb.errors.KBError` (for the CLI: exit 0, 1 or 2 with ``error:`` lines),
never another exception, within a per-case deadline of 2 s. Cases per run: 1,000 for each parser, 500 through
the CLI (~7 ms each) and 150 KB loads (~25 ms each, YAML written and read), so the file runs in about 8 s;
``HWKB_FUZZ_SCALE=20`` multiplies them for a long run by hand.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from conftest import FIXTURES, TINY, share_kb_with_cli
from hwkb import KnowledgeBase
from hwkb.cli.main import main
from hwkb.definitions.expressions import parse_relation
from hwkb.definitions.quantities import read_quantity
from hwkb.definitions.units import Units
from hwkb.errors import KBError, Location
from hwkb.formats.load import load_model

SCALE = float(os.environ.get("HWKB_FUZZ_SCALE", "1"))  # e.g. HWKB_FUZZ_SCALE=20 for a long run by hand
FAST = settings(max_examples=int(1000 * SCALE), deadline=2000, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
CLI = settings(FAST, max_examples=int(500 * SCALE))
LOADS = settings(FAST, max_examples=int(150 * SCALE))

NUMBERS = st.sampled_from(["0", "1", "2", "0.5", "64", "1e3", "1e31", "-1", "9**9**9", ".inf", "nan", "1_0", ".5e-3",
                           "99999999999999999999", "1e999"])
UNITS = st.sampled_from(["", "GHz", " MHz", "TFLOPS", "FMA/cycle", "1/cycle", "GHz**99999", "Kibit**1000000000",
                         "GHz=2", "*0+5GHz", "%", "(GHz)", "GHz^-2", "furlongs", "__class__", "_fraction", "ｇＨｚ",
                         "GHz GHz", "bit**8/s^-8", "\x1b[31m", "n/a"])
QUANTITIES = st.one_of(st.builds(lambda n, u: n + u, NUMBERS, UNITS),
                       st.text(alphabet="0123456789.eE+-*/^() _%=GHzTFLOPSMkicyle#n/a\n", max_size=40),
                       st.text(max_size=30))
TOKENS = st.sampled_from(["clock", "sm_count", "peak[bf16]", "peak[fp16]", "fma_rate[fp16]", "peak[fp8]", "peak",
                          "x0", "exp", "min", "max", "sqrt", "log", "floor", "(", ")", ",", "+", "-", "*", "/", "**",
                          "=", "<=", ">=", "<", ">", "==", "9", "0", "1e400", "2.5", "__import__", "'a'", ".real",
                          "lambda", ":", "[", "]", "ｃｌｏｃｋ", "\x00", "if", "not"])
EXPRESSIONS = st.one_of(st.lists(TOKENS, max_size=12).map(" ".join), st.text(max_size=30))
KEYS = st.sampled_from(["clock", "sm_count", "peak[bf16]", "peak[fp16]", "fma_rate[fp16]", "peak[fp8]", "nope", ""])
SETS = st.one_of(st.builds(lambda k, q: f"{k}={q}", KEYS, QUANTITIES), st.text(max_size=20))
SWEEP_VALUES = st.one_of(
    st.builds(lambda a, b, c: f"{a}:{b}:{c}", NUMBERS, st.sampled_from(["2", "64", "1e3", "9**9"]),
              st.sampled_from(["1", "0.5", "0", "-1", "1e3", "x"])),
    st.lists(NUMBERS, min_size=1, max_size=4).map(",".join), st.text(max_size=12))
SWEEPS = st.builds(lambda k, v: f"{k}={v}", KEYS, SWEEP_VALUES)


@pytest.fixture(scope="module")
def units() -> Units:
    return Units.from_file(TINY / "units.txt")


@FAST
@given(text=QUANTITIES, unit=st.sampled_from(["GHz", "", "FMA/cycle", "TFLOPS"]), in_file=st.booleans())
def test_quantity_text_is_a_reading_or_a_kb_error(units, text, unit, in_file):
    try:
        reading = read_quantity(text, unit, units, Location("--set"), key="clock", in_file=in_file)
    except KBError:
        return
    assert reading.magnitude is None or 0 <= reading.magnitude <= 1e30


@FAST
@given(text=EXPRESSIONS)
def test_expression_text_is_a_relation_or_a_kb_error(text):
    try:
        parse_relation(text, Location("--where"))
    except KBError:
        pass


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), QUANTITIES, KEYS, st.text(max_size=10))
TREES = st.recursive(SCALARS, lambda children: st.one_of(
    st.lists(children, max_size=4),
    st.dictionaries(st.one_of(KEYS, st.sampled_from(["kind", "facts", "extends", "value", "tolerance", "unit", "doc",
                                                     "eq", "rules", "variables", "indices", "product", "chip"]),
                              st.text(max_size=6)), children, max_size=4)), max_leaves=20)
ENTITY_FILES = st.one_of(
    TREES,
    st.builds(lambda eid, kind, facts, extends: {eid: {"kind": kind, "extends": extends, "facts": facts}},
              st.sampled_from(["x", "chip", "ｘ", "a b", "x0"]), st.sampled_from(["product", "architecture", "?"]),
              st.dictionaries(KEYS, st.one_of(QUANTITIES, st.fixed_dictionaries(
                  {"value": QUANTITIES}, optional={"tolerance": QUANTITIES}))), st.sampled_from(["arch", "chip", "x"])))
RULE_FILES = st.one_of(
    TREES,
    st.builds(lambda name, eq, tolerance, var, unit: {"variables": {var: {"unit": unit, "doc": "d"}},
                                                      "rules": {name: {"doc": "d", "source": "s", "eq": eq,
                                                                       "tolerance": tolerance}}},
              st.sampled_from(["r", "exp", "ｒ"]), EXPRESSIONS, QUANTITIES, st.sampled_from(["v", "exp", "x0", "math"]),
              UNITS))


def dumped(tree) -> str:
    out = io.StringIO()
    YAML(typ="safe", pure=True).dump(tree, out)
    return out.getvalue()


@pytest.fixture(scope="module")
def fuzz_kb(tmp_path_factory):
    kb = tmp_path_factory.mktemp("fuzz") / "kb"
    shutil.copytree(TINY, kb)
    return kb


@LOADS
@given(entities=st.one_of(ENTITY_FILES.map(dumped), st.text(alphabet=string.printable + "&*!|>ｃ", max_size=80)),
       rules=st.one_of(RULE_FILES.map(dumped), st.text(alphabet=string.printable + "&*!|>", max_size=80)))
def test_random_kb_files_load_or_give_kb_errors(fuzz_kb, entities, rules):
    (fuzz_kb / "gpus" / "fuzz.yaml").write_text(entities, encoding="utf-8")
    (fuzz_kb / "rules" / "fuzz.yaml").write_text(rules, encoding="utf-8")
    try:
        load_model([fuzz_kb])
    except KBError:
        pass


@pytest.fixture(scope="module")
def tiny():
    return KnowledgeBase.load([TINY], default=False)


@CLI
@given(target=KEYS, sets=st.lists(SETS, max_size=2), where=st.lists(EXPRESSIONS, max_size=1),
       sweep=st.one_of(st.none(), SWEEPS), gpu=st.sampled_from(["chip", "arch", "nope"]))
def test_random_flags_through_the_cli_give_a_result_or_error_lines(tiny, monkeypatch, capsys, target, sets, where,
                                                                   sweep, gpu):
    share_kb_with_cli(monkeypatch, tiny)
    argv = ["solve", target or "clock", "--gpu", gpu]
    argv += [a for s in sets for a in ("--set", s)] + [a for w in where for a in ("--where", w)]
    argv += ["--sweep", sweep] if sweep is not None else []
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 1, 2)
    assert all(line.startswith("error: ") for line in err.splitlines()), err
    assert (code == 2) == bool(err)


# ---------------------------------------------------------------- peer readers

PEER_KB = FIXTURES / "peers" / "kb"
PEER_SUFFIX = {"llm-analysis": ".json", "genz": ".json", "llmcompass": ".json", "aiconfigurator": ".yaml",
               "epoch": ".csv"}
NASTY = st.sampled_from(["9" * 5000, "\ud800", "\x1b[2J", "\n", "<<", "*a", "&a", "1e400", "-1", "100.5", "0x10",
                         "\u0662\u0660", "\ufeff", "nan", ".inf", "null", "[]", "{}", "5", "gpu-x", "<script>"])
PEER_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), NASTY,
                                     st.text(max_size=8)),
                           lambda children: st.one_of(st.lists(children, max_size=3),
                                                      st.dictionaries(st.one_of(NASTY, st.text(max_size=6),
                                                                                st.sampled_from(["gpu", "node", "device",
                                                                                                 "name", "Flops"])),
                                                                      children, max_size=4)), max_leaves=12)


def peer_text(fmt: str, tree, raw: str) -> str:
    """A file of ``fmt``: the tree as JSON or YAML, a CSV with an Epoch header, or raw text."""
    if raw:
        return raw
    if fmt == "epoch":
        cells = [str(v) for v in (tree if isinstance(tree, list) else [tree])][:4]
        return "Hardware name,Type,Tensor-FP16/BF16 performance (FLOP/s),TDP (W)\n" + ",".join(cells) + "\n"
    if PEER_SUFFIX[fmt] == ".json":
        try:
            return json.dumps(tree, allow_nan=True)
        except (ValueError, UnicodeEncodeError):
            return "{}"
    return dumped(tree)


@pytest.fixture(scope="module")
def peer_model():
    return load_model([PEER_KB])


@LOADS
@given(fmt=st.sampled_from(sorted(PEER_SUFFIX)), tree=PEER_VALUES,
       raw=st.one_of(st.just(""), st.text(alphabet=string.printable + "\ufeff\u0662\x1b", max_size=80)))
def test_random_peer_files_read_or_give_kb_errors(peer_model, tmp_path_factory, fmt, tree, raw):
    from hwkb.errors import escaped
    from hwkb.formats.peers.registry import FORMATS, read_peer_files
    model, units = peer_model
    path = tmp_path_factory.mktemp("peer") / f"fuzz{PEER_SUFFIX[fmt]}"
    path.write_text(peer_text(fmt, tree, raw), encoding="utf-8", errors="surrogatepass")
    try:
        entries = read_peer_files(FORMATS[fmt], [path], model, units).entries
    except KBError as exc:
        assert str(exc) == escaped(str(exc)) or "\n" not in str(exc).split(": ", 1)[0]
        return
    for entry in entries:
        assert entry.name == escaped(entry.name)  # printable as it is
        assert all(abs(f.value) <= 1e30 for f in entry.facts.values())


# ---------------------------------------------------------------- completion's names

@FAST
@given(ids=st.lists(st.one_of(st.text(max_size=12), NASTY, st.sampled_from(["sm_count", "h100-sxm", "a.b+c"])),
                    max_size=6),
       aliases=st.lists(st.one_of(st.text(max_size=8), NASTY), max_size=3))
def test_list_names_prints_only_names_of_the_grammar(ids, aliases):
    from hwkb.questions.listing import NAME, Listing
    listed = [{"id": i, "doc": "$(touch PWNED)", "aliases": aliases} for i in ids]
    out = Listing("variables", tuple(listed)).names
    assert all(NAME.match(n) and "\n" not in n for n in out)
    assert [n for n in out] == [n for i in listed for n in (i["id"], *aliases) if NAME.match(n)]


@settings(FAST, max_examples=int(25 * SCALE))
@given(lines=st.lists(st.one_of(NASTY, st.text(alphabet=string.printable, max_size=12),
                                st.sampled_from(["$(touch PWNED)", "`touch PWNED`", "a;touch PWNED", "*", "~", "-h",
                                                 "sm_count", "'", '"'])), max_size=6))
def test_completion_offers_only_names_and_runs_nothing(tmp_path_factory, lines):
    import subprocess
    if not shutil.which("bash"):
        pytest.skip("no bash")
    from hwkb.cli.completion import bash_script
    from hwkb.questions.listing import NAME
    folder = tmp_path_factory.mktemp("complete")
    (folder / "listed").write_text("".join(f"{line}\n" for line in lines if "\n" not in line and "\r" not in line),
                                   encoding="utf-8", errors="surrogatepass")
    (folder / "hwkb").write_text(f'#!/bin/sh\ncat "{folder / "listed"}"\n')
    (folder / "hwkb").chmod(0o755)
    probe = bash_script() + "COMP_WORDS=(hwkb solve --set ''); COMP_CWORD=3; _hwkb; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, cwd=folder, timeout=30,
                          env={"PATH": f"{folder}:/usr/bin:/bin"})
    offered = [w for w in done.stdout.splitlines() if w]
    assert all(NAME.match(w) for w in offered), offered
    assert not list(folder.glob("PWNED*"))
