"""The context of a query: an entity stack plus overrides, giving the known facts.

``--gpu h100-sxm --with wgmma-m64n256k16 --set clock_tc=1.7GHz`` becomes the
facts of hopper, then h100-sxm, then the instruction shape's chain, then the
override: later wins. Variables' defaults sit underneath everything.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from hwkb.errors import ContextError, Location, UnitError
from hwkb.definitions.model import EntityId, Fact, Model, VarKey, ancestry
from hwkb.definitions.units import Units

__all__ = ["Context", "build_context", "parse_assignment"]

_SOURCES = {"set": "given on the command line", "given": "given as the baseline", "scenario": "scenario override"}


@dataclass(frozen=True)
class Context:
    entities: tuple[EntityId, ...]
    facts: Mapping[VarKey, Fact]
    overrides: Mapping[VarKey, str] = field(default_factory=dict)  # key -> set | given | scenario

    @property
    def not_applicable(self) -> frozenset[VarKey]:
        return frozenset(k for k, f in self.facts.items() if not f.applicable)

    @property
    def entity(self) -> EntityId | None:
        return self.entities[-1] if self.entities else None


def parse_assignment(text: str, model: Model, units: Units, origin: str = "--set",
                     via: str = "set") -> Fact:
    """``'clock_tc=1.755GHz'`` -> a Fact; a bare number is in the variable's unit."""
    where = Location(origin)
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key or not value:
        raise ContextError(f"cannot read {text!r}", where=where, hint="write VAR=VALUE, e.g. clock_tc=1.755GHz")
    variable = model.check_key(key, where=where)
    if value.lower() in ("n/a", "na"):
        return Fact(key, None, variable.unit, value, _SOURCES[via], None, where)
    from hwkb.formats.load import _split_value  # the file format and the flag share one number syntax
    try:
        number, unit = _split_value(value, variable.unit)
        quantity = units.parse_quantity(f"{number} {unit}" if unit else number, where)
    except (ValueError, UnitError):
        raise UnitError(f"cannot read {value!r} as a value of {key}", where=where,
                        hint=f"write a number, optionally with a unit of {variable.unit or 'a count'}") from None
    if not math.isfinite(float(number)) or not math.isfinite(float(quantity.magnitude)):
        raise UnitError(f"{value!r} is not a finite number", where=where)
    if float(number) < 0:
        raise UnitError(f"{value!r} is negative, and no KB quantity is", where=where,
                        hint=f"give the size of {key}")
    if units.dimensions(str(quantity.units)) != units.dimensions(variable.unit):
        raise UnitError(f"{value!r} does not fit {key}, which is in {variable.unit or 'plain numbers'}", where=where,
                        hint=f"give it in {variable.unit or 'plain numbers'}")
    magnitude = float(quantity.to(variable.unit or "dimensionless").magnitude) if unit != variable.unit else float(number)
    return Fact(key, magnitude, variable.unit, number if unit == variable.unit else repr(magnitude),
                _SOURCES[via], None, where, tolerance=0.0)


def build_context(model: Model, units: Units, gpu: EntityId | None = None, layers: Iterable[EntityId] = (),
                  sets: Iterable[str | Fact] = (), extra_entities: Mapping[EntityId, object] | None = None,
                  via: str = "set", base: Context | None = None) -> Context:
    """Layer the defaults, the entity chains and the overrides into one set of facts."""
    entities_table = {**model.entities, **(extra_entities or {})}
    stack: list[EntityId] = []
    for eid in ([gpu] if gpu else []) + list(layers):
        if eid not in entities_table:
            from hwkb.errors import UnknownNameError
            raise UnknownNameError("entity", eid, entities_table, where=Location("--gpu" if eid == gpu else "--with"))
        for ancestor in ancestry(entities_table, eid):
            if ancestor in stack:
                stack.remove(ancestor)
            stack.append(ancestor)
    facts: dict[VarKey, Fact] = {}
    for variable in model.variables.values():
        if variable.default is not None:
            for key in variable.keys(model.indices):
                facts[key] = replace(variable.default, key=key)
    for eid in stack:
        facts.update(entities_table[eid].facts)
    overrides: dict[VarKey, str] = {}
    if base is not None:
        facts.update({k: base.facts[k] for k in base.overrides})
        overrides.update(base.overrides)
    for item in sets:
        fact = item if isinstance(item, Fact) else parse_assignment(
            item, model, units, origin="--given" if via == "given" else "--set", via=via)
        facts[fact.key] = fact
        overrides[fact.key] = via
    return Context(tuple(stack), facts, overrides)
