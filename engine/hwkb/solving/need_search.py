"""The search for what would settle an undetermined key, on key sets alone: the smallest sets of further facts
that make it determined (stage 4 of :mod:`hwkb.solving.plan`).

Each trial plans the knowns plus a few keys. Planned from scratch, a trial looks for blocks across the whole
system, so trials plan from a finished plan instead (:class:`_Trials`), and a trial whose target some maximum
matching leaves free is not planned (:mod:`hwkb.solving.coverage`).

>>> rels = [frozenset({"peak", "sms", "clock"}), frozenset({"clock", "boost"})]
>>> find_needs(rels, {"sms"}, "clock", lambda r, k: True)
[('boost',), ('peak',)]
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from hwkb.solving.coverage import Coverage
from hwkb.solving.plan import CanSolve, Plan, Step, block_core, make_plan, may_close, propagate

__all__ = ["NeedSearch", "find_needs", "search_needs", "MAX_NEED_SIZE", "MAX_NEED_CANDIDATES", "MAX_NEED_TRIALS"]

MAX_NEED_SIZE = 3
MAX_NEED_CANDIDATES = 40
#: trial plans one search for needs may make (every set of up to 3 of the 40 nearest keys is 10,700)
MAX_NEED_TRIALS = 12_000


@dataclass(frozen=True)
class NeedSearch:
    """What :func:`search_needs` found, and how far it looked."""
    sets: list[tuple[str, ...]]   # the smallest sets found, closest to the target first
    tried: int                    # trial plans made
    candidates: int               # the nearest variables the sets were drawn from
    largest: int                  # the largest set size tried
    complete: bool                # False when the trial budget ran out before that size was done
    planned: int = 0              # trials that needed a block search (make_plan's own), the costly ones


def find_needs(relations: Sequence[frozenset[str]], known: Iterable[str], target: str, can_solve: CanSolve,
               usable: Callable[[int], bool] = lambda r: True, excluded: Iterable[str] = (),
               accept: Callable[[Plan], bool] = lambda plan: True) -> list[tuple[str, ...]]:
    """The sets :func:`search_needs` finds."""
    return search_needs(relations, known, target, can_solve, usable, excluded, accept).sets


def search_needs(relations: Sequence[frozenset[str]], known: Iterable[str], target: str, can_solve: CanSolve,
                 usable: Callable[[int], bool] = lambda r: True, excluded: Iterable[str] = (),
                 accept: Callable[[Plan], bool] = lambda plan: True, budget: int = MAX_NEED_TRIALS,
                 same: Iterable[str] = ()) -> NeedSearch:
    """The smallest sets of additional keys, any one of which makes ``target`` determined.

    ``same`` are keys a law makes equal to the target (the target under another name): never offered, and the
    nearest keys are counted from them as from the target.

    Sets of 1, then 2, then up to ``MAX_NEED_SIZE`` keys are tried among the ``MAX_NEED_CANDIDATES`` keys
    nearest the target that can reach it: a key outside the target's component of the graph of undetermined
    keys and their relations could settle nothing there, so it is never tried. Each trial plans from the
    knowns' finished plan (:class:`_Trials`), and at most ``budget`` trials are made: when it runs out the
    search returns what the finished sizes found and says so (``complete=False``).

    Structure cannot see that two equations are one equation twice (two peaks
    that both fix only ``sm_count * clock``); ``accept`` is asked of each
    candidate's plan so the caller can reject such sets by their numbers. When
    the knowns' own plan is rejected (the target rests on such a block), the
    candidates are drawn from the knowns alone, and the trials plan from the knowns' plan with the blocks the
    target rests on left out (:func:`_without_rejected`).
    """
    known = set(known)
    base = make_plan(relations, known, can_solve, usable)
    onward: dict[frozenset[str], tuple[Step, ...]] = {}  # trials whose propagation stops at the same keys share the rest
    trials = None
    if target in base.determined:
        if accept(base):
            return NeedSearch([], 0, 0, 0, True)
        trials = _without_rejected(relations, known, base, target, can_solve, usable, onward)
        base = Plan((), frozenset(known), ())  # candidates from the knowns alone
    else:
        trials = _Trials(relations, base.determined, can_solve, usable, onward, target)
    excluded = set(excluded) | {target} | set(same)
    near = _distances(relations, usable, target, same)
    if not near:
        return NeedSearch([], 0, 0, 0, True)
    nearest = sorted((k for k in near if k not in base.determined and k not in excluded),
                     key=lambda k: (near[k], k))[:MAX_NEED_CANDIDATES]
    reach = _reach(relations, usable, base.determined, target)
    candidates = [k for k in nearest if k in reach]
    tried = 0
    planned = lambda: trials.planned if trials else tried  # noqa: E731  without trials, every trial
    def closest_first(found):  # its own rule's inputs before far-off ones
        return sorted((tuple(sorted(c)) for c in found), key=lambda c: (sum(near[k] for k in c), c))
    for size in range(1, MAX_NEED_SIZE + 1):
        found = []
        for combo in itertools.combinations(candidates, size):
            if tried == budget:
                return NeedSearch(closest_first(found), tried, len(candidates), size, False, planned())
            tried += 1
            plan = trials.settling(combo) if trials else make_plan(relations, known | set(combo), can_solve,
                                                                     usable, onward=onward)
            if plan is not None and target in plan.determined and accept(plan):
                found.append(combo)
        if found:
            return NeedSearch(closest_first(found), tried, len(candidates), size, True, planned())
    return NeedSearch([], tried, len(candidates), MAX_NEED_SIZE, True, planned())


def _without_rejected(relations: Sequence[frozenset[str]], known: set[str], base: Plan, target: str,
                      can_solve: CanSolve, usable: Callable[[int], bool],
                      onward: dict[frozenset[str], tuple[Step, ...]]) -> _Trials | None:
    """Trials for a target the knowns' plan gives only through a block ``accept`` rejects: planned from the knowns'
    plan with the blocks the target rests on left out, as if absent, and from the knowns themselves wherever
    that could differ. None (every trial planned from scratch) unless, without those blocks, the target stays
    unknown and the plan is a fixed point of every relation.

    A trial is then planned from scratch (from the knowns plus its keys, as without this) where its keys touch the
    pending core those blocks lie in, or a fresh block may close there, where it adds a key only the other blocks
    gave, and where the propagation that gives the target leans on such a key. A trial that leaves the core as it
    was leaves the rejected blocks as they were: it is not planned, and the target stays unknown. Planned from
    scratch, such a trial could still differ in one way: a key outside the core can change which relations of an
    over-determined core the matching picks, and so offer a set that says nothing about the target
    (``test_a_key_that_only_changes_the_matching_settles_nothing``); the trial without the blocks does not.
    """
    needed, absent = {target}, set()
    for step in reversed(base.steps):
        if needed & set(step.outputs):
            needed |= {k for r in step.relations for k in relations[r]}
            if step.is_block:
                absent.update(step.relations)
    rest = make_plan(relations, known, can_solve, lambda r: usable(r) and r not in absent)
    if target in rest.determined:
        return None
    for r, keys in enumerate(relations):
        unknown = keys - rest.determined
        if usable(r) and len(unknown) == 1 and can_solve(r, next(iter(unknown))):
            return None
    return _Trials(relations, rest.determined, can_solve, usable, onward, target, start=frozenset(known))


def _reach(relations: Sequence[frozenset[str]], usable: Callable[[int], bool], determined: frozenset[str],
           target: str) -> set[str]:
    """The undetermined keys joined to ``target`` through usable relations and other undetermined keys
    (NetworkX's connected component): only these can take part in a plan step that leads to it."""
    import networkx as nx
    graph = nx.Graph()
    graph.add_node(target)
    for r, keys in enumerate(relations):
        open_keys = sorted(keys - determined)
        if usable(r) and len(open_keys) >= 2:
            graph.add_edges_from(zip(open_keys, open_keys[1:]))
    return nx.node_connected_component(graph, target) - {target}


class _Trials:
    """Plans of a finished plan's knowns plus a few keys, each the plan :func:`make_plan` would make, cheaply.

    The finished plan is a fixed point: no relation left has one unknown it can be solved for. So a trial's
    propagation starts from the relations of the added keys only. Its search for a block needs the core of
    the relations left with two or more unknowns; replaying the finished plan's peeling (each relation
    dropped in turn for an unknown no other left one had) drops every relation again whose unknown is still
    unknown and unshared, so the core lies within the old core and the relations that replay sticks at. Only
    when that core may hold a block (a square system closed over its unknowns) the finished plan did not
    already rule out (its own core, untouched) is the trial planned by :func:`make_plan` itself.

    ``start``: the knowns a trial planned by :func:`make_plan` starts from, when the finished plan is one made
    without some blocks (:func:`_without_rejected`); a trial whose propagation gives the target is then planned
    too unless the propagation of ``start`` and its keys gives the target as well.
    """

    def __init__(self, relations: Sequence[frozenset[str]], determined: frozenset[str], can_solve: CanSolve,
                 usable: Callable[[int], bool], onward: dict[frozenset[str], tuple[Step, ...]] | None = None,
                 target: str | None = None, start: frozenset[str] | None = None):
        self.relations, self.determined, self.can_solve, self.usable = relations, determined, can_solve, usable
        self.onward, self.target = onward, target
        self.start = determined if start is None else start
        self.blocks_gave = frozenset() if start is None else \
            determined - make_plan(relations, start, can_solve, usable, blocks=False).determined
        self.planned = 0  # trials planned by make_plan itself
        self.coverage = None if target is None else Coverage(
            {r: relations[r] - determined for r in range(len(relations)) if usable(r)})
        self.by_key: dict[str, list[int]] = {}
        for r, keys in enumerate(relations):
            if usable(r):
                for k in keys:
                    self.by_key.setdefault(k, []).append(r)
        self.pending = {r: relations[r] - determined for r in range(len(relations))
                        if usable(r) and len(relations[r] - determined) >= 2}
        self.peeled: dict[int, tuple[int, str]] = {}
        self.core = block_core(self.pending, self.peeled)
        self.let_go_by: dict[str, list[tuple[int, int]]] = {}  # an unknown -> (turn, relation) it let go
        for r, (turn, witness) in self.peeled.items():
            self.let_go_by.setdefault(witness, []).append((turn, r))
        self.checks = {r for r in range(len(relations)) if usable(r) and relations[r] <= determined}

    def plan(self, added: Iterable[str]) -> Plan:
        return self._plan(added, settling=False)

    def settling(self, added: Iterable[str]) -> Plan | None:
        """The plan, or None where it cannot settle the target: where, once propagation stops, the target is an
        unknown some maximum matching leaves free (:class:`~hwkb.solving.coverage.Coverage`), which no block search
        across the system would change."""
        return self._plan(added, settling=True)

    def _plan(self, added: Iterable[str], settling: bool) -> Plan | None:
        if self.blocks_gave & set(added):
            return self._from_scratch(added)
        known = set(self.determined) | set(added)
        fresh = set(added) - self.determined
        steps: list[Step] = []
        used: set[int] = set()
        frontier = sorted({r for k in fresh for r in self.by_key.get(k, ())})
        propagate(self.relations, known, self.can_solve, self.by_key, steps, used, frontier)
        new = known - self.determined
        if settling and self.target not in known and not self.coverage.covered(self.target, new):
            return None
        touched = {r for k in new for r in self.by_key.get(k, ()) if r in self.pending}
        left = {r: self.pending[r] - new for r in touched if r not in used}  # the touched relations still pending
        left = {r: unknowns for r, unknowns in left.items() if len(unknowns) >= 2}
        stuck = self._stuck(left, touched, new)
        core = block_core({r: left.get(r, self.pending[r]) for r in stuck}) if len(stuck) >= 2 else set()
        if len(core) >= 2 and not (core == self.core and not core & touched) and \
                may_close(core, {r: left.get(r, self.pending[r]) for r in core}):
            return self._from_scratch(added)
        if self.blocks_gave and self.target in known and self.target not in make_plan(
                self.relations, self.start | set(added), self.can_solve, self.usable, blocks=False).determined:
            return self._from_scratch(added)
        checks = self.checks | {r for k in new for r in self.by_key.get(k, ())
                                if r not in used and self.relations[r] <= known}
        return Plan(tuple(steps), frozenset(known), tuple(sorted(checks)))

    def _from_scratch(self, added: Iterable[str]) -> Plan:
        self.planned += 1
        return make_plan(self.relations, self.start | set(added), self.can_solve, self.usable, onward=self.onward)

    def _stuck(self, left: dict[int, frozenset[str]], touched: set[int], new: set[str]) -> set[int]:
        """The old core's relations still pending, and those the replayed peeling cannot drop: a relation
        whose unknown is now known, and, after it, one whose unknown a relation stuck before it still holds.
        ``left`` holds the unknowns of the touched relations still pending (the others keep theirs)."""
        unknowns = lambda r: left.get(r) if r in touched else self.pending[r]  # noqa: E731
        stuck = {r for r in self.core if unknowns(r)}
        queue = [r for r in left if r in self.peeled and self.peeled[r][1] in new]
        while queue:
            r = queue.pop()
            if r in stuck:
                continue
            stuck.add(r)
            turn = self.peeled[r][0]
            for k in unknowns(r):
                queue.extend(h for later, h in self.let_go_by.get(k, ()) if later > turn and unknowns(h))
        return stuck


def _distances(relations: Sequence[frozenset[str]], usable: Callable[[int], bool], target: str,
               same: Iterable[str] = ()) -> dict[str, int]:
    """Each key's steps from ``target`` (or the nearest of ``same``) in the graph of keys and usable relations
    ({} if none has the target)."""
    import networkx as nx
    keys = sorted({k for r, ks in enumerate(relations) if usable(r) for k in ks})
    if target not in keys:
        return {}
    ids = {k: i for i, k in enumerate(keys)}
    graph = nx.Graph()
    graph.add_nodes_from(range(len(keys) + len(relations)))
    graph.add_edges_from((ids[k], len(keys) + r) for r, ks in enumerate(relations) if usable(r) for k in ks)
    sources = {ids[k] for k in (target, *same) if k in ids}
    lengths = nx.multi_source_dijkstra_path_length(graph, sources)
    return {keys[node]: length for node, length in lengths.items() if node < len(keys)}
