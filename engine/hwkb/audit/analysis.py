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

What the analysis finds for a pattern is plain data (:mod:`hwkb.audit.check_records`),
kept in a result cache (:mod:`hwkb.formats.caches.results`, beside the solved
directions) under a digest of everything it read: the relations, the installed
SymPy and this analysis' own code. A warm audit reads it back and compiles the trees
without importing SymPy (``hwkb audit --gpu h100-sxm`` 0.27 s of SymPy imports
saved; benchmarks/audit_imports.py); a cold one analyses, stores, and compiles the
same records, so both give the same bounds.

>>> from hwkb import KnowledgeBase
>>> analysis = Analysis(KnowledgeBase.load())
>>> routes, _ = analysis.routes({"fp32_peak", "sm_count", "fp32_lanes_per_sm", "fp32_lane_rate"}, frozenset())
>>> routes["clock_fp32"].rule
'fp32_peak_law'
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from hwkb.audit.check_records import CheckRecord, SideRecord, decode, encode
from hwkb.audit.eliminations import hidden_checks
from hwkb.audit.enclosures import compile_tree
from hwkb.audit.findings import CheckKind
from hwkb.audit.rows import Pattern
from hwkb.definitions.expressions import Expr, Ref
from hwkb.definitions.model import VarKey
from hwkb.definitions.symbolic import exact_tree
from hwkb.formats.caches.results import ResultCache
from hwkb.formats.caches.entries import digest
from hwkb.formats.caches.solutions import solver_version
from hwkb.definitions import symbolic
from hwkb.solving import plan, relations
from hwkb.solving.plan import make_plan
from hwkb.solving.relations import Relation, key_of_symbol, symbol_of
from hwkb.solving.system import System

if TYPE_CHECKING:  # the expressions come from the relations, which import SymPy when they first solve
    import sympy

__all__ = ["Route", "Side", "CompiledCheck", "Analysis"]

CHECKED_KINDS = ("law", "expectation")
log = logging.getLogger("hwkb.cache")
#: the code whose result the check cache keeps: a change to any of it is a new digest, so a miss
_ANALYSING_CODE = (Path(__file__), Path(__file__).with_name("eliminations.py"),
                   Path(__file__).with_name("check_records.py"), Path(plan.__file__), Path(relations.__file__),
                   Path(symbolic.__file__))


@dataclass(frozen=True)
class Route:
    """A known key as an expression of stated facts; ``rule`` the law that gave it (None: stated or a default)."""
    expr: sympy.Expr
    rule: str | None = None
    inputs: tuple[VarKey, ...] = ()   # the other keys of ``rule``


def _recorded(name: str) -> property:
    """A field of the record a compiled check or side was made from, read through it: the record is the one
    place each is declared."""
    return property(attrgetter(f"record.{name}"), doc=f"the record's ``{name}``")


@dataclass(frozen=True)
class Side:
    """A known value a check shows: its record (key, the law that gave it and that law's other keys, tree and
    symbols) with the function compiled from its tree and the key's display unit."""
    record: SideRecord
    function: Callable
    unit: str = ""       # the key's display unit
    factor: float = 1.0  # canonical value of one display unit

    key = _recorded("key")
    via = _recorded("via")
    inputs = _recorded("inputs")
    symbols = _recorded("symbols")


@dataclass(eq=False)
class CompiledCheck:
    """A check as its record states it (:class:`~hwkb.audit.check_records.CheckRecord`: target, symbols, stated
    facts, trees), with what only a running audit holds: the relation itself (renamed for a hidden check) and
    the interval functions compiled from the record's trees.

    Two classes, not one, because the record is what the check cache keeps: plain data with the relation by
    its place, written and read without SymPy, NumPy or the system; :meth:`Analysis.compile` is the one way
    from a record to this."""
    record: CheckRecord
    relation: Relation
    own: Callable
    implied: Callable
    ratio: Callable
    sides: tuple[Side, ...]

    kind = _recorded("kind")
    target = _recorded("target")
    symbols = _recorded("symbols")        # argument order of the compiled functions
    variables = _recorded("variables")    # stated facts the verdict depends on
    defaults = _recorded("defaults")
    target_via = _recorded("target_via")


class Analysis:
    """The checks of each pattern of stated keys, analysed once; interval functions are shared across patterns
    that produce the same expression."""

    def __init__(self, system: System):
        self.system = system
        self.relations = system.relations
        self.keysets = [frozenset(r.keys) for r in self.relations]
        chosen = {name: choice.default.value for name, choice in system.model.choices.items()}  # no layer: defaults
        self._checked = [r.template is not None and r.kind in CHECKED_KINDS and r.chosen_in(chosen)
                         for r in self.relations]
        self._functions: dict[tuple[Expr, tuple[VarKey, ...]], Callable] = {}
        self._checks: dict[Pattern, list[CompiledCheck]] = {}
        self._cache = ResultCache(system.solutions.directory, "checks")
        self._fingerprint: str | None = None

    def checks(self, pattern: Pattern) -> list[CompiledCheck]:
        if pattern not in self._checks:
            self._checks[pattern] = [self.compile(r) for r in self.records(pattern)]
        return self._checks[pattern]

    def records(self, pattern: Pattern) -> list[CheckRecord]:
        """The checks of ``pattern`` as data: from the check cache, else analysed (with SymPy) and cached."""
        source = self._source(pattern)
        text = self._cache.get(source)
        if text is not None:
            try:
                return decode(text, len(self.relations))
            except ValueError as exc:
                log.info("ignoring a check cache entry: %s", exc)
        records = self._analyse(*pattern)
        self._cache.put(source, encode(records))
        return records

    def compiled(self, tree: Expr, symbols: tuple[VarKey, ...]) -> Callable:
        key = (tree, symbols)
        if key not in self._functions:
            self._functions[key] = compile_tree(tree, symbols)
        return self._functions[key]

    def _source(self, pattern: Pattern) -> str:
        """What the analysis of ``pattern`` depends on, as a digest: the relations, SymPy, this code, the pattern."""
        if self._fingerprint is None:
            code = [path.read_text(encoding="utf-8") for path in _ANALYSING_CODE]
            laws = [repr((r.name, r.kind, r.keys, r.ast, r.template is None)) for r in self.relations]
            self._fingerprint = digest(solver_version(), *code, *laws)
        return self._cache.source(self._fingerprint, *(repr(sorted(keys)) for keys in pattern))

    def compile(self, record: CheckRecord) -> CompiledCheck:
        """The check a record states, with its relation and its trees' interval functions."""
        relation = self.relations[record.relation]
        if record.name is not None:
            relation = replace(relation, name=record.name)
        sides = tuple(Side(s, self.compiled(s.tree, s.symbols), (unit := self.system.model.unit_of(s.key)),
                           self.system.units.to_canonical(1.0, unit)) for s in record.sides)
        return CompiledCheck(record, relation, self.compiled(record.own, record.symbols),
                             self.compiled(record.implied, record.symbols), self.compiled(record.ratio, record.symbols),
                             sides)

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
                 not_applicable: frozenset[VarKey]) -> list[CheckRecord]:
        routes, checks = self.routes(stated | defaults, not_applicable)
        out = []
        for i in checks:
            r = self.relations[i]
            target = _choose_target(r, routes)
            if target is None:
                continue
            others = {symbol_of(k): routes[k].expr for k in r.keys if k != target}
            out.append(self._check(i, None, r, r.keys, target, r.solution(target).xreplace(others), routes, stated,
                                   defaults))
        usable = lambda i: self._checked[i] and not (self.keysets[i] & not_applicable)
        place = {id(r): i for i, r in enumerate(self.relations)}
        for hidden in hidden_checks(self.relations, routes, usable):  # singular pairs: two peaks, no SMs or clock
            out.append(self._check(place[id(hidden.first)], hidden.name, hidden.first, hidden.keys, hidden.target,
                                   hidden.implied, routes, stated, defaults))
        return [c for c in out if c is not None]

    def _check(self, place: int, name: str | None, r: Relation, keys: tuple[VarKey, ...], target: VarKey,
               implied: sympy.Expr, routes: Mapping[VarKey, Route], stated: frozenset[VarKey],
               defaults: frozenset[VarKey]) -> CheckRecord | None:
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
        sides = tuple(SideRecord(k, routes[k].rule, routes[k].inputs, _tree(routes[k].expr),
                                 _symbols_of(routes[k].expr)) for k in _route_keys(keys, routes))
        return CheckRecord(place, name, kind, target, symbols, variables, tuple(k for k in symbols if k in defaults),
                           _tree(own), _tree(implied), _tree(ratio), routes[target].rule, sides)


def _tree(expr: sympy.Expr) -> Expr:
    return exact_tree(expr, lambda symbol: Ref(key_of_symbol(symbol)))


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
