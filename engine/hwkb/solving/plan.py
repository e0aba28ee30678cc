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
   facts that would settle it; a trial that leaves the target an unknown some maximum
   matching leaves free is not planned (:mod:`hwkb.solving.coverage`).

Relations are given as key sets; whether a direction can be solved is asked of
a callback, so SymPy work stays in :mod:`hwkb.solving.relations`.

>>> rels = [frozenset({"peak", "sms", "clock"}), frozenset({"clock", "boost"})]
>>> p = make_plan(rels, {"peak", "sms"}, lambda r, k: True)
>>> [(s.relations, s.outputs) for s in p.steps]
[((0,), ('clock',)), ((1,), ('boost',))]
>>> find_needs(rels, {"sms"}, "clock", lambda r, k: True)
[('boost',), ('peak',)]
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from hwkb.solving.coverage import Coverage
from hwkb.solving.plan_blocks import Block, first_block

__all__ = ["Step", "Plan", "make_plan", "find_needs", "search_needs", "NeedSearch"]

CanSolve = Callable[[int, str], bool]
MAX_NEED_SIZE = 3
MAX_NEED_CANDIDATES = 40
#: trial plans one search for needs may make (every set of up to 3 of the 40 nearest keys is 10,700)
MAX_NEED_TRIALS = 12_000


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
    _propagate(relations, known, can_solve, by_key, steps, used)
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
        _propagate(relations, known, can_solve, by_key, steps, used)
        later = (*steps, *_blocks_onward(relations, known, can_solve, by_key, used, derives, square_block, onward))
    if onward is not None:
        onward[stopped] = later
    return later


def _propagate(relations, known: set, can_solve, by_key, steps, used, frontier=None):
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
    core = _block_core(pending) if len(pending) >= 2 else set()
    if len(core) < 2:
        return None
    joined = _joined(pending, core)  # a block and whatever it waits for share unknowns with the core
    found = square_block({r: keys for r, keys in pending.items() if r in joined})
    return Step(*found) if found is not None else None


def _may_close(core: set[int], unknowns: dict[int, frozenset[str]], largest: int = 10) -> bool:
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


def _block_core(unknowns: dict[int, frozenset[str]], peeled: dict[int, tuple[int, str]] | None = None) -> set[int]:
    """The relations left after dropping, again and again, each one with an unknown no other left one has.

    Such a relation is in no block: that unknown could only be matched to it, and nothing else would need
    it, so it would be a component of its own. A core of fewer than two relations means there is no block,
    found without matching (most queries, every time), and without importing NetworkX. ``peeled``, when
    given, receives each dropped relation's turn and the unknown that let it go (:class:`_Trials` replays them).
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
    search starts again from the knowns alone.
    """
    known = set(known)
    base = make_plan(relations, known, can_solve, usable)
    onward: dict[frozenset[str], tuple[Step, ...]] = {}  # trials whose propagation stops at the same keys share the rest
    trials = None
    if target in base.determined:
        if accept(base):
            return NeedSearch([], 0, 0, 0, True)
        base = Plan((), frozenset(known), ())  # not a finished plan: every trial plans from scratch
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
    planned = lambda: trials.planned if trials else tried  # noqa: E731  without a finished plan, every trial
    def closest_first(found):  # its own rule's inputs before far-off ones
        return sorted((tuple(sorted(c)) for c in found), key=lambda c: (sum(near[k] for k in c), c))
    for size in range(1, MAX_NEED_SIZE + 1):
        found = []
        for combo in itertools.combinations(candidates, size):
            if tried == budget:
                return NeedSearch(closest_first(found), tried, len(candidates), size, False, planned())
            tried += 1
            plan = trials.settling(combo) if trials else make_plan(relations, base.determined | set(combo),
                                                                     can_solve, usable, onward=onward)
            if plan is not None and target in plan.determined and accept(plan):
                found.append(combo)
        if found:
            return NeedSearch(closest_first(found), tried, len(candidates), size, True, planned())
    return NeedSearch([], tried, len(candidates), MAX_NEED_SIZE, True, planned())



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
    """

    def __init__(self, relations: Sequence[frozenset[str]], determined: frozenset[str], can_solve: CanSolve,
                 usable: Callable[[int], bool], onward: dict[frozenset[str], tuple[Step, ...]] | None = None,
                 target: str | None = None):
        self.relations, self.determined, self.can_solve, self.usable = relations, determined, can_solve, usable
        self.onward, self.target = onward, target
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
        self.core = _block_core(self.pending, self.peeled)
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
        known = set(self.determined) | set(added)
        fresh = set(added) - self.determined
        steps: list[Step] = []
        used: set[int] = set()
        frontier = sorted({r for k in fresh for r in self.by_key.get(k, ())})
        _propagate(self.relations, known, self.can_solve, self.by_key, steps, used, frontier)
        new = known - self.determined
        if settling and self.target not in known and not self.coverage.covered(self.target, new):
            return None
        touched = {r for k in new for r in self.by_key.get(k, ()) if r in self.pending}
        left = {r: self.pending[r] - new for r in touched if r not in used}  # the touched relations still pending
        left = {r: unknowns for r, unknowns in left.items() if len(unknowns) >= 2}
        stuck = self._stuck(left, touched, new)
        core = _block_core({r: left.get(r, self.pending[r]) for r in stuck}) if len(stuck) >= 2 else set()
        if len(core) >= 2 and not (core == self.core and not core & touched) and \
                _may_close(core, {r: left.get(r, self.pending[r]) for r in core}):
            self.planned += 1
            return make_plan(self.relations, self.determined | set(added), self.can_solve, self.usable,
                             onward=self.onward)
        checks = self.checks | {r for k in new for r in self.by_key.get(k, ())
                                if r not in used and self.relations[r] <= known}
        return Plan(tuple(steps), frozenset(known), tuple(sorted(checks)))

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
