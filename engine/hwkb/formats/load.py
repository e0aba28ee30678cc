"""Loading KB directories into a :class:`~hwkb.definitions.model.Model`, with every problem of a load at once.

A load reads ``units.txt`` (the last directory that has one), then every rule
file (:mod:`hwkb.formats.rule_files`) and every entity file
(:mod:`hwkb.formats.entity_files`) of all directories, then builds the
variables, the rules and the entities, and checks that ``extends`` names
entities and forms no cycle. All problems are raised together as one
:class:`~hwkb.errors.KBErrors`. With a cache directory the composed YAML trees
are kept there (:mod:`hwkb.formats.yaml_nodes`), each cleanly loaded file's
built entities (:mod:`hwkb.formats.caches.entities`) and the index of which entity
is in which file (:mod:`hwkb.formats.caches.entity_index`): a warm question about one
product reads the rules and the files of its ``extends`` chain, not the whole
catalogue. Duplicate ids and ``extends`` are checked on the whole index every
time; an entity's own problems are found when its file is read, and a file is
left out of the index until it loads without one, so a KB that does not load
fails the same way warm and cold.
"""
from __future__ import annotations

import graphlib
import os
from collections import ChainMap
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple

from hwkb.definitions.citations import Document
from hwkb.definitions.limits import MAX_YAML_BYTES, read_regular_file
from hwkb.definitions.choices import Choice
from hwkb.definitions.model import Entity, EntityId, IndexSet, Model, Rule, Variable
from hwkb.definitions.units import Units
from hwkb.errors import KBError, KBErrors, LoadError, Location, UnknownNameError
from hwkb.formats.bibliography import (BIBLIOGRAPHY, citation_errors, read_bibliography, rule_citation_errors,
                                       selection_citation_errors,
                                       variable_citation_errors)
from hwkb.formats.caches.directory import CacheDirectory, trusted
from hwkb.formats.caches.entities import cached_entities, store_entities
from hwkb.formats.caches.entity_index import (EntityIndex, FileRecord, LazyEntities, Outline, fingerprint,
                                              size_and_time as size_and_time_of)
from hwkb.formats.caches.entries import digest
from hwkb.formats.entity_files import build_entity, read_entity_file
from hwkb.formats.choice_files import build_choice
from hwkb.formats.ceilings import add_ceilings
from hwkb.formats.rule_files import build_rule, build_variable, check_aliases, read_rule_file
from hwkb.formats.yaml_nodes import Declaration, NodeReader, read_yaml

__all__ = ["load_model", "load_entities"]


def load_model(directories: Iterable[Path], extra_entity_files: Iterable[Path] = (), *,
               cache: Path | CacheDirectory | None = None) -> tuple[Model, Units]:
    """Read KB directories (later ones add to earlier ones) into a Model; raise KBErrors.

    ``cache``: the directory of hwkb's caches, where composed YAML trees, built entities and the entity index
    are kept; None reads every file afresh. With a cache, the model's entities are built when first asked
    for (:class:`~hwkb.formats.caches.entity_index.LazyEntities`): a file unchanged since it last loaded cleanly
    is not read until one of its entities is.
    """
    errors: list[KBError] = []
    cache = trusted(cache)
    directories = [Path(d) for d in directories]
    units = _units(directories)
    sources = read_bibliography(directories, errors, cache)
    indices: dict[str, IndexSet] = {}
    variables: list[Declaration] = []
    rules: list[Declaration] = []
    choice_items: list[Declaration] = []
    files: list[str] = []
    entity_files: list[Path] = []
    cited: set[str] = set()  # the files of directories that hold a bibliography: their sources must cite it
    for directory in directories:
        held = (directory / BIBLIOGRAPHY).exists()
        found = _entity_files(directory, errors)
        entity_files += found
        cited.update(map(str, found) if held else ())
        for path in sorted((directory / "rules").glob("*.yaml")):
            files.append(str(path))
            cited.update((str(path),) if held else ())
            root = read_yaml(path, errors, cache)
            if root is not None:
                read_rule_file(NodeReader(path, errors), root, indices, variables, rules, choice_items)
    extra = [Path(p) for p in extra_entity_files]
    entity_files += extra
    bibliographies = [d / BIBLIOGRAPHY for d in directories if (d / BIBLIOGRAPHY).exists()]
    texts = ([_text_of(path) for path in [*map(Path, units.sources), *map(Path, files), *bibliographies]]
             if cache else [])
    if None in texts:  # a rule file that did not read: its error is reported; nothing is cached against it
        cache = None
    index = EntityIndex(cache, [str(p) for p in [*directories, *extra]],  # one index per set of directories
                        fingerprint(texts) if cache else "")
    slots = [_read_entity_slot(path, index, errors, cache) for path in entity_files]
    files += map(str, entity_files)
    declared = _variables(variables, indices, units)
    check_aliases(variables, declared)
    add_ceilings(variables, declared)
    errors += variable_citation_errors([v for v in declared.values() if v.default and v.default.where.file in cited],
                                       sources)
    choices: dict[str, Choice] = {}
    for item in choice_items:
        choice = build_choice(item, indices, declared)
        if choice is not None:
            item.reader.declare(choices, item.name, item.key_node, choice)
    errors += selection_citation_errors([c.default for c in choices.values() if c.where.file in cited], sources)
    built_rules: dict[str, Rule] = {}
    for item in rules:
        rule = build_rule(item, indices, declared, units, choices)
        if rule is not None:
            item.reader.declare(built_rules, item.name, item.key_node, rule)
    errors += rule_citation_errors([r for r in built_rules.values() if r.where.file in cited], sources)
    outlines: dict[EntityId, Outline] = {}
    built: dict[EntityId, Entity] = {}
    records: dict[str, FileRecord] = {}
    for slot in slots:
        if slot.record is not None:
            for eid, outline in slot.record.outlines(str(slot.path)):
                _declare(outlines, eid, outline, errors)
            records[str(slot.path)] = slot.record
            continue
        before = len(errors)
        file_entities = [build_entity(item, indices, declared, units, choices=choices) for item in slot.declarations]
        errors += citation_errors(file_entities if str(slot.path) in cited else (), sources)
        if slot.clean and len(errors) == before and slot.text is not None:
            records[str(slot.path)] = FileRecord.of(slot.text, slot.size_and_time, file_entities)
            store_entities(cache, _entities_source(index, records[str(slot.path)]), str(slot.path), file_entities)
        for entity in file_entities:
            if _declare(outlines, entity.id, _outline(entity, slot.path), errors):
                built[entity.id] = entity
    errors += _check_extends(outlines)
    index.write(records)
    if errors:
        raise KBErrors(errors)
    reader = _IndexedFiles(index, records, indices, declared, units, cache, sources if cited else None, cited,
                           choices)
    return Model(indices, declared, built_rules, LazyEntities(outlines, built, reader.read), tuple(files),
                 sources, choices), units


class _Slot(NamedTuple):
    """One entity file of a load: its record if the index vouches for it, else what reading it gave."""
    path: Path
    record: FileRecord | None = None
    declarations: tuple[Declaration, ...] = ()
    text: str | None = None
    size_and_time: tuple[int, int] | None = None
    clean: bool = False


def _read_entity_slot(path: Path, index: EntityIndex, errors: list[KBError], cache: CacheDirectory | None) -> _Slot:
    """An entity file the index knows unchanged (not read), else read into declarations."""
    record = index.unchanged(path, lambda: _text_of(path)) if cache else None
    if record is not None:
        return _Slot(path, record)
    before = len(errors)
    size_and_time = size_and_time_of(path)  # before the text: a file written meanwhile is read again next time
    try:
        text = read_regular_file(path, MAX_YAML_BYTES)
    except KBError as exc:
        errors.append(exc)
        return _Slot(path)
    root = read_yaml(path, errors, cache, text=text)
    declarations: list[Declaration] = []
    if root is not None:
        read_entity_file(NodeReader(path, errors), root, declarations)
    return _Slot(path, None, tuple(declarations), text, size_and_time,
                 root is not None and size_and_time is not None and len(errors) == before)


class _IndexedFiles:
    """Builds the entities of a file the index vouched for, when one of them is first asked for: from the
    entity cache if the file's text is still the one indexed, else from its YAML."""

    def __init__(self, index: EntityIndex, records: Mapping[str, FileRecord], indices: Mapping[str, IndexSet],
                 variables: Mapping[str, Variable], units: Units, cache: CacheDirectory | None,
                 sources: Mapping[str, Document] | None, cited: set[str], choices: Mapping[str, Choice]):
        self.index, self.records, self.cache, self.sources, self.cited = index, records, cache, sources, cited
        self.indices, self.variables, self.units, self.choices = indices, variables, units, choices

    def read(self, file: str) -> dict[EntityId, Entity]:
        errors: list[KBError] = []
        path = Path(file)
        try:
            text = read_regular_file(path, MAX_YAML_BYTES)
        except KBError as exc:
            raise KBErrors([exc]) from None
        record = self.records[file]
        source = _entities_source(self.index, record)
        if digest(text) == record.sha:
            entities = cached_entities(self.cache, source, file)
            if entities is not None:
                return {e.id: e for e in entities}
        root = read_yaml(path, errors, self.cache, text=text)
        declarations: list[Declaration] = []
        if root is not None:
            read_entity_file(NodeReader(path, errors), root, declarations)
        entities = [build_entity(item, self.indices, self.variables, self.units, choices=self.choices)
                    for item in declarations]
        errors += citation_errors(entities if file in self.cited else (), self.sources)
        if errors:
            raise KBErrors(errors)
        if digest(text) == record.sha:
            store_entities(self.cache, source, file, entities)
        return {e.id: e for e in entities}


def _entities_source(index: EntityIndex, record: FileRecord) -> str:
    """What a file's built entities are made from: its text (by hash) and the index's fingerprint."""
    return digest("entities", index.fingerprint, record.sha)


def _text_of(path: Path) -> str | None:
    try:
        return read_regular_file(path, MAX_YAML_BYTES)
    except KBError:
        return None


def _outline(entity: Entity, path: Path) -> Outline:
    return Outline(str(path), tuple(entity.extends), entity.where, entity.extends_where)


def _declare(table: dict[EntityId, Outline], eid: EntityId, outline: Outline, errors: list[KBError]) -> bool:
    """Put ``outline`` under ``eid``, or report that the id is declared already (the first stays)."""
    if eid in table:
        errors.append(LoadError(f"{eid!r} is declared twice", where=outline.where,
                                hint=f"the first is at {table[eid].where}"))
        return False
    table[eid] = outline
    return True


def _entity_files(directory: Path, errors: list[KBError]) -> list[Path]:
    """Every ``*.yaml`` under ``directory`` outside ``rules/`` holds entities (``gpus/`` by convention, but a
    derived file written beside it counts too); a ``*.yml`` is refused by name rather than passed over."""
    found = []
    for folder, subfolders, names in os.walk(directory):  # symbolic links to folders are not followed
        here = Path(folder)
        if here == directory:
            subfolders[:] = [s for s in subfolders if s != "rules"]
            names = [n for n in names if n != BIBLIOGRAPHY]
        subfolders.sort()
        for name in sorted([*names, *(s for s in subfolders if s.endswith((".yaml", ".yml")))]):
            if name.endswith(".yaml"):
                found.append(here / name)
            elif name.endswith(".yml"):
                errors.append(LoadError("hwkb reads KB files named *.yaml, and this one would be passed over",
                                        where=Location(str(here / name)), hint="rename it to .yaml"))
    return found


def load_entities(path: Path, model: Model, units: Units, *,
                  cache: Path | CacheDirectory | None = None) -> dict[str, Entity]:
    """Entities of one extra YAML file (a user's datasheet) against a loaded model; ``kind`` defaults to product."""
    errors: list[KBError] = []
    cache = trusted(cache)
    path = Path(path)
    root = read_yaml(path, errors, cache)
    items: list[Declaration] = []
    if root is not None:
        read_entity_file(NodeReader(path, errors), root, items, kind_required=False)
    entities = _entities(items, model.indices, model.variables, units, default_kind="product")
    known = model.entities.outlines if isinstance(model.entities, LazyEntities) else model.entities
    errors += _check_extends(ChainMap(entities, known))
    if errors:
        raise KBErrors(errors)
    return entities


def _check_extends(entities: Mapping[str, Entity | Outline]) -> list[KBError]:
    """The problems of ``extends`` (of built entities or their outlines): a parent that is not an entity, and
    a cycle in each group of entities that extend one another round.

    The standard library's topological sorter says whether there is any cycle (every load asks); only then
    is NetworkX (about 90 ms to import, so never on a clean load) asked for the groups and one cycle in
    each. Nodes are integer ids in the entities' order, so the cycle named does not depend on the hash seed.
    """
    errors: list[KBError] = []
    for entity in entities.values():
        for parent in entity.extends:
            if parent not in entities:
                errors.append(UnknownNameError("entity", parent, entities, where=entity.extends_where or entity.where))
    names = list(entities)
    ids = {name: i for i, name in enumerate(names)}
    edges = [(ids[name], ids[parent]) for name, entity in entities.items()
             for parent in entity.extends if parent in ids]
    try:
        graphlib.TopologicalSorter({i: () for i in range(len(names))} | _successors(edges)).prepare()
        return errors
    except graphlib.CycleError:
        pass
    import networkx as nx
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(names)))
    graph.add_edges_from(edges)
    groups = sorted((sorted(group) for group in nx.strongly_connected_components(graph)
                     if len(group) > 1 or graph.has_edge(min(group), min(group))), key=min)
    for group in groups:
        ring = nx.find_cycle(graph.subgraph(group), source=group[0])
        cycle = [names[u] for u, _ in ring] + [names[ring[-1][1]]]
        closing = entities[names[ring[-1][0]]]
        errors.append(LoadError(f"'extends' forms a cycle: {' -> '.join(cycle)}",
                                where=closing.extends_where or closing.where, hint="an entity cannot extend itself"))
    return errors


def _successors(edges: list[tuple[int, int]]) -> dict[int, list[int]]:
    successors: dict[int, list[int]] = {}
    for child, parent in edges:
        successors.setdefault(child, []).append(parent)
    return successors


def _units(directories: list[Path]) -> Units:
    for directory in directories:
        if not directory.is_dir():
            raise KBErrors([LoadError("no such KB directory", where=Location(str(directory)),
                                      hint="--kb takes a directory holding rules/ and gpus/")])
    units_files = [d / "units.txt" for d in directories
                   if os.path.lexists(d / "units.txt")]  # a pipe or a link is an error of its own
    if not units_files:
        raise KBErrors([LoadError("no units.txt in the KB directories", where=Location(str(directories[0])))])
    try:
        return Units.from_files(units_files)  # the first defines, the later ones (overlays) may only add
    except KBError as exc:
        raise KBErrors([exc]) from exc


def _variables(items: list[Declaration], indices: Mapping[str, IndexSet], units: Units) -> dict[str, Variable]:
    variables: dict[str, Variable] = {}
    for item in items:
        variable = build_variable(item, indices, units)
        if variable is not None:
            item.reader.declare(variables, item.name, item.key_node, variable)
        elif item.name not in variables:
            variables[item.name] = Variable(item.name, "", "", item.where)  # keep the name known
    return variables


def _entities(items: list[Declaration], indices: Mapping[str, IndexSet], variables: Mapping[str, Variable],
              units: Units, default_kind: str | None = None) -> dict[str, Entity]:
    entities: dict[str, Entity] = {}
    for item in items:
        entity = build_entity(item, indices, variables, units, default_kind)
        item.reader.declare(entities, item.name, item.key_node, entity)
    return entities
