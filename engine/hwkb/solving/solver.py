"""Evaluating a plan: numbers with provenance, routes compared, what is missing named.

:class:`Solver` takes a knowledge base and a context, plans everything that
follows from the context's facts (:mod:`hwkb.solving.plan`) and evaluates the plan
with the compiled directions of :mod:`hwkb.solving.relations`. ``solve`` always
returns a :class:`Solution`.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from hwkb.solving.context import Context
from hwkb.definitions.model import Fact, VarKey
from hwkb.solving.plan import Plan, Step, find_needs, make_plan, routes_to
from hwkb.solving.relations import Relation, key_of_symbol, symbol_of
from hwkb.solving.system import System
from hwkb.solving.values import FactOrigin, RuleOrigin, Value


__all__ = ["Solution", "Solver", "Structure", "STATUSES"]

STATUSES = ("stated", "derived", "underdetermined", "inconsistent", "not_applicable")
_STEP = 1e-6


@dataclass(frozen=True)
class Solution:
    """The answer for one variable: always this type, whatever the status."""
    variable: VarKey
    status: str
    unit: str
    value: Value | None = None
    alternatives: tuple[Value, ...] = ()
    needs: tuple[tuple[VarKey, ...], ...] = ()
    intervals: tuple[dict, ...] | None = None
    notes: tuple[str, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def determined(self) -> bool:
        return self.status in ("stated", "derived", "inconsistent")

    @property
    def magnitude(self) -> float | None:
        return None if self.value is None else self.value.magnitude

    def to_dict(self) -> dict:
        out = {"variable": self.variable, "value": self.magnitude, "unit": self.unit, "status": self.status,
               "derivation": None if self.value is None else self.value.derivation_dict()}
        if self.alternatives:
            out["alternatives"] = [{"value": a.magnitude, "unit": a.unit, "derivation": a.derivation_dict()}
                                   for a in self.alternatives]
        if self.status == "underdetermined":
            out["needs"] = [list(n) for n in self.needs]
        if self.intervals is not None:
            out["intervals"] = list(self.intervals)
        if self.notes:
            out["notes"] = list(self.notes)
        out.update(self.extra)
        return out


class Structure:
    """The relations a context may use and the planning callbacks over them, before any number is evaluated.

    Closed forms plan over a Structure alone; a :class:`Solver` is one that also evaluates.
    """

    def __init__(self, kb: System, context: Context, where: Iterable[str] = (), use_expectations: bool = False):
        self.kb, self.context = kb, context
        kinds = ("law", "simulated", "expectation") if use_expectations else ("law", "simulated")
        extra = kb.where_relations(where)
        self.relations: list[Relation] = [r for r in kb.relations if r.kind in kinds] + extra
        self.given = range(len(self.relations) - len(extra), len(self.relations))  # the --where equalities
        self.keysets = [frozenset(r.keys) for r in self.relations]
        not_applicable = context.not_applicable
        self._usable = [not (ks & not_applicable) for ks in self.keysets]

    def usable(self, r: int) -> bool:
        return self._usable[r]

    def can_solve(self, r: int, key: VarKey) -> bool:
        return self.relations[r].can_solve_for(key)


class Solver(Structure):
    """Everything that follows from one context, evaluated once."""

    def __init__(self, kb: System, context: Context, where: Iterable[str] = (), use_expectations: bool = False):
        super().__init__(kb, context, where, use_expectations)
        self.notes: list[str] = []
        self._regular: dict[tuple, bool] = {}
        self.values: dict[VarKey, Value] = {}
        for key, fact in context.facts.items():
            if fact.applicable:
                self.values[key] = self._fact_value(fact)
        self.plan: Plan = make_plan(self.keysets, self.values, self.can_solve, self.usable)
        self.producer: dict[VarKey, int] = {}
        for step in self.plan.steps:
            self._evaluate(step)

    # -- values
    def _fact_value(self, fact: Fact) -> Value:
        units = self.kb.units
        variable = self.kb.model.variables[fact.key.split("[")[0]]
        display = units.from_canonical(units.to_canonical(fact.value, fact.unit), variable.unit) \
            if fact.unit != variable.unit else fact.value
        via = self.context.overrides.get(fact.key)
        if via is None:
            entity = self.kb.model.entities.get(fact.entity) if fact.entity else None
            via = "default" if fact.entity is None else ("scenario" if entity and entity.kind == "scenario" else "fact")
        uncertainty = abs(fact.rounding / fact.value) if fact.value else 0.0
        origin = FactOrigin(fact.key, fact.entity, fact.source, str(fact.where), via)
        return Value(fact.key, display, variable.unit, units.to_canonical(fact.value, fact.unit), origin, uncertainty)

    def _make(self, key: VarKey, canonical: float, origin: RuleOrigin, uncertainty: float) -> Value:
        variable = self.kb.model.variables[key.split("[")[0]]
        depends = frozenset().union(*(i.depends | {i.key} for i in origin.inputs)) if origin.inputs else frozenset()
        return Value(key, self.kb.units.from_canonical(canonical, variable.unit), variable.unit, canonical,
                     origin, uncertainty, depends)

    def _evaluate(self, step: Step) -> None:
        inputs = {k for r in step.relations for k in self.relations[r].keys} - set(step.outputs)
        if not inputs <= self.values.keys():
            return  # an earlier step could not give one of them; its note says why
        if step.is_block:
            self._evaluate_block(step)
            return
        (r,), (key,) = step.relations, step.outputs
        value = self.route_value(r, key)
        if value is not None:
            self.values[key] = value
            self.producer[key] = r

    def route_value(self, r: int, key: VarKey) -> Value | None:
        """``key`` as relation ``r`` gives it from the current values of its other keys."""
        relation = self.relations[r]
        if any(k not in self.values for k in relation.keys if k != key):
            return None
        inputs = [self.values[k] for k in relation.keys if k != key]
        if relation.template is None:
            return self._simulate(relation, key, inputs)
        fn = relation.solver(key)
        point = {v.key: v.canonical for v in inputs}
        try:
            result = fn(point)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError) as exc:
            self.notes.append(f"{relation.name} cannot give {key} here: {exc}")
            return None
        if not (isinstance(result, float) and math.isfinite(result)):
            self.notes.append(f"{relation.name} gives no finite {key} here")
            return None
        uncertainty = 0.0
        for v in inputs:
            if v.uncertainty and v.canonical:
                shifted = dict(point)
                shifted[v.key] = v.canonical * (1 + _STEP)
                try:
                    elasticity = (fn(shifted) - result) / (result * _STEP) if result else 0.0
                except (ValueError, ZeroDivisionError, OverflowError):
                    elasticity = 0.0
                uncertainty += abs(elasticity) * v.uncertainty
        origin = RuleOrigin(relation.name, relation.kind, relation.rule.source, tuple(inputs))
        return self._make(key, result, origin, uncertainty)

    def _simulate(self, relation: Relation, key: VarKey, inputs: list[Value]) -> Value | None:
        from hwkb.solving.simulated import run_simulated_rule  # the scheduler model is imported only when a rule needs it
        return run_simulated_rule(self, relation, key, inputs)

    def _evaluate_block(self, step: Step) -> None:
        import sympy
        equations = []
        for r in step.relations:
            residual = self.relations[r].residual
            subs = {symbol_of(k): self.values[k].canonical for k in self.relations[r].keys if k in self.values}
            equations.append(residual.xreplace(subs))
        unknowns = [symbol_of(k) for k in step.outputs]
        try:
            roots = sympy.solve(equations, unknowns, dict=True)
            explicit = all(s.get(u) is not None and s[u].is_number for s in roots for u in unknowns)
        except (NotImplementedError, ValueError, TypeError):
            roots, explicit = [], False
        if explicit:
            roots = [s for s in roots if all(s[u].is_real and s[u] > 0 for u in unknowns)]
        else:  # no closed form: look for the positive root numerically
            root = _newton_positive(equations, unknowns)
            roots = [] if root is None else [root]
            if root is not None:
                self.notes.append(f"{', '.join(step.outputs)} solved numerically (SymPy found no closed form)")
        names = ", ".join(self.relations[r].name for r in step.relations)
        if len(roots) != 1:
            self.notes.append(f"the system {names} has {len(roots)} positive solutions for {', '.join(step.outputs)}")
            return
        inputs = tuple(self.values[k] for r in step.relations for k in self.relations[r].keys
                       if k in self.values and k not in step.outputs)
        for symbol in unknowns:
            key = key_of_symbol(symbol)
            origin = RuleOrigin(f"system({names})", "law", None, tuple(dict.fromkeys(inputs)))
            self.values[key] = self._make(key, float(roots[0][symbol]), origin, 0.0)
            self.producer[key] = step.relations[0]

    # -- answers
    def alternatives(self, key: VarKey) -> list[Value]:
        """Independent routes to ``key`` other than the one used, each evaluated."""
        produced_by = self.producer.get(key)
        depends = lambda k: set(self.values[k].depends) if k in self.values else set()
        out = []
        for r in routes_to(self.keysets, self.plan, key, self.can_solve, depends):
            if r != produced_by and self.usable(r):
                value = self.route_value(r, key)
                if value is not None:
                    out.append(value)
        return out

    def solution(self, key: VarKey) -> Solution:
        unit = self.kb.model.variables[key.split("[")[0]].unit
        fact = self.context.facts.get(key)
        if fact is not None and not fact.applicable:
            return Solution(key, "not_applicable", unit, notes=(f"{key} is stated as n/a at {fact.where}",))
        value = self.values.get(key)
        if value is None:
            needs = find_needs(self.keysets, self.values, key, self.can_solve, self.usable,
                               accept=lambda plan: self.blocks_regular(plan, key),
                               excluded=self.context.not_applicable)
            absent = sorted({k for r, ks in enumerate(self.keysets) if key in ks and not self.usable(r)
                             for k in ks & self.context.not_applicable})
            if absent and not needs:
                where = ", ".join(f"{k} ({self.context.facts[k].where})" for k in absent)
                return Solution(key, "not_applicable", unit,
                                notes=(f"{key} rests on what this context states as n/a: {where}",))
            return Solution(key, "underdetermined", unit, needs=tuple(needs), notes=tuple(self.notes))
        alternatives = tuple(self.alternatives(key))
        broken = self.broken_givens()
        consistent = all(value.agrees_with(a) for a in alternatives) and not broken
        status = ("stated" if value.stated else "derived") if consistent else "inconsistent"
        return Solution(key, status, unit, value, alternatives, notes=tuple(self.notes) + tuple(broken))

    def broken_givens(self) -> list[str]:
        """The --where equalities that the values of this context contradict, each as a note."""
        broken = []
        for r in self.given:
            relation = self.relations[r]
            if relation.template is None or not all(k in self.values for k in relation.keys):
                continue
            values = [self.values[k] for k in relation.keys]
            lhs, rhs = relation.residual_value({v.key: v.canonical for v in values})
            slack = sum(v.uncertainty for v in values) * max(abs(lhs), abs(rhs)) + 1e-9 * max(abs(lhs), abs(rhs))
            if abs(lhs - rhs) > slack:
                shown = ", ".join(f"{v.key} = {v.magnitude:g}" for v in values)
                broken.append(f"{relation.rule.doc.removeprefix('given: ')!r} does not hold here ({shown})")
        return broken

    def blocks_regular(self, plan: Plan, target: VarKey) -> bool:
        """Whether every joint block the target rests on has a Jacobian of full rank at a random point.

        Structurally, {tc_peak[bf16], tc_peak[fp16]} are two equations in sm_count and clock_tc; in
        numbers both fix only their product. Singular at a generic point means singular everywhere.
        """
        needed, blocks = {target}, []
        for step in reversed(plan.steps):
            if needed & set(step.outputs):
                needed |= {k for r in step.relations for k in self.keysets[r]}
                if step.is_block:
                    blocks.append(step)
        return all(self._block_regular(step) for step in blocks)

    def _block_regular(self, step: Step) -> bool:
        """At random values of its inputs, the block has a positive root with a Jacobian of full rank.

        Random inputs matter: two equations that fix only a product (or that force a relation among
        the inputs, such as shading_units = sm_count * fp32_lanes_per_sm) have no root there at all.
        """
        key = (step.relations, step.outputs)
        if key not in self._regular:
            self._regular[key] = self._solvable_at_random(step)
        return self._regular[key]

    def _solvable_at_random(self, step: Step) -> bool:
        import numpy as np
        relations = [self.relations[r] for r in step.relations]
        if any(r.template is None for r in relations):
            return True  # a simulated rule: no equation to differentiate
        rng = random.Random(2026)  # a fixed point: the same answer every run
        point = {k: math.exp(rng.uniform(-1.0, 1.0)) for r in relations for k in r.keys if k not in step.outputs}
        unknowns = [symbol_of(k) for k in step.outputs]
        equations = [r.residual.xreplace({symbol_of(k): v for k, v in point.items() if k in r.keys})
                     for r in relations]
        root = _newton_positive(equations, unknowns)
        if root is None:
            return False
        point.update({key_of_symbol(x): float(v) for x, v in root.items()})
        jacobian = []
        for relation in relations:
            lhs, rhs = relation.residual_value(point)
            scale = max(abs(lhs), abs(rhs)) or 1.0
            row = []
            for key in step.outputs:
                shifted = dict(point)
                shifted[key] = point[key] * (1 + _STEP)
                l2, r2 = relation.residual_value(shifted)
                row.append(((l2 - r2) - (lhs - rhs)) / (_STEP * scale))
            jacobian.append(row)
        return int(np.linalg.matrix_rank(np.array(jacobian), tol=1e-4)) == len(step.outputs)

    def derived(self) -> list[Value]:
        """Every value the plan gives that the context does not state, in plan order."""
        return [self.values[k] for s in self.plan.steps for k in s.outputs if k in self.values]


def _newton_positive(equations, unknowns, starts=(1.0, 1e-3, 1e3, 1e9, 1e-9), tolerance=1e-12):
    """A positive root of the equations by Newton's method in log space (every KB quantity is positive).

    Returns ``{symbol: value}`` or None; tried from a few starting magnitudes, since the canonical
    values of one block can lie many orders apart.
    """
    import numpy as np
    import sympy
    logs = sympy.symbols(f"u0:{len(unknowns)}", real=True)
    substituted = [e.xreplace({x: sympy.exp(u) for x, u in zip(unknowns, logs)}) for e in equations]
    residual = sympy.lambdify(logs, substituted, modules="numpy")
    jacobian = sympy.lambdify(logs, sympy.Matrix(substituted).jacobian(logs), modules="numpy")
    for start in starts:
        u = np.full(len(unknowns), math.log(start))
        with np.errstate(all="ignore"):
            for _ in range(100):
                r = np.asarray(residual(*u), dtype=float)
                if not np.all(np.isfinite(r)):
                    break
                try:
                    step = np.linalg.solve(np.asarray(jacobian(*u), dtype=float), -r)
                except np.linalg.LinAlgError:
                    break
                u = u + np.clip(step, -5.0, 5.0)  # damped: at most a factor e^5 per iteration
                if np.max(np.abs(step)) < tolerance:
                    return {x: sympy.Float(math.exp(v)) for x, v in zip(unknowns, u)}
    return None
