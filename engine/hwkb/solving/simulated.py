"""Simulated rules: relations evaluated by a model instead of an equation.

A KB rule of kind ``simulated`` names a model of :data:`MODELS`, maps the
model's parameters to KB keys and names the key it gives. The solver calls
:func:`run_simulated_rule` forward only; inverse questions ("the least warp
count that reaches 90 %") are searches done by :mod:`hwkb.questions.thresholds`.
The models themselves live in their own modules (``hwkb.solving.scheduler``) and
are imported only when a rule is evaluated, so loading a KB stays cheap.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from hwkb.errors import KBError
from hwkb.solving.values import RuleOrigin, Value

if TYPE_CHECKING:
    from hwkb.solving.relations import Relation
    from hwkb.solving.solver import Solver

__all__ = ["MODELS", "MODEL_OPTIONS", "run_simulated_rule"]

#: model name -> the parameters its rule must map to KB keys (all integers)
MODELS = {"warp_scheduler": ("warps", "ilp", "compute", "latency")}
#: model name -> the options a rule may fix, with their defaults
MODEL_OPTIONS = {"warp_scheduler": {"policy": "gto", "iters": 100}}


@lru_cache(maxsize=4096)
def _warp_scheduler(warps: int, ilp: int, compute: int, latency: int, policy: str, iters: int):
    from hwkb.solving.scheduler import simulate
    return simulate(warps, ilp, compute, latency, iters=iters, policy=policy)


def run_simulated_rule(solver: "Solver", relation: "Relation", key: str, inputs: list[Value]) -> Value | None:
    """Evaluate a simulated relation for its output; integer inputs are taken in their display units."""
    spec = relation.rule.simulation
    by_key = {v.key: v for v in inputs}
    arguments = {}
    for parameter, input_key in spec.inputs.items():
        value = by_key[input_key]
        number = round(value.magnitude)
        if abs(value.magnitude - number) > 1e-9 * max(1.0, abs(value.magnitude)):
            solver.notes.append(f"{relation.name} needs a whole number for {input_key}, not {value.magnitude:g}")
            return None
        arguments[parameter] = int(number)
    options = {**MODEL_OPTIONS[spec.model], **dict(spec.options)}
    if spec.model != "warp_scheduler":
        raise KBError(f"unknown simulation model {spec.model!r}", where=relation.rule.where)
    result = _warp_scheduler(arguments["warps"], arguments["ilp"], arguments["compute"], arguments["latency"],
                             str(options["policy"]), int(options["iters"]))
    parameters = (("model", spec.model), *sorted(options.items()), *sorted(arguments.items()),
                  ("issued", result.issued), ("cycles", result.cycles))
    origin = RuleOrigin(relation.name, "simulated", relation.rule.source, tuple(inputs), parameters)
    unit = solver.kb.model.variables[key.split("[")[0]].unit
    canonical = solver.kb.units.to_canonical(result.utilization, "dimensionless")
    return Value(key, solver.kb.units.from_canonical(canonical, unit), unit, canonical, origin, 0.0,
                 frozenset().union(*(v.depends | {v.key} for v in inputs)))
