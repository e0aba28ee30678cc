"""hwkb.definitions.expressions: the whitelist language, every rejection with its exact message and column."""
from __future__ import annotations

import os
from fractions import Fraction

import pytest
import sympy

from hwkb.definitions import expressions
from hwkb.errors import ExpressionError, Location
from hwkb.definitions.expressions import (BinOp, Call, Neg, Num, Quantity, Ref, RelationTree, parse_expression,
                                          parse_relation, parse_where_relation)
from hwkb.definitions.symbolic import from_sympy, to_sympy, to_text

W = Location("f.yaml", 3, 9)  # the expression text starts at line 3, column 9


def test_all_names_exist():
    assert sorted(expressions.__all__) == sorted([
        "Num", "Quantity", "Ref", "BinOp", "Neg", "Call", "RelationTree", "Expr", "FUNCTIONS", "COMPARISONS",
        "parse_expression", "parse_relation", "parse_where_relation", "references", "ARITHMETIC"])
    for name in expressions.__all__:
        assert hasattr(expressions, name)


def test_the_tables():
    assert expressions.FUNCTIONS == ("min", "max", "floor", "ceil", "sqrt", "exp", "log")
    assert expressions.COMPARISONS == ("=", "<=", ">=", "<", ">")


# ---------------------------------------------------------------- what is accepted

def test_equation_tree():
    rel = parse_relation("tc_peak[p] = sm_count * tc_fma[p] * 2 * clock")
    assert rel == RelationTree("=", Ref("tc_peak", "p"), BinOp("*", BinOp("*", BinOp(
        "*", Ref("sm_count"), Ref("tc_fma", "p")), Num(Fraction(2))), Ref("clock")))


@pytest.mark.parametrize("text, op", [("a = b", "="), ("a == b", "="), ("a <= b", "<="), ("a >= b", ">="),
                                      ("a < b", "<"), ("a > b", ">"), ("a=b", "=")])
def test_comparisons(text, op):
    assert parse_relation(text) == RelationTree(op, Ref("a"), Ref("b"))


@pytest.mark.parametrize("text, tree", [
    ("-a", Neg(Ref("a"))),
    ("+a", Ref("a")),
    ("a - b / c", BinOp("-", Ref("a"), BinOp("/", Ref("b"), Ref("c")))),
    ("a ** 2", BinOp("**", Ref("a"), Num(Fraction(2)))),
    ("a ** (1/2)", BinOp("**", Ref("a"), BinOp("/", Num(Fraction(1)), Num(Fraction(2))))),
    ("min(a, b, c)", Call("min", (Ref("a"), Ref("b"), Ref("c")))),
    ("max(a, 1)", Call("max", (Ref("a"), Num(Fraction(1))))),
    ("floor(a / b)", Call("floor", (BinOp("/", Ref("a"), Ref("b")),))),
    ("ceil(a) + sqrt(b) + exp(c) + log(d)", BinOp("+", BinOp("+", BinOp(
        "+", Call("ceil", (Ref("a"),)), Call("sqrt", (Ref("b"),))), Call("exp", (Ref("c"),))), Call("log", (Ref("d"),)))),
    ("x[bf16]", Ref("x", "bf16")),
    ("a2_b", Ref("a2_b")),
])
def test_expression_forms(text, tree):
    assert parse_expression(text) == tree


@pytest.mark.parametrize("text, value", [
    ("0.1", Fraction(1, 10)), ("1.83", Fraction(183, 100)), ("1e9", Fraction(10**9)), ("2.5e-3", Fraction(1, 400)),
    ("1_000", Fraction(1000)), ("7", Fraction(7)), ("1e30", Fraction(10**30)), ("1e-99", Fraction(1, 10**99)),
])
def test_numbers_are_exact_as_written(text, value):
    assert parse_expression(text) == Num(value)


def test_references_in_order_and_map_refs():
    rel = parse_relation("tc_peak[p] = min(sm_count, tc_fma[p]) * -clock")
    assert [str(r) for r in rel.references()] == ["tc_peak[p]", "sm_count", "tc_fma[p]", "clock"]
    bound = rel.map_refs(lambda r: Ref(r.name, "bf16" if r.index == "p" else r.index))
    assert [str(r) for r in bound.references()] == ["tc_peak[bf16]", "sm_count", "tc_fma[bf16]", "clock"]


def test_ref_prints_as_written():
    assert (str(Ref("sm_count")), str(Ref("tc_peak", "bf16"))) == ("sm_count", "tc_peak[bf16]")


def test_nodes_are_frozen():
    with pytest.raises(AttributeError):
        Ref("a").name = "b"


def test_to_sympy_builds_exact_numbers_and_the_functions():
    symbols = {}
    symbol = lambda r: symbols.setdefault(str(r), sympy.Symbol(str(r).replace("[", "_").replace("]", ""), positive=True))
    e = to_sympy(parse_expression("min(a, b) + max(a, 2) + floor(a) + ceil(b) + sqrt(a) + exp(b) + log(a) "
                                  "- 0.1 * a[x] / b ** 2"), symbol)
    a, b, ax = symbols["a"], symbols["b"], symbols["a[x]"]
    assert sympy.simplify(e - (sympy.Min(a, b) + sympy.Max(a, 2) + sympy.floor(a) + sympy.ceiling(b) + sympy.sqrt(a)
                               + sympy.exp(b) + sympy.log(a) - sympy.Rational(1, 10) * ax / b ** 2)) == 0
    assert to_sympy(parse_expression("-a"), symbol) == -a
    assert to_sympy(parse_expression("0.1"), symbol) == sympy.Rational(1, 10)


@pytest.mark.parametrize("text", [
    "a / (b * c)", "-a * b / 3", "sqrt(a / b) - 2 ** (-c)", "a ** (1/3) + 1 / sqrt(b)", "min(a, b) + max(a, 2)",
    "floor(a) + ceil(b) * exp(c) - log(a)", "(a + b) ** 2 / (c - 7)", "exp(1) * a", "0.25 * a - 10 ** 6"])
def test_from_sympy_gives_back_a_tree_of_the_same_function(text):
    symbols = {name: sympy.Symbol(name, positive=True) for name in "abc"}
    expr = to_sympy(parse_expression(text), lambda r: symbols[str(r)])
    tree = from_sympy(expr, lambda s: Ref(s.name))
    assert tree is not None
    for back in (tree, parse_expression(to_text(tree))):
        assert sympy.simplify(to_sympy(back, lambda r: symbols[str(r)]) - expr) == 0


def test_from_sympy_writes_a_quotient_as_sympy_prints_it():
    x0, x1, x2 = sympy.symbols("x0 x1 x2", positive=True)
    assert to_text(from_sympy(x0 / (x1 * x2), lambda s: Ref(s.name))) == "(x0 / (x1 * x2))"
    assert to_text(from_sympy(-x0 / 2, lambda s: Ref(s.name))) == "(-(x0 / 2))"


def test_from_sympy_refuses_what_the_whitelist_cannot_write():
    x = sympy.Symbol("x", positive=True)
    for expr in (sympy.LambertW(x), sympy.Float(0.1) * x, sympy.I * x, sympy.sin(x), sympy.Integer(10) ** 40 * x):
        assert from_sympy(expr, lambda s: Ref(s.name)) is None, expr


# ---------------------------------------------------------------- every rejection

@pytest.mark.parametrize("text, message", [
    # code injection
    ("y = __import__('os').system('touch x')",
     "f.yaml:3:13: only the built-in functions may be called in \"y = __import__('os').system('touch x')\"; "
     "use min, max, floor, ceil, sqrt, exp, log"),
    ("y = __import__('os')",
     "f.yaml:3:13: function '__import__' is not allowed in \"y = __import__('os')\"; "
     "use min, max, floor, ceil, sqrt, exp, log"),
    ("y = a.b", "f.yaml:3:13: attribute access is not allowed in 'y = a.b'; refer to variables by name"),
    ("y = (lambda: 1)", "f.yaml:3:14: lambda is not allowed in 'y = (lambda: 1)'"),
    ("y = 'os'", "f.yaml:3:13: constant 'os' is not allowed in \"y = 'os'\"; only numbers may appear as constants"),
    ("y = True", "f.yaml:3:13: constant True is not allowed in 'y = True'; only numbers may appear as constants"),
    ("y = None", "f.yaml:3:13: constant None is not allowed in 'y = None'; only numbers may appear as constants"),
    ("y = 1j", "f.yaml:3:13: constant 1j is not allowed in 'y = 1j'; only numbers may appear as constants"),
    ("y = eval(x)", "f.yaml:3:13: function 'eval' is not allowed in 'y = eval(x)'; use min, max, floor, ceil, sqrt, exp, log"),
    ("y = __builtins__", "f.yaml:3:13: name '__builtins__' is not allowed in 'y = __builtins__'; "
                         "names are letters, digits and single underscores, starting with a letter"),
    ("y = a__b", "f.yaml:3:13: name 'a__b' is not allowed in 'y = a__b'; "
                 "names are letters, digits and single underscores, starting with a letter"),
    ("y = _a", "f.yaml:3:13: name '_a' is not allowed in 'y = _a'; "
               "names are letters, digits and single underscores, starting with a letter"),
    ("y = x[__class__]", "f.yaml:3:15: name '__class__' is not allowed in 'y = x[__class__]'; "
                         "names are letters, digits and single underscores, starting with a letter"),
    # huge numbers and exponents
    ("y = x ** 100000", "f.yaml:3:13: exponent 100000 is larger than 64 in 'y = x ** 100000'"),
    ("y = x ** -65", "f.yaml:3:13: exponent -65 is larger than 64 in 'y = x ** -65'"),
    ("y = 9 ** 9 ** 9 ** 9", "f.yaml:3:18: exponent 387420489 is larger than 64 in 'y = 9 ** 9 ** 9 ** 9'"),
    ("y = x ** (2 ** 7)", "f.yaml:3:13: exponent 128 is larger than 64 in 'y = x ** (2 ** 7)'"),
    ("y = (2 ** 64) ** 64",
     "f.yaml:3:13: the power 18446744073709551616**64 is outside 1e-30 .. 1e30 in 'y = (2 ** 64) ** 64'"),
    ("y = 10 ** -31", "f.yaml:3:13: the power 10**-31 is outside 1e-30 .. 1e30 in 'y = 10 ** -31'"),
    ("y = 1e31", "f.yaml:3:13: number 1e31 is larger than 1e30 in 'y = 1e31'"),
    ("y = 1e-9999999", "f.yaml:3:13: number 1e-9999999 is outside 1e-99 .. 1e99 in 'y = 1e-9999999'"),
    ("y = 1" + "0" * 40, f"f.yaml:3:13: number 1{'0' * 40} is larger than 1e30 in 'y = 1{'0' * 40}'"),
    # other syntax outside the whitelist
    ("y = a % b", "f.yaml:3:13: BinOp is not allowed in 'y = a % b'; "
                  "use numbers, variables, name[index], + - * / **, and min, max, floor, ceil, sqrt, exp, log"),
    ("y = (a if b else c)", "f.yaml:3:14: IfExp is not allowed in 'y = (a if b else c)'; "
                          "use numbers, variables, name[index], + - * / **, and min, max, floor, ceil, sqrt, exp, log"),
    ("y = (not a)", "f.yaml:3:14: UnaryOp is not allowed in 'y = (not a)'; "
                  "use numbers, variables, name[index], + - * / **, and min, max, floor, ceil, sqrt, exp, log"),
    ("y = [a]", "f.yaml:3:13: List is not allowed in 'y = [a]'; "
                "use numbers, variables, name[index], + - * / **, and min, max, floor, ceil, sqrt, exp, log"),
    ("y = (a < b) + 1", "f.yaml:3:14: a comparison inside an expression is not allowed in 'y = (a < b) + 1'"),
    ("y = a.b[c]", "f.yaml:3:13: only a variable may be subscripted in 'y = a.b[c]'; write name[index]"),
    ("y = a[1]", "f.yaml:3:13: an index must be a single name in 'y = a[1]'; write name[bf16] or name[precision]"),
    ("y = a[b:c]", "f.yaml:3:13: an index must be a single name in 'y = a[b:c]'; write name[bf16] or name[precision]"),
    ("y = a.b(c)", "f.yaml:3:13: only the built-in functions may be called in 'y = a.b(c)'; "
                   "use min, max, floor, ceil, sqrt, exp, log"),
    ("y = min(a, **b)", "f.yaml:3:13: min() takes plain arguments only in 'y = min(a, **b)'"),
    # a keyword's '=' reads as the KB's equality, so a keyword argument is a comparison
    ("y = min(a, b, key=c)", "f.yaml:3:23: a comparison inside an expression is not allowed in 'y = min(a, b, key=c)'"),
    ("y = max(*a)", "f.yaml:3:13: max() takes plain arguments only in 'y = max(*a)'"),
    ("y = min(a)", "f.yaml:3:13: min() takes two or more arguments in 'y = min(a)'"),
    ("y = sqrt(a, b)", "f.yaml:3:13: sqrt() takes one argument in 'y = sqrt(a, b)'"),
    ("y = log()", "f.yaml:3:13: log() takes one argument in 'y = log()'"),
    # not one relation
    ("y", "f.yaml:3:9: expected a relation 'LHS = RHS' in 'y'; "
          "write an equation with '=' or a constraint with <=, >=, <, >"),
    ("a = b = c", "f.yaml:3:9: chained comparison in 'a = b = c'; write one comparison per relation"),
    ("a != b", "f.yaml:3:9: comparison NotEq is not allowed in 'a != b'; use one of =, <=, >=, <, >"),
    ("a is b", "f.yaml:3:9: comparison Is is not allowed in 'a is b'; use one of =, <=, >=, <, >"),
    ("", "f.yaml:3:9: empty expression"),
    ("   ", "f.yaml:3:9: empty expression"),
    ("y = (a", "f.yaml:3:13: cannot parse 'y = (a': '(' was never closed"),
    ("y = = 3", "f.yaml:3:13: cannot parse 'y = = 3': invalid syntax"),
    ("y = a" + " + a" * 600, "f.yaml:3:9: expression longer than 2000 characters"),
])
def test_rejections(text, message):
    with pytest.raises(ExpressionError) as info:
        parse_relation(text, W)
    assert str(info.value) == message


def test_columns_count_the_original_text_not_the_doubled_equals():
    # 'foo' is the 3rd character of 'y=foo(x)': column 9 + 2
    with pytest.raises(ExpressionError) as info:
        parse_relation("y=foo(x)", W)
    assert info.value.where == Location("f.yaml", 3, 11)
    with pytest.raises(ExpressionError) as info:
        parse_relation("a <= b = foo(x)", W)  # <= is not doubled: the chained comparison is at the start
    assert info.value.where == Location("f.yaml", 3, 9)
    with pytest.raises(ExpressionError) as info:
        parse_relation("  y = foo(x)", W)  # leading blanks are part of the text as written
    assert info.value.where == Location("f.yaml", 3, 15)


def test_without_a_column_the_place_is_kept_as_given():
    where = Location("--where 'y = foo(x)'")
    with pytest.raises(ExpressionError) as info:
        parse_relation("y = foo(x)", where)
    assert info.value.where == where
    with pytest.raises(ExpressionError) as info:
        parse_relation("y = foo(x)")
    assert info.value.where is None
    assert str(info.value) == "function 'foo' is not allowed in 'y = foo(x)'; use min, max, floor, ceil, sqrt, exp, log"


def test_nesting_deeper_than_the_limit():
    text = "y = " + "(" * 30 + "a" + " + 1)" * 30 + " + 1" * 40
    with pytest.raises(ExpressionError) as info:
        parse_relation(text)
    assert str(info.value).startswith("expression nested deeper than 60 in ")


def test_parser_limits_become_expression_errors():
    with pytest.raises(ExpressionError) as info:
        parse_relation("y = " + "-" * 1990 + "a")
    assert str(info.value).startswith("expression nested deeper than 60 in ")
    with pytest.raises(ExpressionError) as info:
        parse_relation("y = " + "(" * 300 + "a" + ")" * 300)
    assert str(info.value).startswith("cannot parse ")


def test_parse_expression_rejects_a_comparison():
    with pytest.raises(ExpressionError) as info:
        parse_expression("a < b")
    assert str(info.value) == "a comparison inside an expression is not allowed in 'a < b'"


@pytest.mark.parametrize("payload", [
    "y = __import__('os').system('touch {sentinel}')",
    "y = __import__('os').environ.setdefault('HWKB_PWNED', '1')",
    "y = exec(\"open('{sentinel}', 'w')\")",
    "y = eval(\"__import__('os').system('touch {sentinel}')\")",
    "y = open('{sentinel}', 'w')",
    "y = (lambda: __import__('os').system('touch {sentinel}'))()",
    "y = min(a, __import__('os').system('touch {sentinel}'))",
    "y = x[__import__('os').system('touch {sentinel}')]",
    "y = [c for c in ().__class__.__base__.__subclasses__()]",
    "y = f'{{__import__(\"os\").system(\"touch {sentinel}\")}}'",
    "y = (a := __import__('os').system('touch {sentinel}'))",
])
def test_injection_never_runs(payload, tmp_path, no_env_payload):
    sentinel = tmp_path / "pwned"
    text = payload.format(sentinel=sentinel)
    with pytest.raises(ExpressionError):
        parse_relation(text, W)
    assert not sentinel.exists()
    assert no_env_payload not in os.environ


def test_a_huge_power_is_refused_before_sympy_sees_it():
    with pytest.raises(ExpressionError):  # 9 ** 387420489 would take SymPy minutes and gigabytes
        parse_relation("y = x * 9 ** 9 ** 9")


def test_no_engine_module_calls_a_code_evaluator():
    """The whitelist parser is the only way text becomes an expression: no sympify, parse_expr, eval or exec.

    One ``compile`` is allowed, in hwkb/definitions/compiled.py, of a Python syntax tree that module builds
    itself from a checked expression tree (never of text): its argument is a name bound only to
    ``ast.fix_missing_locations(ast.Expression(...))``.
    """
    import ast as python_ast
    from pathlib import Path

    import hwkb
    builtins = {"eval", "exec", "compile", "__import__"}
    sympy_parsers = {"sympify", "parse_expr", "S"}
    calls = []
    for path in sorted(Path(hwkb.__file__).parent.rglob("*.py")):
        tree = python_ast.parse(path.read_text())
        for node in python_ast.walk(tree):
            if not isinstance(node, python_ast.Call):
                continue
            func = node.func
            if (isinstance(func, python_ast.Name) and func.id in builtins | sympy_parsers) or \
                    (isinstance(func, python_ast.Attribute) and func.attr in sympy_parsers):
                if not _compiles_a_built_tree(path, tree, node):
                    calls.append(f"{path.name}:{node.lineno} {python_ast.unparse(func)}")
    assert calls == []


def _compiles_a_built_tree(path, tree, call) -> bool:
    """``compile(module, ...)`` in definitions/compiled.py, ``module`` assigned only an ``ast.Expression``."""
    import ast as python_ast
    if path.parent.name != "definitions" or path.name != "compiled.py" or python_ast.unparse(call.func) != "compile":
        return False
    if not call.args or not isinstance(call.args[0], python_ast.Name):
        return False
    name = call.args[0].id
    bound = [n.value for n in python_ast.walk(tree) if isinstance(n, python_ast.Assign)
             and any(isinstance(t, python_ast.Name) and t.id == name for t in n.targets)]
    return len(bound) == 1 and python_ast.unparse(bound[0]).startswith("ast.fix_missing_locations(ast.Expression(")


# ---------------------------------------------------------------- a --where side with a unit

FACTORS = {"token/s": Fraction(1), "TFLOPS": Fraction(10) ** 12}  # what the KB's registry would give


def read_quantity(number, unit, text):
    return Quantity(number * FACTORS[unit], unit, text)


@pytest.mark.parametrize("text, expected", [
    ("decode_tokens_per_s >= 100 token/s",
     RelationTree(">=", Ref("decode_tokens_per_s"), Quantity(Fraction(100), "token/s", "100 token/s"))),
    ("1.2e3 TFLOPS<tc_peak[bf16]",
     RelationTree("<", Quantity(Fraction(12) * 10 ** 14, "TFLOPS", "1.2e3 TFLOPS"), Ref("tc_peak", "bf16"))),
    ("2 * x = 0.5 token/s",
     RelationTree("=", BinOp("*", Num(Fraction(2)), Ref("x")), Quantity(Fraction(1, 2), "token/s", "0.5 token/s"))),
])
def test_a_where_side_may_be_a_number_with_a_unit(text, expected):
    assert parse_where_relation(text, None, read_quantity) == expected


@pytest.mark.parametrize("text", ["a >= 2 * b", "a = b", "a <= 100", "x >= 2*y"])
def test_a_where_without_a_unit_is_an_ordinary_relation(text):
    assert parse_where_relation(text, None, read_quantity) == parse_relation(text)


def test_a_quantity_is_a_number_to_the_laws_and_not_equal_to_one():
    quantity = Quantity(Fraction(100), "token/s", "100 token/s")
    assert isinstance(quantity, Num) and quantity != Num(Fraction(100))
    assert to_sympy(quantity, sympy.Symbol) == 100


@pytest.mark.parametrize("text, message", [
    ("100 token/s >= 1 TFLOPS", "both sides of '100 token/s >= 1 TFLOPS' are quantities; compare a variable, "
                                "or an expression of variables, with a quantity"),
    ("a >= 100 token/s >= b", "cannot parse 'a >= 100 token/s >= b': invalid syntax"),
    ("a != 100 token/s", "cannot parse 'a != 100 token/s': invalid syntax"),
])
def test_what_a_where_quantity_refuses(text, message):
    with pytest.raises(ExpressionError) as info:
        parse_where_relation(text, None, read_quantity)
    assert str(info.value) == message
