"""Sweeps: one variable over a grid of others, through the compiled, vectorised closed form.

``--sweep d_qk=64:512:64 --sweep d_v=64,128`` gives the grid of every
combination (the first axis varies slowest). The target's closed form in the
swept variables (:mod:`hwkb.questions.closed_forms`) is lambdified once with NumPy and
evaluated on whole arrays: no SymPy per point. Where there is no closed form
(a simulated rule on the way) the grid is evaluated point by point by a
:class:`PointEvaluator`, which reuses one plan and re-runs only the steps
between the swept variables and the target.

Example:

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> axis = parse_axis(kb, "d_qk=64:192:64")
>>> axis.values
(64.0, 128.0, 192.0)
>>> result = sweep(kb, "exp_utilization[bf16]", kb.context("h100-sxm", facts=["d_v=128"]), [axis])
>>> result.rows(), result.method
([[64.0, 0.6666666666666666], [128.0, 0.5], [192.0, 0.4]], 'closed form')
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from hwkb.solving.context import Context
from hwkb.questions.interventions import intervene
from hwkb.errors import KBError, Location, QueryError
from hwkb.definitions.model import Fact, VarKey
from hwkb.solving.lambdify import lambdify_numpy
from hwkb.solving.plan import Step
from hwkb.solving.relations import symbol_of
from hwkb.errors import NoClosedForm, NotDetermined
from hwkb.questions.closed_forms import ClosedForm, closed_form
from hwkb.solving.values import FactOrigin, Value
from hwkb.solving.solver import Solver

if TYPE_CHECKING:
    import numpy as np
    from hwkb.kb import KnowledgeBase

__all__ = ["Axis", "SweepResult", "PointEvaluator", "parse_axis", "sweep", "MAX_POINTS"]

MAX_POINTS = 10_000_000       # a grid of 10^7 doubles is 80 MB per column; the table of it, far more
MAX_AXIS_POINTS = 10_000_000
TRIAL_SOURCE = "trial value"


@dataclass(frozen=True)
class Axis:
    """One swept variable and its values, in the variable's display unit."""
    key: VarKey
    unit: str
    values: tuple[float, ...]


def parse_axis(kb: "KnowledgeBase", text: str) -> Axis:
    """``'X=START:STOP:STEP'`` (STOP included when a step lands on it) or ``'X=v1,v2,...'``.

    Numbers are in the variable's unit unless they carry one (``clock_tc=1.5GHz:2GHz:100MHz``).
    """
    where = Location(f"--sweep {text!r}")
    key, sep, spec = text.partition("=")
    key, spec = key.strip(), spec.strip()
    if not sep or not key or not spec:
        raise QueryError(f"cannot read --sweep {text!r}", where=None,
                         hint="write VAR=START:STOP:STEP or VAR=v1,v2,..., e.g. d_qk=64:256:64")
    variable = kb.model.check_key(key, where=where)
    read = lambda token: _number(kb, token, variable.unit, text)
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
        import numpy as np
        values = tuple(float(v) for v in start + step * np.arange(count))
    else:
        values = tuple(read(p) for p in spec.split(","))
    if any(v < 0 for v in values):
        raise QueryError(f"--sweep {text!r}: {key} takes no negative values", hint="sweep sizes, counts and rates")
    if variable.integer and any(v != int(v) for v in values):
        raise QueryError(f"--sweep {text!r}: {key} counts whole things", hint="sweep whole numbers, e.g. 64:256:64")
    return Axis(key, variable.unit, values)


def _number(kb, token: str, unit: str, text: str) -> float:
    from hwkb.formats.load import _split_value  # the flag shares the file format's number syntax
    token = token.strip()
    try:
        number, given = _split_value(token, unit)
        if given == unit:
            return float(number)
        quantity = kb.units.parse_quantity(f"{number} {given}")
    except (ValueError, KBError):
        raise QueryError(f"--sweep {text!r}: cannot read {token!r} as a number",
                         hint=f"write numbers in {unit or 'plain numbers'}, e.g. 64") from None
    if not kb.units.compatible(str(quantity.units), unit):
        raise QueryError(f"--sweep {text!r}: {token!r} does not fit a variable in {unit or 'plain numbers'}",
                         hint=f"give it in {unit or 'plain numbers'}")
    return kb.units.from_canonical(kb.units.quantity_to_canonical(quantity), unit)


@dataclass(frozen=True)
class SweepResult:
    """The target on the grid of the axes; ``values`` is flat, the first axis varying slowest."""
    variable: VarKey
    unit: str
    axes: tuple[Axis, ...]
    grid: tuple["np.ndarray", ...]
    values: "np.ndarray"
    method: str  # "closed form" | "point by point"
    form: ClosedForm | None = None
    notes: tuple[str, ...] = ()

    @property
    def columns(self) -> list[str]:
        return [a.key for a in self.axes] + [self.variable]

    @property
    def units(self) -> list[str]:
        return [a.unit for a in self.axes] + [self.unit]

    def rows(self) -> list[list[float | None]]:
        import numpy as np
        table = np.column_stack([*self.grid, self.values])
        return [[None if not math.isfinite(x) else x for x in row] for row in table.tolist()]

    def to_dict(self) -> dict:
        out = {"variable": self.variable, "columns": self.columns, "units": self.units, "rows": self.rows(),
               "method": self.method}
        if self.form is not None:
            out["expression"] = self.form.text
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([f"{c} [{u}]" if u else c for c, u in zip(self.columns, self.units)])
        for row in self.rows():
            writer.writerow(["" if x is None else repr(x) for x in row])
        return buffer.getvalue()

    def render(self) -> str:
        from hwkb.definitions.quantities import format_number
        headers = [f"{c} [{u}]" if u else c for c, u in zip(self.columns, self.units)]
        text = [[format_number(x) for x in row] for row in self.rows()]
        widths = [max(len(h), *(len(r[i]) for r in text)) if text else len(h) for i, h in enumerate(headers)]
        lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
        lines += ["  ".join(t.rjust(w) for t, w in zip(row, widths)) for row in text]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def sweep(kb: "KnowledgeBase", variable: VarKey, context: Context, axes: Sequence[Axis],
          where: Iterable[str] = (), method: str = "auto") -> SweepResult:
    """``variable`` at every point of the grid of ``axes``; ``method`` is auto, closed form or point by point."""
    import numpy as np
    kb.check_key(variable)
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
    where = list(where)
    context, _ = intervene(kb, context, context, keys, where)  # a swept clock moves the peaks it gives
    grid = tuple(g.ravel() for g in np.meshgrid(*(np.asarray(a.values, dtype=float) for a in axes), indexing="ij"))
    unit = kb.model.unit_of(variable)
    if method in ("auto", "closed form"):
        try:
            form = closed_form(kb, variable, context, keys, where)
        except NoClosedForm:
            if method == "closed form":
                raise
        else:
            with np.errstate(all="ignore"):
                values = np.asarray(form.function(*grid), dtype=float)
            values = np.broadcast_to(values, grid[0].shape).astype(float)
            notes = _mask_broken_givens(kb, context, keys, grid, where, values)
            return SweepResult(variable, unit, tuple(axes), grid, values, "closed form", form, notes)
    evaluator = PointEvaluator(kb, context, keys, [variable], where)
    values = np.empty(total)
    refused = []
    for i in range(total):
        point = {k: float(g[i]) for k, g in zip(keys, grid)}
        try:
            value = evaluator(point).get(variable)
        except KBError as exc:  # e.g. a simulation too large to run at this point
            refused.append(f"{', '.join(f'{k}={v:g}' for k, v in point.items())}: {exc.message}")
            value = None
        values[i] = math.nan if value is None else value.magnitude
    reason = "no closed form: " if method == "auto" else ""
    notes = (f"{reason}evaluated point by point ({total} points)",)
    if refused:
        notes += (f"{len(refused)} points could not be evaluated and are left empty, e.g. {refused[0]}",)
    return SweepResult(variable, unit, tuple(axes), grid, values, "point by point", None, notes)


def _mask_broken_givens(kb, context: Context, keys: Sequence[VarKey], grid, where: Sequence[str], values) -> tuple:
    """Set to NaN the points where a --where equality does not hold, with a note for each equality.

    ``b_cols = tile_n`` over a swept tile_n, with b_cols stated, holds at one point only:
    the other points answer a question the user ruled out.
    """
    import numpy as np
    from hwkb.questions.closed_forms import canonical_forms
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
        canonical = [g * kb.units.to_canonical(1.0, kb.model.unit_of(k)) for k, g in zip(keys, grid)]
        with np.errstate(all="ignore"):
            lhs, rhs = (np.broadcast_to(np.asarray(side, dtype=float), grid[0].shape) for side in sides(*canonical))
            broken = ~(np.abs(lhs - rhs) <= 1e-9 * np.maximum(np.abs(lhs), np.abs(rhs)))
        if broken.any():
            values[broken] = math.nan
            notes.append(f"{text!r} does not hold at {int(broken.sum())} of {broken.size} points: those are left empty")
    return tuple(notes)


class PointEvaluator:
    """Values of ``outputs`` at trial values of ``inputs``: one plan, only the steps between them re-run.

    Works for every kind of relation, simulated ones included (it evaluates
    through :meth:`hwkb.solving.solver.Solver.route_value`); a block of simultaneous
    relations on the way is solved afresh for each point.
    """

    def __init__(self, kb: "KnowledgeBase", context: Context, inputs: Sequence[VarKey], outputs: Sequence[VarKey],
                 where: Iterable[str] = ()):
        self.kb, self.inputs, self.outputs = kb, tuple(inputs), tuple(outputs)
        self.where = list(where)
        self.units = {k: kb.model.unit_of(k) for k in (*self.inputs, *self.outputs)}
        self.context = _with_trials(kb, context, {k: 1.0 for k in self.inputs}, self.units)
        self.solver = Solver(kb, self.context, self.where)
        plan = self.solver.plan
        missing = [k for k in self.outputs if k not in plan.determined]
        if missing:
            needs = self.solver.solution(missing[0]).needs
            raise NotDetermined(f"{', '.join(missing)} does not follow from this context and "
                                f"{', '.join(self.inputs) or 'the given facts'}", needs)
        self.steps = _steps_between(plan.steps, self.solver.relations, set(self.inputs), set(self.outputs))

    def __call__(self, point: Mapping[VarKey, float]) -> dict[VarKey, Value | None]:
        """``{output: Value or None}`` at ``point`` (display units of the inputs)."""
        solver = self.solver
        if any(step.is_block for step in self.steps):
            solver = Solver(self.kb, _with_trials(self.kb, self.context, point, self.units), self.where)
            return {k: solver.values.get(k) for k in self.outputs}
        solver.notes.clear()
        for key, x in point.items():
            solver.values[key] = self._trial(key, float(x))
        for step in self.steps:
            (r,), (key,) = step.relations, step.outputs
            value = solver.route_value(r, key)  # None when an input is missing at this point
            if value is None:
                solver.values.pop(key, None)
            else:
                solver.values[key] = value
        return {k: solver.values.get(k) for k in self.outputs}

    @property
    def notes(self) -> list[str]:
        return self.solver.notes

    def _trial(self, key: VarKey, x: float) -> Value:
        unit = self.units[key]
        origin = FactOrigin(key, None, TRIAL_SOURCE, None, "set")
        return Value(key, x, unit, self.kb.units.to_canonical(x, unit), origin)


def _with_trials(kb, context: Context, point: Mapping[VarKey, float], units: Mapping[VarKey, str]) -> Context:
    facts = dict(context.facts)
    overrides = dict(context.overrides)
    for key, x in point.items():
        facts[key] = Fact(key, float(x), units[key], repr(float(x)), TRIAL_SOURCE, None, Location("--sweep"),
                          tolerance=0.0)
        overrides[key] = "set"
    return Context(context.entities, facts, overrides)


def _steps_between(steps: Sequence[Step], relations, inputs: set, outputs: set) -> list[Step]:
    """The plan steps that depend on ``inputs`` and lead to ``outputs``, in plan order."""
    producer = {k: i for i, s in enumerate(steps) for k in s.outputs}
    needed: set[int] = set()
    stack = [producer[k] for k in outputs if k in producer]
    while stack:
        i = stack.pop()
        if i in needed:
            continue
        needed.add(i)
        for r in steps[i].relations:
            stack.extend(producer[k] for k in relations[r].keys if k in producer and producer[k] not in needed)
    affected = set(inputs)
    chosen = []
    for i, step in enumerate(steps):
        keys = {k for r in step.relations for k in relations[r].keys} - set(step.outputs)
        if i in needed and keys & affected:
            chosen.append(step)
            affected.update(step.outputs)
    return chosen
