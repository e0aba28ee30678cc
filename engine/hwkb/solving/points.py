"""Values of some keys at trial values of others: one plan, only the steps between them re-run.

A sweep without a closed form and a threshold search ask the same question
many times: what are these outputs when those inputs take this value? A
:class:`PointEvaluator` plans once and, for each point, re-runs only the plan
steps that lie between the inputs and the outputs
(:meth:`~hwkb.solving.solver.Solver.reevaluate`). Simulated rules work too; a
block of simultaneous relations on the way is solved afresh for each point.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from hwkb.definitions.model import Fact, VarKey
from hwkb.errors import Location, NotDetermined
from hwkb.solving.context import Context
from hwkb.solving.plan import Step
from hwkb.solving.relations import Relation
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import FactOrigin, Value

__all__ = ["PointEvaluator", "trial_facts", "TRIAL_SOURCE"]

TRIAL_SOURCE = "trial value"


def trial_facts(point: Mapping[VarKey, float], units: Mapping[VarKey, str]) -> list[Fact]:
    """Trial values as exact facts (display units), as a sweep states them."""
    return [Fact(key, float(x), units[key], repr(float(x)), TRIAL_SOURCE, None, Location("--sweep"), tolerance=0.0)
            for key, x in point.items()]


class PointEvaluator:
    """Values of ``outputs`` at trial values of ``inputs``; raises NotDetermined if they do not follow."""

    def __init__(self, kb: System, context: Context, inputs: Sequence[VarKey], outputs: Sequence[VarKey],
                 where: Iterable[str] = ()):
        self.kb, self.inputs, self.outputs = kb, tuple(inputs), tuple(outputs)
        self.where = list(where)
        self.units = {k: kb.model.unit_of(k) for k in (*self.inputs, *self.outputs)}
        self.context = context.with_facts(trial_facts({k: 1.0 for k in self.inputs}, self.units))
        self.solver = Solver(kb, self.context, self.where)
        plan = self.solver.plan
        missing = [k for k in self.outputs if k not in plan.determined]
        if missing:
            needs = self.solver.solution(missing[0]).needs
            raise NotDetermined(f"{', '.join(missing)} does not follow from this context and "
                                f"{', '.join(self.inputs) or 'the given facts'}", needs)
        self.steps = steps_between(plan.steps, self.solver.relations, set(self.inputs), set(self.outputs))

    def __call__(self, point: Mapping[VarKey, float]) -> dict[VarKey, Value | None]:
        """``{output: Value or None}`` at ``point`` (display units of the inputs)."""
        if any(step.is_block for step in self.steps):
            solver = Solver(self.kb, self.context.with_facts(trial_facts(point, self.units)), self.where)
            return {k: solver.values.get(k) for k in self.outputs}
        self.solver.reevaluate({k: self._trial(k, float(x)) for k, x in point.items()}, self.steps)
        return {k: self.solver.values.get(k) for k in self.outputs}

    @property
    def notes(self) -> list[str]:
        return self.solver.notes

    def _trial(self, key: VarKey, x: float) -> Value:
        unit = self.units[key]
        origin = FactOrigin(key, None, TRIAL_SOURCE, None, "set")
        return Value(key, x, unit, self.kb.units.to_canonical(x, unit), origin)


def steps_between(steps: Sequence[Step], relations: Sequence[Relation], inputs: set, outputs: set) -> list[Step]:
    """The plan steps that depend on ``inputs`` and lead to ``outputs``, in plan order."""
    producer = {k: i for i, s in enumerate(steps) for k in s.outputs}
    needed: set[int] = set()
    stack = [producer[k] for k in outputs if k in producer]
    while stack:
        i = stack.pop()
        if i in needed:
            continue
        needed.add(i)
        for r in steps[i].relations:
            stack.extend(producer[k] for k in relations[r].keys if k in producer and producer[k] not in needed)
    affected = set(inputs)
    chosen = []
    for i, step in enumerate(steps):
        keys = {k for r in step.relations for k in relations[r].keys} - set(step.outputs)
        if i in needed and keys & affected:
            chosen.append(step)
            affected.update(step.outputs)
    return chosen
