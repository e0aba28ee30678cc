"""A variable's ceiling as a rule file writes it: ``at_most: {variable: clock_boost, source: "..."}``.

A derived value above the ceiling's stated figure beyond the rounding of the figures it comes from is no answer to
trust (a peak stated at a clock above the product's boost clock); ``solve`` reports it
(:mod:`hwkb.solving.ceilings`).
"""
from __future__ import annotations

from dataclasses import replace

from hwkb.definitions.model import Ceiling, Variable
from hwkb.errors import UnknownNameError
from hwkb.formats.yaml_nodes import Declaration

__all__ = ["read_ceiling", "add_ceilings"]

#: a ceiling's fields: the variable a derived value should not exceed, and the document or reason that says so
_CEILING_FIELDS = ("variable", "source")


def read_ceiling(item: Declaration) -> Ceiling | None:
    """A variable's ``at_most: {variable: clock_boost, source: "..."}``, its name not yet checked. None with the
    problem reported."""
    reader, node = item.reader, item.fields["at_most"][1]
    what = f"the ceiling of {item.name!r}"
    fields = reader.mapping(node, what, _CEILING_FIELDS)
    if fields is None:
        return None
    missing = [f for f in _CEILING_FIELDS if f not in fields]
    if missing:
        reader.error(node, f"{what} lacks {' and '.join(repr(f) for f in missing)}",
                     "give the variable it should not exceed and the document or reason that says so")
        return None
    variable, source = (reader.text(fields[f][1], f) for f in _CEILING_FIELDS)
    if variable is None or source is None:
        return None
    return Ceiling(variable, source, reader.at(fields["variable"][1]))


def add_ceilings(items: list[Declaration], variables: dict[str, Variable]) -> None:
    """Give each declared variable its ceiling, once every rule file is read (a ceiling may name another file's
    variable); report one that names no variable, or a variable of another unit."""
    for item in items:
        variable = variables.get(item.name)
        if variable is None or variable.where != item.where or "at_most" not in item.fields:
            continue
        ceiling = read_ceiling(item)
        if ceiling is None:
            continue
        other = variables.get(ceiling.variable)
        if other is None:
            item.reader.errors.append(UnknownNameError("variable", ceiling.variable, variables, where=ceiling.where))
        elif other.unit != variable.unit:
            item.reader.error(item.fields["at_most"][1],
                              f"the ceiling of {item.name!r} is {other.name!r}, in {other.unit or 'a count'}, "
                              f"but {item.name!r} is in {variable.unit or 'a count'}", "name a variable of the same unit")
        else:
            variables[item.name] = replace(variable, at_most=ceiling)
