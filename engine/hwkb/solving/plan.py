"""Planning: how a target follows from the knowns, on structure alone (no SymPy here).

The stages are named as in equation-based modelling tools:

1. **propagation** — take a relation with exactly one unknown and solve it for
   that unknown (if that direction can be solved), round after round;
2. **matching** — for what remains, a maximum matching between relations and
   unknowns (NetworkX's Hopcroft-Karp on integer node ids, so deterministic);
3. **blocks** — the strongly connected components of the matched dependency
   graph (NetworkX's condensation), in topological order, are systems to solve jointly
   (:mod:`hwkb.solving.plan_blocks`);
4. **needs** — when the target stays unknown, the smallest sets of further
   facts that would settle it (:mod:`hwkb.solving.need_search`).

Relations are given as key sets; whether a direction can be solved is asked of
a callback, so SymPy work stays in :mod:`hwkb.solving.relations`.

>>> rels = [frozenset({"peak", "sms", "clock"}), frozenset({"clock", "boost"})]
>>> p = make_plan(rels, {"peak", "sms"}, lambda r, k: True)
>>> [(s.relations, s.outputs) for s in p.steps]
[((0,), ('clock',)), ((1,), ('boost',))]
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from hwkb.solving.plan_blocks import Block, first_block

__all__ = ["Step", "Plan", "make_plan", "propagate", "block_core", "may_close"]

CanSolve = Callable[[int, str], bool]


@dataclass(frozen=True)
class Step:
    """Solve ``relations`` (one, or a block solved jointly) for ``outputs``."""
    relations: tuple[int, ...]
    outputs: tuple[str, ...]

    @property
    def is_block(self) -> bool:
        return len(self.relations) > 1


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    determined: frozenset[str]   # knowns and everything the steps give
    checks: tuple[int, ...]      # relations all of whose keys end up determined, not used by a step


def make_plan(relations: Sequence[frozenset[str]], known: Iterable[str], can_solve: CanSolve,
              usable: Callable[[int], bool] = lambda r: True, *, derives: Callable[[int], bool] | None = None,
              blocks: bool = True, square_block: Callable[[dict], Block | None] | None = None,
              onward: dict[frozenset[str], tuple[Step, ...]] | None = None) -> Plan:
    """Everything that follows from ``known`` through the usable relations.

    ``derives`` narrows the relations that may give a value (an audit's
    expectations are checks, never routes); ``blocks=False`` stops after
    propagation, for callers that want every value as one relation's explicit
    solution. ``Plan.checks`` are the usable relations left over with all keys
    known: the over-determination an audit checks. ``square_block``: a cache of :func:`first_block`.
    ``onward``: a memo of the steps from each block on, by the keys known when propagation stops before it (they
    follow from those keys alone), for a caller planning many times with the same relations and callbacks.
    """
    derives = usable if derives is None else (lambda r, d=derives: usable(r) and d(r))
    known = set(known)
    steps: list[Step] = []
    used: set[int] = set()
    by_key: dict[str, list[int]] = {}
    for r, keys in enumerate(relations):
        if derives(r):
            for k in keys:
                by_key.setdefault(k, []).append(r)
    propagate(relations, known, can_solve, by_key, steps, used)
    if blocks:
        later = _blocks_onward(relations, set(known), can_solve, by_key, set(used), derives,
                               square_block or first_block, onward)
        steps.extend(later)
        for step in later:
            used.update(step.relations)
            known.update(step.outputs)
    checks = tuple(r for r in range(len(relations))
                   if usable(r) and r not in used and relations[r] <= known)
    return Plan(tuple(steps), frozenset(known), checks)


def _blocks_onward(relations, known: set, can_solve, by_key, used: set, derives, square_block,
                   onward: dict[frozenset[str], tuple[Step, ...]] | None) -> tuple[Step, ...]:
    """The steps after propagation stops: the first block, propagation from it, and on from where that stops.

    Relations used by propagation have no unknown left, so these steps depend on ``known`` alone: ``onward`` keeps
    them by it, at each stop, so plans that stop at the same keys, first or after a block, share the rest."""
    stopped = frozenset(known)
    if onward is not None and stopped in onward:
        return onward[stopped]
    block = _next_block(relations, known, used, derives, square_block)
    later: tuple[Step, ...] = ()
    if block is not None:
        steps = [block]
        used.update(block.relations)
        known.update(block.outputs)
        propagate(relations, known, can_solve, by_key, steps, used)
        later = (*steps, *_blocks_onward(relations, known, can_solve, by_key, used, derives, square_block, onward))
    if onward is not None:
        onward[stopped] = later
    return later


def propagate(relations, known: set, can_solve, by_key, steps, used, frontier=None):
    """Solve each relation left with one unknown, round after round, starting from ``frontier`` when given."""
    if frontier is None:
        frontier = sorted({r for rs in by_key.values() for r in rs if r not in used})
    while frontier:
        fresh: list[str] = []
        for r in frontier:
            if r in used:
                continue
            unknown = relations[r] - known
            if len(unknown) == 1:
                (key,) = unknown
                if key not in fresh and can_solve(r, key):
                    steps.append(Step((r,), (key,)))
                    used.add(r)
                    fresh.append(key)
        known.update(fresh)
        frontier = sorted({r for k in fresh for r in by_key.get(k, ()) if r not in used})


def _next_block(relations, known: set, used: set, usable, square_block) -> Step | None:
    """The first square system, in dependency order, that the knowns settle."""
    pending = {r: relations[r] - known for r in range(len(relations))
               if usable(r) and r not in used and len(relations[r] - known) >= 2}
    core = block_core(pending) if len(pending) >= 2 else set()
    if len(core) < 2:
        return None
    joined = _joined(pending, core)  # a block and whatever it waits for share unknowns with the core
    found = square_block({r: keys for r, keys in pending.items() if r in joined})
    return Step(*found) if found is not None else None


def may_close(core: set[int], unknowns: dict[int, frozenset[str]], largest: int = 10) -> bool:
    """Whether some two or more of the core's relations hold exactly as many unknowns as they are: the square
    systems closed over their unknowns that a block must be. Assumed so for a core of more than ``largest``."""
    members = sorted(core)
    if len(members) > largest:
        return True
    return any(len(frozenset().union(*(unknowns[r] for r in subset))) == size
               for size in range(2, len(members) + 1) for subset in itertools.combinations(members, size))


def _joined(unknowns: dict[int, frozenset[str]], start: set[int]) -> set[int]:
    """The relations sharing an unknown with ``start``'s, step by step: the parts of the pending system the core
    lies in. Other parts match and order on their own, so leaving them out changes no block nor its order."""
    holders: dict[str, list[int]] = {}
    for r, keys in unknowns.items():
        for k in keys:
            holders.setdefault(k, []).append(r)
    joined, stack = set(start), list(start)
    while stack:
        for k in unknowns[stack.pop()]:
            for h in holders[k]:
                if h not in joined:
                    joined.add(h)
                    stack.append(h)
    return joined


def block_core(unknowns: dict[int, frozenset[str]], peeled: dict[int, tuple[int, str]] | None = None) -> set[int]:
    """The relations left after dropping, again and again, each one with an unknown no other left one has.

    Such a relation is in no block: that unknown could only be matched to it, and nothing else would need
    it, so it would be a component of its own. A core of fewer than two relations means there is no block,
    found without matching (most queries, every time), and without importing NetworkX. ``peeled``, when
    given, receives each dropped relation's turn and the unknown that let it go (the needs search's trials
    replay them, :mod:`hwkb.solving.need_search`).
    """
    holders: dict[str, set[int]] = {}
    for r, keys in unknowns.items():
        for k in keys:
            holders.setdefault(k, set()).add(r)
    alive = set(unknowns)
    stack = [(r, k) for k, rs in holders.items() if len(rs) == 1 for r in rs]
    while stack:
        r, witness = stack.pop()
        if r not in alive:
            continue
        alive.discard(r)
        if peeled is not None:
            peeled[r] = (len(peeled), witness)
        for k in unknowns[r]:
            holders[k].discard(r)
            if len(holders[k]) == 1:
                stack.extend((h, k) for h in holders[k])
    return alive
