"""Dimension checks: both sides of a relation, and every sum, ``min`` and ``max`` inside it, in one dimension.

Dimensions come from the variables' units (and a ``--where`` quantity's own) (:class:`~hwkb.definitions.units.Units`); a pure number fits any
dimensionless place, an exponent is a plain number, ``exp`` and ``log`` take dimensionless arguments.
"""
from __future__ import annotations

from fractions import Fraction

from hwkb.definitions.expressions import Call, Expr, Neg, Num, Quantity, Ref, RelationTree
from hwkb.definitions.model import Model
from hwkb.definitions.units import Dimensions, Units, format_dimensions
from hwkb.errors import DimensionError

__all__ = ["check_dimensions"]


def check_dimensions(relation: RelationTree, model: Model, units: Units, where=None) -> None:
    """Raise DimensionError (at ``where``) unless both sides (and every sum, min, max inside) agree."""
    try:
        left = _dims(relation.lhs, model, units) or frozenset()
        right = _dims(relation.rhs, model, units) or frozenset()
        if left != right:
            raise DimensionError(format_dimensions(left), format_dimensions(right),
                                 hint="check each variable's unit and the factors of the equation")
    except DimensionError as exc:
        raise exc.at(where) from None


def _dims(e: Expr, model: Model, units: Units) -> Dimensions | None:
    """Dimensions of an expression; None for a pure number (which fits any dimensionless place)."""
    if isinstance(e, Quantity):
        return units.dimensions(e.unit)
    if isinstance(e, Num):
        return None
    if isinstance(e, Ref):
        return units.dimensions(model.variables[e.name].unit)
    if isinstance(e, Neg):
        return _dims(e.operand, model, units)
    if isinstance(e, Call):
        args = [_dims(a, model, units) for a in e.args]
        if e.func in ("exp", "log"):
            if any(a for a in args):
                raise DimensionError(format_dimensions(args[0]), operation=f"{e.func}()",
                                     hint=f"{e.func}() takes a dimensionless argument")
            return frozenset()
        if e.func == "sqrt":
            return _power(args[0], Fraction(1, 2))
        if e.func in ("min", "max"):
            return _same(args, e.func + "()")
        return args[0]
    left, right = _dims(e.left, model, units), _dims(e.right, model, units)
    if e.op in "+-":
        return _same([left, right], f"'{e.op}'")
    if e.op == "*":
        return _combine(left, right, 1)
    if e.op == "/":
        return _combine(left, right, -1)
    if right:
        raise DimensionError(format_dimensions(right), operation="**", hint="exponents are plain numbers")
    if not left:
        return left
    if not isinstance(e.right, Num):
        raise DimensionError(format_dimensions(left), operation="power",
                             hint="only a number may be the exponent of a quantity with a unit")
    return _power(left, e.right.value)


def _same(args: list, what: str) -> Dimensions | None:
    known = [a if a is not None else frozenset() for a in args]
    if any(a != known[0] for a in known):
        raise DimensionError(format_dimensions(known[0]), " and ".join(format_dimensions(a) for a in known[1:]),
                             operation=what,
                             hint="only quantities of the same dimension can be added or compared")
    return None if all(a is None for a in args) else known[0]


def _combine(a: Dimensions | None, b: Dimensions | None, sign: int) -> Dimensions | None:
    if a is None and b is None:
        return None
    out: dict = dict(a or ())
    for d, e in (b or ()):
        out[d] = out.get(d, 0) + sign * e
    return frozenset((d, e) for d, e in out.items() if e != 0)


def _power(a: Dimensions | None, exponent: Fraction) -> Dimensions | None:
    if a is None:
        return None
    return frozenset((d, e * exponent) for d, e in a if e * exponent != 0)
