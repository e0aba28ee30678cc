"""The whitelist expression language of KB rules and ``--where`` flags.

Text is parsed with Python's ``ast`` in ``eval`` mode (which only parses) and
every node is checked against a short list: numbers, names, ``name[index]``,
``+ - * / **``, unary minus, one comparison (``=`` is written for equality) and
calls of the functions in :data:`FUNCTIONS`. Anything else is an
:class:`~hwkb.errors.ExpressionError`. SymPy objects are built from the
checked tree by :mod:`hwkb.definitions.symbolic`, numeric functions by
:mod:`hwkb.definitions.compiled`; no KB text ever reaches ``sympify``,
``parse_expr`` or ``eval``.

Example:

>>> rel = parse_relation("tc_peak[p] = sm_count * tc_fma_per_sm_cycle[p] * clock_tc")
>>> rel.op, sorted(str(r) for r in rel.references())
('=', ['clock_tc', 'sm_count', 'tc_fma_per_sm_cycle[p]', 'tc_peak[p]'])
"""
from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator, Union

from hwkb.errors import ExpressionError, Location

__all__ = [
    "Num", "Quantity", "Ref", "BinOp", "Neg", "Call", "RelationTree", "Expr", "FUNCTIONS",
    "COMPARISONS", "parse_expression", "parse_relation", "parse_where_relation", "references", "ARITHMETIC",
]

FUNCTIONS = ("min", "max", "floor", "ceil", "sqrt", "exp", "log")
COMPARISONS = ("=", "<=", ">=", "<", ">")
MAX_LENGTH = 2000
MAX_DEPTH = 60
MAX_NUMBER = Fraction(10) ** 30
MAX_EXPONENT = 64

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_DECIMAL_EXPONENT = re.compile(r"[eE]([+-]?[0-9_]+)$")


@dataclass(frozen=True)
class Num:
    value: Fraction


@dataclass(frozen=True)
class Quantity(Num):
    """A number with a unit, one side of a ``--where`` (``100 token/s``): ``value`` is in the canonical unit of
    its dimension, so the laws read it as any number; ``unit`` gives its dimension, ``text`` is as written."""
    unit: str
    text: str


@dataclass(frozen=True)
class Ref:
    """A variable, optionally subscripted: ``sm_count`` or ``tc_peak[bf16]``."""
    name: str
    index: str | None = None

    def __str__(self) -> str:
        return self.name if self.index is None else f"{self.name}[{self.index}]"


@dataclass(frozen=True)
class BinOp:
    op: str  # one of + - * / **
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Neg:
    operand: "Expr"


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple["Expr", ...]


Expr = Union[Num, Ref, BinOp, Neg, Call]


@dataclass(frozen=True)
class RelationTree:
    """``lhs op rhs``; ``op`` is one of :data:`COMPARISONS`."""
    op: str
    lhs: Expr
    rhs: Expr

    def references(self) -> Iterator[Ref]:
        yield from _refs(self.lhs)
        yield from _refs(self.rhs)

    def map_refs(self, fn: Callable[[Ref], Ref]) -> "RelationTree":
        return RelationTree(self.op, _map(self.lhs, fn), _map(self.rhs, fn))


def references(e: Expr) -> Iterator[Ref]:
    """Every reference of an expression, in order, repeats included."""
    return _refs(e)


def _refs(e: Expr) -> Iterator[Ref]:
    if isinstance(e, Ref):
        yield e
    elif isinstance(e, BinOp):
        yield from _refs(e.left)
        yield from _refs(e.right)
    elif isinstance(e, Neg):
        yield from _refs(e.operand)
    elif isinstance(e, Call):
        for a in e.args:
            yield from _refs(a)


def _map(e: Expr, fn: Callable[[Ref], Ref]) -> Expr:
    if isinstance(e, Ref):
        return fn(e)
    if isinstance(e, BinOp):
        return BinOp(e.op, _map(e.left, fn), _map(e.right, fn))
    if isinstance(e, Neg):
        return Neg(_map(e.operand, fn))
    if isinstance(e, Call):
        return Call(e.func, tuple(_map(a, fn) for a in e.args))
    return e


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_CMPOPS = {ast.Eq: "=", ast.LtE: "<=", ast.GtE: ">=", ast.Lt: "<", ast.Gt: ">"}
# A lone '=' (not part of <=, >=, ==, !=) is the KB's way of writing equality.
_LONE_EQ = re.compile(r"(?<![<>=!])=(?!=)")


def parse_relation(text: str, where: Location | None = None) -> RelationTree:
    """Parse ``LHS OP RHS``; raise ExpressionError naming the place and the reason."""
    tree = _parse(text, where)
    if not isinstance(tree, ast.Compare):
        raise ExpressionError(f"expected a relation 'LHS = RHS' in {text!r}", where=where,
                              hint="write an equation with '=' or a constraint with <=, >=, <, >")
    if len(tree.ops) != 1:
        raise ExpressionError(f"chained comparison in {text!r}", where=_at(where, tree, text),
                              hint="write one comparison per relation")
    op = _CMPOPS.get(type(tree.ops[0]))
    if op is None:
        raise ExpressionError(f"comparison {type(tree.ops[0]).__name__} is not allowed in {text!r}",
                              where=_at(where, tree, text), hint=f"use one of {', '.join(COMPARISONS)}")
    checker = _Checker(text, where)
    return RelationTree(op, checker.expr(tree.left, 0), checker.expr(tree.comparators[0], 0))


#: one side of a --where that is a number and a unit: '100 token/s', '1.2e3 TFLOPS' (a unit starts with a letter)
_QUANTITY = re.compile(r"\s*(?P<number>(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?)"
                       r"\s+(?P<unit>[A-Za-z%].*?)\s*\Z", re.DOTALL)
_COMPARISON = re.compile(r"<=|>=|==|!=|=|<|>")
_WHERE_OPS = {"<=": "<=", ">=": ">=", "==": "=", "=": "=", "<": "<", ">": ">"}


def parse_where_relation(text: str, where: Location | None,
                         quantity: Callable[[Fraction, str, str], Quantity]) -> RelationTree:
    """A ``--where`` relation, one of whose sides may be a number with a unit (``decode_tokens_per_s >= 100
    token/s``): the number is read by this parser, the unit by ``quantity(number, unit, side)``, which gives the
    :class:`Quantity`; anything else is :func:`parse_relation`'s."""
    parts = _COMPARISON.split(text)
    ops = _COMPARISON.findall(text)
    matches = [_QUANTITY.match(side) for side in parts] if len(ops) == 1 and ops[0] in _WHERE_OPS else []
    if not any(matches):
        return parse_relation(text, where)
    if all(matches):
        raise ExpressionError(f"both sides of {text.strip()!r} are quantities", where=where,
                              hint="compare a variable, or an expression of variables, with a quantity")
    found = next(m for m in matches if m)
    number = _constant(parse_expression(found.group("number"), where))
    constant = quantity(number, found.group("unit"), parts[matches.index(found)].strip())
    other = parse_expression(parts[matches.index(None)], where)
    return RelationTree(_WHERE_OPS[ops[0]], *((constant, other) if matches[0] else (other, constant)))


def parse_expression(text: str, where: Location | None = None) -> Expr:
    """Parse one expression (no comparison)."""
    tree = _parse(text, where)
    return _Checker(text, where).expr(tree, 0)


def _parse(text: str, where: Location | None) -> ast.expr:
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError("empty expression", where=where)
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters", where=where)
    foreign = next((i for i, c in enumerate(text) if not c.isascii() or (not c.isprintable() and c not in " \t")), None)
    if foreign is not None:  # Python reads names in NFKC form: a fullwidth name would be the ASCII one
        raise ExpressionError(f"character {text[foreign]!r} is not allowed in {text.strip()!r}",
                              where=where if where is None or where.col is None else
                              Location(where.file, where.line, where.col + foreign),
                              hint="an expression is ASCII: names, numbers, + - * / ** ( ) [ ] and the functions")
    source = _LONE_EQ.sub("==", text.strip())
    try:
        return ast.parse(source, mode="eval").body
    except SyntaxError as exc:
        if where is not None and where.col is not None and exc.offset and (exc.lineno or 1) == 1:
            where = Location(where.file, where.line, where.col + _column(text, exc.offset - 1))
        raise ExpressionError(f"cannot parse {text.strip()!r}: {exc.msg}", where=where) from exc
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"cannot parse {text.strip()!r}", where=where) from exc


def _at(where: Location | None, node: ast.AST, text: str) -> Location | None:
    """The place of ``node`` in the file: ``where`` is the start of ``text`` as written."""
    if where is None or where.col is None:
        return where
    return Location(where.file, where.line, where.col + _column(text, getattr(node, "col_offset", 0)))


def _column(text: str, offset: int) -> int:
    """An offset into the parsed source (stripped, each lone '=' doubled) as an offset into ``text``."""
    stripped = text.strip()
    doubled = sum(1 for i, m in enumerate(_LONE_EQ.finditer(stripped)) if m.start() + i < offset)
    return len(text) - len(text.lstrip()) + offset - doubled


class _Checker:
    def __init__(self, text: str, where: Location | None):
        self.raw, self.text, self.where = text, text.strip(), where

    def fail(self, node: ast.AST, message: str, hint: str | None = None):
        raise ExpressionError(f"{message} in {self.text!r}", where=_at(self.where, node, self.raw), hint=hint)

    def name(self, node: ast.AST, ident: str) -> str:
        if "__" in ident or not _NAME.match(ident):
            self.fail(node, f"name {ident!r} is not allowed",
                      "names are letters, digits and single underscores, starting with a letter")
        return ident

    def expr(self, node: ast.AST, depth: int) -> Expr:
        if depth > MAX_DEPTH:
            self.fail(node, f"expression nested deeper than {MAX_DEPTH}")
        d = depth + 1
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            return Ref(self.name(node, node.id))
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            op = _BINOPS[type(node.op)]
            left, right = self.expr(node.left, d), self.expr(node.right, d)
            if op == "**":
                self.power(node, left, right)
            return BinOp(op, left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.expr(node.operand, d)
            return Neg(operand) if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.Call):
            return self.call(node, d)
        if isinstance(node, ast.Attribute):
            self.fail(node, "attribute access is not allowed", "refer to variables by name")
        if isinstance(node, ast.Lambda):
            self.fail(node, "lambda is not allowed")
        if isinstance(node, ast.Compare):
            self.fail(node, "a comparison inside an expression is not allowed")
        self.fail(node, f"{type(node).__name__} is not allowed",
                  "use numbers, variables, name[index], + - * / **, and " + ", ".join(FUNCTIONS))

    def number(self, node: ast.Constant) -> Num:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(node, f"constant {value!r} is not allowed", "only numbers may appear as constants")
        segment = ast.get_source_segment(_LONE_EQ.sub("==", self.text), node) or repr(value)
        power = _DECIMAL_EXPONENT.search(segment)
        if power and len(power.group(1).lstrip("+-0")) > 2:  # Fraction('1e-9999999') takes minutes
            self.fail(node, f"number {segment} is outside 1e-99 .. 1e99")
        try:
            exact = Fraction(segment.replace("_", ""))
        except ValueError:
            exact = Fraction(value)
        if abs(exact) > MAX_NUMBER:
            self.fail(node, f"number {segment} is larger than 1e30")
        return Num(exact)

    def power(self, node: ast.AST, base: Expr, exponent: Expr) -> None:
        """A constant exponent is at most MAX_EXPONENT, a constant power at most 1e30 (SymPy folds them)."""
        e = _constant(exponent)
        if e is not None and abs(e) > MAX_EXPONENT:
            self.fail(node, f"exponent {_show(e)} is larger than {MAX_EXPONENT}")
        b = _constant(base)
        if e is not None and b and float(abs(e)) * abs(math.log10(abs(b))) > 30:
            self.fail(node, f"the power {_show(b)}**{_show(e)} is outside 1e-30 .. 1e30")

    def subscript(self, node: ast.Subscript) -> Ref:
        if not isinstance(node.value, ast.Name):
            self.fail(node, "only a variable may be subscripted", "write name[index]")
        index = node.slice
        if not isinstance(index, ast.Name):
            self.fail(node, "an index must be a single name", "write name[bf16] or name[precision]")
        return Ref(self.name(node.value, node.value.id), self.name(index, index.id))

    def call(self, node: ast.Call, depth: int) -> Call:
        if not isinstance(node.func, ast.Name):
            self.fail(node, "only the built-in functions may be called", "use " + ", ".join(FUNCTIONS))
        func = node.func.id
        if func not in FUNCTIONS:
            self.fail(node, f"function {func!r} is not allowed", "use " + ", ".join(FUNCTIONS))
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, f"{func}() takes plain arguments only")
        arity = (2, None) if func in ("min", "max") else (1, 1)
        if len(node.args) < arity[0] or (arity[1] is not None and len(node.args) > arity[1]):
            wanted = "two or more arguments" if arity[1] is None else "one argument"
            self.fail(node, f"{func}() takes {wanted}")
        return Call(func, tuple(self.expr(a, depth) for a in node.args))


def _constant(e: Expr) -> Fraction | None:
    """The value of a tree without references or calls, if it is a rational number; else None.

    Powers inside were checked on the way up, so every one is at most 1e30.
    """
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Neg):
        v = _constant(e.operand)
        return None if v is None else -v
    if not isinstance(e, BinOp):
        return None
    a, b = _constant(e.left), _constant(e.right)
    if a is None or b is None:
        return None
    if e.op == "/" and b == 0:
        return None
    if e.op == "**":
        if b.denominator != 1 or (a == 0 and b < 0):
            return None
        b = int(b)
    return ARITHMETIC[e.op](a, b)


ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "**": operator.pow}


def _show(x: Fraction) -> str:
    return str(x) if x.denominator == 1 else f"{float(x):g}"
