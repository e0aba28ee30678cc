"""One product's spec sheet (``KnowledgeBase.sheet``): every stated and derivable value with where it comes from.

A stated value keeps its source (and the entity it is inherited from, and other documents' figures for it), a
derived one the rule that gives it and that rule's inputs: data the render stage words (``also ... per ...``). The sheet is a display:
its audit's failed checks are findings, noted beside each figure they concern (their target and the facts
they depend on), never a failure of the question (the flagship H100 breaks an expectation and still has a
sheet). How a sheet prints is the render stage's (:mod:`hwkb.render.tables`).
"""
from __future__ import annotations

from dataclasses import dataclass

from hwkb.definitions.citations import Document, cited_documents
from hwkb.definitions.model import split_key
from hwkb.definitions.quantities import jedec_label
from hwkb.questions.comparison import Cell, answer_cell, declared_keys, stated_cell
from hwkb.results import Result

__all__ = ["SheetRow", "Sheet", "Finding", "sheet", "findings_of"]

PASSING = ("consistent", "within_rounding")


@dataclass(frozen=True)
class Finding:
    """A failed audit check of the sheet's product: its status, kind, rule and deviation (a line of the sheet)."""
    status: str
    kind: str
    rule: str
    deviation: float | None  # percent
    keys: tuple[str, ...]    # the check's target and the facts it rests on

    def to_dict(self) -> dict:
        return {"status": self.status, "kind": self.kind, "rule": self.rule,
                "deviation": None if self.deviation is None else self.deviation / 100, "variables": list(self.keys)}


@dataclass(frozen=True)
class SheetRow:
    """A figure and where it comes from: a stated one's ``source`` (the entity it is inherited from, other
    documents' figures for it), a derived one's ``rule`` and its ``inputs``; and the failed checks it concerns."""
    variable: str
    unit: str
    cell: Cell
    source: str = ""                   # a stated figure's citation (or its doc)
    inherited: str = ""                # the entity a stated figure is inherited from ("" for the sheet's own)
    also: tuple[tuple[Cell, str | None], ...] = ()  # other documents' figures for it, each with its citation
    rule: str = ""                     # a derived value's rule
    inputs: tuple[str, ...] = ()       # and that rule's inputs
    findings: tuple[Finding, ...] = ()  # failed audit checks that concern this figure
    label: str = ""                    # the unit as the page shows it: a capacity's GiB as vendors print it, GB

    def to_dict(self) -> dict:
        """The row as data; the JSON's ``origin`` and ``findings`` words are the render stage's."""
        origin = ({"rule": self.rule, "inputs": list(self.inputs)} if self.rule
                  else {"source": self.source, "entity": self.inherited or None,
                        "also": [{**cell.to_dict(), "source": source} for cell, source in self.also]})
        return {"variable": self.variable, "unit": self.unit, **self.cell.to_dict(), "origin": origin,
                "findings": [f.to_dict() for f in self.findings]}


@dataclass(frozen=True, repr=False)
class Sheet(Result):
    """What ``sheet`` answers: the rows in the KB's declaration order and the audit's findings."""
    entity: str
    name: str
    rows: tuple[SheetRow, ...]
    findings: tuple[Finding, ...] = ()
    documents: tuple[Document, ...] = ()  # the documents the stated rows cite, in the sheet's order

    status = "ok"  # a display: findings are notes, not a negative answer

    def to_dict(self) -> dict:
        return {"command": "sheet", "status": self.status, "entity": self.entity, "name": self.name,
                "rows": [r.to_dict() for r in self.rows], "findings": [f.to_dict() for f in self.findings],
                "documents": [d.to_dict() for d in self.documents]}


def findings_of(kb, gpu: str) -> tuple[Finding, ...]:
    """Each failed check of ``gpu``'s audit, in the audit's order (most severe first)."""
    return tuple(Finding(str(check.status), str(check.kind), check.rule, check.deviation,
                         tuple(dict.fromkeys((check.target, *check.variables))))
                 for audit in kb.audit([gpu]).entities for check in audit.checks if str(check.status) not in PASSING)


def sheet(kb, gpu: str) -> Sheet:
    """``gpu``'s stated facts and derived values in the KB's declaration order, with origins and findings."""
    entity = kb.model.entity(gpu)
    unit_of = kb.model.unit_of

    def label_of(key: str) -> str:
        """A capacity's unit as vendors print it (GiB as GB); "" for any other."""
        return jedec_label(unit_of(key)) if kb.model.variables[split_key(key)[0]].capacity else ""

    origins: dict[str, dict] = {}
    citations: dict[str, list[str | None]] = {}
    for key, fact in kb.context(gpu).facts.items():
        if fact.entity is not None:
            citations[key] = [fact.source, *(other.source for other in fact.also)]
            origins[key] = {"cell": stated_cell(kb, fact), "source": fact.source or fact.doc or "",
                            "inherited": fact.entity if fact.entity != gpu else "",
                            "also": tuple((stated_cell(kb, other), other.source) for other in fact.also)}
    for solution in kb.solver(kb.context(gpu)).derived_answers():  # as solve answers each: its route, whole counts, ceiling
        origin = solution.value.origin
        origins.setdefault(solution.variable, {"cell": answer_cell(solution), "rule": origin.rule,
                                               "inputs": tuple(i.key for i in origin.inputs)})
    findings = findings_of(kb, gpu)
    by_key: dict[str, list[Finding]] = {}
    for finding in findings:
        for key in finding.keys:
            by_key.setdefault(key, []).append(finding)
    rows = tuple(SheetRow(key, unit_of(key), **origins[key], findings=tuple(by_key.get(key, ())), label=label_of(key))
                 for key in declared_keys(kb) if key in origins)
    documents = cited_documents(kb.model.sources, [c for r in rows for c in citations.get(r.variable, ())])
    return Sheet(gpu, entity.name or gpu, rows, findings, documents)
