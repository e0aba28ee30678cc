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
from collections import Counter
from operator import attrgetter
from typing import Sequence

from hwkb.audit.findings import Figure, Hint, Suspect
from hwkb.audit.hints import SPECIFIC, has_information, hint_for
from hwkb.audit.rows import Row
from hwkb.audit.verdicts import Evaluation
from hwkb.definitions.model import VarKey, split_key
from hwkb.solving.system import System

__all__ = ["rank_suspects", "with_implied", "check_hint", "Assessed"]


_SPREAD = attrgetter("spread")


class Assessed:
    """One row's suspects and hints worked out so far, by everything each depends on: most rows fail one check,
    whose suspects are then assessed as the ranking assessed them, and whose hint is a suspect's."""

    def __init__(self):
        self.suspects: dict[tuple, Suspect] = {}
        self.hints: dict[tuple, Hint | None] = {}

    def hint(self, system: System, key: VarKey, stated: float, implied: float, spread: float) -> Hint | None:
        """:func:`~hwkb.audit.hints.hint_for` of a stated figure."""
        alike = (key, stated, implied, spread)
        if alike not in self.hints:
            self.hints[alike] = hint_for(system, key, stated, implied, spread)
        return self.hints[alike]


def rank_suspects(row: Row, basis: Sequence[Evaluation], passing: Sequence[Evaluation],
                  system: System, assessed: Assessed | None = None) -> list[Suspect]:
    """The facts of the failed checks ``basis``, most likely culprit first."""
    candidates = list(dict.fromkeys(k for e in basis for k in e.check.variables))
    passing_holding = Counter(k for e in passing for k in set(e.check.variables))
    suspects = []
    for key in candidates:
        holding = [e for e in basis if key in e.check.variables]
        n_pass = passing_holding[key]
        best = min((e for e in holding if math.isfinite(e.fact_implied.get(key, math.nan))),
                   key=_SPREAD, default=None)
        suspects.append(_suspect(key, len(holding), n_pass, len(holding) == len(basis) and n_pass == 0, row,
                                 None if best is None else best.fact_implied[key], system,
                                 1.0 if best is None else best.spread, assessed))
    # a figure of the sheet itself before one it inherits (an architecture's rate is checked by every product)
    suspects.sort(key=lambda s: (not s.in_every_failed, -s.failed, s.passing, s.hint is None, not s.plausible,
                                 s.entity != row.entity, math.inf if s.move is None else s.move, s.fact))
    return suspects


def with_implied(s: Suspect, row: Row, canonical: float | None, system: System, spread: float,
                 assessed: Assessed | None = None) -> Suspect:
    """``s`` with its stated value, the value it would need (``canonical``), how far that is, and its hint."""
    return _suspect(s.fact, s.failed, s.passing, s.in_every_failed, row, canonical, system, spread, assessed)


def _suspect(key: VarKey, failed: int, passing: int, in_every_failed: bool, row: Row, canonical: float | None,
             system: System, spread: float, assessed: Assessed | None) -> Suspect:
    """The suspect ``key`` of ``row``: its stated value, the value it would need (``canonical``), how far that
    is, and its hint (taken from ``assessed`` when it holds one assessed alike, and kept there)."""
    assessed = Assessed() if assessed is None else assessed
    alike = (key, failed, passing, in_every_failed, canonical, spread)
    found = assessed.suspects.get(alike)
    if found is None:
        found = assessed.suspects[alike] = _assess(key, failed, passing, in_every_failed, row, canonical, system,
                                                   spread, assessed)
    return found


def _assess(key: VarKey, failed: int, passing: int, in_every_failed: bool, row: Row, canonical: float | None,
            system: System, spread: float, assessed: Assessed) -> Suspect:
    fact = row.facts[key]
    variable = system.model.variables[split_key(key)[0]]
    unit = system.model.unit_of(key)
    units = system.units
    value = units.from_canonical(row.mid[key], unit)
    if canonical is None or not math.isfinite(canonical):
        return Suspect(key, fact.entity, value, unit, fact.text, None, None, failed, passing, in_every_failed)
    implied = units.from_canonical(canonical, unit)
    precision = abs(units.to_canonical(max(fact.tolerance or 0.0, fact.printed_rounding), fact.unit))
    move = abs(canonical - row.mid[key]) / precision if precision else math.inf
    plausible = True
    if variable.integer:  # a count must come out whole, within what the check can tell
        plausible = round(implied) >= 1 and abs(implied - round(implied)) <= max(1e-6, spread) * abs(implied)
        implied = float(round(implied)) if plausible else implied
    found = assessed.hint(system, key, value, implied, spread)
    hint = found if found and found.kind in SPECIFIC else None
    return Suspect(key, fact.entity, value, unit, fact.text, implied, move, failed, passing, in_every_failed,
                   plausible, hint)


def check_hint(system: System, evaluation: Evaluation, value: Figure, implied: Figure,
               suspects: Sequence[Suspect], assessed: Assessed | None = None) -> Hint | None:
    """A suspect's specific hint (sparse, bits, binary or decimal prefix) first, then any factor of a suspect,
    then the stated target's own factor (``assessed``: the hints of the suspects' row worked out so far)."""
    assessed = Assessed() if assessed is None else assessed
    for s in suspects:
        if s.hint:
            return s.hint
    for s in suspects:  # any factor a stated figure is off by, naming that figure
        found = None if s.implied is None else assessed.hint(system, s.fact, s.value, s.implied, evaluation.spread)
        if found is not None:
            return found
    if value.via is not None:
        return None  # the target is derived: its factor names no figure of the sheet
    relation = evaluation.check.relation
    found = hint_for(system, evaluation.check.target, value.value, implied.value, evaluation.spread, relation.name,
                     information=any(has_information(system, k) for k in relation.keys))
    return found
