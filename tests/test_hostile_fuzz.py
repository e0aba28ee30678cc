"""Fuzzing the doors of hwkb: random YAML trees and text through the loader, random quantity and expression text
through their parsers, random --set/--where/--sweep strings through ``hwkb.cli.main.main`` in this process.

Each case gives a result or a :class:`~hwkb.errors.KBError` (for the CLI: exit 0, 1 or 2 with ``error:`` lines),
never another exception, within a per-case deadline of 2 s. Cases per run: 1,000 for each parser, 500 through
the CLI (~7 ms each) and 150 KB loads (~25 ms each, YAML written and read), so the file runs in about 8 s;
``HWKB_FUZZ_SCALE=20`` multiplies them for a long run by hand.
"""
from __future__ import annotations

import io
import os
import shutil
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from conftest import TINY, share_kb_with_cli
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
