"""The context of a query: an entity stack plus overrides, giving the known facts.

``--gpu h100-sxm --with wgmma-m64n256k16 --set clock_tc=1.7GHz`` becomes the
facts of hopper, then h100-sxm, then the instruction shape's chain, then the
override: later wins. Variables' defaults sit underneath everything.
"""
from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from hwkb.errors import ContextError, Location, UnknownNameError
from hwkb.definitions.choices import Selection
from hwkb.definitions.model import EntityId, Fact, Model, VarKey, ancestry
from hwkb.definitions.printed import printed_interval
from hwkb.definitions.quantities import read_quantity
from hwkb.definitions.units import Units

__all__ = ["Context", "build_context", "parse_assignment"]

_SOURCES = {"set": "given on the command line", "given": "given as the baseline", "scenario": "scenario override"}


@dataclass(frozen=True)
class Context:
    """The facts a query knows, and which of them it was given (``overrides``: key -> set | given | scenario).

    Contexts are values: :meth:`without` and :meth:`with_facts` are the only ways to edit one, and
    both return a new context.
    """
    entities: tuple[EntityId, ...]
    facts: Mapping[VarKey, Fact]
    overrides: Mapping[VarKey, str] = field(default_factory=dict)
    selections: Mapping[str, Selection] = field(default_factory=dict)  # each choice's value (later layer wins)

    @property
    def not_applicable(self) -> frozenset[VarKey]:
        return frozenset(k for k, f in self.facts.items() if not f.applicable)

    @property
    def chosen(self) -> Mapping[str, str]:
        """Each choice's value: ``{"matmul_precision": "fp8"}``."""
        return {name: s.value for name, s in self.selections.items()}

    @property
    def shape(self) -> tuple:
        """What, besides the known keys, decides which relations a query may use: the n/a keys and the choices."""
        return self.not_applicable, frozenset(self.chosen.items())

    @property
    def entity(self) -> EntityId | None:
        return self.entities[-1] if self.entities else None

    def without(self, keys: Iterable[VarKey]) -> "Context":
        """The context with the facts of ``keys`` set aside (they become unknowns)."""
        keys = set(keys)
        return Context(self.entities, {k: f for k, f in self.facts.items() if k not in keys},
                       {k: v for k, v in self.overrides.items() if k not in keys}, self.selections)

    def with_facts(self, facts: Iterable[Fact], via: str | None = "set") -> "Context":
        """The context with ``facts`` on top (later wins), marked as given ``via`` (None: not marked)."""
        table, overrides = dict(self.facts), dict(self.overrides)
        for fact in facts:
            table[fact.key] = fact
            if via is not None:
                overrides[fact.key] = via
        return Context(self.entities, table, overrides, self.selections)


def parse_assignment(text: str, model: Model, units: Units, origin: str = "--set",
                     via: str = "set") -> Fact:
    """``'clock_tc=1.755GHz'`` -> a Fact in the unit written; a bare number is in the variable's unit.

    The value is read by the one quantity syntax (:func:`~hwkb.definitions.quantities.read_quantity`) and, as a
    KB fact is, as printed: its digits give its rounding (1.9 GHz is 1.85 to 2.0), a count's are exact. A figure
    typed in another unit than the variable's is converted, its rounding with it, the larger side either way.
    """
    where = Location(origin)
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or not key or not value:
        raise ContextError(f"cannot read {text!r}", where=where, hint="write VAR=VALUE, e.g. clock_tc=1.755GHz")
    key = model.resolve_key(key)
    variable = model.check_key(key, where=where)
    reading = read_quantity(value, variable.unit, units, where, key=key, positive=variable.positive,
                            integer=variable.integer, capacity=variable.capacity)
    if not reading.applicable:
        return Fact(key, None, variable.unit, reading.text, _SOURCES[via], None, where)
    if variable.integer:
        return Fact(key, reading.value, variable.unit, repr(reading.value), _SOURCES[via], None, where, tolerance=0.0)
    if reading.unit == variable.unit:
        return Fact(key, reading.value, variable.unit, reading.number, _SOURCES[via], None, where)
    rounding = max(printed_interval(reading.number))  # in the unit typed: "1900MHz" is 1850 to 2000 MHz
    tolerance = units.from_canonical(units.to_canonical(rounding, reading.unit), variable.unit)
    return Fact(key, reading.value, variable.unit, repr(reading.value), _SOURCES[via], None, where, tolerance=tolerance)


def build_context(model: Model, units: Units, gpu: EntityId | None = None, layers: Iterable[EntityId] = (),
                  sets: Iterable[str | Fact] = (), extra_entities: Mapping[EntityId, object] | None = None,
                  via: str = "set", base: Context | None = None) -> Context:
    """Layer the defaults, the entity chains and the overrides into one set of facts."""
    entities_table = ChainMap(dict(extra_entities or {}), model.entities)  # no copy: entities load lazily
    stack: list[EntityId] = []
    for eid in ([gpu] if gpu else []) + list(layers):
        if eid not in entities_table:
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
    selections = {name: choice.default for name, choice in model.choices.items()}
    for eid in stack:
        facts.update(entities_table[eid].facts)
        selections.update(getattr(entities_table[eid], "selections", {}))
    overrides: dict[VarKey, str] = {}
    if base is not None:
        facts.update({k: base.facts[k] for k in base.overrides})
        overrides.update(base.overrides)
        selections.update({k: s for k, s in base.selections.items() if s.where.file in ("--set", "--given")})
    for item in sets:
        origin = "--given" if via == "given" else "--set"
        if isinstance(item, str) and item.partition("=")[0].strip() in model.choices:
            selection = _parse_selection(item, model, origin, via)
            selections[selection.choice] = selection
            continue
        fact = item if isinstance(item, Fact) else parse_assignment(item, model, units, origin=origin, via=via)
        facts[fact.key] = fact
        overrides[fact.key] = via
    return Context(tuple(stack), facts, overrides, selections)


def _parse_selection(text: str, model: Model, origin: str = "--set", via: str = "set") -> Selection:
    """``'matmul_precision=fp8'`` -> the choice's value, one of its index set's."""
    where = Location(origin)
    name, _, value = (part.strip() for part in text.partition("="))
    values = model.indices[model.choices[name].over].values
    if value not in values:
        raise UnknownNameError(f"{model.choices[name].over} value", value, values, where=where)
    return Selection(name, value, _SOURCES[via], None, where)
