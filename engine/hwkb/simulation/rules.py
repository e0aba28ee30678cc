"""Simulated rules: relations evaluated by a model instead of an equation.

A KB rule of kind ``simulated`` names a model of
:data:`~hwkb.definitions.model.SIMULATION_MODELS`, maps the model's parameters to
KB keys and names the key it gives. The solver evaluates such a rule forward
only, through :func:`run_simulated_rule`, and makes the value with its provenance;
inverse questions ("the least warp count that reaches 90 %") are searches
(:mod:`hwkb.questions.thresholds`). The warp-scheduler model is imported only
when a rule is evaluated, so loading a KB stays cheap.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from hwkb.definitions.model import SIMULATION_MODELS, Simulation, VarKey

__all__ = ["SimulatedRun", "NotWholeInput", "run_simulated_rule"]


@lru_cache(maxsize=4096)
def _warp_scheduler(warps: int, ilp: int, compute: int, latency: int, policy: str, iters: int):
    from hwkb.simulation.scheduler import simulate
    return simulate(warps, ilp, compute, latency, iters=iters, policy=policy)


@dataclass(frozen=True)
class NotWholeInput:
    """A note: the model counts whole things (warps, cycles), and ``key`` came out fractional; render/ words it."""
    rule: str
    key: VarKey
    magnitude: float


@dataclass(frozen=True)
class SimulatedRun:
    """What a simulated rule gave: the fraction it measured and the run's parameters, or why there is none."""
    utilization: float | None
    parameters: tuple[tuple[str, object], ...] = ()
    note: NotWholeInput | None = None


def run_simulated_rule(name: str, spec: Simulation, magnitudes: Mapping[VarKey, float]) -> SimulatedRun:
    """Run the model of rule ``name`` on its inputs' magnitudes (integer inputs in their display units)."""
    arguments = {}
    for parameter, input_key in spec.inputs.items():
        magnitude = magnitudes[input_key]
        number = round(magnitude)
        if abs(magnitude - number) > 1e-9 * max(1.0, abs(magnitude)):
            return SimulatedRun(None, note=NotWholeInput(name, input_key, magnitude))
        arguments[parameter] = int(number)
    options = {**SIMULATION_MODELS[spec.model].options, **dict(spec.options)}
    result = _warp_scheduler(arguments["warps"], arguments["ilp"], arguments["compute"], arguments["latency"],
                             str(options["policy"]), int(options["iters"]))
    parameters = (("model", spec.model), *sorted(options.items()), *sorted(arguments.items()),
                  ("issued", result.issued), ("cycles", result.cycles))
    return SimulatedRun(result.utilization, parameters)
