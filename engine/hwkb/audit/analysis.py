"""From a pattern of stated keys to its checks: expressions of stated facts, compiled to interval functions.

The laws are planned on the one planner (:func:`hwkb.solving.plan.make_plan`)
from the stated facts and defaults, without blocks: a law with one unknown key
and an explicit solution for it gives that key as an expression of stated facts,
its *route*, round by round (the shortest routes first). Expectations are checks,
never routes. The plan's checks are the over-determinations: every usable
relation left over with all its keys known. Kind ``law`` if every key is stated,
``stated_vs_derived`` if some key comes by a route, ``expectation`` for an
expectation.

A check compares its *target* (a stated key outside the other keys' routes where
there is one) with what the relation implies for it from the others, through the
ratio target / implied, in which SymPy has already cancelled a fact both sides
share. A ratio that is identically 1, or free of stated facts, is no evidence and
no check.

>>> from hwkb import KnowledgeBase
>>> analysis = Analysis(KnowledgeBase.load())
>>> routes, _ = analysis.routes({"fp32_peak", "sm_count", "fp32_lanes_per_sm", "fp32_lane_rate"}, frozenset())
>>> routes["clock_fp32"].rule
'fp32_peak_law'
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from hwkb.audit.eliminations import hidden_checks
from hwkb.audit.enclosures import compile_interval
from hwkb.audit.findings import CheckKind
from hwkb.audit.rows import Pattern
from hwkb.definitions.model import VarKey
from hwkb.solving.plan import make_plan
from hwkb.solving.relations import Relation, key_of_symbol, symbol_of
from hwkb.solving.system import System

if TYPE_CHECKING:  # the expressions come from the relations, which import SymPy when they first solve
    import sympy

__all__ = ["Route", "Side", "CompiledCheck", "Analysis"]

CHECKED_KINDS = ("law", "expectation")


@dataclass(frozen=True)
class Route:
    """A known key as an expression of stated facts; ``rule`` the law that gave it (None: stated or a default)."""
    expr: sympy.Expr
    rule: str | None = None
    inputs: tuple[VarKey, ...] = ()   # the other keys of ``rule``


@dataclass(frozen=True)
class Side:
    """A known value a check shows, with the function that gives it from its ``symbols``."""
    key: VarKey
    via: str | None
    inputs: tuple[VarKey, ...]
    function: Callable
    symbols: tuple[VarKey, ...]
    unit: str = ""       # the key's display unit
    factor: float = 1.0  # canonical value of one display unit


@dataclass(eq=False)
class CompiledCheck:
    """A check as expressions in the stated facts' symbols, compiled to interval functions."""
    relation: Relation
    kind: CheckKind
    target: VarKey
    symbols: tuple[VarKey, ...]       # argument order of the compiled functions
    variables: tuple[VarKey, ...]     # stated facts the verdict depends on
    defaults: tuple[VarKey, ...]
    own: Callable
    implied: Callable
    ratio: Callable
    target_via: str | None
    sides: tuple[Side, ...]


class Analysis:
    """The checks of each pattern of stated keys, analysed once; interval functions are shared across patterns
    that produce the same expression."""

    def __init__(self, system: System):
        self.system = system
        self.relations = system.relations
        self.keysets = [frozenset(r.keys) for r in self.relations]
        self._checked = [r.template is not None and r.kind in CHECKED_KINDS for r in self.relations]
        self._functions: dict[tuple[sympy.Expr, tuple[VarKey, ...]], Callable] = {}
        self._checks: dict[Pattern, list[CompiledCheck]] = {}

    def checks(self, pattern: Pattern) -> list[CompiledCheck]:
        if pattern not in self._checks:
            self._checks[pattern] = self._analyse(*pattern)
        return self._checks[pattern]

    def compiled(self, expr: sympy.Expr, symbols: tuple[VarKey, ...]) -> Callable:
        key = (expr, symbols)
        if key not in self._functions:
            self._functions[key] = compile_interval(expr, [symbol_of(k) for k in symbols])
        return self._functions[key]

    def routes(self, known: Iterable[VarKey], not_applicable: frozenset[VarKey]) -> tuple[dict[VarKey, Route],
                                                                                        tuple[int, ...]]:
        """Every key the laws give from ``known`` as a route, and the relations left over to check."""
        known = set(known)
        plan = make_plan(self.keysets, known, lambda r, k: self.relations[r].can_solve_for(k),
                         lambda r: self._checked[r] and not (self.keysets[r] & not_applicable),
                         derives=lambda r: self.relations[r].kind == "law", blocks=False)
        routes = {k: Route(symbol_of(k)) for k in known}
        for step in plan.steps:
            r, key = self.relations[step.relations[0]], step.outputs[0]
            expr = r.solution(key).xreplace({symbol_of(k): routes[k].expr for k in r.keys if k != key})
            routes[key] = Route(expr, r.name, tuple(k for k in r.keys if k != key))
        return routes, plan.checks

    def _analyse(self, stated: frozenset[VarKey], defaults: frozenset[VarKey],
                 not_applicable: frozenset[VarKey]) -> list[CompiledCheck]:
        routes, checks = self.routes(stated | defaults, not_applicable)
        out = []
        for i in checks:
            r = self.relations[i]
            target = _choose_target(r, routes)
            if target is None:
                continue
            others = {symbol_of(k): routes[k].expr for k in r.keys if k != target}
            out.append(self._check(r, r.keys, target, r.solution(target).xreplace(others), routes, stated, defaults))
        usable = lambda i: self._checked[i] and not (self.keysets[i] & not_applicable)
        for hidden in hidden_checks(self.relations, routes, usable):  # singular pairs: two peaks, no SMs or clock
            out.append(self._check(replace(hidden.first, name=hidden.name), hidden.keys, hidden.target,
                                   hidden.implied, routes, stated, defaults))
        return [c for c in out if c is not None]

    def _check(self, r: Relation, keys: tuple[VarKey, ...], target: VarKey, implied: sympy.Expr,
               routes: Mapping[VarKey, Route], stated: frozenset[VarKey],
               defaults: frozenset[VarKey]) -> CompiledCheck | None:
        """The check of ``target`` as its route gives it against ``implied``, over the known ``keys``; None if it
        is no evidence."""
        own = routes[target].expr
        ratio = own / implied
        if ratio == 1 or not (ratio.free_symbols & {symbol_of(k) for k in stated}):
            return None  # an identity, or a check of defaults alone: no evidence about any stated figure
        symbols = tuple(sorted(key_of_symbol(s) for s in (own.free_symbols | implied.free_symbols)))
        in_ratio = {key_of_symbol(s) for s in ratio.free_symbols}
        variables = tuple(k for k in _fact_order(keys, routes) if k in in_ratio and k in stated)
        kind = (CheckKind.EXPECTATION if r.kind == "expectation"
                else CheckKind.LAW if all(routes[k].rule is None for k in keys) else CheckKind.STATED_VS_DERIVED)
        sides = tuple(self._side(k, routes[k]) for k in _route_keys(keys, routes))
        return CompiledCheck(r, kind, target, symbols, variables, tuple(k for k in symbols if k in defaults),
                             self.compiled(own, symbols), self.compiled(implied, symbols),
                             self.compiled(ratio, symbols), routes[target].rule, sides)

    def _side(self, key: VarKey, route: Route) -> Side:
        symbols = _symbols_of(route.expr)
        unit = self.system.model.unit_of(key)
        return Side(key, route.rule, route.inputs, self.compiled(route.expr, symbols), symbols, unit,
                    self.system.units.to_canonical(1.0, unit))


def _choose_target(r: Relation, routes: Mapping[VarKey, Route]) -> VarKey | None:
    """A stated key outside the other keys' routes, else any key outside them, that the relation solves for."""
    def outside(k):
        return all(symbol_of(k) not in routes[o].expr.free_symbols for o in r.keys if o != k)
    ordered = [k for k in r.keys if routes[k].rule is None] + [k for k in r.keys if routes[k].rule is not None]
    for k in ordered:
        if outside(k) and r.can_solve_for(k):
            return k
    return next((k for k in ordered if r.can_solve_for(k)), None)


def _symbols_of(expr: sympy.Expr) -> tuple[VarKey, ...]:
    return tuple(sorted(key_of_symbol(s) for s in expr.free_symbols))


def _route_keys(keys: Iterable[VarKey], routes: Mapping[VarKey, Route]) -> list[VarKey]:
    """``keys`` and every key their routes pass through, each once."""
    out: list[VarKey] = []
    for k in keys:
        out += [k, *_route_keys(routes[k].inputs, routes)]
    return list(dict.fromkeys(out))


def _fact_order(keys: Iterable[VarKey], routes: Mapping[VarKey, Route]) -> list[VarKey]:
    """The stated facts under ``keys`` in the order a reader meets them."""
    out: list[VarKey] = []
    for k in keys:
        route = routes[k]
        out += [k] if route.rule is None else _fact_order(route.inputs, routes)
    return list(dict.fromkeys(out))
