"""What ``hwkb audit --from`` finds: each figure of a peer tool's file beside the KB's.

A :class:`Comparison` is one figure against the KB's value for the same
product; a :class:`PeerEntryAudit` one entry's comparisons and its internal
audit (an :class:`~hwkb.audit.findings.EntityAudit`); a :class:`PeerAudit`
the whole run, whose ``to_dict()`` is the command's JSON and ``str()`` its text (:mod:`hwkb.render.audit`);
a :class:`PeerAuditStream` the same run an entry at a time, its :class:`PeerTotals` counted as the entries pass.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterator

from hwkb.audit.findings import (UNCHECKED, DefaultHint, EntityAudit, FactorHint, Provenance, SiblingHint, Verdict,
                                 fraction_of_percent)
from hwkb.audit.report import Tally
from hwkb.results import Result
from hwkb.definitions.model import VarKey
from hwkb.errors import Location, QueryError
from hwkb.formats.peers.entries import PeerEntry, PeerFormat

__all__ = ["Comparison", "PeerEntryAudit", "PeerAudit", "PeerAuditStream", "PeerTotals"]


@dataclass(frozen=True)
class Comparison:
    """One figure of a tool's file beside the KB's value for the same product, both in the KB's display unit."""
    field: str
    key: VarKey
    value: float
    unit: str
    written: str               # as the file writes it
    where: Location
    consumed: str              # the tool's source that reads the field
    kb_value: float
    kb_source: Provenance      # the KB entity and document, or the rule and the facts it derives from
    status: Verdict
    deviation: float | None    # percent: the file's figure over the KB's, minus 1
    hint: FactorHint | SiblingHint | DefaultHint | None = None
    reading: str | None = None  # within rounding: a figure read as cut short or to two significant figures
    field_unit: str | None = None  # the unit the tool reads the field in (None: a count)
    scale: float = 1.0             # the factor the tool multiplies the field by

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

    @classmethod
    def bare(cls, entry: PeerEntry, internal: EntityAudit) -> "PeerEntryAudit":
        """An entry with nothing beside the KB (no comparison, nothing unsettled or skipped, no note), its fields set
        at once rather than each through the frozen ``__init__``'s ``object.__setattr__``: 0.5 us against 0.9
        (1.8x, least of 7, ``benchmarks/peer_scale.py --pieces``, load 4); the same audit, equal to one made the
        plain way."""
        audit = object.__new__(cls)
        audit.__dict__.update(entry=entry, internal=internal, comparisons=(), unsettled=(), skipped=(), notes=())
        return audit

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


class PeerTotals:
    """What a peer audit says of all its entries (its summary, its status, the files' lines), counted an entry at
    a time: a streamed audit (:class:`PeerAuditStream`) keeps these, not the entries."""

    def __init__(self):
        self.internal = Tally()  # the entries' internal audits, each entity once
        self.catalogue: Counter = Counter()  # verdict -> comparisons
        self.unsettled = 0
        self.entries = 0
        self.in_doubt = 0  # entries with an inconsistent figure
        self.without_product = 0
        self.worst: Verdict | None = None
        self.files: dict[str, None] = {}
        self.unread_keys: dict[str, dict[str, None]] = {}
        self.names_not_in_kb: dict[str, None] = {}
        self.skipped_files: tuple[str, ...] = ()
        self._unread_of: dict[str, tuple[str, ...]] = {}  # each file's last entry's unread keys, the tuple itself

    def add(self, e: PeerEntryAudit, first: bool = True) -> None:
        """One entry's audit; ``first``: the first entry of its entity, whose internal audit counts."""
        if first:
            self.internal.add(e.internal)
        self.entries += 1
        if e.comparisons:
            self.catalogue.update(c.status for c in e.comparisons)
        self.unsettled += len(e.unsettled)
        status = e.status
        if status is not None and (self.worst is None or status.rank < self.worst.rank):
            self.worst = status
        self.in_doubt += status == Verdict.INCONSISTENT
        entry = e.entry
        self.without_product += entry.match is None or not entry.match.entity
        self._file_of(entry)
        if entry.match is None:
            self.names_not_in_kb[entry.name] = None

    def add_bare(self, e: "PeerEntryAudit", first: bool = True) -> None:
        """:meth:`add` of a bare entry (no check, comparison or note, naming no product), as a plain row audited
        from its shape is, counted without looking at its checks: 0.3 us an entry against 1.4 (4.9x, least of 7,
        ``benchmarks/peer_scale.py --pieces``, load 5; 3.9x to 4.3x on 10^4 rows of each kind at load 8)."""
        if first:
            self.internal.add_unchecked()
        self.entries += 1
        entry = e.entry
        self.without_product += 1
        self._file_of(entry)
        self.names_not_in_kb[entry.name] = None

    def _file_of(self, entry) -> None:
        """The entry's file and the keys it leaves unread: a table's rows share one tuple, taken once, not per row."""
        file, unread = entry.where.file, entry.unread
        if self._unread_of.get(file) is not unread:
            self.files[file] = None
            self.unread_keys.setdefault(file, {}).update(dict.fromkeys(unread))
            self._unread_of[file] = unread

    @property
    def status(self) -> str:
        return str(self.worst) if self.worst is not None else UNCHECKED

    @property
    def counts(self) -> dict[str, int]:
        return {**{str(v): self.catalogue[v] for v in Verdict}, "unsettled": self.unsettled}

    @property
    def unread(self) -> dict[str, tuple[str, ...]]:
        """Per file, every key or column no field read (a renamed column shows here instead of reading as nothing)."""
        return {file: tuple(keys) for file, keys in self.unread_keys.items() if keys}

    @property
    def not_in_kb(self) -> tuple[str, ...]:
        """The entries' names no name table entry or KB id matches: products this KB does not hold."""
        return tuple(self.names_not_in_kb)

    @property
    def summary(self) -> dict:
        """The JSON's summary: the internal audits' counts, the catalogue's, the entries naming no product."""
        return {**self.internal.to_dict(), "catalogue": self.counts, "entries_without_product": self.without_product}

    def tail(self) -> dict:
        """The JSON's fields after the entries."""
        return {"skipped_files": list(self.skipped_files),
                "unread": [{"file": f, "keys": list(k)} for f, k in self.unread.items()],
                "not_in_kb": list(self.not_in_kb)}


class _Totalled:
    """A peer audit's answers that its totals give (a mixin of its two results)."""

    __slots__ = ()
    format: PeerFormat
    totals: PeerTotals

    @property
    def status(self) -> str:
        return self.totals.status

    @property
    def counts(self) -> dict[str, int]:
        return self.totals.counts

    @property
    def unread(self) -> dict[str, tuple[str, ...]]:
        return self.totals.unread

    @property
    def not_in_kb(self) -> tuple[str, ...]:
        return self.totals.not_in_kb

    @property
    def skipped_files(self) -> tuple[str, ...]:
        return self.totals.skipped_files

    def failed(self) -> bool:
        return self.totals.in_doubt > 0

    def exit_code(self) -> int:
        return 1 if self.failed() else 0


@dataclass(frozen=True, repr=False)
class PeerAudit(_Totalled, Result):
    """``hwkb audit --from FORMAT FILE ...``: every entry's internal audit and catalogue comparison."""
    format: PeerFormat
    entries: tuple[PeerEntryAudit, ...]
    totals: PeerTotals

    def to_dict(self) -> dict:
        return {"command": "audit", "status": self.status, "format": self.format.name,
                "entities": [e.internal.to_dict() for e in self.entries], "summary": self.totals.summary,
                "catalogue": [e.to_dict() for e in self.entries], **self.totals.tail()}


class PeerAuditStream(_Totalled, Result):
    """``hwkb audit --from`` as it runs: :attr:`entries` gives each entry's audit once, in the files' order, as
    it is made; the totals (status, counts, summary, the files' lines) are whole once the last has come. A file
    of 10^5 rows is never all in memory, nor are its audits."""

    __slots__ = ("format", "_entries", "totals")

    def __init__(self, fmt: PeerFormat, entries: Iterator[PeerEntryAudit], totals: PeerTotals):
        self.format, self._entries, self.totals = fmt, entries, totals

    @property
    def entries(self) -> Iterator[PeerEntryAudit]:
        """The entries' audits, as they are made: given once (a second reading would find none, and say nothing)."""
        entries, self._entries = self._entries, None
        if entries is None:
            raise QueryError("a streamed peer audit gives its entries once",
                             hint="KnowledgeBase.audit_peer_files keeps them to be read again")
        return entries

    def collect(self) -> PeerAudit:
        """The whole audit, every entry kept."""
        return PeerAudit(self.format, tuple(self.entries), self.totals)
