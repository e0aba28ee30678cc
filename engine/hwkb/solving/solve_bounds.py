"""How hard an equation may be for SymPy to solve at compile time: a bound checked before ``sympy.solve`` runs.

``sympy.solve`` has no time limit of its own, and an equation such as
``a = ((b+1)**64)**64`` keeps it busy for minutes. A wall-clock timeout would
make which directions a KB compiles depend on the machine's load, and SymPy
cannot be stopped safely from another thread (a process per solve would cost
more than the solves). So the bound is on the equation itself, deterministic:
its size in operations and the degree it has in the unknown, both read off the
expression tree without expanding it. An equation past either bound is not
handed to SymPy: the direction is forward-only, like one with several roots,
and the reason is logged (``hwkb -v``).
"""
from __future__ import annotations

import logging

__all__ = ["MAX_SOLVE_OPS", "MAX_SOLVE_DEGREE", "solve_refusal"]

log = logging.getLogger("hwkb.solve")

#: operations in an equation SymPy is asked to solve (the KB's largest rule has a few dozen)
MAX_SOLVE_OPS = 400
#: the degree an equation may have in its unknown (the KB's rules are at most quadratic)
MAX_SOLVE_DEGREE = 16


def solve_refusal(residual, symbol) -> str | None:
    """Why ``residual = 0`` is not solved for ``symbol`` (a SymPy expression and symbol), or None to solve it."""
    ops = residual.count_ops()
    if ops > MAX_SOLVE_OPS:
        reason = f"it has {ops} operations (at most {MAX_SOLVE_OPS} are solved)"
    else:
        degree = degree_bound(residual, symbol)
        reason = (f"it has degree {degree} in {symbol} (at most {MAX_SOLVE_DEGREE} is solved)"
                  if degree > MAX_SOLVE_DEGREE else None)
    if reason is not None:
        log.info("not solving %s = 0 for %s: %s; that direction is forward-only", _short(residual), symbol, reason)
    return reason


def degree_bound(expr, symbol) -> int:
    """An upper bound of ``expr``'s degree in ``symbol``, without expanding: a power multiplies its base's degree
    by its exponent's numerator, a product adds, a sum or a function takes the largest. Iterative: an
    expression's depth does not reach Python's recursion limit."""
    degrees: dict[int, int] = {}
    stack = [(expr, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in degrees:
            continue
        if node == symbol or not node.has(symbol):
            degrees[id(node)] = int(node == symbol)
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((arg, False) for arg in node.args)
            continue
        inner = [degrees[id(arg)] for arg in node.args]
        if node.is_Pow:
            exponent = node.exp
            factor = abs(int(exponent.p)) if exponent.is_Rational else 1
            degrees[id(node)] = max(inner[0] * max(factor, 1), inner[1])
        elif node.is_Mul:
            degrees[id(node)] = sum(inner)
        else:
            degrees[id(node)] = max(inner)
    return degrees[id(expr)]


def _short(expr) -> str:
    text = str(expr)
    return text if len(text) <= 80 else text[:77] + "..."
