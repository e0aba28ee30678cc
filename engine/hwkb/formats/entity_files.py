"""Entity files (``gpus/*.yaml``): architectures, products, instruction shapes, scenarios ... and their facts.

Entities are kept as :class:`~hwkb.formats.yaml_nodes.Declaration` until the
rule files are read, then built against the declared variables: every fact key
is checked (:func:`~hwkb.formats.rule_files.check_key`; a vendor alias, ``cu_count``, is stored under its
variable's key, ``sm_count``) and every value read by :func:`~hwkb.formats.facts.read_fact`. A key that names a
choice (``matmul_precision: fp8``) states the choice's value, one of its index set's.
"""
from __future__ import annotations

from typing import Mapping

from hwkb.definitions.choices import Choice, Selection
from hwkb.definitions.model import ENTITY_KINDS, Entity, IndexSet, Variable, split_key
from hwkb.definitions.units import Units
from hwkb.formats.facts import read_fact
from hwkb.formats.names import check_name
from hwkb.formats.choice_files import read_selection
from hwkb.formats.rule_files import check_key
from hwkb.formats.yaml_nodes import Declaration, Node, NodeReader

__all__ = ["read_entity_file", "build_entity"]

_ENTITY_FIELDS = ("kind", "name", "doc", "extends", "source", "facts")


def read_entity_file(reader: NodeReader, root: Node, entities: list[Declaration], kind_required: bool = True) -> None:
    """Add the file's entities, as written, to ``entities``; a user's datasheet may leave ``kind`` out."""
    for eid, (key_node, node) in (reader.mapping(root, "an entities file") or {}).items():
        if not check_name(reader, key_node, eid, "entity"):
            continue
        fields = reader.mapping(node, f"entity {eid!r}", _ENTITY_FIELDS, ("kind",) if kind_required else ())
        if fields is not None:
            entities.append(Declaration(reader, eid, key_node, fields))


def build_entity(item: Declaration, indices: Mapping[str, IndexSet], variables: Mapping[str, Variable],
                 units: Units, default_kind: str | None = None, *,
                 choices: Mapping[str, Choice] | None = None) -> Entity:
    reader, eid, fields = item.reader, item.name, item.fields
    # a missing kind is reported where it is required; a datasheet's defaults to a product
    kind = reader.text(fields["kind"][1], "kind") if "kind" in fields else default_kind
    if kind is not None and kind not in ENTITY_KINDS:
        reader.error(fields["kind"][1], f"unknown entity kind {kind!r}", f"use one of {', '.join(ENTITY_KINDS)}")
    name = reader.text(fields["name"][1], "name") if "name" in fields else eid
    doc = reader.text(fields["doc"][1], "doc") if "doc" in fields else ""
    source = reader.text(fields["source"][1], "source") if "source" in fields else None
    extends = tuple(reader.names(fields["extends"][1], "extends") or ()) if "extends" in fields else ()
    facts = {}
    selections: dict[str, Selection] = {}
    written: dict[str, str] = {}  # a variable's key -> the key as written (its name or a vendor alias)
    if "facts" in fields:
        for text, (key_node, node) in (reader.mapping(fields["facts"][1], f"the facts of {eid!r}") or {}).items():
            if choices and text in choices:  # a categorical fact: the value of a choice
                selection = read_selection(reader, node, text, indices[choices[text].over], eid, source)
                if selection is not None:
                    selections[text] = selection
                continue
            key = check_key(reader, key_node, text, indices, variables)
            if key is None:
                continue
            if key in written:
                reader.error(key_node, f"{eid!r} states {key} twice, as {written[key]} and as {text}",
                             "an alias names the same variable: keep one")
                continue
            written[key] = text
            fact = read_fact(reader, node, variables[split_key(key)[0]], key, eid, source, units)
            if fact is not None:
                facts[key] = fact
    extends_where = reader.at(fields["extends"][1]) if "extends" in fields else None
    return Entity(eid, kind or "", name or eid, doc or "", item.where, extends, facts, source, extends_where,
                  selections)
