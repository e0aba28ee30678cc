"""A change as an intervention: what a what-if, a sweep or a closed form recomputes and what it holds.

A B200 states ``tc_peak[bf16] = 2250 TFLOPS``; its clock follows from that.
Ask "what if the clock were 2 GHz?" and the stated peak, kept as it is, would
be worked backwards into a smaller multiply-add rate instead of forwards into a
larger peak. Ask "what if it had 160 SMs?" and, with the peak released, the
clock would be lost. The KB writes every law with its result on the left
(``tc_peak[p] = sm_count * tc_fma_per_sm_cycle[p] * 2 * clock_tc``), which
gives the rule used here:

* an **output** is a key on the left of a law; it is **downstream** of a change
  when a law defining it has a changed or downstream key on its right;
* stated facts of downstream outputs are set aside and recomputed;
* a value the baseline worked back from a fact set aside (the B200's clock,
  from its peak) is held at its baseline value, unless it shares a law with a
  changed output (change the peak and the clock follows it).

>>> from hwkb import KnowledgeBase
>>> kb = KnowledgeBase.load()
>>> base = kb.context("b200")
>>> changed, notes = intervene(kb, base, kb.context("b200", facts=["sm_count=160"]), ["sm_count"])
>>> round(Solver(kb, changed).values["tc_peak[bf16]"].magnitude)  # 2250 x 160 / 148, at the same clock
2432
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from hwkb.definitions.model import Fact, VarKey
from hwkb.errors import Location
from hwkb.solving.context import Context
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import Value

__all__ = ["intervene", "release", "Release", "moved_figures", "stated_causes", "downstream_of", "BASELINE_SOURCE", "HELD", "MOVED_STATED", "WORKED_BACK"]

BASELINE_SOURCE = "baseline value, held while the change is applied"
#: how the note naming the values :func:`release` holds begins
HELD = "held at their baseline values"
#: how a value the change did not set came to move: a stated figure the scenario no longer keeps ...
MOVED_STATED = "stated figure moved"
#: ... or a cause of a changed key (a key on the right of a law that defines it) the change was worked back into
WORKED_BACK = "worked back from the change"


def _definitions(kb: System) -> dict[VarKey, list]:
    """Each law's result (the key on its left) with the laws that define it."""
    defines: dict[VarKey, list] = {}
    for relation in kb.relations:
        if relation.defined_key is not None:
            defines.setdefault(relation.defined_key, []).append(relation)
    return defines


def downstream_of(kb: System, keys: Iterable[VarKey]) -> set[VarKey]:
    """The outputs a change of ``keys`` reaches: each key on the left of a law with one of them, or of these
    outputs, on its right (``memory_bandwidth`` from ``memory_data_rate``)."""
    return _downstream(_definitions(kb), set(keys))


def _downstream(defines: Mapping[VarKey, list], changed: set[VarKey]) -> set[VarKey]:
    downstream: set[VarKey] = set()
    grew = True
    while grew:
        grew = False
        for output, relations in defines.items():
            if output in changed or output in downstream:
                continue
            if any(k != output and (k in changed or k in downstream) for r in relations for k in r.keys):
                downstream.add(output)
                grew = True
    return downstream


def moved_figures(kb: System, baseline: Context, changed: Iterable[VarKey], before: Mapping[VarKey, Value],
                  after: Mapping[VarKey, Value]) -> dict[VarKey, str]:
    """The values a change moved that it did not set itself, each with how: :data:`MOVED_STATED` for a figure
    the baseline states, :data:`WORKED_BACK` for a derived cause of a changed key (raise a stated bandwidth and
    the data rate it rests on rises with it), in the order found.

    ``before`` and ``after`` are the baseline's and the scenario's values.
    """
    changed = set(changed)

    def moved(key: VarKey) -> bool:
        b, a = before.get(key), after.get(key)
        return b is not None and a is not None and abs(a.canonical - b.canonical) > 1e-12 * max(
            abs(a.canonical), abs(b.canonical))

    out: dict[VarKey, str] = {}
    for key in before:
        fact = baseline.facts.get(key)
        if key not in changed and fact is not None and fact.applicable and moved(key):
            out[key] = MOVED_STATED
    defines, frontier, seen = _definitions(kb), list(changed), set(changed)
    while frontier:
        output = frontier.pop(0)
        for relation in defines.get(output, ()):
            for cause in relation.keys:
                if cause in seen or cause == output:
                    continue
                seen.add(cause)
                if moved(cause):
                    out.setdefault(cause, WORKED_BACK)
                    frontier.append(cause)
    return out


def stated_causes(kb: System, scenario: Context, changed: Iterable[VarKey]) -> tuple[str, ...]:
    """Notes naming each changed key that a law fixes from figures the entities state, none of them changed
    (an MI300X states its bus width and data rate, so bandwidth = bus x data rate holds it): the change
    contradicts them, and which of them moves is the user's to say."""
    defines, notes = _definitions(kb), []
    for key in changed:
        for relation in defines.get(key, ()):
            causes = [k for k in relation.keys if k != key]
            facts = [scenario.facts.get(k) for k in causes]
            if causes and all(f is not None and f.applicable and f.entity and k not in scenario.overrides
                              for k, f in zip(causes, facts)):
                stated = " and ".join(f"{k} = {f.text} {f.unit}".rstrip() for k, f in zip(causes, facts))
                entities = ", ".join(dict.fromkeys(f.entity for f in facts))
                notes.append(f"{key} is fixed by {relation.name} from {stated}, which {entities} states: the change "
                             f"contradicts them; give the one that moves with --set")
    return tuple(notes)


@dataclass(frozen=True)
class Release:
    """What moving some keys sets aside and holds (:func:`release`): ``context`` is the one to solve."""
    context: Context
    released: tuple[Fact, ...] = ()  # stated figures the move drives, set aside to be recomputed
    routes: Mapping[VarKey, tuple[str, ...]] = field(default_factory=dict)  # the laws each released figure follows by
    held: tuple[Fact, ...] = ()  # values the baseline worked back from what was set aside, held at baseline


def release(kb: System, baseline: Context, moved: Iterable[VarKey], context: Context,
            where: Iterable[str] = ()) -> Release:
    """The one rule for what a moved key takes with it, whether a what-if sets it (``context`` holds its new
    value) or a backward question asks for it (``context`` is the baseline without its figure):

    * the stated figures of its downstream outputs are released, to be recomputed;
    * a value the baseline worked back from a released figure, or from the asked one, is held at its baseline
      value (more SMs at the clock the peak gave), unless it **follows**: it is a cause in a law defining a
      moved key (change the peak and the clock follows it), or in a law defining a downstream output that no
      moved or downstream key drives (the MI300X's bandwidth per stack, once a new data rate fixes the bandwidth
      through the bus), or a key of a ``--where`` equality.
    """
    moved, where = set(moved), list(where)
    defines = _definitions(kb)
    downstream = _downstream(defines, moved)
    driven = moved | downstream
    released = tuple(f for k in sorted(downstream) if (f := context.facts.get(k)) is not None and f.applicable
                     and k not in context.overrides)
    gone = {f.key for f in released} | {k for k in moved if k not in context.facts}
    if not gone:
        return Release(context)
    routes = {f.key: tuple(dict.fromkeys(r.rule.name for r in defines[f.key]
                                         if any(c != f.key and c in driven for c in r.keys))) for f in released}
    follows = {k for o in driven & set(defines) for r in defines[o]
               if o in moved or not any(c != o and c in driven for c in r.keys) for k in r.keys}
    follows |= {k for r in kb.where_relations(where) for k in r.keys}  # the user's equalities hold on both sides
    kept = context.without(f.key for f in released)
    held = tuple(Fact(key, value.magnitude, value.unit, repr(value.magnitude), BASELINE_SOURCE, None,
                      Location("baseline"), tolerance=0.0)
                 for key, value in Solver(kb, baseline, where).values.items()
                 if not (value.stated or key in kept.facts or key in moved or key in defines or key in follows
                         or not value.depends & gone))
    return Release(kept.with_facts(held, via=None), released, routes, held)


def intervene(kb: System, baseline: Context, changed_context: Context, changed: Iterable[VarKey],
              where: Iterable[str] = ()) -> tuple[Context, tuple[str, ...]]:
    """``changed_context`` with stale outputs set aside and the baseline's other derived values held
    (:func:`release`)."""
    freed = release(kb, baseline, changed, changed_context, where)
    if not freed.released:
        return changed_context, ()
    notes = [f"{f.key} (stated {f.text} {f.unit}".rstrip() + ") is recomputed from the change" for f in freed.released]
    if freed.held:
        notes.append(f"{HELD}: {', '.join(sorted(f.key for f in freed.held))}")
    return freed.context, tuple(notes)
