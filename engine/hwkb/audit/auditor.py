"""The datasheet audit: which stated numbers contradict each other, and which one is most likely wrong.

A datasheet states more numbers than it needs: SM count, clocks, per-SM rates and
peaks are tied by laws, so the redundancy is evidence.

**What is checked.** From an entity's stated facts (its own and its ancestry's;
variables' defaults are inputs too, taken as exact and never suspected), the laws
are propagated: a law with one unknown key and an explicit solution for it gives
that key as an expression of stated facts, its *route*. A law left unused with all
its keys known is an over-determination, one independent check: kind ``law`` if
every key is stated, ``stated_vs_derived`` if some key comes by a route. Every
expectation whose keys are all known (stated or derived) is a check of kind
``expectation``: ``clock_fp32 = clock_tc`` on an H100 compares the clock the FP32
peak implies with the one the tensor peak implies. Expectations never derive.

**Verdicts.** Each stated value is an interval, ± its rounding (from the printed
digits, or the fact's tolerance; integer counts are exact). The check's target key
(a stated key outside the other keys' routes where there is one) is compared with
what the relation implies for it, through outward-rounded interval arithmetic
(:mod:`hwkb.audit.enclosures`) on the ratio target / implied, which SymPy has already
cancelled where both sides share a fact: ``consistent`` when the point values
agree to 1e-9, ``within_rounding`` when the ratio's interval holds 1 (widened by
the rule's tolerance), ``inconsistent`` when it does not.

**Suspects.** Over an entity's failed checks (failed laws if any fail, else failed
expectations) each failed check's facts are a conflict; a fact in every conflict
and in no passing check ranks first, then by how many conflicts hold it, how few
passing checks do, whether its factor looks like a known mistake (a sparse figure
under a dense key, bits for bytes, a binary prefix), whether its implied value is
possible (a count must come out whole) and how far it would have to move in units
of its printed precision (the smallest correction first). A failed expectation's
suspects are ranked among the failed expectations: "if a figure is wrong instead". ``implied`` is the value it would need for the others
to agree, found by Newton's method on the check's ratio over all entities at once.

**Speed.** Entities are grouped by the keys they state; the analysis and the
compiled interval functions are shared by a group and evaluated once per check
over numpy arrays of all its entities (``vectorised=False`` loops entity by
entity, for the benchmark's comparison).

>>> from hwkb import KnowledgeBase
>>> report = audit(KnowledgeBase.load(), ["h100-sxm"])
>>> check = next(c for c in report.entities[0].checks if c.rule == "fp32_clock_is_tensor_clock")
>>> check.status, round(check.value.value, 2), round(check.implied.value, 2)
('inconsistent', 1.98, 1.83)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

import numpy as np
import sympy

from hwkb.errors import Location, QueryError, UnknownNameError
from hwkb.audit.hints import SPECIFIC, has_information, hint_for
from hwkb.audit.enclosures import Interval, compile_interval
from hwkb.definitions.model import Entity, EntityId, Fact, VarKey, ancestry, split_key
from hwkb.solving.relations import Relation, key_of_symbol, symbol_of

if TYPE_CHECKING:
    from hwkb.kb import KnowledgeBase

__all__ = ["audit", "Auditor", "AuditReport", "EntityAudit", "Check", "Figure", "Suspect",
           "STATUSES", "CHECK_KINDS"]

STATUSES = ("inconsistent", "within_rounding", "consistent")  # most severe first
CHECK_KINDS = ("law", "stated_vs_derived", "expectation")
CONSISTENT_RELATIVE = 1e-9
EXPECTATION_CAVEAT = "A datasheet can break an expectation without any of its figures being wrong"
_NEWTON_STEP = 1e-7


# ---------------------------------------------------------------- results

@dataclass(frozen=True)
class Figure:
    """One value of a check in its display unit, with its enclosure; ``via`` the rule that gave it (None: stated)."""
    key: VarKey
    value: float
    unit: str
    lower: float
    upper: float
    via: str | None = None
    inputs: tuple[VarKey, ...] = ()   # the other keys of ``via``

    def to_dict(self) -> dict:
        out = {"key": self.key, "value": self.value, "unit": self.unit, "lower": self.lower, "upper": self.upper,
               "via": self.via}
        if self.inputs:
            out["inputs"] = list(self.inputs)
        return out


@dataclass(frozen=True)
class Suspect:
    """A stated fact that may be wrong, and the value it would need for the others to agree."""
    fact: VarKey
    entity: EntityId | None
    value: float
    unit: str
    text: str
    implied: float | None
    move: float | None         # |implied - value| in units of the printed precision
    failed: int                # failed checks holding the fact
    passing: int               # passing checks holding it
    in_every_failed: bool
    plausible: bool = True     # False when a count would have to be fractional
    hint: str | None = None    # a mistake this fact's factor looks like (sparse, bits, binary prefix)

    @property
    def sentence(self) -> str:
        from hwkb.definitions.quantities import format_number
        if self.implied is None:
            return f"{self.fact} alone cannot reconcile the others"
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.fact} would be {format_number(self.implied)}{unit} if the others are right"

    def to_dict(self) -> dict:
        return {"fact": self.fact, "entity": self.entity, "value": self.value, "unit": self.unit, "text": self.text,
                "implied": self.implied, "move": self.move, "failed": self.failed, "passing": self.passing,
                "in_every_failed": self.in_every_failed, "plausible": self.plausible, "hint": self.hint,
                "sentence": self.sentence}


@dataclass(frozen=True)
class Check:
    """One over-determination of an entity's facts and its verdict."""
    rule: str
    kind: str
    status: str
    deviation: float | None      # % of the target's value over the implied one
    variables: tuple[VarKey, ...]  # the stated facts the verdict depends on
    target: VarKey
    value: Figure                # the target as stated (or as its own route gives it)
    implied: Figure              # the target as the relation implies it from the others
    sides: tuple[Figure, ...]    # every known value the check shows (derived ones with their rule)
    doc: str
    source: str
    defaults: tuple[VarKey, ...] = ()
    suspects: tuple[Suspect, ...] = ()
    hint: str | None = None
    tolerance: float = 0.0

    @property
    def severity(self) -> int:
        return STATUSES.index(self.status)

    @property
    def detail(self) -> str:
        from hwkb.definitions.quantities import format_number
        fmt = lambda f: f"{format_number(f.value)}{' ' + f.unit if f.unit else ''}"
        known = {s.key: s for s in self.sides}
        derived = [s for s in self.sides if s.via is not None]
        routes = "; ".join(f"{s.key} = {fmt(s)} from {s.via}"
                           + (f" ({', '.join(f'{i} {fmt(known[i])}' for i in s.inputs if i in known)})" if s.inputs else "")
                           for s in derived)
        own = f"{self.target} = {fmt(self.value)}" + (f" (from {self.value.via})" if self.value.via else " (stated)")
        dev = "" if self.deviation is None else f", {self.deviation:+.3g}%"
        verdict = {"consistent": "agree", "within_rounding": "agree within the printed rounding",
                   "inconsistent": "disagree beyond the printed rounding"}[self.status]
        text = f"{own}; {self.rule} implies {fmt(self.implied)}: {verdict}{dev}"
        if routes:
            text += f" [{routes}]"
        if self.kind == "expectation":
            text = f"expectation: {self.doc} — {text}. {EXPECTATION_CAVEAT}"
        else:
            text = f"{'law' if self.kind == 'law' else 'stated vs derived'}: {self.doc} — {text}"
        if self.suspects and self.status == "inconsistent":
            lead = "if a figure is wrong instead" if self.kind == "expectation" else "likely"
            text += f"; {lead}: {self.suspects[0].sentence}"
        if self.hint:
            text += f"; hint: {self.hint}"
        return text

    def to_dict(self) -> dict:
        return {"rule": self.rule, "kind": self.kind, "status": self.status, "deviation": self.deviation,
                "variables": list(self.variables), "defaults": list(self.defaults), "target": self.target,
                "value": self.value.to_dict(), "implied": self.implied.to_dict(),
                "sides": [s.to_dict() for s in self.sides],
                "suspects": [s.to_dict() for s in self.suspects], "hint": self.hint, "doc": self.doc,
                "source": self.source, "tolerance": self.tolerance, "detail": self.detail}


@dataclass(frozen=True)
class EntityAudit:
    entity: EntityId
    name: str
    checks: tuple[Check, ...]
    suspects: tuple[Suspect, ...] = ()
    conflicts: tuple[tuple[VarKey, ...], ...] = ()   # minimal sets of facts that cannot all be right
    groups: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def status(self) -> str | None:
        return min((c.status for c in self.checks), key=STATUSES.index, default=None)

    def counts(self) -> dict[str, int]:
        return {s: sum(c.status == s for c in self.checks) for s in STATUSES}

    def to_dict(self) -> dict:
        out = {"entity": self.entity, "name": self.name, "status": self.status,
               "checks": [c.to_dict() for c in self.checks],
               "suspects": [s.to_dict() for s in self.suspects], "conflicts": [list(c) for c in self.conflicts]}
        if self.groups:
            out["groups"] = dict(self.groups)
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class AuditReport:
    """What ``audit`` always returns: the entities' checks, most severe first, and a summary."""
    entities: tuple[EntityAudit, ...]
    summary: Mapping[str, object]

    def failed(self, laws_only: bool = False) -> bool:
        return any(c.status == "inconsistent" and not (laws_only and c.kind == "expectation")
                   for e in self.entities for c in e.checks)

    def exit_code(self, fail_on: str = "any") -> int:
        """1 when anything is inconsistent (``fail_on="laws"``: a broken expectation alone does not count)."""
        return 1 if self.failed(laws_only=fail_on == "laws") else 0

    def to_dict(self) -> dict:
        return {"entities": [e.to_dict() for e in self.entities], "summary": dict(self.summary)}


# ---------------------------------------------------------------- analysis of one pattern of stated keys

@dataclass(frozen=True)
class _Route:
    expr: sympy.Expr
    rule: str | None = None                  # None: stated (or a default)
    inputs: tuple[VarKey, ...] = ()


@dataclass(eq=False)
class _Plan:
    """A check as expressions in the stated facts' symbols, compiled to interval functions."""
    relation: Relation
    kind: str
    target: VarKey
    symbols: tuple[VarKey, ...]       # argument order of the compiled functions
    variables: tuple[VarKey, ...]     # stated facts the verdict depends on
    defaults: tuple[VarKey, ...]
    own: Callable
    implied: Callable
    ratio: Callable
    target_via: str | None
    sides: tuple[tuple[VarKey, str | None, tuple[VarKey, ...], Callable, tuple[VarKey, ...]], ...]
    # each: key, the rule of its route, that rule's other keys, the route's function and its symbols


def _propagate(relations: Sequence[Relation], known: Iterable[VarKey]) -> tuple[dict[VarKey, _Route], set[int]]:
    """Routes of every key the laws give from ``known``, round by round (shortest routes first)."""
    routes = {k: _Route(symbol_of(k)) for k in known}
    used: set[int] = set()
    while True:
        found: dict[VarKey, int] = {}
        for i, r in enumerate(relations):
            if i in used or r.kind != "law":
                continue
            unknown = [k for k in r.keys if k not in routes]
            if len(unknown) == 1 and unknown[0] not in found and r.can_solve_for(unknown[0]):
                found[unknown[0]] = i
        if not found:
            return routes, used
        for key, i in found.items():
            r = relations[i]
            expr = r.solution(key).xreplace({symbol_of(k): routes[k].expr for k in r.keys if k != key})
            routes[key] = _Route(expr, r.name, tuple(k for k in r.keys if k != key))
            used.add(i)


class _Compiled:
    """Interval functions shared by every pattern that produces the same expression."""

    def __init__(self):
        self.table: dict = {}

    def __call__(self, expr: sympy.Expr, symbols: tuple[VarKey, ...]) -> Callable:
        key = (expr, symbols)
        if key not in self.table:
            self.table[key] = compile_interval(expr, [symbol_of(k) for k in symbols])
        return self.table[key]


def _choose_target(r: Relation, routes: Mapping[VarKey, _Route]) -> VarKey | None:
    """A stated key outside the other keys' routes, else any key outside them, that the relation solves for."""
    def outside(k):
        return all(symbol_of(k) not in routes[o].expr.free_symbols for o in r.keys if o != k)
    ordered = [k for k in r.keys if routes[k].rule is None] + [k for k in r.keys if routes[k].rule is not None]
    for k in ordered:
        if outside(k) and r.can_solve_for(k):
            return k
    return next((k for k in ordered if r.can_solve_for(k)), None)


def _analyse(kb: "KnowledgeBase", stated: frozenset[VarKey], defaults: frozenset[VarKey],
             not_applicable: frozenset[VarKey], compiled: _Compiled) -> list[_Plan]:
    relations = [r for r in kb.relations if r.template is not None and r.kind in ("law", "expectation")
                 and not (set(r.keys) & not_applicable)]
    routes, used = _propagate(relations, stated | defaults)
    plans = []
    for i, r in enumerate(relations):
        if i in used or not all(k in routes for k in r.keys):
            continue
        target = _choose_target(r, routes)
        if target is None:
            continue
        others = {symbol_of(k): routes[k].expr for k in r.keys if k != target}
        own = routes[target].expr
        implied = r.solution(target).xreplace(others)
        ratio = own / implied
        if ratio == 1 or not (ratio.free_symbols & {symbol_of(k) for k in stated}):
            continue  # an identity, or a check of defaults alone: no evidence about any stated figure
        symbols = tuple(sorted(key_of_symbol(s) for s in (own.free_symbols | implied.free_symbols)))
        in_ratio = {key_of_symbol(s) for s in ratio.free_symbols}
        variables = tuple(k for k in _fact_order(r.keys, routes) if k in in_ratio and k in stated)
        kind = ("expectation" if r.kind == "expectation"
                else "law" if all(routes[k].rule is None for k in r.keys) else "stated_vs_derived")
        shown = _route_keys(r.keys, routes)
        sides = tuple((k, routes[k].rule, routes[k].inputs, compiled(routes[k].expr, _symbols_of(routes[k].expr)),
                       _symbols_of(routes[k].expr)) for k in shown)
        plans.append(_Plan(r, kind, target, symbols, variables,
                           tuple(k for k in symbols if k in defaults),
                           compiled(own, symbols), compiled(implied, symbols), compiled(ratio, symbols),
                           routes[target].rule, sides))
    return plans


def _symbols_of(expr: sympy.Expr) -> tuple[VarKey, ...]:
    return tuple(sorted(key_of_symbol(s) for s in expr.free_symbols))


def _route_keys(keys: Iterable[VarKey], routes: Mapping[VarKey, _Route]) -> list[VarKey]:
    """``keys`` and every key their routes pass through, each once."""
    out: list[VarKey] = []
    for k in keys:
        out += [k, *_route_keys(routes[k].inputs, routes)]
    return list(dict.fromkeys(out))


def _fact_order(keys: Iterable[VarKey], routes: Mapping[VarKey, _Route]) -> list[VarKey]:
    """The stated facts under ``keys`` in the order a reader meets them."""
    out: list[VarKey] = []
    for k in keys:
        route = routes[k]
        out += [k] if route.rule is None else _fact_order(route.inputs, routes)
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------- the auditor

@dataclass
class _Row:
    """One entity's known facts, in canonical numbers."""
    entity: EntityId
    name: str
    facts: dict[VarKey, Fact]
    mid: dict[VarKey, float]
    radius: dict[VarKey, float]
    not_applicable: frozenset[VarKey]
    groups: Mapping[str, str]
    undefined: list[str] = field(default_factory=list)  # rules a zero or infinite figure left unevaluated

    @property
    def pattern(self) -> tuple:
        return (frozenset(k for k, f in self.facts.items() if f.entity is not None),
                frozenset(k for k, f in self.facts.items() if f.entity is None), self.not_applicable)


@dataclass
class _Outcome:
    """A plan's verdict for one entity, before it becomes a :class:`Check`."""
    plan: _Plan
    row: _Row
    status: str
    deviation: float | None
    own: tuple[float, float, float]
    implied: tuple[float, float, float]
    ratio: tuple[float, float]
    spread: float                      # the ratio's relative half-width: how finely the check pins a factor
    sides: list[tuple[VarKey, str | None, tuple[VarKey, ...], float]]
    fact_implied: dict[VarKey, float]


class Auditor:
    """Audits entities against one knowledge base; analyses and compiled functions are kept between calls.

    The stages are separate so the benchmark can time them: :meth:`rows` (facts),
    :meth:`prepare` (analysis and compilation per pattern), :meth:`evaluate` (the
    interval checks), :meth:`report` (suspects, hints, summary).
    """

    def __init__(self, kb: "KnowledgeBase"):
        self.kb = kb
        self._compiled = _Compiled()
        self._plans: dict[tuple, list[_Plan]] = {}
        self._defaults = {k: replace(v.default, key=k) for v in kb.model.variables.values()
                          if v.default is not None for k in v.keys(kb.model.indices)}
        self.timings: dict[str, float] = {}

    # -- stage 1: facts
    def rows(self, entities: Sequence[Entity | str], groups: Mapping[str, Mapping[str, str]] | None = None) -> list[_Row]:
        model, units = self.kb.model, self.kb.units
        extra = {e.id: e for e in entities if isinstance(e, Entity)}
        table = _Entities(model.entities, extra)
        rows, seen = [], set()
        for item in entities:
            eid = item.id if isinstance(item, Entity) else item
            if eid in seen:
                continue  # named twice, audited once
            seen.add(eid)
            if eid not in table:
                raise UnknownNameError("entity", eid, model.entities, where=Location("--gpu"))
            facts = dict(self._defaults)
            for ancestor in table.ancestry(eid):
                facts.update(table[ancestor].facts)
            applicable = {k: f for k, f in facts.items() if f.applicable}
            mid, radius = {}, {}
            for k, f in applicable.items():
                variable = model.variables[split_key(k)[0]]
                mid[k] = units.to_canonical(f.value, f.unit)
                exact = f.entity is None or (variable.integer and f.tolerance in (None, 0.0))
                radius[k] = 0.0 if exact else abs(units.to_canonical(f.rounding, f.unit))
            na = frozenset(k for k, f in facts.items() if not f.applicable)
            rows.append(_Row(eid, table[eid].name, applicable, mid, radius, na, (groups or {}).get(eid, {})))
        return rows

    # -- stage 2: analysis and compilation
    def prepare(self, rows: Sequence[_Row]) -> dict[tuple, list[_Row]]:
        patterns: dict[tuple, list[_Row]] = {}
        for row in rows:
            patterns.setdefault(row.pattern, []).append(row)
        for pattern in patterns:
            if pattern not in self._plans:
                self._plans[pattern] = _analyse(self.kb, *pattern, self._compiled)
        return patterns

    # -- stage 3: the checks
    def evaluate(self, patterns: Mapping[tuple, list[_Row]], vectorised: bool = True) -> list[_Outcome]:
        outcomes: list[_Outcome] = []
        for pattern, rows in patterns.items():
            groups = [rows] if vectorised else [[r] for r in rows]
            for group in groups:
                for plan in self._plans[pattern]:
                    outcomes += _evaluate(plan, group, self.kb)
        return outcomes

    # -- stage 4: suspects, hints, summary
    def report(self, rows: Sequence[_Row], outcomes: Sequence[_Outcome],
               groups: Mapping[str, Mapping[str, str]] | None = None) -> AuditReport:
        by_entity: dict[EntityId, list[_Outcome]] = {r.entity: [] for r in rows}
        for o in outcomes:
            by_entity[o.row.entity].append(o)
        audits = [_entity_audit(row, by_entity[row.entity], self.kb) for row in rows]
        audits.sort(key=lambda a: (STATUSES.index(a.status) if a.status else len(STATUSES),
                                   -max((abs(c.deviation or 0) for c in a.checks if c.status == "inconsistent"),
                                        default=0.0)))
        return AuditReport(tuple(audits), _summary(audits, groups))

    def audit(self, entities: Sequence[Entity | str], groups: Mapping[str, Mapping[str, str]] | None = None,
              vectorised: bool = True) -> AuditReport:
        stages = {}
        start = time.perf_counter()
        rows = self.rows(entities, groups)
        stages["facts"] = time.perf_counter() - start
        patterns = self.prepare(rows)
        stages["compile"] = time.perf_counter() - start - sum(stages.values())
        outcomes = self.evaluate(patterns, vectorised)
        stages["checks"] = time.perf_counter() - start - sum(stages.values())
        report = self.report(rows, outcomes, groups)
        stages["report"] = time.perf_counter() - start - sum(stages.values())
        self.timings = stages
        return report


def audit(kb: "KnowledgeBase", entities: Sequence[Entity | str],
          groups: Mapping[str, Mapping[str, str]] | None = None) -> AuditReport:
    """Check the stated facts of ``entities`` (KB ids or Entity objects) against the rules.

    ``groups`` (entity id -> architecture, generation, memory type ...) adds the
    population summary of :func:`hwkb.audit.population.classify`.
    """
    if not entities:
        raise QueryError("nothing to audit", hint="name an entity, e.g. --gpu h100-sxm, or give --all")
    return Auditor(kb).audit(entities, groups)


class _Entities:
    """The KB's entities with extra ones on top, without copying either table."""

    def __init__(self, base: Mapping[EntityId, Entity], extra: Mapping[EntityId, Entity]):
        self.base, self.extra = base, extra
        self._ancestry: dict[EntityId, list[EntityId]] = {}

    def __contains__(self, eid) -> bool:
        return eid in self.extra or eid in self.base

    def __getitem__(self, eid) -> Entity:
        return self.extra[eid] if eid in self.extra else self.base[eid]

    def __iter__(self):
        return iter({**self.base, **self.extra})

    def ancestry(self, eid: EntityId) -> list[EntityId]:
        """Most general first, later wins: the order of :func:`hwkb.solving.context.build_context`."""
        if eid not in self._ancestry:
            self._ancestry[eid] = ancestry(self, eid)
        return self._ancestry[eid]


# ---------------------------------------------------------------- evaluation over arrays

def _arrays(rows: Sequence[_Row], symbols: Sequence[VarKey], radius: bool = True) -> list[Interval]:
    out = []
    for k in symbols:
        mid = np.fromiter((r.mid[k] for r in rows), float, len(rows))
        rad = np.fromiter((r.radius[k] for r in rows), float, len(rows)) if radius else 0.0
        out.append(Interval.around(mid, rad))
    return out


def _evaluate(plan: _Plan, rows: Sequence[_Row], kb: "KnowledgeBase") -> list[_Outcome]:
    boxes, points = _arrays(rows, plan.symbols), _arrays(rows, plan.symbols, radius=False)
    with np.errstate(all="ignore"):
        own, implied, ratio = plan.own(boxes), plan.implied(boxes), plan.ratio(boxes)
        own_p, implied_p = plan.own(points).mid, plan.implied(points).mid
        deviation = (own_p / implied_p - 1.0) * 100.0
        tol = plan.relation.rule.tolerance
        holds_one = (ratio.lo * (1 - tol) <= 1.0) & (1.0 <= ratio.hi * (1 + tol))
        close = np.abs(own_p - implied_p) <= CONSISTENT_RELATIVE * np.maximum(np.abs(own_p), np.abs(implied_p))
        finite = np.isfinite(own_p) & np.isfinite(implied_p) & (implied_p != 0)
        q = own_p / implied_p
        spread = np.nan_to_num(np.maximum(ratio.hi / q - 1, 1 - ratio.lo / q), nan=np.inf) + tol
    status = np.where(close, 0, np.where(holds_one, 1, 2))
    failed = np.flatnonzero((status == 2) & finite)
    fact_implied = {k: _solve_for_fact(plan, rows, failed, k) for k in plan.variables} if failed.size else {}
    side_values = []
    for key, via, inputs, fn, side_symbols in plan.sides:
        if side_symbols:
            with np.errstate(all="ignore"):
                side_values.append((key, via, inputs, fn(_arrays(rows, side_symbols, radius=False)).mid))
    unit = kb.model.unit_of(plan.target)
    to_display = kb.units.from_canonical(1.0, unit)
    names = ("consistent", "within_rounding", "inconsistent")
    position = {int(i): n for n, i in enumerate(failed)}
    out = []
    for i, row in enumerate(rows):
        if not finite[i]:
            row.undefined.append(plan.relation.name)
            continue
        sides = [(key, via, inputs, float(values[i])) for key, via, inputs, values in side_values]
        implied_facts = {k: float(v[position[i]]) for k, v in fact_implied.items()} if i in position else {}
        out.append(_Outcome(plan, row, names[status[i]], float(deviation[i]),
                            (float(own_p[i]) * to_display, float(own.lo[i]) * to_display, float(own.hi[i]) * to_display),
                            (float(implied_p[i]) * to_display, float(implied.lo[i]) * to_display,
                             float(implied.hi[i]) * to_display),
                            (float(ratio.lo[i]), float(ratio.hi[i])), float(spread[i]), sides, implied_facts))
    return out


def _solve_for_fact(plan: _Plan, rows: Sequence[_Row], which: np.ndarray, key: VarKey) -> np.ndarray:
    """The value of ``key`` (canonical) that makes the check's ratio 1, with the other facts at their points.

    Newton's method on log(ratio) against log(value): exact in one step for the
    products and quotients most laws are, a few steps otherwise. NaN where the
    fact cannot reconcile the check (it cancels, or no positive value works).
    """
    subset = [rows[i] for i in which]
    points = [p.mid for p in _arrays(subset, plan.symbols, radius=False)]
    i = plan.symbols.index(key)
    x = points[i].copy()

    def log_ratio(values):
        args = [Interval.around(v, 0.0) for v in points[:i]] + [Interval.around(values, 0.0)] + \
               [Interval.around(v, 0.0) for v in points[i + 1:]]
        with np.errstate(all="ignore"):
            return np.log(plan.ratio(args).mid)

    with np.errstate(all="ignore"):
        for _ in range(40):
            g = log_ratio(x)
            if np.all(~np.isfinite(g) | (np.abs(g) < 1e-14)):
                break
            slope = (log_ratio(x * (1 + _NEWTON_STEP)) - g) / math.log1p(_NEWTON_STEP)
            step = np.clip(np.where(slope != 0, g / slope, np.nan), -30, 30)
            x = x * np.exp(-step)
        good = np.abs(log_ratio(x)) < 1e-9
    return np.where(good, x, np.nan)



# ---------------------------------------------------------------- suspects, hints, checks

def _entity_audit(row: _Row, outcomes: Sequence[_Outcome], kb: "KnowledgeBase") -> EntityAudit:
    failed = [o for o in outcomes if o.status == "inconsistent"]
    passing = [o for o in outcomes if o.status != "inconsistent"]
    laws = [o for o in failed if o.plan.kind != "expectation"]
    expectations = [o for o in failed if o.plan.kind == "expectation"]
    # a broken law is evidence against a figure; a broken expectation only when no law breaks
    ranking = {False: _rank(row, laws, passing, kb), True: _rank(row, expectations, passing, kb)}
    basis, ranked = (laws, ranking[False]) if laws else (expectations, ranking[True])
    checks = []
    for o in outcomes:
        suspects: tuple[Suspect, ...] = ()
        hint = None
        value = _figure(kb, o.plan.target, o.own, o.plan.target_via)
        implied = _figure(kb, o.plan.target, o.implied, o.plan.relation.name)
        if o.status == "inconsistent":
            order = ranking[o.plan.kind == "expectation"]
            suspects = tuple(_with_implied(s, row, o.fact_implied.get(s.fact), kb, o.spread)
                             for s in order if s.fact in o.plan.variables)
            hint = _check_hint(kb, o, value, implied, suspects)
        sides = tuple(_point_figure(kb, k, x, via, inputs) for k, via, inputs, x in o.sides)
        rule = o.plan.relation.rule
        checks.append(Check(o.plan.relation.name, o.plan.kind, o.status, o.deviation, o.plan.variables,
                            o.plan.target, value, implied, sides, rule.doc, rule.source, o.plan.defaults,
                            suspects, hint, rule.tolerance))
    checks.sort(key=lambda c: (c.severity, -abs(c.deviation or 0.0), c.rule))
    sets = list(dict.fromkeys(frozenset(o.plan.variables) for o in basis))
    conflicts = tuple(sorted(tuple(sorted(s)) for s in sets if not any(t < s for t in sets)))
    notes = () if outcomes or row.undefined else ("no rule has all its variables known for this entity",)
    if row.undefined:
        notes += (f"{', '.join(dict.fromkeys(row.undefined))} cannot be evaluated here: a zero figure makes "
                  f"them infinite or undefined; check the figures they use",)
    return EntityAudit(row.entity, row.name, tuple(checks), tuple(ranked), conflicts, row.groups, notes)


def _point_figure(kb, key: VarKey, canonical: float, via: str | None, inputs: tuple[VarKey, ...]) -> Figure:
    unit = kb.model.unit_of(key)
    value = kb.units.from_canonical(canonical, unit)
    return Figure(key, value, unit, value, value, via, inputs)


def _figure(kb, key: VarKey, triple: tuple[float, float, float], via: str | None) -> Figure:
    return Figure(key, triple[0], kb.model.unit_of(key), triple[1], triple[2], via)


def _rank(row: _Row, basis: Sequence[_Outcome], passing: Sequence[_Outcome], kb) -> list[Suspect]:
    """Facts of the failed checks, most likely culprit first (see the module's docstring)."""
    candidates = list(dict.fromkeys(k for o in basis for k in o.plan.variables))
    suspects = []
    for key in candidates:
        holding = [o for o in basis if key in o.plan.variables]
        n_pass = sum(key in o.plan.variables for o in passing)
        best = min((o for o in holding if math.isfinite(o.fact_implied.get(key, math.nan))),
                   key=lambda o: o.spread, default=None)
        base = Suspect(key, row.facts[key].entity, 0.0, "", "", None, None, len(holding), n_pass,
                       len(holding) == len(basis) and n_pass == 0)
        suspects.append(_with_implied(base, row, None if best is None else best.fact_implied[key], kb,
                                      1.0 if best is None else best.spread))
    # a figure of the sheet itself before one it inherits (an architecture's rate is checked by every product)
    suspects.sort(key=lambda s: (not s.in_every_failed, -s.failed, s.passing, s.hint is None, not s.plausible,
                                 s.entity != row.entity, math.inf if s.move is None else s.move, s.fact))
    return suspects


def _with_implied(s: Suspect, row: _Row, canonical: float | None, kb, spread: float) -> Suspect:
    fact = row.facts[s.fact]
    variable = kb.model.variables[split_key(s.fact)[0]]
    unit = variable.unit
    value = kb.units.from_canonical(row.mid[s.fact], unit)
    if canonical is None or not math.isfinite(canonical):
        return replace(s, value=value, unit=unit, text=fact.text, implied=None, move=None, plausible=True, hint=None)
    implied = kb.units.from_canonical(canonical, unit)
    precision = abs(kb.units.to_canonical(max(fact.tolerance or 0.0, replace(fact, tolerance=None).rounding),
                                          fact.unit))
    move = abs(canonical - row.mid[s.fact]) / precision if precision else math.inf
    plausible = True
    if variable.integer:  # a count must come out whole, within what the check can tell
        plausible = round(implied) >= 1 and abs(implied - round(implied)) <= max(1e-6, spread) * abs(implied)
        implied = float(round(implied)) if plausible else implied
    found = hint_for(kb, s.fact, value, implied, spread)
    hint = found[1] if found and found[0] in SPECIFIC else None
    return replace(s, value=value, unit=unit, text=fact.text, implied=implied, move=move, plausible=plausible,
                   hint=hint)


def _check_hint(kb, o: _Outcome, value: Figure, implied: Figure, suspects: Sequence[Suspect]) -> str | None:
    """A suspect's specific hint (sparse, bits, binary or decimal prefix) first, then any factor of a suspect,
    then the stated target's own factor."""
    for s in suspects:
        if s.hint:
            return s.hint
    for s in suspects:  # any factor a stated figure is off by, naming that figure
        found = None if s.implied is None else hint_for(kb, s.fact, s.value, s.implied, o.spread)
        if found is not None:
            return found[1]
    if value.via is not None:
        return None  # the target is derived: its factor names no figure of the sheet
    found = hint_for(kb, o.plan.target, value.value, implied.value, o.spread, o.plan.relation.name,
                     information=any(has_information(kb, k) for k in o.plan.relation.keys))
    return None if found is None else found[1]


# ---------------------------------------------------------------- summary

def _summary(audits: Sequence[EntityAudit], groups: Mapping[str, Mapping[str, str]] | None) -> dict:
    checks = [c for a in audits for c in a.checks]
    out: dict = {
        "entities": len(audits),
        "checks": len(checks),
        "counts": {s: sum(c.status == s for c in checks) for s in STATUSES},
        "by_kind": {k: {s: sum(c.status == s and c.kind == k for c in checks) for s in STATUSES}
                    for k in CHECK_KINDS},
        "entities_inconsistent": sum(a.status == "inconsistent" for a in audits),
        "entities_expectations_only": sum(
            a.status == "inconsistent" and all(c.kind == "expectation" for c in a.checks if c.status == "inconsistent")
            for a in audits),
        "entities_unchecked": sum(not a.checks for a in audits),
    }
    if groups is not None:
        from hwkb.audit.population import Outcome, classify
        population = classify(Outcome(a.entity, c.rule, c.status, c.deviation, a.groups)
                              for a in audits for c in a.checks).to_dict()
        out["systematic"] = population.get("systematic", [])
        out["isolated"] = population.get("isolated", [])
        out["mixed"] = population.get("mixed", [])
        out["population"] = {k: v for k, v in population.items() if k not in ("systematic", "isolated", "mixed")}
    return out
