"""Solved directions compiled by the project (hwkb.definitions.compiled), kept in the solution cache as numeric
code, read back without SymPy: a tampered entry is a miss, a hostile one runs nothing, a warm solve imports no
SymPy."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TINY, build_kb
from hwkb import KnowledgeBase
from hwkb.definitions import compiled
from hwkb.definitions.compiled import NAMESPACE, mapping_function, positional_function
from hwkb.definitions.expressions import parse_expression, parse_relation
from hwkb.errors import ExpressionError, KBError
from hwkb.formats.caches import SolutionCache

ENGINE = Path(compiled.__file__).resolve().parents[2]


def test_module_surface():
    assert sorted(compiled.__all__) == ["NAMESPACE", "mapping_function", "positional_function"]


@pytest.mark.parametrize("text, point, expected", [
    ("x0/(x1*x2)", (6.0, 1.0, 2.0), 3.0),
    ("(2/3)*x0 - x1", (3.0, 1.0, 0.0), 1.0),
    ("sqrt(x0) + exp(0*x1) + log(x2)", (4.0, 1.0, 1.0), 3.0),
    ("min(x0, x1) * max(x1, x2)", (1.0, 2.0, 3.0), 3.0),
    ("floor(x0 / x1) + ceil(x2)", (7.0, 2.0, 0.5), 4.0),
    ("-x0**2 + x1**(1/2)", (3.0, 16.0, 0.0), -5.0),
])
def test_a_compiled_tree_computes_what_python_computes_for_its_text(text, point, expected):
    f = positional_function([parse_expression(text)], ["x0", "x1", "x2"])
    assert f(*point) == expected
    g = mapping_function([parse_expression(text)], {"x0": "a[bf16]", "x1": "b", "x2": "c"})
    assert g(dict(zip(["a[bf16]", "b", "c"], point))) == expected


def test_floats_throughout_and_python_errors():
    f = positional_function([parse_expression("floor(x0) * 2**60")], ["x0"])
    assert isinstance(f(3.5), float)  # no integer grows without bound
    with pytest.raises(ZeroDivisionError):
        positional_function([parse_expression("x0/x1")], ["x0", "x1"])(1.0, 0.0)
    with pytest.raises(ValueError):
        positional_function([parse_expression("sqrt(x0)")], ["x0"])(-1.0)
    with pytest.raises(OverflowError):
        positional_function([parse_expression("exp(exp(exp(x0)))")], ["x0"])(10.0)


def test_a_power_of_a_negative_number_is_refused_by_float_as_lambdify_refuses_it():
    g = mapping_function([parse_expression("x**(1/3)")], {"x": "x"})
    with pytest.raises(TypeError):
        g({"x": -8.0})


@pytest.mark.parametrize("text, parameters", [
    ("y + 1", ["x"]),            # a name that is no parameter
    ("x[bf16]", ["x"]),          # an index where a placeholder is expected
    ("float(x)", ["x"]),         # not a function of the whitelist (the parser refuses it first)
])
def test_only_parameters_and_whitelisted_functions(text, parameters):
    with pytest.raises(KBError):
        positional_function([parse_expression(text)], parameters)


@pytest.mark.parametrize("name", ["sqrt", "float", "values", "__builtins__", "not an identifier"])
def test_a_parameter_cannot_shadow_what_the_function_sees(name):
    with pytest.raises(ExpressionError):
        positional_function([parse_expression("1")], [name])


def test_a_compiled_function_sees_no_builtins():
    f = positional_function([parse_expression("x0")], ["x0"])
    assert f.__globals__ is NAMESPACE and NAMESPACE["__builtins__"] == {}
    assert set(NAMESPACE) == {"__builtins__", "min", "max", "floor", "ceil", "sqrt", "exp", "log", "float"}


def test_both_sides_of_a_relation_at_once():
    relation = parse_relation("peak = sms * rate * clock")
    sides = mapping_function([relation.lhs, relation.rhs], {k: k for k in ("peak", "sms", "rate", "clock")})
    assert sides({"peak": 8.0, "sms": 2.0, "rate": 2.0, "clock": 2.0}) == (8.0, 8.0)


# ---------------------------------------------------------------- the solution cache

def _entries(cache_dir: Path) -> dict:
    return json.loads((cache_dir / "solutions.json").read_text())


def _write_entries(cache_dir: Path, texts: dict[str, str]) -> None:
    """Entries with checksums that match: only the content check stands between them and a solve."""
    cache = SolutionCache.in_directory(cache_dir)
    for key, text in texts.items():
        cache.put(key, text)


def _load(cache_dir: Path) -> KnowledgeBase:
    return KnowledgeBase.load([TINY], default=False, cache=cache_dir)


def test_entries_are_the_expression_tree_of_each_direction(tmp_path):
    kb = _load(tmp_path)
    assert kb.solve("clock", gpu="chip").magnitude == pytest.approx(1.0)
    texts = {e["text"] for e in _entries(tmp_path).values()}
    assert "(x0 / ((x1 * x2) * x3))" in texts or "(x0 / (x1 * x2))" in texts


def test_warm_and_cold_give_the_same_numbers_bit_for_bit(tmp_path):
    values = {"peak[bf16]": 2.048e14, "sm_count": 100.0, "fma_rate[bf16]": 2048.0, "clock": 1e9}
    cold = _load(tmp_path)
    answers = [r.solver(key)({k: values.get(k, 3.0) for k in r.keys if k != key}) for r in cold.relations
               for key in r.keys]
    warm = _load(tmp_path)
    assert answers == [r.solver(key)({k: values.get(k, 3.0) for k in r.keys if k != key}) for r in warm.relations
                       for key in r.keys]
    assert all(r.template.expressions == {} for r in warm.relations)  # read back: SymPy never asked


def test_a_tampered_entry_is_a_miss_and_is_solved_again(tmp_path):
    _load(tmp_path).solve("clock", gpu="chip")
    stored = _entries(tmp_path)
    wrong = {k: "x1*2" if e["text"] != "-" else "-" for k, e in stored.items()}
    _write_entries(tmp_path, wrong)  # checksums recomputed: the entries are whole, their formulas wrong
    kb = _load(tmp_path)
    assert kb.solve("clock", gpu="chip").magnitude == pytest.approx(1.0)
    relation = kb.relations[1]
    for key in relation.keys:
        given = {k: 2.0 for k in relation.keys if k != key}
        assert relation.holds({**given, key: relation.solver(key)(given)})
    again = _entries(tmp_path)
    assert all(again[k]["text"] == e["text"] for k, e in stored.items())  # each entry solved and written again


HOSTILE = [
    "__import__('os').system('touch {marker}')",
    "open('{marker}', 'w')",
    "x1.__class__",
    "exp(exp(exp(exp(exp(x1)))))",
    "((((max(2, 3)**64)**64)**64)**64)",
    "0*((((floor(x1)**64)**64)**64)**64) + x1",
    "x1**x2**x3**x1**x2**x3",
    "x9 * x1",
    "e*x1",
    "LambertW(x1)",
    "-(" * 70 + "x1" + ")" * 70,
    "x1 " + "+ x1 " * 3000,
    "[x1]",
    "lambda: 1",
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_a_hostile_entry_runs_nothing_and_is_a_miss(tmp_path, payload):
    cache_dir = tmp_path / "cache"
    _load(cache_dir).solve("clock", gpu="chip")
    marker = tmp_path / "marker"
    _write_entries(cache_dir, {k: payload.format(marker=marker) for k in _entries(cache_dir)})
    kb = _load(cache_dir)
    assert kb.solve("clock", gpu="chip").magnitude == pytest.approx(1.0)
    assert kb.solve("sm_count", facts=["peak[bf16]=204.8TFLOPS", "fma_rate[bf16]=1024", "clock=1GHz"]).magnitude == 100
    assert not marker.exists()
    assert payload.format(marker=marker) not in {e["text"] for e in _entries(cache_dir).values()}


def test_a_warm_solve_imports_no_sympy(tmp_path):
    """The cache filled here, a whole process answers from it without SymPy (or NetworkX, or mpmath)."""
    kb = build_kb(tmp_path / "kb")
    KnowledgeBase.load([kb], default=False, cache=tmp_path / "cache").solve("clock", gpu="chip")
    code = ("import sys; from hwkb.cli.main import main; code = main(['solve', 'clock', '--gpu', 'chip', "
            f"'--kb', {str(kb)!r}, '--no-default-kb']); "
            "print(sorted(m for m in ('sympy', 'networkx', 'mpmath') if m in sys.modules), file=sys.stderr); "
            "sys.exit(code)")
    env = dict(os.environ, HWKB_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ENGINE))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (0, "clock = 1 GHz  (derived)\n", "[]\n")
