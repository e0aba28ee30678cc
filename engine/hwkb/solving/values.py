"""Values with provenance: a number, its unit and the tree of how it was obtained."""
from __future__ import annotations

from dataclasses import dataclass, field

from hwkb.definitions.choices import Selection
from hwkb.definitions.model import VarKey
from hwkb.errors import Location

__all__ = ["Derivation", "FactOrigin", "OtherDocument", "RuleOrigin", "Value"]


@dataclass(frozen=True)
class OtherDocument:
    """Another document's figure for a stated fact, in the fact's display unit: shown, never used."""
    value: float
    source: str | None


@dataclass(frozen=True)
class FactOrigin:
    """A stated value: from an entity, a variable's default, the command line or a scenario."""
    key: VarKey
    entity: str | None
    source: str | None
    where: Location | None  # formatted only when shown: resolving a path per fact is most of a warm solve
    via: str = "fact"  # fact | default | set | scenario
    also: tuple[OtherDocument, ...] = ()  # other documents' figures for the key, in the value's unit

    def to_dict(self, value: "Value") -> dict:
        out = {"fact": self.key, "value": value.magnitude, "unit": value.unit,
               "entity": self.entity, "source": self.source}
        if self.where is not None and self.where.file:
            out["where"] = self.where.written()  # the file as the user gave it, whatever the working directory
        if self.via != "fact":
            out["via"] = self.via
        if self.also:
            out["also"] = [{"value": o.value, "unit": value.unit, "source": o.source} for o in self.also]
        return out


@dataclass(frozen=True)
class RuleOrigin:
    """A value a rule gave from others; ``kind`` is law, expectation or simulated."""
    rule: str
    kind: str
    source: str | None
    inputs: tuple["Value", ...]
    parameters: tuple[tuple[str, object], ...] = ()
    bound_by: tuple[VarKey, ...] = ()  # the named limits of a min/max law that the value equals
    law: str = ""  # the rule instance's equation in symbols (none for a simulation)
    chosen: tuple[Selection, ...] = ()  # the choices that picked this instance of the law (matmul_precision: fp8)

    def to_dict(self, value: "Value") -> dict:
        out = {"rule": self.rule, "kind": self.kind, "variable": value.key, "value": value.magnitude,
               "unit": value.unit, "source": self.source, "inputs": [i.derivation_dict() for i in self.inputs]}
        if self.law:
            out["law"] = self.law
        if self.parameters:
            out["simulation"] = dict(self.parameters)
        if self.bound_by:
            out["bound_by"] = list(self.bound_by)
        if self.chosen:
            out["chosen"] = [{"choice": c.choice, "value": c.value, "entity": c.entity, "source": c.source}
                             for c in self.chosen]
        return out


Derivation = FactOrigin | RuleOrigin


@dataclass(frozen=True)
class Value:
    """``magnitude`` is in ``unit`` (the variable's display unit); ``canonical`` is what the engine computes with.

    ``uncertainty`` is relative: half the last printed digit of stated values,
    carried to first order through the relations.
    """
    key: VarKey
    magnitude: float
    unit: str
    canonical: float
    origin: Derivation
    uncertainty: float = 0.0
    depends: frozenset[VarKey] = field(default_factory=frozenset)

    @property
    def stated(self) -> bool:
        return isinstance(self.origin, FactOrigin)

    def derivation_dict(self) -> dict:
        return self.origin.to_dict(self)

    def facts(self) -> list["Value"]:
        """The stated values this one rests on, each once, in the order met."""
        if self.stated:
            return [self]
        seen: dict[VarKey, Value] = {}
        for i in self.origin.inputs:
            for f in i.facts():
                seen.setdefault(f.key, f)
        return list(seen.values())

    def binding_limit(self) -> "Value | None":
        """The nearest value in this derivation that a min/max law took from named limits (depth first)."""
        limits = self.binding_limits()
        return limits[0] if limits else None

    def binding_limits(self) -> "list[Value]":
        """Every value in this derivation that a min/max law took from named limits, nearest first (depth first),
        each key once: a decode's roofline and the GPU count the model's memory sets both bind it."""
        found: dict = {}
        stack, seen = [self], set()
        while stack:
            value = stack.pop()
            if value.stated or id(value) in seen:
                continue
            seen.add(id(value))
            if value.origin.bound_by:
                found.setdefault(value.key, value)
            stack.extend(reversed(value.origin.inputs))
        return list(found.values())

    def agrees_with(self, other: "Value") -> bool:
        """True when the two differ by no more than their combined rounding."""
        a, b = self.canonical, other.canonical
        slack = self.uncertainty * abs(a) + other.uncertainty * abs(b) + 1e-9 * max(abs(a), abs(b))
        return abs(a - b) <= slack
