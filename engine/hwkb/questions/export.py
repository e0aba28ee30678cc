"""``hwkb export --to FORMAT --gpu ID``: the KB's figures for one product in a peer tool's hardware-file layout.

Every figure written is a KB value, stated with its source or derived by the
laws (the same values ``hwkb solve`` gives), converted into the unit the tool's
own code reads the field in (:mod:`hwkb.formats.peers`). A field the KB cannot
settle is never a null the tool computes with: the format leaves it out with what
the tool then does, or refuses the product with the reason (a QueryError); it is
named in :attr:`Export.notes`, so ``hwkb audit --from`` on the written file finds
nothing against the KB.

>>> from hwkb import KnowledgeBase
>>> from hwkb.formats.peers.registry import FORMATS
>>> out = export_peer(KnowledgeBase.load(), FORMATS["llm-analysis"], "h100-sxm")
>>> '"hbm_bandwidth_in_GB_per_sec": 3350' in out.text, '"intra_node_bandwidth_in_GB_per_sec": 450' in out.text
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from hwkb.definitions.model import EntityId, VarKey, split_key
from hwkb.definitions.quantities import jedec_label
from hwkb.formats.peers.entries import EXPORT_PREFIX, PeerFormat, Written
from hwkb.results import Result
from hwkb.solving.solution import Status
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import Value

__all__ = ["Export", "Capacity", "Capacities", "export_peer", "tool_name"]


@dataclass(frozen=True)
class Capacity:
    """A capacity written: ``key``'s ``magnitude`` in ``unit`` (JEDEC's binary unit, printed by the vendor as its
    decimal spelling, ``printed_unit``), written as the tool's ``field``, read in ``field_unit`` (None: a count) per
    ``consumed``."""
    key: VarKey
    magnitude: float
    unit: str
    printed_unit: str
    field: str
    field_unit: str | None
    consumed: str


@dataclass(frozen=True)
class Capacities:
    """A note on the capacities written, as the vendor prints each and as the tool reads its field (worded by
    :mod:`hwkb.render.note_words`)."""
    written: tuple[Capacity, ...]


@dataclass(frozen=True, repr=False)
class Export(Result):
    """The written file's text, the KB values behind it, and what the KB could not settle."""
    format: PeerFormat
    entity: EntityId
    name: str
    written: Written
    values: Mapping[VarKey, Value]
    na: Mapping[VarKey, str] = field(default_factory=dict)  # keys the KB states as n/a on the GPU, with why

    @property
    def text(self) -> str:
        return self.written.text

    @property
    def status(self) -> str:
        """``ok`` when every mapped field has a KB value or is n/a on the GPU, ``partial`` when some are left out."""
        return "partial" if any(k not in self.na for k in self.written.missing.values()) else "ok"

    @property
    def notes(self) -> tuple:
        """What stderr says: each field left out and why, and the layout's own remarks."""
        missing = tuple(f"{field}: n/a on {self.entity} ({self.na[key]}); written as null" if key in self.na
                        else f"{field}: the KB cannot settle {key} for {self.entity}; left null or out"
                        for field, key in self.written.missing.items())
        return missing + self.written.notes + self.capacities

    @property
    def capacities(self) -> tuple[Capacities, ...]:
        """The capacities written, as the vendor prints each (JEDEC's GB is GiB) and in the unit the tool's code reads
        its field in, so "80" under a field named in GB is seen to be the vendor's 80 GB: one note, or none."""
        by_field = {f.field: f for f in self.format.fields}
        written = tuple(Capacity(key, self.values[key].magnitude, self.values[key].unit,
                                 jedec_label(self.values[key].unit), field, by_field[field].unit,
                                 by_field[field].consumed)
                        for field, key in self.written.used.items()
                        if self.values[key].unit != jedec_label(self.values[key].unit) and field in by_field)
        return (Capacities(written),) if written else ()

    def to_dict(self) -> dict:
        fields = []
        for field, key in self.written.used.items():
            value = self.values[key]
            fields.append({"field": field, "variable": key, "value": value.magnitude, "unit": value.unit,
                           "status": "stated" if value.stated else "derived", "source": _source(value)})
        return {"command": "export", "status": self.status, "format": self.format.name, "entity": self.entity,
                "name": self.name, "text": self.text, "fields": fields,
                "missing": [{"field": f, "variable": k} for f, k in self.written.missing.items()],
                "notes": list(self.notes)}

    def __repr__(self) -> str:
        return str(self)


def export_peer(system: System, fmt: PeerFormat, gpu: EntityId) -> Export:
    """The KB's values of every key ``fmt`` maps, for ``gpu``, written in ``fmt``'s layout."""
    solver = Solver(system, system.context(gpu))
    values = {k: solver.values[k] for k in fmt.export_keys() if k in solver.values}
    na = {k: s.notes[0] if s.notes else f"{k} is n/a" for k in fmt.export_keys()
          if k not in values and split_key(k)[0] in system.model.variables
          and (s := solver.solution(k, needs=False)).status == Status.NOT_APPLICABLE}
    name = tool_name(fmt, gpu)
    written = fmt.write(name, {k: v.canonical for k, v in values.items()}, system.units, na=na)
    return Export(fmt, gpu, name, written, values, na)


def tool_name(fmt: PeerFormat, gpu: EntityId) -> str:
    """``hwkb-`` and the KB's id (``audit --from`` maps it back), a name none of the tool's shipped files has; for a
    tool that finds measured data by the system's name (AIConfigurator's ``data/h100_sxm``), its own name for
    ``gpu`` where its name table has one for the whole product."""
    if fmt.finds_data_by_name:
        return next((name for name, match in fmt.names.items() if match.entity == gpu and not match.skip), gpu)
    return EXPORT_PREFIX + gpu


def _source(value: Value) -> str | None:
    if value.stated:
        return f"{value.origin.entity}: {value.origin.source}" if value.origin.source else value.origin.entity
    return f"derived by {value.origin.rule}"
