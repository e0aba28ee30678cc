"""Thresholds: a variable under ``--where`` inequalities, as the intervals where they hold.

``hwkb solve d_qk --gpu h100-sxm --where 'd_v = d_qk' --where 'exp_utilization[fp8] <= 1'``:
the equalities join the relations (:meth:`hwkb.kb.KnowledgeBase.where_relations`),
the inequalities are the constraints. Two ways to the admissible set:

* **exact** — each side of each constraint as a closed form in the target
  (:func:`hwkb.questions.closed_forms.canonical_forms`), then SymPy's ``solveset`` over
  the positive reals, intersected;
* **numeric** — where there is no closed form (a simulated rule, ``min``,
  ``floor``) or SymPy gives up: the constraint is evaluated by the solver at
  trial values of the target (:class:`hwkb.questions.sweeps.PointEvaluator`), so
  forward-only relations work too. Integers: doubling, then bisection for the
  least admissible one, then doubling on to where the admissible run ends
  (one run of integers is assumed). Reals: a geometric scan over 2^-40 .. 2^60
  in the variable's unit, 2^(1/8) apart, boundaries bisected and each end
  tested for whether it belongs.

The :class:`~hwkb.solving.solver.Solution` carries ``intervals`` (display units;
``None`` is unbounded) and a ``value``: for an integer variable the least
admissible integer; for a real one the threshold — the lower end of the
admissible set when that is positive, else its finite upper end. A fact of
the variable that an entity or a default states is set aside (the question is
which values would do); one given with ``--set``, or a value the context
derives, is checked against the constraints instead.

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> s = solve_constrained(kb, "d_qk", kb.context("h100-sxm"), ["d_v = d_qk", "exp_utilization[fp8] <= 1"])
>>> s.magnitude, s.intervals
(128.0, ({'lower': 128.0, 'upper': None, 'lower_closed': True, 'upper_closed': False},))
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

import sympy

from hwkb.solving.context import Context
from hwkb.errors import KBError, QueryError
from hwkb.definitions.model import VarKey, split_key
from hwkb.solving.relations import symbol_of
from hwkb.solving.solver import Solution, Solver
from hwkb.errors import NoClosedForm, NotDetermined
from hwkb.questions.closed_forms import canonical_forms, exact_number, without
from hwkb.solving.values import RuleOrigin, Value

if TYPE_CHECKING:
    from hwkb.kb import KnowledgeBase

__all__ = ["Constraint", "Interval", "Admissible", "parse_constraints", "admissible_set", "solve_constrained",
           "least_integer", "METHODS"]

METHODS = ("auto", "exact", "numeric")
_RELATIONALS = {"<=": sympy.Le, ">=": sympy.Ge, "<": sympy.Lt, ">": sympy.Gt}
_HARD = (sympy.Min, sympy.Max, sympy.floor, sympy.ceiling, sympy.Piecewise)
REAL_PROBES = tuple(2.0 ** (k / 8) for k in range(-40 * 8, 60 * 8 + 1))  # 2^(1/8) apart: windows of 9 %
MAX_INTEGER = 2 ** 40
SEARCH_BUDGET_S = 20.0


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


@dataclass(frozen=True)
class Interval:
    """Admissible values from ``lower`` to ``upper`` (display units; None is unbounded)."""
    lower: float | None
    upper: float | None
    lower_closed: bool
    upper_closed: bool

    def to_dict(self) -> dict:
        return {"lower": self.lower, "upper": self.upper, "lower_closed": self.lower_closed,
                "upper_closed": self.upper_closed}


@dataclass(frozen=True)
class Admissible:
    """Where the constraints hold, how that was found, and the least integer when one was searched for."""
    variable: VarKey
    intervals: tuple[Interval, ...]
    method: str  # exact | numeric
    notes: tuple[str, ...] = ()
    least: int | None = None


def parse_constraints(kb: "KnowledgeBase", where: Iterable[str]) -> list[Constraint]:
    """The inequalities among ``where`` (the equalities are relations, not constraints)."""
    from hwkb.definitions.expressions import to_sympy
    out = []
    for i, text in enumerate(where):
        relation = kb.parse_where(text, i)
        if relation.op == "=":
            continue
        symbol = lambda r: symbol_of(str(r))
        keys = tuple(dict.fromkeys(str(r) for r in relation.references()))
        out.append(Constraint(text, relation.op, to_sympy(relation.lhs, symbol), to_sympy(relation.rhs, symbol), keys))
    return out


def solve_constrained(kb: "KnowledgeBase", variable: VarKey, context: Context, where: list[str], *,
                      method: str = "auto") -> Solution:
    """``variable`` under the ``where`` relations and inequalities; always a Solution (see the module doc)."""
    if method not in METHODS:
        raise QueryError(f"unknown method {method!r}", hint=f"use one of {', '.join(METHODS)}")
    kb.check_key(variable)
    where = list(where)
    constraints = parse_constraints(kb, where)
    variable_def = kb.model.variables[split_key(variable)[0]]
    unit = variable_def.unit
    notes: list[str] = []
    fact = context.facts.get(variable)
    if fact is not None and fact.applicable and variable not in context.overrides:
        context = without(context, [variable])
        notes.append(f"set aside {variable} = {fact.value:g} {fact.unit} ({fact.entity or 'default'}) to solve for it")
    solver = Solver(kb, context, where)
    base = solver.solution(variable)
    if base.determined or base.status == "not_applicable":
        return _checked(base, solver, constraints)
    try:
        admissible = admissible_set(kb, variable, context, constraints, where, method=method)
    except NotDetermined as exc:
        return Solution(variable, "underdetermined", unit, needs=exc.needs,
                        notes=(*notes, f"the constraints cannot be evaluated: {exc.message}"))
    intervals = tuple(i.to_dict() for i in admissible.intervals)
    notes += admissible.notes
    if variable_def.integer:
        magnitude = admissible.least if admissible.least is not None else least_integer(admissible.intervals)
    else:
        magnitude = threshold(admissible.intervals)
    if not admissible.intervals:
        notes.append("no positive value satisfies " + " and ".join(repr(c.text) for c in constraints))
        return Solution(variable, "inconsistent", unit, intervals=intervals, notes=tuple(notes))
    if magnitude is None and variable_def.integer:
        notes.append("no positive integer satisfies " + " and ".join(repr(c.text) for c in constraints))
        return Solution(variable, "inconsistent", unit, intervals=intervals, notes=tuple(notes))
    if magnitude is None:
        notes.append(f"the constraints leave {variable} without a threshold")
        return Solution(variable, "underdetermined", unit, intervals=intervals, notes=tuple(notes))
    value = _threshold_value(kb, variable, unit, float(magnitude), context, constraints, where)
    return Solution(variable, "derived", unit, value, intervals=intervals, notes=tuple(notes))


def admissible_set(kb: "KnowledgeBase", variable: VarKey, context: Context, constraints: Sequence[Constraint],
                   where: Sequence[str] = (), *, method: str = "auto") -> Admissible:
    """Where all ``constraints`` hold as ``variable`` varies over the positive reals (integers if it is one)."""
    if method in ("auto", "exact"):
        try:
            return _exact(kb, variable, context, constraints, where)
        except (NoClosedForm, _GiveUp) as exc:
            if method == "exact":
                raise NoClosedForm(f"no exact solution for {variable}: {exc}") from exc
            reason = f"{exc.message if isinstance(exc, QueryError) else exc}"
            found = _numeric(kb, variable, context, constraints, where)
            return Admissible(found.variable, found.intervals, found.method,
                              (f"solved numerically ({reason})", *found.notes), found.least)
    return _numeric(kb, variable, context, constraints, where)


class _GiveUp(Exception):
    """SymPy could not give the admissible set as intervals."""


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
            raise _GiveUp(f"{c.text!r} goes through min, max, floor or ceil")
        try:
            found = sympy.solveset(c.relational(lhs, rhs), x, domain)
        except (NotImplementedError, ValueError, TypeError) as exc:
            raise _GiveUp(f"SymPy cannot solve {c.text!r}: {exc}") from exc
        admissible = sympy.Intersection(admissible, found)
    intervals = _intervals_of(admissible)
    if intervals is None:
        raise _GiveUp(f"SymPy gives {admissible}")
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
    from hwkb.questions.sweeps import PointEvaluator
    keys = list(dict.fromkeys(k for c in constraints for k in c.keys if k != variable))
    evaluator = PointEvaluator(kb, context, [variable], keys, where)
    unit = kb.model.unit_of(variable)
    cache: dict[float, bool] = {}

    def feasible(x: float) -> bool:
        if x not in cache:
            try:
                point = evaluator({variable: x})
            except KBError as exc:  # e.g. a simulation too large to run at this point
                raise _Unevaluable(f"{variable} = {x:g}: {exc.message}") from None
            values = {k: (None if v is None else v.canonical) for k, v in point.items()}
            values[variable] = kb.units.to_canonical(x, unit)
            cache[x] = all(c.holds(values) for c in constraints)
        return cache[x]

    if kb.model.variables[split_key(variable)[0]].integer:
        return _integer_search(variable, feasible)
    return _real_scan(variable, feasible)


def _integer_search(variable: VarKey, feasible: Callable[[float], bool]) -> Admissible:
    deadline = time.monotonic() + SEARCH_BUDGET_S
    below, probe = 0, 1
    try:
        while probe <= MAX_INTEGER and not feasible(probe):
            if time.monotonic() > deadline:
                return Admissible(variable, (), "numeric", (f"no admissible integer up to {probe} "
                                                            f"(search stopped after {SEARCH_BUDGET_S:g} s)",))
            below, probe = probe, probe * 2
    except _Unevaluable as exc:
        raise NotDetermined(f"the search stopped before any admissible value: {exc}") from None
    if probe > MAX_INTEGER:
        return Admissible(variable, (), "numeric", (f"no admissible integer up to {MAX_INTEGER}",))
    least = _bisect_int(feasible, below, probe)
    upper, last, stopped = None, probe, ""
    try:
        while last < MAX_INTEGER and time.monotonic() <= deadline:  # where the admissible run of integers ends
            further = min(last * 2, MAX_INTEGER)
            if not feasible(further):
                upper = _bisect_int(lambda n: not feasible(n), last, further) - 1
                break
            last = further
    except _Unevaluable as exc:
        stopped = f" ({exc})"
    if upper is None and last < MAX_INTEGER:
        note = f"searched over the integers (doubling, then bisection); the end was not found up to {last}{stopped}"
    else:
        note = ("searched over the integers (doubling, then bisection), assuming the admissible integers are "
                "one run" + (f" up to {MAX_INTEGER}" if upper is None else ""))
    return Admissible(variable, (Interval(float(least), None if upper is None else float(upper), True,
                                          upper is not None),), "numeric", (note,), least)


class _Unevaluable(Exception):
    """The constraints cannot be evaluated at a point (the message says why)."""


def _bisect_int(holds: Callable[[float], bool], lo: int, hi: int) -> int:
    """The least n in (lo, hi] with holds(n), given holds(hi) and not holds(lo)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _real_scan(variable: VarKey, evaluate: Callable[[float], bool]) -> Admissible:
    unevaluable: list[str] = []

    def feasible(x: float) -> bool:
        try:
            return evaluate(x)
        except _Unevaluable as exc:
            unevaluable.append(str(exc))
            return False

    states = [feasible(x) for x in REAL_PROBES]
    intervals, start = [], None
    for i, state in enumerate(states):
        if state and start is None:
            start = 0.0 if i == 0 else _boundary(feasible, REAL_PROBES[i - 1], REAL_PROBES[i])
        if not state and start is not None:
            intervals.append((start, _boundary(feasible, REAL_PROBES[i - 1], REAL_PROBES[i])))
            start = None
    if start is not None:
        intervals.append((start, None))
    out = tuple(Interval(lo, hi, lo != 0.0 and feasible(lo), hi is not None and feasible(hi)) for lo, hi in intervals)
    note = (f"scanned {REAL_PROBES[0]:g} .. {REAL_PROBES[-1]:g} by factors of 2^(1/8) and bisected the boundaries "
            "(a window narrower than 9 % can be missed)")
    notes = (note,) + ((f"{len(unevaluable)} points could not be evaluated, e.g. {unevaluable[0]}",) if unevaluable else ())
    return Admissible(variable, out, "numeric", notes)


def _boundary(feasible: Callable[[float], bool], a: float, b: float) -> float:
    """Where feasibility changes between a and b (to about 12 digits)."""
    side = feasible(a)
    for _ in range(60):
        mid = (a + b) / 2
        if feasible(mid) == side:
            a = mid
        else:
            b = mid
    return float(f"{(a + b) / 2:.12g}")


# ---------------------------------------------------------------- answers

def least_integer(intervals: Sequence[Interval]) -> int | None:
    """The least positive integer in the intervals.

    >>> least_integer([Interval(127.5, None, True, False)]), least_integer([Interval(128.0, None, False, False)])
    (128, 129)
    """
    for interval in intervals:
        lower = interval.lower or 0.0
        nearest = round(lower)
        if abs(lower - nearest) <= _SNAP * max(1.0, abs(lower)):  # 64.00000000001 from float noise is 64
            candidate = nearest if interval.lower_closed else nearest + 1
        else:
            candidate = math.ceil(lower) if interval.lower_closed else math.floor(lower) + 1
        candidate = max(1, candidate)
        upper = interval.upper
        if upper is None or candidate < upper or (candidate <= upper * (1 + _SNAP) and interval.upper_closed):
            return candidate
    return None


_SNAP = 1e-9  # relative: a bound this close to an integer is that integer


def threshold(intervals: Sequence[Interval]) -> float | None:
    """A real variable's answer: the admissible set's lower end when positive, else its finite upper end."""
    if not intervals:
        return None
    first, last = intervals[0], intervals[-1]
    if first.lower:
        return first.lower
    return last.upper


def _threshold_value(kb, variable, unit, magnitude, context, constraints, where) -> Value:
    from hwkb.questions.sweeps import PointEvaluator
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
    status = "inconsistent" if broken else base.status
    return Solution(base.variable, status, base.unit, base.value, base.alternatives, base.needs,
                    None, tuple(notes), base.extra)
