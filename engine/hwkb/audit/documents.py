"""Where two documents print different figures for one quantity: a check of each pair an entity keeps.

A fact may carry other documents' figures (``also:``, :mod:`hwkb.formats.facts`):
a preliminary and a final whitepaper, a datasheet and a product page. The chosen
figure is the one the solver uses; the audit weighs each other figure against it,
both known to their printed digits: ``consistent`` when they are one number,
``within_rounding`` when their intervals meet, each rounded or cut short (the check's
``reading`` says which reading it needed), ``inconsistent`` when they
do not. The check's ``doc`` says two documents state the figure; the render stage adds the one the KB uses.
Only the figures an entity states itself are weighed, so a disagreement
is reported once, by the entity that keeps both documents, not by every product
that inherits it.
"""
from __future__ import annotations

from hwkb.audit.findings import Check, CheckKind, Figure, Verdict
from hwkb.audit.readings import reading
from hwkb.audit.rows import Row
from hwkb.audit.verdicts import CONSISTENT_RELATIVE
from hwkb.definitions.model import Fact, split_key
from hwkb.definitions.printed import read_to_least_figures
from hwkb.solving.system import System

__all__ = ["document_checks", "DOCUMENTS_RULE"]

#: the ``rule`` of a documents check (its ``target`` names the quantity)
DOCUMENTS_RULE = "documents"


def document_checks(row: Row, system: System) -> list[Check]:
    """A check per other document's figure of each fact ``row``'s entity states itself."""
    out = []
    for key, fact in row.documented.items():
        chosen = _Printed(system, fact)
        for other in fact.also:
            out.append(_check(key, chosen, _Printed(system, other)))
    return out


class _Printed:
    """A document's figure in the variable's display unit, rounded or cut short (:attr:`Fact.interval`), and as it
    would be were it only rounded."""

    def __init__(self, system: System, fact: Fact):
        units, unit = system.units, system.model.unit_of(fact.key)
        variable = system.model.variables[split_key(fact.key)[0]]

        def shown(amount: float) -> float:
            return units.from_canonical(units.to_canonical(amount, fact.unit), unit)

        value = shown(fact.value)
        exact = variable.integer and fact.tolerance in (None, 0.0)
        below, above = (0.0, 0.0) if exact else (abs(shown(x)) for x in fact.interval)
        self.figure = Figure(fact.key, value, unit, value - below, value + above, source=fact.source)
        self.rounded = (value - below, value + below)
        self.coarse = not exact and fact.tolerance is None and read_to_least_figures(fact.text)


def _check(key: str, chosen: _Printed, other: _Printed) -> Check:
    a, b = chosen.figure, other.figure
    scale = max(abs(a.value), abs(b.value))
    found = None
    if abs(a.value - b.value) <= CONSISTENT_RELATIVE * scale:
        status = Verdict.CONSISTENT
    elif a.lower <= b.upper and b.lower <= a.upper:
        status = Verdict.WITHIN_ROUNDING
        rounded = chosen.rounded[0] <= other.rounded[1] and other.rounded[0] <= chosen.rounded[1]
        found = reading(not rounded, [key] if chosen.coarse or other.coarse else ())
    else:
        status = Verdict.INCONSISTENT
    deviation = (a.value / b.value - 1.0) * 100.0 if b.value else None
    return Check(DOCUMENTS_RULE, CheckKind.DOCUMENTS, status, deviation, (key,), key, a, b, (a, b),
                 f"two documents state {key}", b.source or "", reading=found)
