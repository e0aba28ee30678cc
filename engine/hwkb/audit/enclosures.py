"""Outward-rounded interval arithmetic over numpy arrays, and expression trees compiled to it.

The audit asks whether numbers known only to their printed digits can satisfy a
relation: ``67 TFLOPS`` is any value in [66.5, 67.5]. Pushing such boxes
through a relation's explicit solution gives an enclosure of every value the
relation can take; two enclosures that do not meet prove an inconsistency.
Each operation rounds its bounds outward (one ulp for the correctly rounded
``+ - * /``, two for ``exp``, ``log`` and non-integer powers, whose libm results
may be off by one), so an enclosure never loses a value to floating point.

An :class:`Enclosure` holds arrays of lower and upper bounds, so one compiled
expression evaluates a whole column of datasheets at once (mpmath's ``iv`` does
the same one number at a time, a thousand times slower). The expressions are the
KB's own trees (:mod:`hwkb.definitions.expressions`) as the audit's analysis
keeps them (:func:`hwkb.definitions.symbolic.exact_tree`), so a warm audit compiles
them without SymPy.

>>> from hwkb.definitions.expressions import parse_expression
>>> f = compile_tree(parse_expression("x * y / 2"), ("x", "y"))
>>> r = f([Enclosure.around(3.0, 0.5), Enclosure.around(4.0, 0.0)])
>>> float(r.lo[0]) < 5.0 < 7.0 < float(r.hi[0])
True
>>> bool(Enclosure.around(1.0, 0.1).meets(Enclosure.around(1.25, 0.1))[0])
False
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from hwkb.definitions.expressions import BinOp, Call, Expr, Neg, Num, Ref
from hwkb.definitions.symbolic import exact_tree

__all__ = ["Enclosure", "compile_tree", "compile_interval", "outward"]

_NEG, _POS = -np.inf, np.inf


def outward(lo: np.ndarray, hi: np.ndarray, ulps: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Move bounds ``ulps`` floating-point steps outward.

    >>> lo, hi = outward(np.array([1.0]), np.array([1.0]))
    >>> bool(lo[0] < 1.0 < hi[0])
    True
    """
    for _ in range(ulps):
        lo, hi = np.nextafter(lo, _NEG), np.nextafter(hi, _POS)
    return lo, hi


class Enclosure:
    """Closed intervals [lo, hi], elementwise over arrays of one shape."""

    __slots__ = ("lo", "hi", "_positive", "_ordered")

    def __init__(self, lo, hi, ordered: bool = False):
        self.lo = np.asarray(lo, dtype=float)
        self.hi = np.asarray(hi, dtype=float)
        self._positive: bool | None = None
        self._ordered = ordered  # lo <= hi everywhere is known (no NaN)

    def positive(self) -> bool:
        """Whether every interval lies in (0, inf]: then a product or reciprocal has one case, not four.

        The data's figures nearly always are, and at a few dozen rows a call the sign cases' extra array
        operations, not the arithmetic, are the cost. Worked out once per enclosure, on demand.
        """
        if self._positive is None:
            lo = self.lo
            self._positive = bool(lo.size and lo.min() > 0.0 and (self._ordered or (self.hi >= lo).all()))
        return self._positive

    @classmethod
    def around(cls, mid, radius) -> "Enclosure":
        """``mid ± radius``, rounded outward (``radius`` 0 gives a one-ulp box)."""
        mid = np.atleast_1d(np.asarray(mid, dtype=float))
        radius = np.abs(np.asarray(radius, dtype=float))
        return cls(*outward(mid - radius, mid + radius))

    @classmethod
    def constant(cls, value: Fraction | float | int, shape=()) -> "Enclosure":
        """A number written in a rule: exact if it is a float, else the tightest enclosing floats."""
        if isinstance(value, Fraction) and value.denominator == 1:
            value = int(value)
        if isinstance(value, int) and abs(value) < 2 ** 53:
            lo = hi = float(value)
        elif isinstance(value, Fraction):
            q = value
            lo = hi = float(q)
            if Fraction(lo) != q:
                lo, hi = float(np.nextafter(lo, _NEG)), float(np.nextafter(hi, _POS))
        else:
            lo = hi = float(value)
        return cls(np.full(shape, lo), np.full(shape, hi))

    # -- queries
    @property
    def mid(self) -> np.ndarray:
        return 0.5 * (self.lo + self.hi)

    def meets(self, other: "Enclosure", slack=0.0) -> np.ndarray:
        """Where the two intervals share a point (after widening each by ``slack`` times its magnitude)."""
        widen_a = np.abs(self.mid) * slack
        widen_b = np.abs(other.mid) * slack
        return (self.lo - widen_a <= other.hi + widen_b) & (other.lo - widen_b <= self.hi + widen_a)

    def contains_zero(self) -> np.ndarray:
        return (self.lo <= 0.0) & (self.hi >= 0.0)

    # -- arithmetic
    def __add__(self, other: "Enclosure") -> "Enclosure":
        return Enclosure(*outward(self.lo + other.lo, self.hi + other.hi))

    def __sub__(self, other: "Enclosure") -> "Enclosure":
        return Enclosure(*outward(self.lo - other.hi, self.hi - other.lo))

    def __neg__(self) -> "Enclosure":
        return Enclosure(-self.hi, -self.lo)

    def __mul__(self, other: "Enclosure") -> "Enclosure":
        if self.positive() and other.positive():  # rounding is monotone: the least and the greatest of the four
            return Enclosure(*outward(self.lo * other.lo, self.hi * other.hi), ordered=True)
        with np.errstate(invalid="ignore"):
            p = np.stack([self.lo * other.lo, self.lo * other.hi, self.hi * other.lo, self.hi * other.hi])
            p = np.where(np.isnan(p), 0.0, p)  # 0 * inf: the zero bound wins
        return Enclosure(*outward(p.min(axis=0), p.max(axis=0)))

    def reciprocal(self) -> "Enclosure":
        if self.positive():
            return Enclosure(*outward(1.0 / self.hi, 1.0 / self.lo), ordered=True)
        with np.errstate(divide="ignore"):
            lo, hi = 1.0 / self.hi, 1.0 / self.lo
        lo, hi = outward(lo, hi)
        spans = self.contains_zero()
        return Enclosure(np.where(spans, _NEG, lo), np.where(spans, _POS, hi))

    def __truediv__(self, other: "Enclosure") -> "Enclosure":
        return self * other.reciprocal()

    def power(self, exponent: Fraction | float | int) -> "Enclosure":
        """``self ** exponent`` for a number exponent (integer, rational or float)."""
        if isinstance(exponent, Fraction) and exponent.denominator == 1:
            exponent = int(exponent)
        if exponent == -1:
            return self.reciprocal()
        if isinstance(exponent, int):
            n = exponent
            if n < 0:
                return self.power(-n).reciprocal()
            if n == 0:
                return Enclosure(np.ones_like(self.lo), np.ones_like(self.hi))
            a, b = self.lo ** n, self.hi ** n
            if n % 2:  # odd: monotone
                return Enclosure(*outward(a, b))
            lo = np.where(self.contains_zero(), 0.0, np.minimum(a, b))
            hi = np.maximum(a, b)
            return Enclosure(*outward(lo, hi))
        e = float(exponent)
        with np.errstate(invalid="ignore"):
            lo = np.where(self.lo < 0, np.nan, self.lo)
            a, b = np.power(lo, e), np.power(self.hi, e)
        if e < 0:
            a, b = b, a
        return Enclosure(*outward(a, b, 2))

    def apply_monotone(self, fn: Callable, increasing: bool = True, ulps: int = 2) -> "Enclosure":
        with np.errstate(invalid="ignore", divide="ignore"):
            a, b = fn(self.lo), fn(self.hi)
        if not increasing:
            a, b = b, a
        return Enclosure(*outward(a, b, ulps))

    def minimum(self, other: "Enclosure") -> "Enclosure":
        return Enclosure(np.minimum(self.lo, other.lo), np.minimum(self.hi, other.hi))

    def maximum(self, other: "Enclosure") -> "Enclosure":
        return Enclosure(np.maximum(self.lo, other.lo), np.maximum(self.hi, other.hi))

    def __repr__(self) -> str:
        return f"Enclosure({self.lo!r}, {self.hi!r})"


# ---------------------------------------------------------------- compiling expression trees

Compiled = Callable[[Sequence[Enclosure]], Enclosure]

_BINARY = {"+": Enclosure.__add__, "-": Enclosure.__sub__, "*": Enclosure.__mul__, "/": Enclosure.__truediv__}
_MONOTONE = {"exp": (np.exp, 2), "log": (np.log, 2), "floor": (np.floor, 0), "ceil": (np.ceil, 0)}


def compile_tree(tree: Expr, names: Sequence[str]) -> Compiled:
    """A function of intervals (one per name, in order) enclosing the range of ``tree``.

    Supported: numbers, references, ``+ - * / **``, unary minus, ``exp, log, sqrt, floor, ceil, min, max``:
    the KB's whole expression whitelist. Each node is one interval operation, in the tree's order, so a tree
    :func:`~hwkb.definitions.symbolic.exact_tree` made of a SymPy expression encloses exactly as that
    expression did.
    """
    position = {name: i for i, name in enumerate(names)}
    return _compile(tree, position)


def compile_interval(expr, symbols: Sequence) -> Compiled:
    """:func:`compile_tree` for a SymPy expression in ``symbols``."""
    return compile_tree(exact_tree(expr, lambda s: Ref(s.name)), [s.name for s in symbols])


def _number(e: Expr) -> Fraction | float | int | None:
    """The value of a number node (``-2`` is ``Neg(Num(2))`` or a negative ``Num``), else None."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Neg) and isinstance(e.operand, Num):
        return -e.operand.value
    return None


def _compile(e: Expr, position: dict) -> Compiled:
    if isinstance(e, Ref):
        i = position[str(e)]
        return lambda args: args[i]
    value = _number(e)
    if value is not None:
        return lambda args: Enclosure.constant(value, np.shape(args[0].lo) if args else ())
    if isinstance(e, Neg):
        operand = _compile(e.operand, position)
        return lambda args: -operand(args)
    if isinstance(e, BinOp):
        left = _compile(e.left, position)
        if e.op == "**":
            exponent = _number(e.right)
            if exponent is not None:
                return lambda args: left(args).power(exponent)
            right = _compile(e.right, position)
            return lambda args: (right(args) * left(args).apply_monotone(np.log)).apply_monotone(np.exp)
        right, operation = _compile(e.right, position), _BINARY[e.op]
        return lambda args: operation(left(args), right(args))
    parts = [_compile(a, position) for a in e.args]
    if e.func in _MONOTONE:
        fn, ulps = _MONOTONE[e.func]
        return lambda args: parts[0](args).apply_monotone(fn, ulps=ulps)
    if e.func == "sqrt":
        return lambda args: parts[0](args).power(Fraction(1, 2))
    method = {"min": Enclosure.minimum, "max": Enclosure.maximum}[e.func]

    def extreme(args):
        out = parts[0](args)
        for p in parts[1:]:
            out = method(out, p(args))
        return out
    return extreme
