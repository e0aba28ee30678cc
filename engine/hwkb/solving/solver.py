"""Evaluating a plan: numbers with provenance, routes compared, what is missing named.

:class:`Solver` takes a system and a context, plans everything that follows from
the context's facts (:mod:`hwkb.solving.plan`) and evaluates the plan with the
compiled directions of :mod:`hwkb.solving.relations`; blocks go to
:mod:`hwkb.solving.blocks`, simulated rules to :mod:`hwkb.simulation.rules`.
:meth:`Solver.solution` always returns a :class:`~hwkb.solving.solution.Solution`.
"""
from __future__ import annotations

import math
from collections import ChainMap
from typing import Iterable, Mapping, Sequence

from hwkb.definitions.model import Fact, VarKey
from hwkb.simulation.rules import run_simulated_rule
from hwkb.solving.blocks import STEP, least_misfit, regular_at_random, singular_everywhere
from hwkb.solving.context import Context
from hwkb.solving.plan import Plan, Step, make_plan
from hwkb.solving.plausibility import implausible_values, outside_range
from hwkb.solving.relations import Relation
from hwkb.solving.routes import ordered_routes
from hwkb.solving.solution import BrokenGiven, ClosestFit, NoSolutionHere, Note, OutsideRange, Solution, Status
from hwkb.solving.unsettled import unsettled
from hwkb.solving.system import System
from hwkb.solving.values import FactOrigin, OtherDocument, RuleOrigin, Value
from hwkb.solving.ceilings import above_ceiling
from hwkb.solving.whole_counts import counted

__all__ = ["Solver", "Structure", "MAX_DETOUR", "MAX_PLANS"]

#: how many relations deep an independent route may go around a value computed from its target
MAX_DETOUR = 3
#: plans a system keeps (each a few hundred bytes); past it they are made afresh
MAX_PLANS = 4096


class Structure:
    """The relations a context may use and the planning callbacks over them, before any number is evaluated.

    Closed forms plan over a Structure alone; a :class:`Solver` is one that also evaluates.
    """

    def __init__(self, kb: System, context: Context, where: Iterable[str] = (), use_expectations: bool = False):
        self.kb, self.context, self.use_expectations = kb, context, use_expectations
        kinds = ("law", "simulated", "expectation") if use_expectations else ("law", "simulated")
        extra = kb.where_relations(where)
        self.relations: list[Relation] = [r for r in kb.relations if r.kind in kinds] + extra
        self.given = range(len(self.relations) - len(extra), len(self.relations))  # the --where equalities
        self.keysets = [frozenset(r.keys) for r in self.relations]
        not_applicable = context.not_applicable
        self._usable = [not (ks & not_applicable) for ks in self.keysets]
        self.unchosen = kb.unchosen(kinds, context.chosen)  # instances of laws indexed by a choice, not chosen here
        for r in self.unchosen:
            self._usable[r] = False

    def usable(self, r: int) -> bool:
        return self._usable[r]

    def can_solve(self, r: int, key: VarKey) -> bool:
        return self.relations[r].can_solve_for(key)


class Solver(Structure):
    """Everything that follows from one context, evaluated once; with ``lazy``, only what the answers read.

    A lazy solver evaluates a plan step when a value it gives is first read (the target's own steps, the
    inputs of its other routes and of their detours), and the whole plan only when a target stays undetermined
    (the search for what would settle it starts from every value); its answers are a full solver's.
    ``kb.solve("clock_tc", gpu="h100-sxm")`` reads 13 of the plan's 34 steps.
    """

    def __init__(self, kb: System, context: Context, where: Iterable[str] = (), use_expectations: bool = False,
                 lazy: bool = False):
        super().__init__(kb, context, where, use_expectations)
        self.notes: list[Note] = []
        self._note_keys: dict[Note, frozenset[VarKey]] = {}  # a note -> the keys it is about
        self._regular: dict[tuple, bool] = {}
        self.contradictions: dict[tuple[VarKey, ...], str] = {}  # a singular block's outputs -> why no value fits
        self.values: dict[VarKey, Value] = {}
        self.absent: dict[VarKey, frozenset[VarKey]] | None = None  # solving.unsettled fills it once
        for key, fact in context.facts.items():
            if fact.applicable:
                self.values[key] = self.fact_value(fact)
        self.plan: Plan = self._plan(use_expectations)
        self.producer: dict[VarKey, int] = {}
        self._pending: dict[VarKey, Step] = {}  # a lazy solver's steps not yet evaluated, by their outputs
        for step in self.plan.steps:
            if lazy:
                self._pending.update(dict.fromkeys(step.outputs, step))
            else:
                self._evaluate(step)

    def _ensure(self, keys: Iterable[VarKey]) -> None:
        """Evaluate, in plan order, the pending steps that give ``keys`` and those they rest on."""
        wanted = {k for k in keys if k in self._pending}
        if wanted:
            for step in reversed(self._steps_to(self.plan, wanted)[1]):
                if self._pending.get(step.outputs[0]) is step:
                    for k in step.outputs:
                        del self._pending[k]
                    self._evaluate(step)

    def _evaluate_rest(self) -> None:
        """Every step a lazy solver has not evaluated yet, in plan order."""
        self._ensure(list(self._pending))

    def _plan(self, use_expectations: bool) -> Plan:
        """The plan of what the known values give, shared by the queries that know the same keys (a plan depends
        on which keys are known, not on their values); --where equalities make a structure of their own."""
        if self.given:
            return make_plan(self.keysets, self.values, self.can_solve, self.usable)
        key = (use_expectations, frozenset(self.values), self.context.shape)
        plan = self.kb.plans.get(key)
        if plan is None:
            if len(self.kb.plans) >= MAX_PLANS:
                self.kb.plans.clear()
            plan = self.kb.plans[key] = make_plan(self.keysets, self.values, self.can_solve, self.usable,
                                                  square_block=self.kb.block_results.first_block)
        return plan

    def fact_value(self, fact: Fact) -> Value:
        """``fact`` as the Value a solve starts from: in its variable's unit, with its origin and rounding."""
        units = self.kb.units
        unit = self.kb.model.unit_of(fact.key)
        display = units.from_canonical(units.to_canonical(fact.value, fact.unit), unit) \
            if fact.unit != unit else fact.value
        via = self.context.overrides.get(fact.key)
        if via is None:
            entity = self.kb.model.entities.get(fact.entity) if fact.entity else None
            via = "default" if fact.entity is None else ("scenario" if entity and entity.kind == "scenario" else "fact")
        uncertainty = max(fact.interval) / abs(fact.value) if fact.value else 0.0  # rounded or cut short, as the audit reads it
        also = tuple(OtherDocument(units.from_canonical(units.to_canonical(o.value, o.unit), unit), o.source)
                     for o in fact.also)
        origin = FactOrigin(fact.key, fact.entity, fact.source, fact.where, via, also)
        return Value(fact.key, display, unit, units.to_canonical(fact.value, fact.unit), origin, uncertainty)

    def _make(self, key: VarKey, canonical: float, origin: RuleOrigin, uncertainty: float) -> Value:
        unit = self.kb.model.unit_of(key)
        depends = frozenset().union(*(i.depends | {i.key} for i in origin.inputs)) if origin.inputs else frozenset()
        return Value(key, self.kb.units.from_canonical(canonical, unit), unit, canonical, origin, uncertainty, depends)

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

    def route_value(self, r: int, key: VarKey, values: Mapping[VarKey, Value] | None = None) -> Value | None:
        """``key`` as relation ``r`` gives it from the values of its other keys (by default the current ones)."""
        relation = self.relations[r]
        if values is None:
            self._ensure(relation.keys)
            values = self.values
        if any(k not in values for k in relation.keys if k != key):
            return None
        inputs = [values[k] for k in relation.keys if k != key]
        if relation.template is None:
            run = run_simulated_rule(relation.name, relation.rule.simulation, {v.key: v.magnitude for v in inputs})
            if run.note:
                self._note(run.note, relation.keys)
                return None
            origin = RuleOrigin(relation.name, "simulated", relation.rule.source, tuple(inputs), run.parameters,
                                law=relation.law)
            return self._make(key, self.kb.units.to_canonical(run.utilization, "dimensionless"), origin, 0.0)
        fn = relation.solver(key)
        point = {v.key: v.canonical for v in inputs}
        try:
            result = fn(point)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError) as exc:
            self._note(f"{relation.name} cannot give {key} here: {exc}", relation.keys)
            return None
        if not (isinstance(result, float) and math.isfinite(result)):
            self._note(f"{relation.name} gives no finite {key} here", relation.keys)
            return None
        if not relation.holds({**point, key: result}):
            self._note(NoSolutionHere(relation.name, key, result), relation.keys)
            return None
        uncertainty = 0.0
        for v in inputs:
            if v.uncertainty and v.canonical:
                shifted = dict(point)
                shifted[v.key] = v.canonical * (1 + STEP)
                try:
                    elasticity = (fn(shifted) - result) / (result * STEP) if result else 0.0
                except (ValueError, ZeroDivisionError, OverflowError):
                    elasticity = 0.0
                uncertainty += abs(elasticity) * v.uncertainty
        bound_by = tuple(k for k in relation.limits(key) if math.isclose(point[k], result, rel_tol=1e-9))
        origin = RuleOrigin(relation.name, relation.kind, relation.rule.source, tuple(inputs), bound_by=bound_by,
                            law=relation.law, chosen=tuple(self.context.selections[c] for c in relation.rule.chosen))
        return self._make(key, result, origin, uncertainty)

    def _evaluate_block(self, step: Step) -> None:
        names = ", ".join(self.relations[r].name for r in step.relations)
        if self._of_block(step, singular_everywhere):  # any root SymPy or Newton found would be one of many
            return None if self._singular(step, names) else self._note(
                f"{names} fix only a combination of {', '.join(step.outputs)}", step.outputs)
        relations = [self.relations[r] for r in step.relations]
        known = {k: self.values[k].canonical for r in relations for k in r.keys if k in self.values}
        count, root, numeric = self.kb.block_results.roots(relations, step.outputs, known)
        if numeric:
            self._note(f"{', '.join(step.outputs)} solved numerically (SymPy found no closed form)", step.outputs)
        if not count and not self._of_block(step, regular_at_random) and self._singular(step, names):
            return
        if count != 1:
            self._note(f"the system {names} has {count} positive solutions for "
                       f"{', '.join(step.outputs)}", step.outputs)
            return
        inputs = tuple(self.values[k] for r in step.relations for k in self.relations[r].keys
                       if k in self.values and k not in step.outputs)
        for key in step.outputs:
            origin = RuleOrigin(f"system({names})", "law", None, tuple(dict.fromkeys(inputs)),
                                law="; ".join(self.relations[r].law for r in step.relations))
            self.values[key] = self._make(key, root[key], origin, 0.0)
            self.producer[key] = step.relations[0]

    def _singular(self, step: Step, names: str) -> bool:
        """Whether a singular block's values fit (noted) or contradict one another beyond their rounding (noted as a
        contradiction); False when no fit can be computed. Two peaks and no SM count or clock fix only their product:
        where they stand in the ratio of their rates any SM count would do, where not nothing can hold."""
        relations = [self.relations[r] for r in step.relations]
        known = {k: self.values[k] for r in relations for k in r.keys if k not in step.outputs}
        slack = [sum(known[k].uncertainty for k in r.keys if k in known) + 1e-9 for r in relations]
        misfit = least_misfit(relations, step.outputs, {k: v.canonical for k, v in known.items()}, slack)
        if misfit is None:
            return False
        if not misfit.contradictory:
            self._note(f"{names} fix only a combination of {', '.join(step.outputs)}", step.outputs)
            return True
        stated = tuple(k for k, v in known.items() if v.stated)
        note = ClosestFit(names, step.outputs, stated, misfit.spread, sum(misfit.slack))
        self.contradictions[step.outputs] = note
        self._note(note, step.outputs)
        return True

    def _note(self, note: Note, keys) -> None:
        self.notes.append(note)
        self._note_keys[note] = frozenset(keys)

    def notes_about(self, key: VarKey, value: Value | None = None) -> tuple[str, ...]:
        """The notes about ``key`` or what it rests on (the values it came from, or the plan steps that
        would have given it), not those of unrelated parts of the context."""
        related = {key} | (set(value.depends) if value is not None else self._steps_to(self.plan, key)[0])
        return tuple(n for n in self.notes if self._note_keys.get(n, related) & related)

    def _steps_to(self, plan: Plan, target: VarKey | set[VarKey]) -> tuple[set[VarKey], list[Step]]:
        """The keys and the steps of ``plan`` that ``target`` (a key or a set of keys) rests on."""
        needed, steps = ({target} if isinstance(target, str) else set(target)), []
        for step in reversed(plan.steps):
            if needed & set(step.outputs):
                needed |= {k for r in step.relations for k in self.keysets[r]}
                steps.append(step)
        return needed, steps

    def reevaluate(self, trials: Mapping[VarKey, Value], steps: Sequence[Step]) -> None:
        """Put ``trials`` in place of the values they name and re-run ``steps`` (single relations) after them.

        Cheap what-ifs on one plan: a step whose input is missing at this point leaves its output empty.
        """
        self.notes.clear()
        self.values.update(trials)
        for step in steps:
            (r,), (key,) = step.relations, step.outputs
            value = self.route_value(r, key)
            if value is None:
                self.values.pop(key, None)
            else:
                self.values[key] = value

    # -- answers
    def alternatives(self, key: VarKey) -> list[Value]:
        """Independent routes to ``key`` other than the one used, each evaluated.

        A relation whose input was itself computed from ``key`` is no independent route as it stands;
        that input is then taken from another of its sources that does not rest on ``key``, when there
        is one (an FP8 rate from the FP8 ratio law, rather than back from the FP8 peak and the very
        clock being checked). Such detours go at most :data:`MAX_DETOUR` relations deep.
        """
        produced_by = self.producer.get(key)
        out = []
        for r, keys in enumerate(self.keysets):
            if (r == produced_by or key not in keys or not self.usable(r) or not keys <= self.plan.determined
                    or not self.can_solve(r, key)):
                continue
            inputs = self._inputs_without(r, key, key, {r}, MAX_DETOUR)
            value = None if inputs is None else self.route_value(r, key, inputs)
            if value is not None:
                out.append(value)
        return out

    def _inputs_without(self, r: int, output: VarKey, avoid: VarKey, used: set[int], depth: int) -> dict | None:
        """The inputs of relation ``r`` for ``output``, none resting on ``avoid``, or None if there are none."""
        inputs = {}
        for k in self.relations[r].keys:
            if k == output:
                continue
            self._ensure((k,))
            value = self.values.get(k)
            if value is not None and avoid in value.depends:
                value = self._value_without(k, avoid, used, depth)
            if value is None:
                return None
            inputs[k] = value
        return inputs

    def _value_without(self, key: VarKey, avoid: VarKey, used: set[int], depth: int) -> Value | None:
        """``key`` from a relation not in ``used`` whose inputs do not rest on ``avoid``."""
        if depth == 0:
            return None
        for r, keys in enumerate(self.keysets):
            if r in used or key not in keys or avoid in keys or not self.usable(r) or not self.can_solve(r, key):
                continue
            inputs = self._inputs_without(r, key, avoid, used | {r}, depth - 1)
            value = None if inputs is None else self.route_value(r, key, inputs)
            if value is not None:
                return value
        return None

    def solution(self, key: VarKey, needs: bool = True) -> Solution:
        """The answer for ``key``; ``needs=False`` skips the search for what would settle an undetermined one."""
        unit = self.kb.model.unit_of(key)
        fact = self.context.facts.get(key)
        if fact is not None and not fact.applicable:
            reason = f": {fact.doc}" if fact.doc else ""
            return Solution(key, Status.NOT_APPLICABLE, unit, notes=(f"{key} is stated as n/a at {fact.where}{reason}",))
        self._ensure((key,))
        value = self.values.get(key)
        contradicted = [self.contradictions[s.outputs] for s in self._steps_to(self.plan, key)[1]
                        if s.outputs in self.contradictions] if value is None and self.contradictions else []
        if contradicted:
            return Solution(key, Status.INCONSISTENT, unit, notes=self.notes_about(key))
        if value is None:
            self._evaluate_rest()
            return unsettled(self, key, unit, needs)
        value, *others = ordered_routes(self.kb.model, (value, *self.alternatives(key)))
        alternatives = tuple(others)
        broken = self.broken_givens()
        consistent = all(value.agrees_with(a) for a in alternatives) and not broken
        status = (Status.STATED if value.stated else Status.DERIVED) if consistent else Status.INCONSISTENT
        implausible = implausible_values(value, self.kb.model.variables)
        if implausible and status == Status.DERIVED:
            status = Status.IMPLAUSIBLE
        elif status == Status.INCONSISTENT:  # which of the disagreeing routes gives a value no hardware has
            implausible += tuple(i for a in alternatives for i in implausible_values(a, self.kb.model.variables))
        notes = self.notes_about(key, value) + tuple(broken)
        outside = outside_range(value, self.kb.model.variables) if value.stated else None
        if outside is not None:
            notes += (OutsideRange(key, outside, unit),)
        solution = Solution(key, status, unit, value, alternatives, notes=notes, implausible=implausible)
        named = ChainMap({self.relations[r].name: self.relations[r] for r in self.given}, self.kb.relation_index)
        return above_ceiling(counted(solution, self.context.facts, named, self.kb), self.context.facts, named, self.kb)

    def broken_givens(self) -> list[BrokenGiven]:
        """The --where equalities that the values of this context contradict, each as a note."""
        broken = []
        for r in self.given:
            relation = self.relations[r]
            self._ensure(relation.keys)
            if relation.template is None or not all(k in self.values for k in relation.keys):
                continue
            values = [self.values[k] for k in relation.keys]
            lhs, rhs = relation.residual_value({v.key: v.canonical for v in values})
            slack = sum(v.uncertainty for v in values) * max(abs(lhs), abs(rhs)) + 1e-9 * max(abs(lhs), abs(rhs))
            if abs(lhs - rhs) > slack:
                broken.append(BrokenGiven(relation.rule.text, tuple((v.key, v.magnitude) for v in values)))
        return broken

    def _of_block(self, step: Step, test) -> bool:
        """``test`` (:func:`regular_at_random`, kept on disk, or :func:`singular_everywhere`) of a block, once per KB
        for blocks of its own laws (each row an audit checks for plausibility builds a solver), once per solver
        with a --where one."""
        key = (test.__name__, step.relations, step.outputs)
        cache = self._regular if any(r in self.given for r in step.relations) else self.kb.regular_blocks
        if key not in cache:
            relations = [self.relations[r] for r in step.relations]
            cache[key] = (self.kb.block_results.regular(relations, step.outputs) if test is regular_at_random
                          else test(relations, step.outputs))
        return cache[key]

    def blocks_regular(self, plan: Plan, target: VarKey) -> bool:
        """Whether every joint block the target rests on is regular (:func:`~hwkb.solving.blocks.regular_at_random`)."""
        blocks = [step for step in self._steps_to(plan, target)[1] if step.is_block]
        return all([self._of_block(s, regular_at_random) for s in blocks])  # every block's answer cached, as before

    def derived(self) -> list[Value]:
        """Every value the plan gives that the context does not state, in plan order."""
        return [self.values[k] for s in self.plan.steps for k in s.outputs if k in self.values]

    def derived_answers(self) -> list[Solution]:
        """Every value :meth:`derived` gives, as ``solve`` answers it: its preferred route, whole counts, ceiling."""
        return [self.solution(value.key, needs=False) for value in self.derived()]

