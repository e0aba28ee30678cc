"""A derived value above its ceiling: a clock a peak gives above the product's stated boost clock.

A variable may name a ceiling (``at_most:`` in a rule file, :class:`~hwkb.definitions.model.Ceiling`): where the
context states the ceiling's figure, a derived value above it is said so. Within the rounding of the figures it
comes from it is still the answer (the H100 SXM's "34" TFLOPS FP64 over 132 SMs of 128 flop per cycle gives
2.012 GHz against its 1.98 GHz boost; "34" allows 1.967 to 2.08 GHz); beyond it, one of them is misread and the
answer is implausible.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from hwkb.definitions.model import Fact, VarKey, split_key
from hwkb.solving.relations import Relation
from hwkb.solving.solution import AboveCeiling, Solution, Status
from hwkb.solving.system import System
from hwkb.solving.whole_counts import figure_bounds

__all__ = ["above_ceiling"]


def above_ceiling(solution: Solution, facts: Mapping[VarKey, Fact], relations: Mapping[str, Relation],
                  kb: System) -> Solution:
    """``solution`` with its value above its ceiling's stated figure said (:class:`AboveCeiling`), implausible when
    even the least value the figures' rounding allows lies above the most the ceiling's allows. ``relations``: the
    solver's, by name."""
    value = solution.value
    variable = kb.model.variables.get(split_key(solution.variable)[0])
    ceiling = None if variable is None else variable.at_most
    if solution.status != Status.DERIVED or value is None or ceiling is None:
        return solution
    fact = facts.get(ceiling.variable)
    if fact is None or not fact.applicable:
        return solution
    units = kb.units
    stated = units.to_canonical(fact.value, fact.unit)
    if value.canonical <= stated * (1 + 1e-12):
        return solution
    most = units.to_canonical(fact.value + fact.interval[1], fact.unit)
    low, high = figure_bounds(value, facts, relations, kb.model.variables)
    shown = value.magnitude / value.canonical
    found = AboveCeiling(value.key, value.magnitude, ceiling.variable, stated * shown, low * shown, high * shown,
                         low > most, ceiling.source)
    return replace(solution, status=Status.IMPLAUSIBLE if found.beyond else solution.status, above=found)
