"""What-if: a baseline context beside a scenario, every downstream value recomputed.

* **baseline** = the entities (``--gpu``, ``--with``) + ``given`` facts;
* **scenario** = the baseline + the facts of scenario entities (``--scenario ID``,
  e.g. ``sfu-doubled``; any entity will do, only the facts that differ from the
  baseline are taken) + ``set`` facts, later wins.

Both are solved by the ordinary solver, so everything that follows from a
changed fact changes with it; stated facts the change drives are recomputed,
not worked backwards (:mod:`hwkb.questions.interventions`), and ``notes`` says which. Every value the change
moved without setting it, a stated figure or a cause worked back from a changed key, is a row marked ``moved``
beside the variables asked for. The
scenario's overridden facts carry ``via: "scenario"`` in their provenance. Without variables, the rows are every value
that differs between the two.

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> result = what_if(kb, ["exp_utilization[bf16]"], gpu="b200", given=["d_qk=128", "d_v=128"],
...                  scenarios=["sfu-doubled"])
>>> row = result.rows[0]
>>> row.baseline.magnitude, row.scenario.magnitude, row.change
(1.0, 0.5, -0.5)
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from hwkb.definitions.model import EntityId, Fact, VarKey
from hwkb.errors import Location, QueryError
from hwkb.questions.interventions import intervene, moved_figures, stated_causes
from hwkb.questions.set_aside import sets_aside
from hwkb.questions.thresholds import solve_constrained
from hwkb.results import Result
from hwkb.solving.context import Context
from hwkb.solving.solution import Solution, Status
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import Value

__all__ = ["Comparison", "WhatIf", "what_if", "scenario_contexts", "relative_change"]

_SAME = 1e-12


@dataclass(frozen=True)
class Comparison:
    """One variable in the baseline and in the scenario; either may be None (not determined there)."""
    variable: VarKey
    unit: str
    baseline: Value | None
    scenario: Value | None
    baseline_status: Status = Status.DERIVED
    scenario_status: Status = Status.DERIVED
    moved: str | None = None  # how the change moved a value it did not set (hwkb.questions.interventions)

    @property
    def change(self) -> float | None:
        """Relative: (scenario - baseline) / baseline; None where either is missing or the baseline is 0."""
        if self.baseline is None or self.scenario is None:
            return None
        return relative_change(self.baseline.magnitude, self.scenario.magnitude)

    @property
    def overridden(self) -> bool:
        """True when the scenario states this value itself (a scenario fact, not a consequence)."""
        return self.scenario is not None and self.scenario.stated and self.scenario.origin.via == "scenario"

    def to_dict(self) -> dict:
        return {"variable": self.variable,
                "baseline": None if self.baseline is None else self.baseline.magnitude,
                "scenario": None if self.scenario is None else self.scenario.magnitude,
                "unit": self.unit, "change": self.change,
                "baseline_status": str(self.baseline_status), "scenario_status": str(self.scenario_status),
                **({"moved": self.moved} if self.moved else {}),
                "derivation": None if self.scenario is None else self.scenario.derivation_dict()}


@dataclass(frozen=True, repr=False)
class WhatIf(Result):
    """The baseline beside the scenario, a row per variable; prints as ``hwkb whatif`` does."""
    rows: tuple[Comparison, ...]
    baseline: Context
    scenario: Context
    changes: tuple[VarKey, ...]  # the keys the scenario overrides
    notes: tuple = ()  # stated facts the change recomputes, values it holds (hwkb.questions.interventions)
    named_entities: tuple[EntityId, ...] = ()  # as the question named them: the gpu, then the layers
    scenario_entities: tuple[EntityId, ...] = ()  # the entities whose facts the scenario takes

    def to_dict(self) -> dict:
        out = {"command": "whatif", "status": "unsettled" if self.unsettled() else "ok", "rows": [r.to_dict() for r in self.rows],
               "baseline": {"entities": list(self.baseline.entities),
                            "given": sorted(k for k, v in self.baseline.overrides.items() if v == "given")},
               "scenario": {"entities": list(self.scenario.entities), "overrides": list(self.changes)}}
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    def unsettled(self) -> list[VarKey]:
        """The variables settled on neither side, or inconsistent on one (``hwkb whatif`` then exits 1)."""
        return [r.variable for r in self.rows if (r.baseline is None and r.scenario is None)
                or Status.INCONSISTENT in (r.baseline_status, r.scenario_status)]

    def __repr__(self) -> str:
        return str(self)


def relative_change(baseline: float, scenario: float) -> float | None:
    """The change from baseline to scenario as a fraction of the baseline.

    >>> relative_change(16, 32), relative_change(0.5, 0.5), relative_change(0, 1)
    (1.0, 0.0, None)
    """
    if baseline == 0:
        return 0.0 if scenario == 0 else None
    return (scenario - baseline) / abs(baseline)


def scenario_contexts(kb: System, gpu: str | None = None, layers: Iterable[EntityId] = (),
                      given: Iterable[str] = (), changes: Iterable[str] = (),
                      scenarios: Iterable[EntityId] = ()) -> tuple[Context, Context, tuple[str, ...]]:
    """The baseline and the scenario context (see the module doc), and what the change recomputes or holds."""
    changes, scenarios = list(changes), list(scenarios)
    if not changes and not scenarios:
        raise QueryError("a what-if needs a change", hint="give --set VAR=VALUE or --scenario ID (e.g. sfu-doubled)")
    baseline = kb.context(gpu, list(layers), list(given), via="given")
    overrides: dict[VarKey, Fact] = {}
    for eid in scenarios:
        kb.model.entity(eid, where=Location("--scenario"))
        for ancestor in kb.model.ancestry(eid):
            for key, fact in kb.model.entities[ancestor].facts.items():
                mine = baseline.facts.get(key)
                if mine is None or mine.value != fact.value or mine.unit != fact.unit:
                    overrides[key] = fact
                else:
                    overrides.pop(key, None)
    scenario = kb.context(gpu, list(layers), [*overrides.values(), *changes], via="scenario", base=baseline)
    changed = [k for k, via in scenario.overrides.items() if via == "scenario"]
    scenario, notes = intervene(kb, baseline, scenario, changed)
    return baseline, scenario, notes


def what_if(kb: System, variables: Sequence[VarKey] = (), gpu: str | None = None,
            layers: Iterable[EntityId] = (), given: Iterable[str] = (), changes: Iterable[str] = (),
            scenarios: Iterable[EntityId] = (), where: Iterable[str] = ()) -> WhatIf:
    """Each variable in the baseline and the scenario; with none, every value that differs."""
    variables = [kb.check_key(key) for key in variables]
    where, layers, scenarios = list(where), list(layers), list(scenarios)
    named = (*([gpu] if gpu else []), *layers)
    baseline, scenario, notes = scenario_contexts(kb, gpu, layers, given, changes, scenarios)
    changes = tuple(k for k, via in scenario.overrides.items() if via == "scenario")
    constrained = kb.has_inequalities(where)
    if constrained and not variables:
        raise QueryError("a what-if over every value takes only equalities in --where",
                         hint="name the variables to compare, or drop the inequalities")
    equalities = [] if constrained else where
    before, after = Solver(kb, baseline, equalities), Solver(kb, scenario, equalities)
    moved = moved_figures(kb, baseline, changes, before.values, after.values)
    notes = (*notes, *stated_causes(kb, scenario, changes))
    if variables:
        if constrained:
            solved = [(key, [solve_constrained(kb, key, c, where) for c in (baseline, scenario)]) for key in variables]
            asked = [_compare(key, *sides) for key, sides in solved]
            notes = (*notes, *dict.fromkeys(n for _, sides in solved for side in sides for n in side.notes
                                            if sets_aside(n)))  # what both sides solved without
        else:
            asked = [_compare(key, before.solution(key), after.solution(key)) for key in variables]
        rows = [replace(row, moved=moved.get(row.variable)) for row in asked]
        rows += [_row(kb, key, before, after, how) for key, how in moved.items() if key not in variables]
        return WhatIf(tuple(rows), baseline, scenario, changes, notes, named, tuple(scenarios))
    order = list(changes) + [k for s in after.plan.steps for k in s.outputs] + list(after.values) + list(before.values)
    rows = []
    for key in dict.fromkeys(order):
        b, s = before.values.get(key), after.values.get(key)
        if b is None and s is None:
            continue
        if b is not None and s is not None and abs(s.canonical - b.canonical) <= _SAME * max(abs(b.canonical),
                                                                                              abs(s.canonical)):
            continue
        rows.append(_row(kb, key, before, after, moved.get(key)))
    return WhatIf(tuple(rows), baseline, scenario, changes, notes, named, tuple(scenarios))


def _row(kb: System, key: VarKey, before: Solver, after: Solver, moved: str | None) -> Comparison:
    b, s = before.values.get(key), after.values.get(key)
    return Comparison(key, kb.model.unit_of(key), b, s, _status(b), _status(s), moved)


def _compare(key: VarKey, b: Solution, s: Solution) -> Comparison:
    return Comparison(key, b.unit, b.value if b.determined else None, s.value if s.determined else None,
                      b.status, s.status)


def _status(value: Value | None) -> Status:
    if value is None:
        return Status.UNDERDETERMINED
    return Status.STATED if value.stated else Status.DERIVED


