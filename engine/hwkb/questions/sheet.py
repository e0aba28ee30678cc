"""One product's spec sheet (``KnowledgeBase.sheet``): every stated and derivable value with where it comes from.

A stated value shows its source (and the entity it is inherited from, and other documents' figures for it,
``also ... per ...``), a derived one the rule that gives it and that rule's inputs. The sheet is a display:
its audit's failed checks are findings, noted beside each figure they concern (their target and the facts
they depend on), never a failure of the question (the flagship H100 breaks an expectation and still has a
sheet). How a sheet prints is the render stage's (:mod:`hwkb.render.tables`).
"""
from __future__ import annotations

from dataclasses import dataclass

from hwkb.definitions.citations import Document, cited_documents, split_citation
from hwkb.definitions.display import display_scale
from hwkb.definitions.model import split_key
from hwkb.definitions.quantities import jedec_label
from hwkb.questions.comparison import Cell, declared_keys, stated_cell
from hwkb.results import Result

__all__ = ["SheetRow", "Sheet", "Finding", "sheet", "findings_of"]

PASSING = ("consistent", "within_rounding")


@dataclass(frozen=True)
class Finding:
    """A failed audit check of the sheet's product, as one line: its status, kind, rule and deviation."""
    status: str
    kind: str
    rule: str
    deviation: float | None  # percent
    keys: tuple[str, ...]    # the check's target and the facts it rests on

    @property
    def text(self) -> str:
        deviation = f" ({self.deviation:+.3g}%)" if self.deviation is not None else ""
        return f"{self.status} {self.kind} {self.rule}{deviation}"

    def to_dict(self) -> dict:
        return {"status": self.status, "kind": self.kind, "rule": self.rule,
                "deviation": None if self.deviation is None else self.deviation / 100, "variables": list(self.keys)}


@dataclass(frozen=True)
class SheetRow:
    variable: str
    unit: str
    cell: Cell
    origin: str                        # the fact's source, or "rule (inputs)" for a derived value
    findings: tuple[str, ...] = ()     # failed audit checks that concern this figure
    label: str = ""                    # the unit as the page shows it: a capacity's GiB as vendors print it, GB

    def shown(self) -> tuple[str, str]:
        """The figure and its unit as text shows them (:func:`display_scale`: a fraction in percent ...; a capacity
        as vendors print it)."""
        factor, unit = (1, self.label) if self.label else display_scale(self.unit, (self.cell.value,))
        return self.cell.text(factor), unit

    def value_text(self) -> str:
        return " ".join(self.shown()).strip()

    def to_dict(self) -> dict:
        return {"variable": self.variable, "unit": self.unit, **self.cell.to_dict(), "origin": self.origin,
                "findings": list(self.findings)}


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

    def document_of(self, row: SheetRow) -> Document | None:
        """The document a stated row's origin cites first, if the KB's bibliography lists it."""
        return {d.id: d for d in self.documents}.get(split_citation(row.origin)[0]) if row.cell.status != "derived" \
            else None


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

    def also_row(key: str, other) -> SheetRow:
        return SheetRow(key, unit_of(key), stated_cell(kb, other), "", (), label_of(key))
    origins: dict[str, tuple[Cell, str]] = {}
    citations: dict[str, list[str | None]] = {}
    for key, fact in kb.context(gpu).facts.items():
        if fact.entity is not None:
            citations[key] = [fact.source, *(other.source for other in fact.also)]
            inherited = f" [{fact.entity}]" if fact.entity != gpu else ""
            others = "".join(f"; also {also_row(key, other).value_text()} per {other.source}" for other in fact.also)
            origins[key] = (stated_cell(kb, fact), (fact.source or fact.doc or "") + inherited + others)
    for value in kb.derive(gpu):
        inputs = ", ".join(i.key for i in value.origin.inputs)
        origins.setdefault(value.key, (Cell(value.magnitude, "derived"), f"{value.origin.rule} ({inputs})"))
    findings = findings_of(kb, gpu)
    by_key: dict[str, list[str]] = {}
    for finding in findings:
        for key in finding.keys:
            by_key.setdefault(key, []).append(finding.text)
    rows = tuple(SheetRow(key, unit_of(key), *origins[key], tuple(by_key.get(key, ())), label_of(key))
                 for key in declared_keys(kb) if key in origins)
    documents = cited_documents(kb.model.sources, [c for r in rows for c in citations.get(r.variable, ())])
    return Sheet(gpu, entity.name or gpu, rows, findings, documents)
