"""The knowledge base as frozen data: index sets, variables, rules, entities, facts.

These types know nothing of YAML (``hwkb.formats.load`` builds them) and nothing of
SymPy (``hwkb.solving.relations`` compiles rules). Every item knows where it was
written, so any later error can point at the file and line.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from hwkb.errors import KBError, Location, UnknownNameError
from hwkb.definitions.expressions import RelationTree

__all__ = [
    "VarName", "VarKey", "EntityId", "IndexSet", "Variable", "Fact", "Rule", "Simulation", "SimulationModel",
    "SIMULATION_MODELS",
    "Entity", "Model", "ancestry", "var_key", "split_key", "RULE_KINDS", "ENTITY_KINDS",
]

VarName = str   # a declared variable: "tc_peak"
VarKey = str    # one value of it: "tc_peak[bf16]", or "sm_count" for an unindexed variable
EntityId = str  # "h100-sxm"

RULE_KINDS = ("law", "expectation", "simulated")
ENTITY_KINDS = ("architecture", "product", "die", "instruction", "workload", "scenario", "datasheet", "memory")


def var_key(name: VarName, index: str | None = None) -> VarKey:
    return name if index is None else f"{name}[{index}]"


def split_key(key: VarKey) -> tuple[VarName, str | None]:
    """The variable and the index of a key.

    >>> split_key("tc_peak[bf16]")
    ('tc_peak', 'bf16')
    >>> split_key("sm_count")
    ('sm_count', None)
    """
    if key.endswith("]") and "[" in key:
        name, index = key[:-1].split("[", 1)
        return name, index
    return key, None


@dataclass(frozen=True)
class IndexSet:
    name: str
    values: tuple[str, ...]
    doc: str
    where: Location


@dataclass(frozen=True)
class Fact:
    """A stated value. ``value`` is None for a fact stated as not applicable (``n/a``).

    ``text`` is the number as printed in the file: its digits give the rounding
    the audit allows unless ``tolerance`` (in ``unit``) says otherwise.
    """
    key: VarKey
    value: float | None
    unit: str
    text: str
    source: str | None
    entity: EntityId | None
    where: Location
    doc: str | None = None
    tolerance: float | None = None

    @property
    def applicable(self) -> bool:
        return self.value is not None

    @property
    def rounding(self) -> float:
        """Half a unit in the last printed digit, in ``unit``; 0 for an exact count."""
        if self.tolerance is not None:
            return self.tolerance
        text = self.text.strip().lower().replace("_", "")
        mantissa, _, exponent = text.partition("e")
        decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
        return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


@dataclass(frozen=True)
class Variable:
    name: VarName
    unit: str
    doc: str
    where: Location
    index: str | None = None
    integer: bool = False
    default: Fact | None = None

    def keys(self, indices: Mapping[str, IndexSet]) -> tuple[VarKey, ...]:
        if self.index is None:
            return (self.name,)
        return tuple(var_key(self.name, v) for v in indices[self.index].values)


@dataclass(frozen=True)
class SimulationModel:
    """What a simulated rule may name: a model's integer parameters and the options a rule may fix."""
    parameters: tuple[str, ...]
    options: Mapping[str, object]


#: the models a simulated rule may name (:mod:`hwkb.solving.simulated` runs them)
SIMULATION_MODELS: Mapping[str, SimulationModel] = MappingProxyType({
    "warp_scheduler": SimulationModel(("warps", "ilp", "compute", "latency"),
                                      MappingProxyType({"policy": "gto", "iters": 100})),
})


@dataclass(frozen=True)
class Simulation:
    """A rule evaluated by a model of hwkb.solving.simulated instead of an equation."""
    model: str
    inputs: Mapping[str, VarKey]
    output: VarKey
    options: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str
    doc: str
    source: str
    where: Location
    relation: RelationTree | None = None
    text: str = ""
    over: tuple[str, ...] = ()
    tolerance: float = 0.0
    simulation: Simulation | None = None


@dataclass(frozen=True)
class Entity:
    id: EntityId
    kind: str
    name: str
    doc: str
    where: Location
    extends: tuple[EntityId, ...] = ()
    facts: Mapping[VarKey, Fact] = field(default_factory=dict)
    source: str | None = None


@dataclass(frozen=True)
class Model:
    """Everything the KB files declare, validated, before any algebra."""
    indices: Mapping[str, IndexSet]
    variables: Mapping[VarName, Variable]
    rules: Mapping[str, Rule]
    entities: Mapping[EntityId, Entity]
    files: tuple[str, ...]

    def __post_init__(self):
        for name in ("indices", "variables", "rules", "entities"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def variable(self, name: VarName, where: Location | None = None) -> Variable:
        try:
            return self.variables[name]
        except KeyError:
            raise UnknownNameError("variable", name, self.variables, where=where) from None

    def entity(self, entity_id: EntityId, where: Location | None = None) -> Entity:
        try:
            return self.entities[entity_id]
        except KeyError:
            raise UnknownNameError("entity", entity_id, self.entities, where=where) from None

    def unit_of(self, key: VarKey) -> str:
        """The display unit of a key (its variable's unit)."""
        return self.variables[split_key(key)[0]].unit

    def all_keys(self) -> list[VarKey]:
        return [k for v in self.variables.values() for k in v.keys(self.indices)]

    def check_key(self, key: VarKey, where: Location | None = None) -> Variable:
        """The variable of ``key``, or an UnknownNameError that names the nearest keys."""
        name, index = split_key(key)
        if name not in self.variables:
            raise UnknownNameError("variable", key, self.all_keys() if index else self.variables, where=where)
        variable = self.variables[name]
        if variable.index is None and index is not None:
            raise KBError(f"{name} has no index, but is written {key}", where=where, hint=f"write {name}")
        if variable.index is not None:
            values = self.indices[variable.index].values
            if index is None:
                raise KBError(f"{name} is indexed by {variable.index}", where=where,
                              hint=f"write {name}[{values[0]}] (one of {', '.join(values)})")
            if index not in values:
                raise UnknownNameError(f"{variable.index} value", index, values, where=where)
        return variable

    def ancestry(self, entity_id: EntityId) -> list[EntityId]:
        """The entity and all it extends, most general first (later wins)."""
        return ancestry(self.entities, entity_id)


def ancestry(entities: Mapping[EntityId, Entity], entity_id: EntityId) -> list[EntityId]:
    """``entity_id`` and all it extends in ``entities``, most general first (later wins).

    The one order every context follows; a parent missing from the table is an
    UnknownNameError at the child's place (the loader has ruled out cycles).
    """
    order: dict[EntityId, None] = {}
    stack = [(entity_id, iter(entities[entity_id].extends))]  # a stack, not recursion: chains may be long
    walking = {entity_id}
    while stack:
        eid, parents = stack[-1]
        parent = next(parents, None)
        if parent is None:
            order.setdefault(eid)
            walking.discard(eid)
            stack.pop()
        elif parent not in entities:
            raise UnknownNameError("entity", parent, entities, where=entities[eid].where)
        elif parent not in order and parent not in walking:  # each entity once: a diamond costs its edges
            walking.add(parent)
            stack.append((parent, iter(entities[parent].extends)))
    return list(order)
