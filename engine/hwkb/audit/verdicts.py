"""Verdicts: a compiled check evaluated over the rows of every entity of its pattern at once.

Each stated value is an interval, ± its rounding (:mod:`hwkb.audit.rows`). The
check's target is compared with what its relation implies, through outward-rounded
interval arithmetic (:mod:`hwkb.audit.enclosures`) on the ratio target / implied:
``consistent`` when the point values agree to 1e-9, ``within_rounding`` when the
ratio's interval holds 1 (widened by the rule's tolerance), ``inconsistent`` when
it does not. For a failed check, each of its facts gets the value it would need
for the others to agree (:func:`solve_for_fact`).

A pattern's rows come a few dozen at a time, often fewer, so the cost is the number
of array operations and of objects made per row, not the arithmetic: the rows'
figures are gathered once for all the pattern's checks, each row's stated box and
its point (the value alone) go through a compiled function as one array of twice
the rows, every fact's needed value is found in one Newton run, and the
evaluations are built from whole columns.
"""
from __future__ import annotations

import math
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import NamedTuple, Sequence

import numpy as np

from hwkb.audit.analysis import CompiledCheck, Side
from hwkb.audit.enclosures import Enclosure, outward
from hwkb.audit.findings import Verdict
from hwkb.audit.readings import reading
from hwkb.audit.rows import Row
from hwkb.definitions.model import VarKey
from hwkb.solving.system import System

__all__ = ["Evaluation", "evaluate", "evaluate_all", "gather", "shown_sides", "solve_for_fact", "CONSISTENT_RELATIVE"]

CONSISTENT_RELATIVE = 1e-9
NEWTON_STEP = 1e-7
NEWTON_ITERATIONS = 40
_LARGEST = np.finfo(float).max
_BY_CODE = np.array([Verdict.CONSISTENT, Verdict.WITHIN_ROUNDING, Verdict.INCONSISTENT], dtype=object)


class Evaluation(NamedTuple):
    """A check's verdict for one entity, before it becomes a :class:`~hwkb.audit.findings.Check`.

    A named tuple: an audit makes one per check and entity, built from columns in one pass."""
    check: CompiledCheck
    row: Row
    status: Verdict
    deviation: float | None
    own: tuple[float, float, float]       # the target: point, lower, upper (display unit)
    implied: tuple[float, float, float]   # what the relation implies for it
    ratio: tuple[float, float]
    spread: float                         # the ratio's relative half-width: how finely the check pins a factor
    sides: list[float]                    # the known values the check shows (shown_sides), at the entity's points,
                                          # each in its display unit
    fact_implied: dict[VarKey, float]     # failed checks: the value (canonical) each fact would need
    reading: str | None = None            # within rounding: a figure read as cut short or to two figures


class _Columns:
    """The rows' figures for some keys as enclosures of three times the rows: each row's stated box (a printed
    figure rounded or cut short), its point, and its box were every figure rounded, not cut short.

    Gathered once for all the checks of a pattern: pulling floats out of the rows' dicts costs more than the
    interval arithmetic."""

    def __init__(self, rows: Sequence[Row], keys: Sequence[VarKey]):
        n, width = len(rows), len(keys)
        mid, radius, reach = (gather(rows, which, keys).reshape(n, width).T for which in ("mid", "radius", "reach"))
        lo, hi = np.empty((width, 3 * n)), np.empty((width, 3 * n))
        radius, reach = np.abs(radius), np.abs(reach)
        lo[:, :n], hi[:, :n] = mid - radius, mid + reach
        lo[:, n:2 * n], hi[:, n:2 * n] = mid, mid
        lo[:, 2 * n:], hi[:, 2 * n:] = mid - radius, mid + radius
        lo, hi = outward(lo, hi)
        self.rows = n
        self.position = {k: i for i, k in enumerate(keys)}
        self.enclosures = [Enclosure(lo[i], hi[i]) for i in range(width)]
        self.points = 0.5 * (lo[:, n:2 * n] + hi[:, n:2 * n])  # each row's value, as its one-ulp box gives it

    def args(self, keys: Sequence[VarKey]) -> list[Enclosure]:
        return [self.enclosures[self.position[k]] for k in keys]


def gather(rows: Sequence[Row], which: str, keys: Sequence[VarKey]) -> np.ndarray:
    """``row.<which>[key]`` for each row, then each key: a flat array (KeyError: a row lacks a key)."""
    values = map(itemgetter(*keys), map(attrgetter(which), rows))
    return np.fromiter(chain.from_iterable(values) if len(keys) > 1 else values, dtype=float,
                       count=len(rows) * len(keys))


def evaluate(check: CompiledCheck, rows: Sequence[Row], system: System) -> list[Evaluation]:
    """The check's verdict for every row; a row where it is undefined (a zero figure) is noted on the row instead."""
    return evaluate_all([check], rows, system)


def evaluate_all(checks: Sequence[CompiledCheck], rows: Sequence[Row], system: System) -> list[Evaluation]:
    """:func:`evaluate` for each of ``checks`` (of one pattern) in turn, over the rows' figures gathered once."""
    if not checks:
        return []
    keys = [k for check in checks for k in (*check.symbols, *(k for side in check.sides for k in side.symbols))]
    columns = _Columns(rows, tuple(dict.fromkeys(keys)))
    out: list[Evaluation] = []
    for check in checks:
        out += _verdicts(check, rows, columns, system)
    return out


def _verdicts(check: CompiledCheck, rows: Sequence[Row], columns: _Columns, system: System) -> list[Evaluation]:
    """One check's evaluations, built a column at a time: no Python work per row beyond making its objects."""
    n = len(rows)
    both = columns.args(check.symbols)
    with np.errstate(all="ignore"):
        own, implied, ratio = check.own(both), check.implied(both), check.ratio(both)
        own_p, implied_p = own.mid[n:2 * n], implied.mid[n:2 * n]
        ratio_lo, ratio_hi = ratio.lo[:n], ratio.hi[:n]
        q = own_p / implied_p
        deviation = (q - 1.0) * 100.0
        tol = check.relation.rule.tolerance
        holds_one = (ratio_lo * (1 - tol) <= 1.0) & (1.0 <= ratio_hi * (1 + tol))
        rounded = (ratio.lo[2 * n:] * (1 - tol) <= 1.0) & (1.0 <= ratio.hi[2 * n:] * (1 + tol))
        close = np.abs(own_p - implied_p) <= CONSISTENT_RELATIVE * np.maximum(np.abs(own_p), np.abs(implied_p))
        finite = np.isfinite(own_p) & np.isfinite(implied_p) & (implied_p != 0)
        spread = _nan_to_inf(np.maximum(ratio_hi / q - 1, 1 - ratio_lo / q)) + tol
        shown = shown_sides(check)
        side_values = (np.array([_shown(side, columns) for side in shown]).reshape(len(shown), n)
                       / np.array([side.factor for side in shown]).reshape(len(shown), 1))
    code = np.where(close, 0, np.where(holds_one, 1, 2))
    truncated = (code == 1) & ~rounded
    failed = np.flatnonzero((code == 2) & finite)
    kept = np.flatnonzero(finite)
    if kept.size < n:
        for i in np.flatnonzero(~finite).tolist():
            rows[i].undefined.append(check.relation.name)
    scale = system.units.from_canonical(1.0, system.model.unit_of(check.target))
    facts: list[dict[VarKey, float]] = [{} for _ in range(kept.size)]
    if failed.size:
        points = columns.points[[columns.position[k] for k in check.symbols]][:, failed]
        needed = _needed_values(check, points, check.variables).T.tolist()
        for i, values in zip(np.searchsorted(kept, failed).tolist(), needed):
            facts[i] = dict(zip(check.variables, values))
    per_row = [code, deviation, own_p, own.lo[:n], own.hi[:n], implied_p, implied.lo[:n], implied.hi[:n],
               ratio_lo, ratio_hi, spread, side_values, truncated]
    if kept.size < n:  # the rows where the check is defined
        rows, per_row = [rows[i] for i in kept.tolist()], [a[..., kept] for a in per_row]
    code, deviation, own_p, own_lo, own_hi, implied_p, implied_lo, implied_hi, ratio_lo, ratio_hi, spread, \
        side_values, truncated = per_row
    readings = _readings(check, rows, code, truncated)
    return list(map(Evaluation._make, zip(
        repeat(check), rows, _BY_CODE[code].tolist(), deviation.tolist(), _triples(own_p, own_lo, own_hi, scale),
        _triples(implied_p, implied_lo, implied_hi, scale), zip(ratio_lo.tolist(), ratio_hi.tolist()),
        spread.tolist(), side_values.T.tolist(), facts, readings)))


def shown_sides(check: CompiledCheck) -> list[Side]:
    """The sides a check's evaluations give values for, in their order: those that rest on a stated figure."""
    return [side for side in check.sides if side.symbols]


def _readings(check: CompiledCheck, rows: Sequence[Row], code: np.ndarray, truncated: np.ndarray) -> list[str | None]:
    """Per row, how a within-rounding verdict read the check's printed figures, where it read them otherwise than
    rounded to their printed digits (:func:`~hwkb.audit.readings.reading`); None for the other verdicts."""
    out: list[str | None] = [None] * len(rows)
    symbols, cut = check.symbols, truncated.tolist()
    for i in np.flatnonzero(code == 1).tolist():
        coarse = rows[i].coarse
        keys = [k for k in symbols if k in coarse] if coarse else ()
        if keys or cut[i]:  # else read as rounded to their digits: no reading
            out[i] = reading(cut[i], keys)
    return out


def _nan_to_inf(values: np.ndarray) -> np.ndarray:
    """``np.nan_to_num(values, nan=np.inf)``: NaN to infinity, an infinity to the largest float of its sign."""
    return np.where(np.isnan(values), np.inf, np.minimum(np.maximum(values, -_LARGEST), _LARGEST))


def _shown(side: Side, columns: _Columns) -> np.ndarray:
    """A side's value at each row's point: a stated key's own value, else its route's."""
    if side.via is None:  # a known key: its route is the key itself
        return columns.points[columns.position[side.key]]
    return side.function(columns.args(side.symbols)).mid[columns.rows:2 * columns.rows]


def _triples(point: np.ndarray, lower: np.ndarray, upper: np.ndarray, scale: float):
    """Per row: point, lower, upper, in the display unit."""
    return zip((point * scale).tolist(), (lower * scale).tolist(), (upper * scale).tolist())


def solve_for_fact(check: CompiledCheck, rows: Sequence[Row], which: np.ndarray, key: VarKey) -> np.ndarray:
    """The value of ``key`` (canonical) that makes the check's ratio 1, with the other facts at their points.

    Newton's method on log(ratio) against log(value): exact in one step for the
    products and quotients most laws are, a few steps otherwise. NaN where the
    fact cannot reconcile the check (it cancels, or no positive value works).
    """
    points = _Columns([rows[i] for i in which], check.symbols).points
    return _needed_values(check, points, (key,))[0]


def _needed_values(check: CompiledCheck, points: np.ndarray, keys: Sequence[VarKey]) -> np.ndarray:
    """:func:`solve_for_fact` for each of ``keys`` (a row of the result each) over the rows whose ``points`` (one
    row per symbol) are given, in one Newton run: each key's block of rows stops when all its rows have settled,
    as a run of its own would."""
    width, blocks = points.shape[1], len(keys)
    x = np.concatenate([points[check.symbols.index(k)] for k in keys])
    fixed = np.tile(points, (1, 2 * blocks))  # each symbol at the rows' points, once for x and once for x nudged
    free = np.zeros((2, blocks, len(points), width), dtype=bool)  # where x goes: block b's rows of key b
    for b, k in enumerate(keys):
        free[:, b, check.symbols.index(k)] = True
    free = free.transpose(2, 0, 1, 3).reshape(fixed.shape)

    def log_ratios(values: np.ndarray) -> np.ndarray:
        mid = np.where(free, values, fixed)
        lo, hi = outward(mid, mid)
        return np.log(check.ratio([Enclosure(lo[i], hi[i]) for i in range(len(lo))]).mid)

    running = np.ones(blocks, dtype=bool)
    with np.errstate(all="ignore"):
        for _ in range(NEWTON_ITERATIONS):
            both = log_ratios(np.concatenate((x, x * (1 + NEWTON_STEP))))
            g, nudged = both[:x.size], both[x.size:]
            settled = (~np.isfinite(g) | (np.abs(g) < 1e-14)).reshape(blocks, width).all(axis=1)
            running &= ~settled
            if not running.any():
                break
            slope = (nudged - g) / math.log1p(NEWTON_STEP)
            step = np.clip(np.where(slope != 0, g / slope, np.nan), -30, 30)
            x = np.where(np.repeat(running, width), x * np.exp(-step), x)
        good = np.abs(log_ratios(np.concatenate((x, x)))[:x.size]) < 1e-9
    return np.where(good, x, np.nan).reshape(blocks, width)
