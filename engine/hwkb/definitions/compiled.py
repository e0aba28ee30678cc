"""Checked expression trees as Python functions, compiled by the project itself: no text is ever evaluated.

A tree of :mod:`hwkb.definitions.expressions` (every node already on the
whitelist) is translated node by node into Python's own ``ast`` and compiled
to a code object, which becomes a function with :class:`types.FunctionType`.
The function sees its parameters and the functions of the whitelist, nothing
else: no builtins, no attribute, no name the tree did not earn. So a solved
direction kept as text in a cache file runs only if the whitelist parser
accepts the text, whatever the file holds.

Arithmetic is that of Python floats, as ``sympy.lambdify`` with ``math`` does
it for the same text: a division by zero raises ZeroDivisionError, ``sqrt`` of
a negative ValueError, a power of a negative number can be complex. Every
constant is a float and ``floor``/``ceil`` give floats, so no integer can grow
without bound (a float overflows with an OverflowError instead).

>>> from hwkb.definitions.expressions import parse_expression
>>> f = positional_function([parse_expression("a / (b * c)")], ["a", "b", "c"])
>>> f(6.0, 1.0, 2.0)
3.0
>>> g = mapping_function([parse_expression("sqrt(x[bf16]) + y")], {"x[bf16]": "rate", "y": "y"})
>>> g({"rate": 4.0, "y": 1.0})
3.0
"""
from __future__ import annotations

import ast
import math
import types
from typing import Callable, Mapping, Sequence

from hwkb.definitions.expressions import BinOp, Call, Expr, Neg, Num, Ref
from hwkb.errors import ExpressionError

__all__ = ["positional_function", "mapping_function", "NAMESPACE"]


def _floor(x: float) -> float:
    return float(math.floor(x))


def _ceil(x: float) -> float:
    return float(math.ceil(x))


#: everything a compiled function can reach: the whitelist's functions (``float`` only the compiler calls)
NAMESPACE = {"__builtins__": {}, "min": min, "max": max, "floor": _floor, "ceil": _ceil, "sqrt": math.sqrt,
             "exp": math.exp, "log": math.log, "float": float}
_OPERATORS = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "**": ast.Pow}
_MAPPING = "values"  # the one parameter of a mapping function
_FLOAT_RESULTS = ("/", "sqrt", "exp", "log", "floor", "ceil")


def positional_function(bodies: Sequence[Expr], parameters: Sequence[str]) -> Callable:
    """``f(*parameters)`` giving the value of each body (a tuple when there are several).

    A reference must name one of ``parameters``, written without an index; anything else is an ExpressionError.
    """
    known = set(parameters)
    for name in parameters:
        if not name.isidentifier() or name in NAMESPACE or name == _MAPPING:
            raise ExpressionError(f"{name!r} cannot be a parameter of a compiled function")

    def load(ref: Ref) -> ast.expr:
        if ref.index is not None or ref.name not in known:
            raise ExpressionError(f"{ref} is not one of {', '.join(parameters) or 'no parameters'}")
        return ast.Name(ref.name, ast.Load())

    values = [_translate(body, load) for body in bodies]
    result = values[0] if len(values) == 1 else ast.Tuple(values, ast.Load())
    return _function([ast.arg(name) for name in parameters], result)


def mapping_function(bodies: Sequence[Expr], keys: Mapping[str, str]) -> Callable[[Mapping[str, float]], object]:
    """``f(values)`` giving each body as a float (a tuple when there are several), each reference ``r`` read
    as ``values[keys[str(r)]]``.

    One call and a dictionary look-up per reference: this runs on every route of every query.
    """
    def load(ref: Ref) -> ast.expr:
        key = keys.get(str(ref))
        if key is None:
            raise ExpressionError(f"{ref} is not one of {', '.join(keys) or 'no references'}")
        return ast.Subscript(ast.Name(_MAPPING, ast.Load()), ast.Constant(key), ast.Load())

    values = [_translate(body, load) for body in bodies]
    values = [v if _always_float(body) else ast.Call(ast.Name("float", ast.Load()), [v], [])
              for body, v in zip(bodies, values)]
    result = values[0] if len(values) == 1 else ast.Tuple(values, ast.Load())
    return _function([ast.arg(_MAPPING)], result)


def _always_float(body: Expr) -> bool:
    """Whether the body is a float whatever real numbers it is given: a quotient or a function of ``math``
    at the root, and no power anywhere (a power of a negative number can be complex)."""
    root = body.op if isinstance(body, BinOp) else body.func if isinstance(body, Call) else None
    return root in _FLOAT_RESULTS and not _has_power(body)


def _has_power(body: Expr) -> bool:
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, BinOp):
            if node.op == "**":
                return True
            stack += [node.left, node.right]
        elif isinstance(node, Neg):
            stack.append(node.operand)
        elif isinstance(node, Call):
            stack += node.args
    return False


def _translate(node: Expr, load: Callable[[Ref], ast.expr]) -> ast.expr:
    """The Python ``ast`` of a checked tree (whose depth the parser bounds), node for node."""
    if isinstance(node, Num):
        return ast.Constant(float(node.value))
    if isinstance(node, Ref):
        return load(node)
    if isinstance(node, Neg):
        return ast.UnaryOp(ast.USub(), _translate(node.operand, load))
    if isinstance(node, Call):
        if node.func not in NAMESPACE or node.func == "float":
            raise ExpressionError(f"function {node.func!r} is not allowed")
        return ast.Call(ast.Name(node.func, ast.Load()), [_translate(a, load) for a in node.args], [])
    if isinstance(node, BinOp) and node.op in _OPERATORS:
        return ast.BinOp(_translate(node.left, load), _OPERATORS[node.op](), _translate(node.right, load))
    raise ExpressionError(f"{type(node).__name__} cannot be compiled")


def _function(parameters: list[ast.arg], body: ast.expr) -> Callable:
    lam = ast.Lambda(ast.arguments([], parameters, None, [], [], None, []), body)
    module = ast.fix_missing_locations(ast.Expression(lam))
    code = compile(module, "<hwkb compiled>", "eval")
    inner = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    return types.FunctionType(inner, NAMESPACE, "compiled")
