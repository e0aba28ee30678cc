"""Whole counts from rounded figures: a count a law gives fractional is read as the whole counts its figures allow.

989.4 TFLOPS at "1.9 GHz" and 2048 FMA per SM per cycle give 127.1 SMs; no GPU has 127.1 SMs. The clock was
printed to two figures, so it lies between 1.85 and 2.0 GHz (:func:`~hwkb.definitions.printed.printed_interval`),
and the SM count between 120.8 and 130.6: any of 121 to 130 fits. At "1.83 GHz" only 132 does (131.3 to 132.4).
Where no whole count lies within the figures' rounding, they contradict one another.

The bounds are found by evaluating each rule of the derivation at the corners of its inputs' bounds (exact for
the products, quotients and sums the laws are made of); a step that cannot be so evaluated (a joint block, a
simulation) is taken to first order, as :attr:`~hwkb.solving.values.Value.uncertainty` carries it.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import Mapping

from hwkb.definitions.model import Fact, VarKey, Variable, split_key
from hwkb.solving.relations import Relation
from hwkb.solving.solution import Interval, Solution, Status, WholeCounts
from hwkb.solving.system import System
from hwkb.solving.values import RuleOrigin, Value

__all__ = ["whole_counts", "figure_bounds", "counted"]

#: a rule step with more inputs than this is bounded to first order (its corners would be 2**n evaluations)
_MAX_CORNERS_INPUTS = 8


def _whole(x: float) -> bool:
    return abs(x - round(x)) <= 1e-9 * max(1.0, abs(x))


def figure_bounds(value: Value, facts: Mapping[VarKey, Fact], relations: Mapping[str, Relation],
                  variables: Mapping[str, Variable]) -> tuple[float, float]:
    """The least and greatest ``value`` (canonical) the rounding of the stated figures it rests on allows.

    A stated count, a default and a figure given a zero tolerance are exact; any other stated figure lies within
    its printed interval (:attr:`~hwkb.definitions.model.Fact.interval`)."""
    if not isinstance(value.origin, RuleOrigin):
        fact = facts.get(value.key)
        variable = variables.get(split_key(value.key)[0])
        if fact is None or not fact.value or (variable is not None and variable.integer) or not value.uncertainty:
            return value.canonical, value.canonical
        below, above = fact.interval
        scale = value.canonical / fact.value
        return (fact.value - below) * scale, (fact.value + above) * scale
    relation = relations.get(value.origin.rule)
    inputs = value.origin.inputs
    if (relation is None or relation.template is None or len(inputs) > _MAX_CORNERS_INPUTS
            or not relation.can_solve_for(value.key)):
        spread = value.uncertainty * abs(value.canonical)
        return value.canonical - spread, value.canonical + spread
    bounds = [figure_bounds(i, facts, relations, variables) for i in inputs]
    solve = relation.solver(value.key)
    results = []
    for corner in itertools.product(*(sorted({low, high}) for low, high in bounds)):
        try:
            result = solve({i.key: x for i, x in zip(inputs, corner)})
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            continue
        if isinstance(result, float) and math.isfinite(result):
            results.append(result)
    if not results:
        spread = value.uncertainty * abs(value.canonical)
        return value.canonical - spread, value.canonical + spread
    return min(results + [value.canonical]), max(results + [value.canonical])


def whole_counts(value: Value, facts: Mapping[VarKey, Fact], relations: Mapping[str, Relation],
                 variables: Mapping[str, Variable]) -> WholeCounts | None:
    """The whole counts a derived count's figures allow, or None where ``value`` is no derived count or is
    whole already."""
    variable = variables.get(split_key(value.key)[0])
    if variable is None or not variable.integer or value.stated or _whole(value.magnitude):
        return None
    low, high = figure_bounds(value, facts, relations, variables)
    scale = value.magnitude / value.canonical if value.canonical else 1.0
    lower, upper = low * scale, high * scale
    tolerance = 1e-9 * max(1.0, abs(value.magnitude))
    return WholeCounts(value.key, value.magnitude, lower, upper, math.ceil(lower - tolerance),
                       math.floor(upper + tolerance))


def counted(solution: Solution, facts: Mapping[VarKey, Fact], relations: Mapping[str, Relation],
            kb: System) -> Solution:
    """A derived count computed fractional, as the whole counts its figures' rounding allows: the one (its value),
    a run of them (the least its value, as a threshold's interval is), or none (inconsistent). ``relations``: the
    solver's, by name."""
    found = None if solution.status != Status.DERIVED else whole_counts(
        solution.value, facts, relations, kb.model.variables)
    if found is None:
        return solution
    if not found.any:
        return replace(solution, status=Status.INCONSISTENT, whole=found)
    least = replace(solution.value, magnitude=float(found.first),
                    canonical=kb.units.to_canonical(float(found.first), solution.unit))
    if found.single:
        return replace(solution, value=least, whole=found)
    return replace(solution, value=least, whole=found,
                   intervals=(Interval(float(found.first), float(found.last), True, True),),
                   extra={**solution.extra, "bound": "both", "upper": float(found.last)})
