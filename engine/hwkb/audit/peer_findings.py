"""What ``hwkb audit --from`` finds: each figure of a peer tool's file beside the KB's.

A :class:`Comparison` is one figure against the KB's value for the same
product; a :class:`PeerEntryAudit` one entry's comparisons and its internal
audit (an :class:`~hwkb.audit.findings.EntityAudit`); a :class:`PeerAudit`
the whole run, whose ``to_dict()`` is the command's JSON and ``str()`` its text (:mod:`hwkb.render.audit`).
"""
from __future__ import annotations

from dataclasses import dataclass

from hwkb.audit.findings import (UNCHECKED, DefaultHint, EntityAudit, FactorHint, Provenance, SiblingHint, Verdict,
                                 fraction_of_percent)
from hwkb.audit.report import AuditReport
from hwkb.results import Result
from hwkb.definitions.model import VarKey
from hwkb.errors import Location
from hwkb.formats.peers.entries import PeerEntry, PeerFormat

__all__ = ["Comparison", "PeerEntryAudit", "PeerAudit"]


@dataclass(frozen=True)
class Comparison:
    """One figure of a tool's file beside the KB's value for the same product, both in the KB's display unit."""
    field: str
    key: VarKey
    value: float
    unit: str
    written: str               # as the file writes it, with the unit the tool reads it in
    where: Location
    consumed: str              # the tool's source that reads the field
    kb_value: float
    kb_source: Provenance      # the KB entity and document, or the rule and the facts it derives from
    status: Verdict
    deviation: float | None    # percent: the file's figure over the KB's, minus 1
    hint: FactorHint | SiblingHint | DefaultHint | None = None
    reading: str | None = None  # within rounding: a figure read as cut short or to two significant figures

    def to_dict(self) -> dict:
        return {"field": self.field, "variable": self.key, "status": str(self.status), "value": self.value,
                "unit": self.unit, "written": self.written, "where": self.where.written(), "consumed": self.consumed,
                "kb_value": self.kb_value, "kb_source": self.kb_source.to_dict(),
                "deviation": fraction_of_percent(self.deviation),
                "hint": None if self.hint is None else self.hint.to_dict(), "reading": self.reading}


@dataclass(frozen=True)
class PeerEntryAudit:
    """One entry: its internal audit and its figures beside the KB's catalogue."""
    entry: PeerEntry
    internal: EntityAudit
    comparisons: tuple[Comparison, ...]
    unsettled: tuple[VarKey, ...]       # keys the KB cannot settle for the product
    skipped: tuple[VarKey, ...]         # keys the name table leaves out (another variant of the product)
    notes: tuple[str, ...]

    @property
    def product(self) -> str | None:
        return self.entry.match.entity if self.entry.match and self.entry.match.entity else None

    @property
    def status(self) -> Verdict | None:
        verdicts = [c.status for c in self.comparisons] + ([self.internal.status] if self.internal.status else [])
        return min(verdicts, key=lambda v: v.rank) if verdicts else None

    def to_dict(self) -> dict:
        return {"entity": self.entry.id, "name": self.entry.name, "where": self.entry.where.written(),
                "product": self.product, "status": str(self.status) if self.status else UNCHECKED,
                "comparisons": [c.to_dict() for c in self.comparisons], "unsettled": list(self.unsettled),
                "skipped": list(self.skipped), "notes": list(self.notes)}


@dataclass(frozen=True, repr=False)
class PeerAudit(Result):
    """``hwkb audit --from FORMAT FILE ...``: every entry's internal audit and catalogue comparison."""
    format: PeerFormat
    entries: tuple[PeerEntryAudit, ...]
    internal: AuditReport
    skipped_files: tuple[str, ...] = ()   # files passed over as no hardware description, each with why

    @property
    def unread(self) -> dict[str, tuple[str, ...]]:
        """Per file, every key or column no field read (a renamed column shows here instead of reading as nothing)."""
        out: dict[str, dict[str, None]] = {}
        for e in self.entries:
            out.setdefault(e.entry.where.file, {}).update(dict.fromkeys(e.entry.unread))
        return {file: tuple(keys) for file, keys in out.items() if keys}

    @property
    def not_in_kb(self) -> tuple[str, ...]:
        """The entries' names no name table entry or KB id matches: products this KB does not hold."""
        return tuple(dict.fromkeys(e.entry.name for e in self.entries if e.entry.match is None))

    @property
    def status(self) -> str:
        verdicts = [e.status for e in self.entries if e.status is not None]
        return str(min(verdicts, key=lambda v: v.rank)) if verdicts else UNCHECKED

    def failed(self) -> bool:
        return any(e.status == Verdict.INCONSISTENT for e in self.entries)

    def exit_code(self) -> int:
        return 1 if self.failed() else 0

    @property
    def counts(self) -> dict[str, int]:
        out = {str(v): sum(c.status == v for e in self.entries for c in e.comparisons) for v in Verdict}
        out["unsettled"] = sum(len(e.unsettled) for e in self.entries)
        return out

    def to_dict(self) -> dict:
        summary = {**self.internal.summary, "catalogue": self.counts,
                   "entries_without_product": sum(e.product is None for e in self.entries)}
        return {"command": "audit", "status": self.status, "format": self.format.name,
                "entities": [e.internal.to_dict() for e in self.entries], "summary": summary,
                "catalogue": [e.to_dict() for e in self.entries], "skipped_files": list(self.skipped_files),
                "unread": [{"file": f, "keys": list(k)} for f, k in self.unread.items()],
                "not_in_kb": list(self.not_in_kb)}
