"""Plausibility: a derived value outside the range real hardware spans for its variable.

A variable may declare its range (``range:`` in a rule file, :class:`~hwkb.definitions.model.Range`). A derived
value outside it, or one resting on such a value, is no answer to trust: one of the stated figures the
derivation rests on is likely misread (the P100's 16 SIMD lanes taken for its 64 FP32 units give a 2.79 GHz
clock). :func:`implausible_values` finds those values in a derivation, with the stated facts they rest on,
so ``solve``, ``explain`` and ``derive`` mark the answer ``implausible`` and name them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from hwkb.definitions.model import Range, VarName, Variable, split_key
from hwkb.solving.values import Value

__all__ = ["Implausible", "implausible_values", "outside_range"]


@dataclass(frozen=True)
class Implausible:
    """A value outside its variable's ``range``, and the stated facts (the derivation's leaves) it rests on: data,
    worded by the render stage (:func:`hwkb.render.solution_text.render_implausible`)."""
    value: Value
    range: Range

    @property
    def facts(self) -> list[Value]:
        return self.value.facts()

    def to_dict(self) -> dict:
        return {"variable": self.value.key, "value": self.value.magnitude, "unit": self.value.unit,
                "range": self.range.to_dict(self.value.unit),
                "facts": [{"fact": f.key, "value": f.magnitude, "unit": f.unit, "entity": f.origin.entity,
                           "source": f.origin.source} for f in self.facts]}


def outside_range(value: Value, variables: Mapping[VarName, Variable]) -> Range | None:
    """The range ``value`` lies outside, or None (no range declared, or within it)."""
    variable = variables.get(split_key(value.key)[0])
    if variable is None or variable.plausible(value.magnitude):
        return None
    return variable.range


def implausible_values(value: Value, variables: Mapping[VarName, Variable]) -> tuple[Implausible, ...]:
    """The derived values of ``value``'s derivation (``value`` itself first, then those it rests on, each once)
    that lie outside their variable's range. Stated values are the context's own, a user's what-if included:
    never flagged here (the audit reports a KB figure outside its range)."""
    found: dict[str, Implausible] = {}
    stack, seen = [value], set()
    while stack:
        v = stack.pop()
        if v.stated or v.key in seen:
            continue
        seen.add(v.key)
        outside = outside_range(v, variables)
        if outside is not None:
            found.setdefault(v.key, Implausible(v, outside))
        stack.extend(reversed(v.origin.inputs))
    return tuple(found.values())
