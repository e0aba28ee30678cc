"""Choices as the files write them: a rule file's ``choices`` section and the value an entity chooses.

``choices: {matmul_precision: {over: precision, doc: ..., default: bf16, source: ...}}`` declares one; an entity
states its value among its facts, bare (``matmul_precision: fp8``) or as ``{value, source, doc}``. Each mistake is
reported at its file:line.
"""
from __future__ import annotations

from typing import Mapping

from hwkb.definitions.choices import Choice, Selection
from hwkb.definitions.expressions import RelationTree
from hwkb.definitions.model import IndexSet, Variable, resolve_name
from hwkb.errors import UnknownNameError
from hwkb.formats.names import check_name
from hwkb.formats.yaml_nodes import Declaration, Node, NodeReader

__all__ = ["CHOICE_FIELDS", "build_choice", "read_selection", "chosen_indices"]

CHOICE_FIELDS = ("over", "doc", "default", "source")
_SELECTION_FIELDS = ("value", "source", "doc")


def build_choice(item: Declaration, indices: Mapping[str, IndexSet],
                 variables: Mapping[str, Variable]) -> Choice | None:
    """A choice as declared: ``over`` an index set, a ``default`` value of it and the ``source`` of that default;
    None with the problem reported. Its name is no variable's and no index value, so ``tc_peak[name]`` reads
    one way only."""
    reader, name, fields = item.reader, item.name, item.fields
    if not all(f in fields for f in CHOICE_FIELDS) or not check_name(reader, item.key_node, name, "choice"):
        return None  # a missing field is reported by the mapping
    over = reader.text(fields["over"][1], "over")
    doc = reader.text(fields["doc"][1], "doc")
    if over is None or doc is None:
        return None
    if over not in indices:
        reader.errors.append(UnknownNameError("index set", over, indices, where=reader.at(fields["over"][1])))
        return None
    clash = ("a variable" if resolve_name(name, variables) in variables else
             f"a value of index set {next(i for i in indices.values() if name in i.values).name!r}"
             if any(name in i.values for i in indices.values()) else "an index set" if name in indices else None)
    if clash:
        reader.error(item.key_node, f"choice {name!r} is also the name of {clash}",
                     "give the choice a name of its own, so that name[index] reads one way")
        return None
    source = reader.text(fields["source"][1], "source")
    default = read_selection(reader, fields["default"][1], name, indices[over], None, source)
    if default is None:
        return None
    return Choice(name, over, doc, item.where, default)


def read_selection(reader: NodeReader, node: Node, choice: str, index: IndexSet, entity: str | None,
                   default_source: str | None) -> Selection | None:
    """The value ``node`` chooses for ``choice``: a value of ``index``, bare or ``{value, source, doc}``; None
    with the problem reported at the node."""
    fields, value_node = None, node
    if reader.is_mapping(node):
        fields = reader.mapping(node, f"choice {choice!r}", _SELECTION_FIELDS, ("value",))
        if fields is None or "value" not in fields:  # reported by the mapping
            return None
        value_node = fields["value"][1]
    value = reader.text(value_node, f"the value of {choice!r}")
    if value is None:
        return None
    if value not in index.values:
        reader.errors.append(UnknownNameError(f"{index.name} value", value, index.values,
                                              where=reader.at(value_node)))
        return None
    source = reader.text(fields["source"][1], "source") if fields and "source" in fields else default_source
    doc = reader.text(fields["doc"][1], "doc") if fields and "doc" in fields else None
    return Selection(choice, value, source, entity, reader.at(value_node), doc)


def chosen_indices(relation: RelationTree, over: list[str], choices: Mapping[str, Choice]) -> tuple[tuple[str, ...],
                                                                                                 dict[str, str]]:
    """The choices a rule's equation takes indices from (``tc_peak[matmul_precision]``), and every name its indices
    may run over mapped to its index set: the ``for:`` sets to themselves, each choice to the set it takes values of
    (so a misspelt choice is suggested among the values)."""
    chosen = tuple(dict.fromkeys(ref.index for ref in relation.references()
                                 if ref.index in choices and ref.index not in over))
    runs_over = {**{c: choice.over for c, choice in choices.items() if c not in over}, **{i: i for i in over}}
    return chosen, runs_over
