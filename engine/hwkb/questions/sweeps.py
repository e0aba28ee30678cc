"""Sweeps: one variable over a grid of others, through the compiled, vectorised closed form.

``--sweep d_qk=64:512:64 --sweep d_v=64,128`` gives the grid of every
combination (the first axis varies slowest). The target's closed form in the
swept variables (:mod:`hwkb.questions.closed_forms`) is lambdified once with NumPy and
evaluated on whole arrays: no SymPy per point. Where there is no closed form
(a simulated rule on the way) the grid is evaluated point by point by a
:class:`PointEvaluator`, which reuses one plan and re-runs only the steps
between the swept variables and the target. The grid is evaluated, and printed,
in chunks (:mod:`hwkb.questions.sweep_grid`; printed by :mod:`hwkb.render.sweep_tables`): 10^7 points never hold more
than their values in memory.

Example:

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> axis = parse_axis(kb, "d_qk=64:192:64")
>>> axis.values
(64.0, 128.0, 192.0)
>>> result = sweep(kb, "exp_utilization[bf16]", kb.context("h100-sxm", facts=["d_v=128"]), [axis])
>>> result.rows(), result.method
([[64, 0.6666666666666666], [128, 0.5], [192, 0.4]], 'closed form')
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from hwkb.definitions.model import VarKey, split_key
from hwkb.definitions.quantities import read_quantity
from hwkb.errors import KBError, Location, NoClosedForm, NotDetermined, QueryError
from hwkb.questions.closed_forms import ClosedForm, canonical_forms, closed_form
from hwkb.questions.interventions import intervene
from hwkb.questions.sweep_grid import CHUNK, AxisValues, all_whole, grid_chunk
from hwkb.solving.context import Context
from hwkb.solving.lambdify import lambdify_numpy
from hwkb.solving.limit_rules import check_limits
from hwkb.solving.points import PointEvaluator, trial_facts
from hwkb.solving.relations import symbol_of
from hwkb.results import Result
from hwkb.solving.system import System

__all__ = ["Axis", "SweepResult", "UnevaluatedPoints", "parse_axis", "sweep", "MAX_POINTS"]

MAX_POINTS = 10_000_000       # a grid of 10^7 doubles is 80 MB per column; the table of it, far more
MAX_AXIS_POINTS = 10_000_000


@dataclass(frozen=True)
class UnevaluatedPoints:
    """A note: ``count`` points of a sweep left empty, the first of them (its axes' values) and why; render/ words it."""
    count: int
    first: tuple[tuple[VarKey, float], ...]
    reason: str


@dataclass(frozen=True)
class Axis:
    """One swept variable and its values, in the variable's display unit; ``integer`` when it counts whole things."""
    key: VarKey
    unit: str
    values: tuple[float, ...]
    integer: bool = False


def parse_axis(kb: System, text: str) -> Axis:
    """``'X=START:STOP:STEP'`` (STOP included when a step lands on it) or ``'X=v1,v2,...'``.

    Numbers are in the variable's unit unless they carry one (``clock_tc=1.5GHz:2GHz:100MHz``).
    """
    where = Location(f"--sweep {text!r}")
    key, sep, spec = text.partition("=")
    key, spec = key.strip(), spec.strip()
    if not sep or not key or not spec:
        raise QueryError(f"cannot read --sweep {text!r}", where=None,
                         hint="write VAR=START:STOP:STEP or VAR=v1,v2,..., e.g. d_qk=64:256:64")
    key = kb.model.resolve_key(key)
    variable = kb.model.check_key(key, where=where)
    read = lambda token: _number(kb, token, key, variable.unit, text, variable.positive)
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) != 3 or "," in spec:
            raise QueryError(f"--sweep {text!r}: a range is START:STOP:STEP", hint="e.g. d_qk=64:256:64")
        start, stop, step = (read(p) for p in parts)
        if not step > 0:
            raise QueryError(f"--sweep {text!r}: the step must be positive", hint="e.g. d_qk=64:256:64")
        if stop < start:
            raise QueryError(f"--sweep {text!r}: STOP is below START", hint="write START:STOP:STEP with START <= STOP")
        span = (stop - start) / step
        if not span < MAX_AXIS_POINTS:  # before floor(): 1e-300 steps give a count of 300 digits
            raise QueryError(f"--sweep {text!r} has more than {MAX_AXIS_POINTS} points", hint="take a larger step")
        count = math.floor(span * (1 + 1e-12) + 1e-9) + 1
        if count > MAX_AXIS_POINTS:
            raise QueryError(f"--sweep {text!r} has {count} points, more than {MAX_AXIS_POINTS}",
                             hint="take a larger step")
        values = AxisValues(start, step, count)  # computed when asked: 10^7 Python floats would be 320 MB
    else:
        values = tuple(read(p) for p in spec.split(","))
    if variable.integer and not all_whole(values):
        raise QueryError(f"--sweep {text!r}: {key} counts whole things", hint="sweep whole numbers, e.g. 64:256:64")
    return Axis(key, variable.unit, values, bool(variable.integer))


def _number(kb: System, token: str, key: VarKey, unit: str, text: str, positive: bool = False) -> float:
    """One value of a sweep, in ``unit``: the quantity syntax of KB files and ``--set``, n/a excluded."""
    variable = kb.model.variables[split_key(key)[0]]
    reading = read_quantity(token, unit, kb.units, Location(f"--sweep {text!r}"), key=key, positive=positive,
                            capacity=variable.capacity)
    if not reading.applicable:
        raise QueryError(f"--sweep {text!r}: {token.strip()!r} is not a value to sweep over",
                         hint=f"write numbers in {unit or 'plain numbers'}, e.g. 64")
    return reading.value


@dataclass(frozen=True, repr=False)
class SweepResult(Result):
    """The target on the grid of the axes; ``values`` is flat, the first axis varying slowest.

    ``grid_columns`` holds the grid's columns when given; a sweep leaves it None and :attr:`grid` builds it from
    the axes only when asked (10^7 points of two axes would take 160 MB).
    """
    variable: VarKey
    unit: str
    axes: tuple[Axis, ...]
    grid_columns: tuple[np.ndarray, ...] | None
    values: np.ndarray
    method: str  # "closed form" | "point by point"
    form: ClosedForm | None = None
    notes: tuple[str, ...] = ()

    @property
    def grid(self) -> tuple[np.ndarray, ...]:
        if self.grid_columns is not None:
            return self.grid_columns
        return grid_chunk(self.axes, 0, self.values.size)

    @property
    def columns(self) -> list[str]:
        return [a.key for a in self.axes] + [self.variable]

    @property
    def units(self) -> list[str]:
        return [a.unit for a in self.axes] + [self.unit]

    def rows(self) -> list[list[float | None]]:
        """The grid and the values, row by row; an axis of a variable that counts whole things gives integers."""
        table = np.column_stack([*self.grid, self.values])
        whole = [a.integer for a in self.axes] + [False]
        return [[None if not math.isfinite(x) else int(x) if is_whole else x for x, is_whole in zip(row, whole)]
                for row in table.tolist()]

    def to_dict(self, rows: object = None) -> dict:
        """The CLI's JSON; ``rows`` stands in for the list of rows when given (the CLI streams them)."""
        out = {"command": "solve", "status": "ok", "variable": self.variable, "columns": self.columns,
               "units": self.units, "rows": self.rows() if rows is None else rows, "method": self.method}
        if self.form is not None:
            out["expression"] = self.form.text
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    def __repr__(self) -> str:
        return str(self)


def sweep(kb: System, variable: VarKey, context: Context, axes: Sequence[Axis],
          where: Iterable[str] = (), method: str = "auto") -> SweepResult:
    """``variable`` at every point of the grid of ``axes``; ``method`` is auto, closed form or point by point."""
    variable = kb.check_key(variable)
    if not axes:
        raise QueryError("a sweep needs at least one --sweep VAR=...", hint="e.g. --sweep d_qk=64:256:64")
    keys = [a.key for a in axes]
    if len(set(keys)) != len(keys):
        raise QueryError(f"a variable is swept twice: {', '.join(keys)}", hint="give each variable one --sweep")
    if variable in keys:
        raise QueryError(f"{variable} is both the target and swept", hint="sweep the variables it depends on")
    total = math.prod(len(a.values) for a in axes)
    if total > MAX_POINTS:
        raise QueryError(f"the grid has {total} points, more than {MAX_POINTS}", hint="take fewer or coarser axes")
    units = {a.key: a.unit for a in axes}  # a grid past a launch limit is the error a --set past it is:
    for corner in itertools.product(*({min(a.values), max(a.values)} for a in axes)):  # the limits are monotone
        facts = trial_facts(dict(zip(keys, corner)), units)
        check_limits(kb.limits, {**context.facts, **{f.key: f for f in facts}}, kb.units)
    where = list(where)
    context, _ = intervene(kb, context, context, keys, where)  # a swept clock moves the peaks it gives
    unit = kb.model.unit_of(variable)
    if method in ("auto", "closed form"):
        try:
            form = closed_form(kb, variable, context, keys, where)
        except NoClosedForm:
            if method == "closed form":
                raise
        else:
            values = np.empty(total)
            for start in range(0, total, CHUNK):
                grid = grid_chunk(axes, start, min(start + CHUNK, total))
                with np.errstate(all="ignore"):
                    values[start:start + CHUNK] = np.broadcast_to(np.asarray(form.function(*grid), dtype=float),
                                                                  grid[0].shape)
            notes = _mask_broken_givens(kb, context, axes, where, values)
            return SweepResult(variable, unit, tuple(axes), None, values, "closed form", form, notes)
    evaluator = PointEvaluator(kb, context, keys, [variable], where)
    values = np.empty(total)
    refused, first_refused = 0, None  # how many points a KBError left empty; the first of them and why
    for i in range(total):
        point = {k: float(g[0]) for k, g in zip(keys, grid_chunk(axes, i, i + 1))}
        try:
            value = evaluator(point).get(variable)
        except KBError as exc:  # e.g. a simulation too large to run at this point
            refused += 1
            first_refused = first_refused or (tuple(point.items()), exc.message)
            value = None
        values[i] = math.nan if value is None else value.magnitude
    reason = "no closed form: " if method == "auto" else ""
    notes = (f"{reason}evaluated point by point ({total} points)",)
    if refused:
        notes += (UnevaluatedPoints(refused, *first_refused),)
    return SweepResult(variable, unit, tuple(axes), None, values, "point by point", None, notes)


def _mask_broken_givens(kb, context: Context, axes: Sequence[Axis], where: Sequence[str], values) -> tuple:
    """Set to NaN the points where a --where equality does not hold, with a note for each equality.

    ``b_cols = tile_n`` over a swept tile_n, with b_cols stated, holds at one point only:
    the other points answer a question the user ruled out.
    """
    keys = [a.key for a in axes]
    notes = []
    for i, text in enumerate(where):
        relation = kb.parse_where(text, i)
        if relation.op != "=":
            continue
        compiled = kb.where_relations([text])[0]
        others = [k for k in compiled.keys if k not in keys]
        try:
            forms, _ = canonical_forms(kb, others, context, keys, where)
        except (NotDetermined, NoClosedForm):
            continue
        known = {symbol_of(k): f for k, f in forms.items()}
        sides = lambdify_numpy([symbol_of(k) for k in keys], [compiled.lhs.xreplace(known), compiled.rhs.xreplace(known)])
        factors = [kb.units.to_canonical(1.0, kb.model.unit_of(k)) for k in keys]
        count = 0
        for start in range(0, values.size, CHUNK):
            grid = grid_chunk(axes, start, min(start + CHUNK, values.size))
            with np.errstate(all="ignore"):
                lhs, rhs = (np.broadcast_to(np.asarray(side, dtype=float), grid[0].shape)
                            for side in sides(*(g * f for g, f in zip(grid, factors))))
                broken = ~(np.abs(lhs - rhs) <= 1e-9 * np.maximum(np.abs(lhs), np.abs(rhs)))
            values[start:start + CHUNK][broken] = math.nan
            count += int(broken.sum())
        if count:
            notes.append(f"{text!r} does not hold at {count} of {values.size} points: those are left empty")
    return tuple(notes)
