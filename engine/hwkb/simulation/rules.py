"""Simulated rules: relations evaluated by a model instead of an equation.

A KB rule of kind ``simulated`` names a model of
:data:`~hwkb.definitions.model.SIMULATION_MODELS`, maps the model's parameters to
KB keys and names the key it gives. The solver evaluates such a rule forward
only; inverse questions ("the least warp count that reaches 90 %") are searches
(:mod:`hwkb.questions.thresholds`). The warp-scheduler model is imported only
when a rule is evaluated, so loading a KB stays cheap.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hwkb.definitions.model import SIMULATION_MODELS, Model, VarKey
from hwkb.definitions.units import Units
from hwkb.solving.relations import Relation
from hwkb.solving.values import RuleOrigin, Value

__all__ = ["SimulatedValue", "run_simulated_rule"]


@lru_cache(maxsize=4096)
def _warp_scheduler(warps: int, ilp: int, compute: int, latency: int, policy: str, iters: int):
    from hwkb.solving.scheduler import simulate
    return simulate(warps, ilp, compute, latency, iters=iters, policy=policy)


@dataclass(frozen=True)
class SimulatedValue:
    """What a simulated rule gave: the value, or why there is none (``note``)."""
    value: Value | None
    note: str | None = None


def run_simulated_rule(relation: Relation, key: VarKey, inputs: list[Value], model: Model,
                       units: Units) -> SimulatedValue:
    """Evaluate a simulated relation for its output; integer inputs are taken in their display units."""
    spec = relation.rule.simulation
    by_key = {v.key: v for v in inputs}
    arguments = {}
    for parameter, input_key in spec.inputs.items():
        value = by_key[input_key]
        number = round(value.magnitude)
        if abs(value.magnitude - number) > 1e-9 * max(1.0, abs(value.magnitude)):
            return SimulatedValue(None, f"{relation.name} needs a whole number for {input_key}, "
                                        f"not {value.magnitude:g}")
        arguments[parameter] = int(number)
    options = {**SIMULATION_MODELS[spec.model].options, **dict(spec.options)}
    result = _warp_scheduler(arguments["warps"], arguments["ilp"], arguments["compute"], arguments["latency"],
                             str(options["policy"]), int(options["iters"]))
    parameters = (("model", spec.model), *sorted(options.items()), *sorted(arguments.items()),
                  ("issued", result.issued), ("cycles", result.cycles))
    origin = RuleOrigin(relation.name, "simulated", relation.rule.source, tuple(inputs), parameters)
    unit = model.unit_of(key)
    canonical = units.to_canonical(result.utilization, "dimensionless")
    return SimulatedValue(Value(key, units.from_canonical(canonical, unit), unit, canonical, origin, 0.0,
                                frozenset().union(*(v.depends | {v.key} for v in inputs))))
