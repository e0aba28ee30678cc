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

from typing import Iterable, Mapping

from hwkb.definitions.model import Fact, VarKey
from hwkb.errors import Location
from hwkb.solving.context import Context
from hwkb.solving.relations import key_of_symbol
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import Value

__all__ = ["intervene", "moved_figures", "stated_causes", "downstream_of", "BASELINE_SOURCE", "MOVED_STATED", "WORKED_BACK"]

BASELINE_SOURCE = "baseline value, held while the change is applied"
#: how a value the change did not set came to move: a stated figure the scenario no longer keeps ...
MOVED_STATED = "stated figure moved"
#: ... or a cause of a changed key (a key on the right of a law that defines it) the change was worked back into
WORKED_BACK = "worked back from the change"


def _definitions(kb: System) -> dict[VarKey, list]:
    """Each law's result (the key on its left) with the laws that define it."""
    defines: dict[VarKey, list] = {}
    for relation in kb.relations:
        if relation.kind == "law" and relation.template is not None and relation.lhs.is_Symbol:
            defines.setdefault(key_of_symbol(relation.lhs), []).append(relation)
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


def intervene(kb: System, baseline: Context, changed_context: Context, changed: Iterable[VarKey],
              where: Iterable[str] = ()) -> tuple[Context, tuple[str, ...]]:
    """``changed_context`` with stale outputs set aside and the baseline's other derived values held."""
    changed = set(changed)
    defines = _definitions(kb)
    downstream = _downstream(defines, changed)
    follows_change = {k for o in changed & set(defines) for r in defines[o] for k in r.keys}
    notes, released = [], set()
    for key in sorted(downstream):
        fact = changed_context.facts.get(key)
        if fact is not None and fact.applicable and key not in changed_context.overrides:
            released.add(key)
            notes.append(f"{key} (stated {fact.text} {fact.unit}".rstrip() + ") is recomputed from the change")
    if not released:
        return changed_context, ()
    kept = changed_context.without(released)
    held = [Fact(key, value.magnitude, value.unit, repr(value.magnitude), BASELINE_SOURCE, None,
                 Location("baseline"), tolerance=0.0)
            for key, value in Solver(kb, baseline, list(where)).values.items()
            if not (value.stated or key in kept.facts or key in changed or key in defines or key in follows_change
                    or not value.depends & released)]
    if held:
        notes.append(f"held at their baseline values: {', '.join(sorted(f.key for f in held))}")
    return kept.with_facts(held, via=None), tuple(notes)
