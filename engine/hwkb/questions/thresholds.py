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
``None`` is unbounded) and, as its headline, the bound the constraints imply
(kb/README.md, "Inequalities"): ``regs_per_thread <= 64`` when the admissible set
ends above, ``d_qk >= 128`` when it starts above the domain's least value, the
interval ``7681–8192`` when both (an equality through ``ceil`` pinned to a number,
``blocks_per_grid = 16 block``, is searched as the two inequalities); an integer
variable's bound is an integer. ``extra["bound"]`` names the side (``upper``,
``lower`` or ``both``; then ``value`` is the lower end and ``extra["upper"]`` the
upper). The domain is the positive numbers up to the launch limits that name the
variable (:mod:`hwkb.solving.limit_rules`). No admissible value there is
``infeasible``: the answer names the best value the constrained quantity reaches
and the limit that holds it there. A fact of the variable that an entity or a
default states is set aside (the question is which values would do), and with it
the stated figures that would still fix it (the MI300X's bus width and data rate,
once its bandwidth is set aside), each named in a note; one given with ``--set``,
or a value the context derives, is checked against the constraints instead.

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> s = solve_constrained(kb, "d_qk", kb.context("h100-sxm"), ["d_v = d_qk", "exp_utilization[fp8] <= 1"])
>>> s.magnitude, s.extra["bound"], s.intervals
(128.0, 'lower', (Interval(lower=128.0, upper=None, lower_closed=True, upper_closed=False),))
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import sympy

from hwkb.definitions.expressions import references
from hwkb.definitions.model import VarKey, split_key
from hwkb.definitions.symbolic import to_sympy
from hwkb.errors import KBError, NoClosedForm, NotDetermined, QueryError, UnevaluablePoint
from hwkb.questions.closed_forms import canonical_forms, exact_number
from hwkb.questions.set_aside import set_aside
from hwkb.questions.reachable import best_reached
from hwkb.questions.searches import (MAX_INTEGER, REAL_PROBES, Admissible, greatest_integer, least_integer, scan_reals,
                                     search_integers)
from hwkb.solving.context import Context
from hwkb.solving.limit_rules import largest_within, limits_on
from hwkb.solving.points import PointEvaluator
from hwkb.solving.relations import symbol_of
from hwkb.solving.solution import Interval, Solution, Status
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import RuleOrigin, Value

__all__ = ["Constraint", "Domain", "SearchEdge", "AlsoAdmissible", "parse_constraints", "pinned_equalities", "launch_domain", "admissible_set",
           "solve_constrained", "METHODS"]

METHODS = ("auto", "exact", "numeric")
_RELATIONALS = {"<=": sympy.Le, ">=": sympy.Ge, "<": sympy.Lt, ">": sympy.Gt, "=": sympy.Eq}
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
        left, right = self.sides(values)
        equal = math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-300)
        return {"<=": left <= right, ">=": left >= right, "<": left < right, ">": left > right, "=": equal}[self.op]

    def sides(self, values: Mapping[VarKey, float]) -> tuple[float, float]:
        subs = {symbol_of(k): values[k] for k in self.keys}
        return float(self.lhs.xreplace(subs)), float(self.rhs.xreplace(subs))

    def slack(self, values: Mapping[VarKey, float]) -> float:
        """How far inside (positive) or outside (negative) the constraint a point lies, relative to its bound: the
        log of the sides' ratio where both are positive, so a side a billion times short still ranks below one
        a thousand times short."""
        left, right = self.sides(values)
        if left > 0 and right > 0:
            ratio = math.log(left) - math.log(right)
            return -abs(ratio) if self.op == "=" else ratio if self.op in (">=", ">") else -ratio
        scale = max(abs(right), abs(left), 1e-300)
        if self.op == "=":
            return -abs(left - right) / scale
        return (left - right) / scale if self.op in (">=", ">") else (right - left) / scale

    def side_text(self, left: bool) -> str:
        lhs, _, rhs = self.text.partition(self.op)
        return (lhs if left else rhs).strip()


def parse_constraints(kb: System, where: Iterable[str], pinned: bool = False) -> list[Constraint]:
    """The inequalities among ``where`` (the equalities are relations, not constraints), and with ``pinned`` the
    equalities that pin an expression to a number (``blocks_per_grid = 16 block``), searched as constraints when the
    laws cannot invert them (through ``ceil``, ``floor``, ``min`` or ``max``)."""
    out = []
    for i, text in enumerate(where):
        relation = kb.parse_where(text, i)
        if relation.op == "=" and not (pinned and _is_pinned(relation)):
            continue
        symbol = lambda r: symbol_of(str(r))
        keys = tuple(dict.fromkeys(str(r) for r in relation.references()))
        out.append(Constraint(text, relation.op, to_sympy(relation.lhs, symbol), to_sympy(relation.rhs, symbol), keys))
    return out


@dataclass(frozen=True)
class Domain:
    """Where the variable may lie before any constraint: the positive numbers, up to ``upper`` when launch limits
    (``limits``, the rules that set it) cap it."""
    upper: float | None = None
    limits: tuple[str, ...] = ()


@dataclass(frozen=True)
class AlsoAdmissible:
    """A note: the headline is the first admissible run; these ``intervals`` are admissible too."""
    intervals: tuple[Interval, ...]


@dataclass(frozen=True)
class SearchEdge:
    """A note: ``variable`` was searched up to ``upper`` (in ``unit``), the edge the launch ``limits`` put on it."""
    variable: VarKey
    upper: float
    unit: str
    limits: tuple[str, ...]


def pinned_equalities(kb: System, where: Iterable[str]) -> list[str]:
    """The ``where`` equalities that pin an expression to a number (``blocks_per_grid = 16 block``)."""
    return [text for i, text in enumerate(where) if kb.parse_where(text, i).op == "=" and
            _is_pinned(kb.parse_where(text, i))]


def _is_pinned(relation) -> bool:
    return any(not list(references(side)) for side in (relation.lhs, relation.rhs))


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
        context, set_aside_notes = set_aside(kb, variable, context, where)
        notes += set_aside_notes
    solver = Solver(kb, context, where)
    base = solver.solution(variable, needs=False)  # only whether it is determined: no search for needs
    if base.determined or (fact is not None and not fact.applicable):  # needs=False cannot tell n/a: no search
        return _checked(base, solver, constraints, notes)
    pinned = pinned_equalities(kb, where)
    if pinned:  # the laws cannot invert them: search them as constraints
        where = [w for w in where if w not in pinned]
        constraints = parse_constraints(kb, [*where, *pinned], pinned=True)
        notes.append("searched " + " and ".join(repr(p) for p in pinned) + " as constraints: the laws do not "
                     f"invert them for {variable}")
    if not constraints:
        return Solver(kb, context, where).solution(variable)
    domain = launch_domain(kb, variable, context)
    if domain.limits:
        notes.append(SearchEdge(variable, domain.upper, unit, tuple(domain.limits)))
    try:
        admissible = admissible_set(kb, variable, context, constraints, where, method=method, domain=domain)
    except NotDetermined as exc:
        return Solution(variable, Status.UNDERDETERMINED, unit, needs=exc.needs,
                        notes=(*notes, f"the constraints cannot be evaluated: {exc.message}"))
    intervals = admissible.intervals
    notes += admissible.notes
    headline = _headline(intervals[:1], domain, variable_def.integer)  # the first run; the others are noted
    if len(intervals) > 1:
        notes.append(AlsoAdmissible(tuple(intervals[1:])))
    if headline is None:
        kind = "integer" if variable_def.integer and intervals else "value"
        notes.append(f"no positive {kind} {'within the launch limits ' if domain.limits else ''}satisfies "
                     + " and ".join(repr(c.text) for c in constraints))
        extra = best_reached(kb, variable, context, constraints, where, domain.upper, variable_def.integer)
        return Solution(variable, Status.INFEASIBLE, unit, intervals=intervals, notes=tuple(notes), extra=extra)
    side, low, high = headline
    if side == "none":
        notes.append(f"the constraints leave {variable} without a bound: every positive value satisfies them")
        return Solution(variable, Status.UNDERDETERMINED, unit, intervals=intervals, notes=tuple(notes))
    if side == "both" and low <= (1.0 if variable_def.integer else 0.0):
        notes.append(f"every value of {variable} up to the launch limit satisfies the constraints")
    magnitude = high if side == "upper" else low
    value = _threshold_value(kb, variable, unit, float(magnitude), context, constraints, where)
    extra = {"bound": side, **({"upper": float(high)} if side == "both" else {})}
    return Solution(variable, Status.DERIVED, unit, value, intervals=intervals, notes=tuple(notes), extra=extra)


def launch_domain(kb: System, variable: VarKey, context: Context) -> Domain:
    """The variable's domain: the positive numbers up to the largest value the limit rules naming it allow in
    this context (:mod:`hwkb.solving.limit_rules`); unbounded when none applies."""
    limits = limits_on(kb.limits, variable)
    if not limits:
        return Domain()
    integer = kb.model.variables[split_key(variable)[0]].integer
    unit = kb.model.unit_of(variable)
    known = {k: kb.units.to_canonical(f.value, f.unit) for limit in limits for k in limit.keys
             if k != variable and (f := context.facts.get(k)) is not None and f.value is not None}

    def broken(x: float) -> tuple[str, ...]:
        values = {**known, variable: kb.units.to_canonical(x, unit)}
        return tuple(limit.name for limit in limits if limit.holds(values) is False)

    upper = largest_within(lambda x: not broken(x), integer, float(MAX_INTEGER) if integer else REAL_PROBES[-1])
    if upper is None:
        return Domain()
    return Domain(upper, broken(upper + 1 if integer else upper * (1 + 1e-9)))


def _headline(intervals: Sequence[Interval], domain: Domain, integer: bool) -> tuple[str, float, float | None] | None:
    """The bound the admissible set implies, as (side, low, high): ``upper`` when only its upper end is a bound
    (its lower end is the domain's), ``lower`` when only its lower end is, ``both`` when both are (or when the
    set is the whole bounded domain), ``none`` for the whole positive half-line; None when it holds no value."""
    if not intervals:
        return None
    if integer:
        least, greatest = least_integer(intervals), greatest_integer(intervals)
        if least is None or (greatest is None and intervals[-1].upper is not None) or \
                (greatest is not None and greatest < least):
            return None
        low, high = float(least), None if greatest is None else float(greatest)
    else:
        low, high = intervals[0].lower or 0.0, intervals[-1].upper
    lower_bound = low > (1.0 if integer else 0.0)
    upper_bound = high is not None and (domain.upper is None or high < domain.upper)
    if upper_bound and not lower_bound:
        return "upper", low, high
    if lower_bound and not upper_bound:
        return "lower", low, high
    if high is None:
        return "none", low, None
    return "both", low, high


def admissible_set(kb: System, variable: VarKey, context: Context, constraints: Sequence[Constraint],
                   where: Sequence[str] = (), *, method: str = "auto", domain: Domain = Domain()) -> Admissible:
    """Where all ``constraints`` hold as ``variable`` varies over its domain: the positive reals (integers if it
    is one), up to ``domain.upper``."""
    if method in ("auto", "exact"):
        try:
            return _exact(kb, variable, context, constraints, where, domain)
        except NoClosedForm as exc:
            if method == "exact":
                raise NoClosedForm(f"no exact solution for {variable}: {exc}") from exc
            reason = f"{exc.message if isinstance(exc, QueryError) else exc}"
            found = _numeric(kb, variable, context, constraints, where, domain)
            return Admissible(found.variable, found.intervals, found.method,
                              (f"solved numerically ({reason})", *found.notes), found.least)
    return _numeric(kb, variable, context, constraints, where, domain)


def _exact(kb, variable, context, constraints, where, domain: Domain = Domain()) -> Admissible:
    keys = [k for c in constraints for k in c.keys if k != variable]
    forms, _ = canonical_forms(kb, list(dict.fromkeys(keys)), context, [variable], where)
    x = symbol_of(variable)
    factor = exact_number(kb.units.to_canonical(1.0, kb.model.unit_of(variable)))
    subs = {symbol_of(k): e for k, e in forms.items()}
    domain = (sympy.Interval.open(0, sympy.oo) if domain.upper is None
              else sympy.Interval.Lopen(0, exact_number(domain.upper)))
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

def _numeric(kb, variable, context, constraints, where, domain: Domain = Domain()) -> Admissible:
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
        return search_integers(variable, feasible, None if domain.upper is None else int(domain.upper))
    return scan_reals(variable, feasible, domain.upper)


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


def _checked(base: Solution, solver, constraints, notes: Sequence[str] = ()) -> Solution:
    """A determined variable: the constraints are checks on the values ``solver`` gave it from the context
    (``notes``: what was set aside before)."""
    if base.value is None:
        return base
    values = {k: v.canonical for k, v in solver.values.items()}
    notes, broken = [*base.notes, *notes], []
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
