"""Loading KB directories into a :class:`~hwkb.definitions.model.Model`, with every problem of a load at once.

A load reads ``units.txt`` (the last directory that has one), then every rule
file (:mod:`hwkb.formats.rule_files`) and every entity file
(:mod:`hwkb.formats.entity_files`) of all directories, then builds the
variables, the rules and the entities, and checks that ``extends`` names
entities and forms no cycle. All problems are raised together as one
:class:`~hwkb.errors.KBErrors`. With a cache directory the composed YAML trees
are kept there (:mod:`hwkb.formats.yaml_nodes`).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

from hwkb.definitions.model import Entity, IndexSet, Model, Rule, Variable
from hwkb.definitions.units import Units
from hwkb.errors import KBError, KBErrors, LoadError, Location, UnknownNameError
from hwkb.formats.entity_files import build_entity, read_entity_file
from hwkb.formats.rule_files import build_rule, build_variable, read_rule_file
from hwkb.formats.yaml_nodes import Declaration, NodeReader, read_yaml

__all__ = ["load_model", "load_entities"]


def load_model(directories: Iterable[Path], extra_entity_files: Iterable[Path] = (), *,
               cache: Path | None = None) -> tuple[Model, Units]:
    """Read KB directories (later ones add to earlier ones) into a Model; raise KBErrors.

    ``cache``: the directory of hwkb's caches, where composed YAML trees are kept; None reads every file afresh.
    """
    errors: list[KBError] = []
    directories = [Path(d) for d in directories]
    units = _units(directories)
    indices: dict[str, IndexSet] = {}
    variables: list[Declaration] = []
    rules: list[Declaration] = []
    entities: list[Declaration] = []
    files: list[str] = []
    entity_files: list[Path] = []
    for directory in directories:
        entity_files += _entity_files(directory, errors)
        for path in sorted((directory / "rules").glob("*.yaml")):
            files.append(str(path))
            root = read_yaml(path, errors, cache)
            if root is not None:
                read_rule_file(NodeReader(path, errors), root, indices, variables, rules)
    for path in [*entity_files, *map(Path, extra_entity_files)]:
        files.append(str(path))
        root = read_yaml(path, errors, cache)
        if root is not None:
            read_entity_file(NodeReader(path, errors), root, entities)
    declared = _variables(variables, indices, units)
    built_rules: dict[str, Rule] = {}
    for item in rules:
        rule = build_rule(item, indices, declared, units)
        if rule is not None:
            item.reader.declare(built_rules, item.name, item.key_node, rule)
    built_entities = _entities(entities, indices, declared, units)
    errors += _check_extends(built_entities)
    if errors:
        raise KBErrors(errors)
    return Model(indices, declared, built_rules, built_entities, tuple(files)), units


def _entity_files(directory: Path, errors: list[KBError]) -> list[Path]:
    """Every ``*.yaml`` under ``directory`` outside ``rules/`` holds entities (``gpus/`` by convention, but a
    derived file written beside it counts too); a ``*.yml`` is refused by name rather than passed over."""
    found = []
    for folder, subfolders, names in os.walk(directory):  # symbolic links to folders are not followed
        here = Path(folder)
        if here == directory:
            subfolders[:] = [s for s in subfolders if s != "rules"]
        subfolders.sort()
        for name in sorted([*names, *(s for s in subfolders if s.endswith((".yaml", ".yml")))]):
            if name.endswith(".yaml"):
                found.append(here / name)
            elif name.endswith(".yml"):
                errors.append(LoadError("hwkb reads KB files named *.yaml, and this one would be passed over",
                                        where=Location(str(here / name)), hint="rename it to .yaml"))
    return found


def load_entities(path: Path, model: Model, units: Units, *, cache: Path | None = None) -> dict[str, Entity]:
    """Entities of one extra YAML file (a user's datasheet) against a loaded model; ``kind`` defaults to product."""
    errors: list[KBError] = []
    path = Path(path)
    root = read_yaml(path, errors, cache)
    items: list[Declaration] = []
    if root is not None:
        read_entity_file(NodeReader(path, errors), root, items, kind_required=False)
    entities = _entities(items, model.indices, model.variables, units, default_kind="product")
    errors += _check_extends({**model.entities, **entities})
    if errors:
        raise KBErrors(errors)
    return entities


def _check_extends(entities: Mapping[str, Entity]) -> list[KBError]:
    """The problems of ``extends``: a parent that is not an entity, and every cycle.

    Walked with a stack, not recursion (a chain may be thousands long), each entity once (a diamond of
    ``extends`` costs its edges, not its paths).
    """
    errors: list[KBError] = []
    for entity in entities.values():
        for parent in entity.extends:
            if parent not in entities:
                errors.append(UnknownNameError("entity", parent, entities, where=entity.where))
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    for start in entities:
        if start in state:
            continue
        path = [start]
        state[start] = 1
        stack = [iter(entities[start].extends)]
        while stack:
            parent = next(stack[-1], None)
            if parent is None:
                state[path.pop()] = 2
                stack.pop()
                continue
            if parent not in entities:
                continue
            if state.get(parent) == 1:
                cycle = path[path.index(parent):] + [parent]
                errors.append(LoadError(f"'extends' forms a cycle: {' -> '.join(cycle)}",
                                        where=entities[path[-1]].where, hint="an entity cannot extend itself"))
            elif parent not in state:
                state[parent] = 1
                path.append(parent)
                stack.append(iter(entities[parent].extends))
    return errors


def _units(directories: list[Path]) -> Units:
    for directory in directories:
        if not directory.is_dir():
            raise KBErrors([LoadError("no such KB directory", where=Location(str(directory)),
                                      hint="--kb takes a directory holding rules/ and gpus/")])
    units_file = next((d / "units.txt" for d in reversed(directories)
                       if os.path.lexists(d / "units.txt")), None)  # a pipe or a link is an error of its own
    if units_file is None:
        raise KBErrors([LoadError("no units.txt in the KB directories", where=Location(str(directories[0])))])
    try:
        return Units.from_file(units_file)
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
