"""Thresholds: a variable under ``--where`` inequalities, as the intervals where they hold.

``hwkb solve d_qk --gpu h100-sxm --where 'd_v = d_qk' --where 'exp_utilization[fp8] <= 1'``:
the equalities join the relations (:meth:`hwkb.kb.KnowledgeBase.where_relations`),
the inequalities are the constraints. Two ways to the admissible set:

* **exact** — each side of each constraint as a closed form in the target
  (:func:`hwkb.questions.closed_forms.canonical_forms`), then SymPy's ``solveset`` over
  the positive reals, intersected;
* **numeric** — where there is no closed form (a simulated rule, ``min``,
  ``floor``) or SymPy gives up: the constraint is evaluated by the solver at
  trial values of the target (:class:`hwkb.solving.points.PointEvaluator`), so
  forward-only relations work too; the searches are :mod:`hwkb.questions.searches`.

The :class:`~hwkb.solving.solution.Solution` carries ``intervals`` (display units;
``None`` is unbounded) and a ``value``: for an integer variable the least
admissible integer; for a real one the threshold — the lower end of the
admissible set when that is positive, else its finite upper end. A fact of
the variable that an entity or a default states is set aside (the question is
which values would do); one given with ``--set``, or a value the context
derives, is checked against the constraints instead.

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> s = solve_constrained(kb, "d_qk", kb.context("h100-sxm"), ["d_v = d_qk", "exp_utilization[fp8] <= 1"])
>>> s.magnitude, [str(i) for i in s.intervals]
(128.0, ['[128, inf)'])
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import sympy

from hwkb.definitions.symbolic import to_sympy
from hwkb.definitions.model import VarKey, split_key
from hwkb.errors import KBError, NoClosedForm, NotDetermined, QueryError, UnevaluablePoint
from hwkb.questions.closed_forms import canonical_forms, exact_number
from hwkb.questions.searches import Admissible, least_integer, scan_reals, search_integers, threshold
from hwkb.solving.context import Context
from hwkb.solving.points import PointEvaluator
from hwkb.solving.relations import symbol_of
from hwkb.solving.solution import Interval, Solution, Status
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import RuleOrigin, Value

__all__ = ["Constraint", "parse_constraints", "admissible_set", "solve_constrained", "METHODS"]

METHODS = ("auto", "exact", "numeric")
_RELATIONALS = {"<=": sympy.Le, ">=": sympy.Ge, "<": sympy.Lt, ">": sympy.Gt}
_HARD = (sympy.Min, sympy.Max, sympy.floor, sympy.ceiling, sympy.Piecewise)


@dataclass(frozen=True)
class Constraint:
    """One ``--where`` inequality, its sides in canonical numbers of its keys' symbols."""
    text: str
    op: str
    lhs: sympy.Expr
    rhs: sympy.Expr
    keys: tuple[VarKey, ...]

    def relational(self, lhs: sympy.Expr, rhs: sympy.Expr):
        return _RELATIONALS[self.op](lhs, rhs)

    def holds(self, values: Mapping[VarKey, float]) -> bool | None:
        """At canonical values of its keys; None when a key has no value."""
        if any(k not in values or values[k] is None for k in self.keys):
            return None
        subs = {symbol_of(k): values[k] for k in self.keys}
        left, right = float(self.lhs.xreplace(subs)), float(self.rhs.xreplace(subs))
        return {"<=": left <= right, ">=": left >= right, "<": left < right, ">": left > right}[self.op]


def parse_constraints(kb: System, where: Iterable[str]) -> list[Constraint]:
    """The inequalities among ``where`` (the equalities are relations, not constraints)."""
    out = []
    for i, text in enumerate(where):
        relation = kb.parse_where(text, i)
        if relation.op == "=":
            continue
        symbol = lambda r: symbol_of(str(r))
        keys = tuple(dict.fromkeys(str(r) for r in relation.references()))
        out.append(Constraint(text, relation.op, to_sympy(relation.lhs, symbol), to_sympy(relation.rhs, symbol), keys))
    return out


def solve_constrained(kb: System, variable: VarKey, context: Context, where: list[str], *,
                      method: str = "auto") -> Solution:
    """``variable`` under the ``where`` relations and inequalities; always a Solution (see the module doc)."""
    if method not in METHODS:
        raise QueryError(f"unknown method {method!r}", hint=f"use one of {', '.join(METHODS)}")
    variable = kb.check_key(variable)
    where = list(where)
    constraints = parse_constraints(kb, where)
    variable_def = kb.model.variables[split_key(variable)[0]]
    unit = variable_def.unit
    notes: list[str] = []
    fact = context.facts.get(variable)
    if fact is not None and fact.applicable and variable not in context.overrides:
        context = context.without([variable])
        notes.append(f"set aside {variable} = {fact.value:g} {fact.unit} ({fact.entity or 'default'}) to solve for it")
    solver = Solver(kb, context, where)
    base = solver.solution(variable, needs=False)  # only whether it is determined: no search for needs
    if base.determined or base.status == Status.NOT_APPLICABLE:
        return _checked(base, solver, constraints)
    try:
        admissible = admissible_set(kb, variable, context, constraints, where, method=method)
    except NotDetermined as exc:
        return Solution(variable, Status.UNDERDETERMINED, unit, needs=exc.needs,
                        notes=(*notes, f"the constraints cannot be evaluated: {exc.message}"))
    intervals = admissible.intervals
    notes += admissible.notes
    if variable_def.integer:
        magnitude = admissible.least if admissible.least is not None else least_integer(admissible.intervals)
    else:
        magnitude = threshold(admissible.intervals)
    if not admissible.intervals:
        notes.append("no positive value satisfies " + " and ".join(repr(c.text) for c in constraints))
        return Solution(variable, Status.INCONSISTENT, unit, intervals=intervals, notes=tuple(notes))
    if magnitude is None and variable_def.integer:
        notes.append("no positive integer satisfies " + " and ".join(repr(c.text) for c in constraints))
        return Solution(variable, Status.INCONSISTENT, unit, intervals=intervals, notes=tuple(notes))
    if magnitude is None:
        notes.append(f"the constraints leave {variable} without a threshold")
        return Solution(variable, Status.UNDERDETERMINED, unit, intervals=intervals, notes=tuple(notes))
    value = _threshold_value(kb, variable, unit, float(magnitude), context, constraints, where)
    return Solution(variable, Status.DERIVED, unit, value, intervals=intervals, notes=tuple(notes))


def admissible_set(kb: System, variable: VarKey, context: Context, constraints: Sequence[Constraint],
                   where: Sequence[str] = (), *, method: str = "auto") -> Admissible:
    """Where all ``constraints`` hold as ``variable`` varies over the positive reals (integers if it is one)."""
    if method in ("auto", "exact"):
        try:
            return _exact(kb, variable, context, constraints, where)
        except NoClosedForm as exc:
            if method == "exact":
                raise NoClosedForm(f"no exact solution for {variable}: {exc}") from exc
            reason = f"{exc.message if isinstance(exc, QueryError) else exc}"
            found = _numeric(kb, variable, context, constraints, where)
            return Admissible(found.variable, found.intervals, found.method,
                              (f"solved numerically ({reason})", *found.notes), found.least)
    return _numeric(kb, variable, context, constraints, where)


def _exact(kb, variable, context, constraints, where) -> Admissible:
    keys = [k for c in constraints for k in c.keys if k != variable]
    forms, _ = canonical_forms(kb, list(dict.fromkeys(keys)), context, [variable], where)
    x = symbol_of(variable)
    factor = exact_number(kb.units.to_canonical(1.0, kb.model.unit_of(variable)))
    subs = {symbol_of(k): e for k, e in forms.items()}
    domain = sympy.Interval.open(0, sympy.oo)
    admissible = domain
    for c in constraints:
        lhs = c.lhs.xreplace(subs).xreplace({x: x * factor})
        rhs = c.rhs.xreplace(subs).xreplace({x: x * factor})
        if any(x in a.free_symbols for a in (lhs - rhs).atoms(*_HARD)):
            raise NoClosedForm(f"{c.text!r} goes through min, max, floor or ceil")
        try:
            found = sympy.solveset(c.relational(lhs, rhs), x, domain)
        except (NotImplementedError, ValueError, TypeError) as exc:
            raise NoClosedForm(f"SymPy cannot solve {c.text!r}: {exc}") from exc
        admissible = sympy.Intersection(admissible, found)
    intervals = _intervals_of(admissible)
    if intervals is None:
        raise NoClosedForm(f"SymPy gives {admissible}")
    return Admissible(variable, intervals, "exact", ("solved exactly (SymPy solveset over the positive reals)",))


def _intervals_of(s) -> tuple[Interval, ...] | None:
    if s is sympy.S.EmptySet:
        return ()
    if isinstance(s, sympy.Interval):
        if not (s.start.is_number and s.end.is_number):
            return None
        bound = lambda b: None if b in (sympy.oo, -sympy.oo) else float(b)
        return (Interval(bound(s.start), bound(s.end), not s.left_open and s.start != -sympy.oo,
                         not s.right_open and s.end != sympy.oo),)
    if isinstance(s, sympy.FiniteSet):
        if not all(p.is_number and p.is_real for p in s):
            return None
        return tuple(Interval(float(p), float(p), True, True) for p in sorted(s))
    if isinstance(s, sympy.Union):
        parts = [_intervals_of(a) for a in s.args]
        if any(p is None for p in parts):
            return None
        return tuple(sorted((i for p in parts for i in p), key=lambda i: (i.lower or 0.0)))
    return None


# ---------------------------------------------------------------- numeric

def _numeric(kb, variable, context, constraints, where) -> Admissible:
    keys = list(dict.fromkeys(k for c in constraints for k in c.keys if k != variable))
    evaluator = PointEvaluator(kb, context, [variable], keys, where)
    unit = kb.model.unit_of(variable)
    cache: dict[float, bool] = {}

    def feasible(x: float) -> bool:
        if x not in cache:
            try:
                point = evaluator({variable: x})
            except KBError as exc:  # e.g. a simulation too large to run at this point
                raise UnevaluablePoint(variable, x, exc.message) from None
            values = {k: (None if v is None else v.canonical) for k, v in point.items()}
            values[variable] = kb.units.to_canonical(x, unit)
            cache[x] = all(c.holds(values) for c in constraints)
        return cache[x]

    if kb.model.variables[split_key(variable)[0]].integer:
        return search_integers(variable, feasible)
    return scan_reals(variable, feasible)



# ---------------------------------------------------------------- answers

def _threshold_value(kb, variable, unit, magnitude, context, constraints, where) -> Value:
    keys = list(dict.fromkeys(k for c in constraints for k in c.keys if k != variable))
    inputs: tuple[Value, ...] = ()
    try:
        values = PointEvaluator(kb, context, [variable], keys, where)({variable: magnitude})
        inputs = tuple(v for v in values.values() if v is not None)
    except QueryError:
        pass
    texts = " and ".join(c.text for c in constraints)
    origin = RuleOrigin(f"where {texts}", "constraint", "given on the command line", inputs)
    return Value(variable, magnitude, unit, kb.units.to_canonical(magnitude, unit), origin)


def _checked(base: Solution, solver, constraints) -> Solution:
    """A determined variable: the constraints are checks on the values ``solver`` gave it from the context."""
    if base.value is None:
        return base
    values = {k: v.canonical for k, v in solver.values.items()}
    notes, broken = list(base.notes), []
    for c in constraints:
        state = c.holds(values)
        if state is None:
            notes.append(f"{c.text!r} cannot be checked here: not all of {', '.join(c.keys)} are determined")
        elif state:
            notes.append(f"{c.text!r} holds")
        else:
            broken.append(c.text)
            notes.append(f"{c.text!r} does not hold in this context")
    status = Status.INCONSISTENT if broken else base.status
    return Solution(base.variable, status, base.unit, base.value, base.alternatives, base.needs,
                    None, tuple(notes), base.extra)
