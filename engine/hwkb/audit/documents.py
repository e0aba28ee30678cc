"""Where two documents print different figures for one quantity: a check of each pair an entity keeps.

A fact may carry other documents' figures (``also:``, :mod:`hwkb.formats.facts`):
a preliminary and a final whitepaper, a datasheet and a product page. The chosen
figure is the one the solver uses; the audit weighs each other figure against it,
both known to their printed digits: ``consistent`` when they are one number,
``within_rounding`` when their rounding intervals meet, ``inconsistent`` when they
do not. Only the figures an entity states itself are weighed, so a disagreement
is reported once, by the entity that keeps both documents, not by every product
that inherits it.
"""
from __future__ import annotations

from hwkb.audit.findings import Check, CheckKind, Figure, Verdict
from hwkb.audit.rows import Row
from hwkb.audit.verdicts import CONSISTENT_RELATIVE
from hwkb.definitions.model import Fact, split_key
from hwkb.solving.system import System

__all__ = ["document_checks", "DOCUMENTS_RULE"]

#: the ``rule`` of a documents check (its ``target`` names the quantity)
DOCUMENTS_RULE = "documents"


def document_checks(row: Row, system: System) -> list[Check]:
    """A check per other document's figure of each fact ``row``'s entity states itself."""
    out = []
    for key, fact in row.documented.items():
        chosen = _figure(system, fact)
        for other in fact.also:
            out.append(_check(key, chosen, _figure(system, other)))
    return out


def _figure(system: System, fact: Fact) -> Figure:
    """A document's figure in the variable's display unit, with its printed rounding and its source."""
    units, variable, unit = system.units, system.model.variables[split_key(fact.key)[0]], system.model.unit_of(fact.key)
    value = units.from_canonical(units.to_canonical(fact.value, fact.unit), unit)
    exact = variable.integer and fact.tolerance in (None, 0.0)
    radius = 0.0 if exact else abs(units.from_canonical(units.to_canonical(fact.rounding, fact.unit), unit))
    return Figure(fact.key, value, unit, value - radius, value + radius, source=fact.source)


def _check(key: str, chosen: Figure, other: Figure) -> Check:
    scale = max(abs(chosen.value), abs(other.value))
    if abs(chosen.value - other.value) <= CONSISTENT_RELATIVE * scale:
        status = Verdict.CONSISTENT
    elif chosen.lower <= other.upper and other.lower <= chosen.upper:
        status = Verdict.WITHIN_ROUNDING
    else:
        status = Verdict.INCONSISTENT
    deviation = (chosen.value / other.value - 1.0) * 100.0 if other.value else None
    doc = f"two documents state {key}; the KB uses {chosen.text}"
    return Check(DOCUMENTS_RULE, CheckKind.DOCUMENTS, status, deviation, (key,), key, chosen, other, (chosen, other),
                 doc, other.source or "")
