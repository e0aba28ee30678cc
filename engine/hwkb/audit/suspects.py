"""Suspects: which stated fact of an entity's failed checks is most likely wrong, and what it should be.

Over an entity's failed checks (failed laws if any fail, else failed
expectations) each failed check's facts are a conflict; a fact in every conflict
and in no passing check ranks first, then by how many conflicts hold it, how few
passing checks do, whether its factor looks like a known mistake (a sparse figure
under a dense key, bits for bytes, a binary prefix: :mod:`hwkb.audit.hints`),
whether its implied value is possible (a count must come out whole), whether it
is the sheet's own figure rather than one it inherits, and how far it would have
to move in units of its printed precision (the smallest correction first).
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

from hwkb.audit.findings import Figure, Suspect
from hwkb.audit.hints import SPECIFIC, has_information, hint_for
from hwkb.audit.rows import Row
from hwkb.audit.verdicts import Evaluation
from hwkb.definitions.model import split_key
from hwkb.solving.system import System

__all__ = ["rank_suspects", "with_implied", "check_hint"]


def rank_suspects(row: Row, basis: Sequence[Evaluation], passing: Sequence[Evaluation],
                  system: System) -> list[Suspect]:
    """The facts of the failed checks ``basis``, most likely culprit first."""
    candidates = list(dict.fromkeys(k for e in basis for k in e.check.variables))
    suspects = []
    for key in candidates:
        holding = [e for e in basis if key in e.check.variables]
        n_pass = sum(key in e.check.variables for e in passing)
        best = min((e for e in holding if math.isfinite(e.fact_implied.get(key, math.nan))),
                   key=lambda e: e.spread, default=None)
        base = Suspect(key, row.facts[key].entity, 0.0, "", "", None, None, len(holding), n_pass,
                       len(holding) == len(basis) and n_pass == 0)
        suspects.append(with_implied(base, row, None if best is None else best.fact_implied[key], system,
                                     1.0 if best is None else best.spread))
    # a figure of the sheet itself before one it inherits (an architecture's rate is checked by every product)
    suspects.sort(key=lambda s: (not s.in_every_failed, -s.failed, s.passing, s.hint is None, not s.plausible,
                                 s.entity != row.entity, math.inf if s.move is None else s.move, s.fact))
    return suspects


def with_implied(s: Suspect, row: Row, canonical: float | None, system: System, spread: float) -> Suspect:
    """``s`` with its stated value, the value it would need (``canonical``), how far that is, and its hint."""
    fact = row.facts[s.fact]
    variable = system.model.variables[split_key(s.fact)[0]]
    unit = variable.unit
    units = system.units
    value = units.from_canonical(row.mid[s.fact], unit)
    if canonical is None or not math.isfinite(canonical):
        return replace(s, value=value, unit=unit, text=fact.text, implied=None, move=None, plausible=True, hint=None)
    implied = units.from_canonical(canonical, unit)
    precision = abs(units.to_canonical(max(fact.tolerance or 0.0, fact.printed_rounding), fact.unit))
    move = abs(canonical - row.mid[s.fact]) / precision if precision else math.inf
    plausible = True
    if variable.integer:  # a count must come out whole, within what the check can tell
        plausible = round(implied) >= 1 and abs(implied - round(implied)) <= max(1e-6, spread) * abs(implied)
        implied = float(round(implied)) if plausible else implied
    found = hint_for(system, s.fact, value, implied, spread)
    hint = found[1] if found and found[0] in SPECIFIC else None
    return replace(s, value=value, unit=unit, text=fact.text, implied=implied, move=move, plausible=plausible,
                   hint=hint)


def check_hint(system: System, evaluation: Evaluation, value: Figure, implied: Figure,
               suspects: Sequence[Suspect]) -> str | None:
    """A suspect's specific hint (sparse, bits, binary or decimal prefix) first, then any factor of a suspect,
    then the stated target's own factor."""
    for s in suspects:
        if s.hint:
            return s.hint
    for s in suspects:  # any factor a stated figure is off by, naming that figure
        found = None if s.implied is None else hint_for(system, s.fact, s.value, s.implied, evaluation.spread)
        if found is not None:
            return found[1]
    if value.via is not None:
        return None  # the target is derived: its factor names no figure of the sheet
    relation = evaluation.check.relation
    found = hint_for(system, evaluation.check.target, value.value, implied.value, evaluation.spread, relation.name,
                     information=any(has_information(system, k) for k in relation.keys))
    return None if found is None else found[1]
