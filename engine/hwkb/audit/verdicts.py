"""Verdicts: a compiled check evaluated over the rows of every entity of its pattern at once.

Each stated value is an interval, ± its rounding (:mod:`hwkb.audit.rows`). The
check's target is compared with what its relation implies, through outward-rounded
interval arithmetic (:mod:`hwkb.audit.enclosures`) on the ratio target / implied:
``consistent`` when the point values agree to 1e-9, ``within_rounding`` when the
ratio's interval holds 1 (widened by the rule's tolerance), ``inconsistent`` when
it does not. For a failed check, each of its facts gets the value it would need
for the others to agree (:func:`solve_for_fact`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from hwkb.audit.analysis import CompiledCheck, Side
from hwkb.audit.enclosures import Enclosure
from hwkb.audit.findings import Verdict
from hwkb.audit.rows import Row
from hwkb.definitions.model import VarKey
from hwkb.solving.system import System

__all__ = ["Evaluation", "evaluate", "solve_for_fact", "CONSISTENT_RELATIVE"]

CONSISTENT_RELATIVE = 1e-9
NEWTON_STEP = 1e-7
NEWTON_ITERATIONS = 40
_BY_CODE = (Verdict.CONSISTENT, Verdict.WITHIN_ROUNDING, Verdict.INCONSISTENT)  # the codes evaluate computes


@dataclass(frozen=True)
class Evaluation:
    """A check's verdict for one entity, before it becomes a :class:`~hwkb.audit.findings.Check`."""
    check: CompiledCheck
    row: Row
    status: Verdict
    deviation: float | None
    own: tuple[float, float, float]       # the target: point, lower, upper (display unit)
    implied: tuple[float, float, float]   # what the relation implies for it
    ratio: tuple[float, float]
    spread: float                         # the ratio's relative half-width: how finely the check pins a factor
    sides: list[tuple[Side, float]]       # the known values the check shows, at the entity's points (canonical)
    fact_implied: dict[VarKey, float]     # failed checks: the value (canonical) each fact would need


def _arrays(rows: Sequence[Row], symbols: Sequence[VarKey], radius: bool = True) -> list[Enclosure]:
    """One interval array per symbol over ``rows``: the stated boxes, or (``radius=False``) their points."""
    out = []
    for k in symbols:
        mid = np.array([r.mid[k] for r in rows], dtype=float)
        rad = np.array([r.radius[k] for r in rows], dtype=float) if radius else 0.0
        out.append(Enclosure.around(mid, rad))
    return out


def evaluate(check: CompiledCheck, rows: Sequence[Row], system: System) -> list[Evaluation]:
    """The check's verdict for every row; a row where it is undefined (a zero figure) is noted on the row instead."""
    boxes, points = _arrays(rows, check.symbols), _arrays(rows, check.symbols, radius=False)
    with np.errstate(all="ignore"):
        own, implied, ratio = check.own(boxes), check.implied(boxes), check.ratio(boxes)
        own_p, implied_p = check.own(points).mid, check.implied(points).mid
        deviation = (own_p / implied_p - 1.0) * 100.0
        tol = check.relation.rule.tolerance
        holds_one = (ratio.lo * (1 - tol) <= 1.0) & (1.0 <= ratio.hi * (1 + tol))
        close = np.abs(own_p - implied_p) <= CONSISTENT_RELATIVE * np.maximum(np.abs(own_p), np.abs(implied_p))
        finite = np.isfinite(own_p) & np.isfinite(implied_p) & (implied_p != 0)
        q = own_p / implied_p
        spread = np.nan_to_num(np.maximum(ratio.hi / q - 1, 1 - ratio.lo / q), nan=np.inf) + tol
    code = np.where(close, 0, np.where(holds_one, 1, 2))
    failed = np.flatnonzero((code == 2) & finite)
    fact_implied = {k: solve_for_fact(check, rows, failed, k) for k in check.variables} if failed.size else {}
    side_values = []
    for side in check.sides:
        if side.symbols:
            with np.errstate(all="ignore"):
                side_values.append((side, side.function(_arrays(rows, side.symbols, radius=False)).mid))
    to_display = system.units.from_canonical(1.0, system.model.unit_of(check.target))
    position = {int(i): n for n, i in enumerate(failed)}
    out = []
    for i, row in enumerate(rows):
        if not finite[i]:
            row.undefined.append(check.relation.name)
            continue
        sides = [(side, float(values[i])) for side, values in side_values]
        implied_facts = {k: float(v[position[i]]) for k, v in fact_implied.items()} if i in position else {}
        out.append(Evaluation(check, row, _BY_CODE[code[i]], float(deviation[i]),
                              _display(own, own_p, i, to_display), _display(implied, implied_p, i, to_display),
                              (float(ratio.lo[i]), float(ratio.hi[i])), float(spread[i]), sides, implied_facts))
    return out


def _display(box: Enclosure, point: np.ndarray, i: int, scale: float) -> tuple[float, float, float]:
    return float(point[i]) * scale, float(box.lo[i]) * scale, float(box.hi[i]) * scale


def solve_for_fact(check: CompiledCheck, rows: Sequence[Row], which: np.ndarray, key: VarKey) -> np.ndarray:
    """The value of ``key`` (canonical) that makes the check's ratio 1, with the other facts at their points.

    Newton's method on log(ratio) against log(value): exact in one step for the
    products and quotients most laws are, a few steps otherwise. NaN where the
    fact cannot reconcile the check (it cancels, or no positive value works).
    """
    points = [p.mid for p in _arrays([rows[i] for i in which], check.symbols, radius=False)]
    i = check.symbols.index(key)
    x = points[i].copy()

    def log_ratio(values):
        args = [Enclosure.around(v, 0.0) for v in points[:i]] + [Enclosure.around(values, 0.0)] + \
               [Enclosure.around(v, 0.0) for v in points[i + 1:]]
        with np.errstate(all="ignore"):
            return np.log(check.ratio(args).mid)

    with np.errstate(all="ignore"):
        for _ in range(NEWTON_ITERATIONS):
            g = log_ratio(x)
            if np.all(~np.isfinite(g) | (np.abs(g) < 1e-14)):
                break
            slope = (log_ratio(x * (1 + NEWTON_STEP)) - g) / math.log1p(NEWTON_STEP)
            step = np.clip(np.where(slope != 0, g / slope, np.nan), -30, 30)
            x = x * np.exp(-step)
        good = np.abs(log_ratio(x)) < 1e-9
    return np.where(good, x, np.nan)
