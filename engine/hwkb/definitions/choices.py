"""Choices: categorical quantities a context's layers set, each to a value of an index set.

A law that writes a choice as an index (``workload_peak = tc_peak[matmul_precision]``) holds only at the value
the context chooses (:meth:`hwkb.solving.relations.Relation.chosen_in`), so a precision layer picks the peak a
workload runs at without a rate that would hold on one GPU only.
"""
from __future__ import annotations

from dataclasses import dataclass

from hwkb.errors import Location

__all__ = ["Choice", "Selection"]


@dataclass(frozen=True)
class Choice:
    """A categorical quantity whose value is one of an index set's values, chosen by a context's layers: the
    precision a workload multiplies in (``matmul_precision``). A rule that writes it as an index
    (``tc_peak[matmul_precision]``) holds only at the value the context chooses."""
    name: str
    over: str  # the index set whose values it takes
    doc: str
    where: Location
    default: "Selection"


@dataclass(frozen=True)
class Selection:
    """A choice's value as an entity (or a default, or ``--set``) states it, with where it comes from."""
    choice: str
    value: str
    source: str | None
    entity: str | None
    where: Location
    doc: str | None = None
