"""The planner's graph work (:mod:`hwkb.solving.plan`): which relations form a joint block.

A block is a square system of relations solved together. Among the relations
still pending, a maximum matching of relations to unknowns (Hopcroft-Karp) and the
strongly connected components of the matched dependency graph, in topological
order, give the first one. Both are NetworkX's algorithms (``bipartite.hopcroft_karp_matching``, ``condensation``
with ``lexicographical_topological_sort``) written over plain lists, visiting in the order NetworkX visits, so they
give its very matching and order (tests/solving/test_plan_blocks.py compares them): the search for what would settle
an undetermined key plans thousands of times, and building NetworkX graphs cost three times the work itself
(benchmarks/plan_blocks.py). The answer depends on the pending relations' unknowns alone, so a cache may keep it
(:meth:`hwkb.solving.block_results.BlockResults.first_block`).
"""
from __future__ import annotations

import heapq

__all__ = ["Block", "first_block", "maximum_matching", "components_in_order"]

Block = tuple[tuple[int, ...], tuple[str, ...]]  # a block's relations (by place) and its outputs, each sorted

_UNREACHED = float("inf")


def first_block(unknowns: dict[int, frozenset[str]]) -> Block | None:
    """The first square system, in dependency order, of relations with these ``unknowns`` (by relation, the keys
    not yet known): a maximum matching, then the matched graph's components in order. Nothing else is read.

    >>> first_block({0: frozenset({"a", "b"}), 1: frozenset({"a", "b"}), 2: frozenset({"b", "c"})})
    ((0, 1), ('a', 'b'))
    """
    owner = maximum_matching({r: sorted(keys) for r, keys in unknowns.items()})
    depends: dict[str, list[str]] = {}  # key -> the keys that need it
    for key, r in sorted(owner.items(), key=lambda item: item[1]):
        depends.setdefault(key, [])
        for other in sorted(unknowns[r] - {key}):
            depends.setdefault(other, []).append(key)
    if not depends:
        return None
    settled: set[str] = set()
    for component in components_in_order(depends):
        members = set(component)
        rels = {owner[k] for k in members if k in owner}
        left = set().union(*(unknowns[r] - settled for r in rels)) if rels else {None}
        if len(members) >= 2 and len(rels) == len(members) and left <= members:
            return tuple(sorted(rels)), tuple(sorted(members))
        if left <= members and len(rels) == len(members):
            settled |= members
        # else: this component is not settled; one that does not depend on it may still be
    return None


def components_in_order(successors: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components of a directed graph, each before those that depend on it.

    Among components free at the same time, the one holding the earliest node (in the mapping's order) comes first,
    as NetworkX's condensation sorted lexicographically by that node orders them; so neither the components nor their
    order depend on the hash seed.

    >>> components_in_order({"a": ["b"], "b": ["c"], "c": ["b"], "d": []})
    [['a'], ['b', 'c'], ['d']]
    """
    names = list(dict.fromkeys([*successors, *(c for cs in successors.values() for c in cs)]))
    ids = {name: i for i, name in enumerate(names)}
    children: list[list[int]] = [[] for _ in names]
    for node, targets in successors.items():
        children[ids[node]].extend(ids[c] for c in targets)
    component = _strong_components(children)
    members: list[list[int]] = [[] for _ in range(max(component, default=-1) + 1)]
    for node, c in enumerate(component):
        members[c].append(node)  # nodes ascending, so members[c][0] is the component's earliest node
    after: list[set[int]] = [set() for _ in members]
    for node, targets in enumerate(children):
        after[component[node]].update(component[t] for t in targets if component[t] != component[node])
    waiting = [0] * len(members)
    for later in after:
        for c in later:
            waiting[c] += 1
    free = [(members[c][0], c) for c in range(len(members)) if not waiting[c]]
    heapq.heapify(free)
    order = []
    while free:
        _, c = heapq.heappop(free)
        order.append(sorted(names[i] for i in members[c]))
        for d in after[c]:
            waiting[d] -= 1
            if not waiting[d]:
                heapq.heappush(free, (members[d][0], d))
    return order


def _strong_components(children: list[list[int]]) -> list[int]:
    """Each node's strongly connected component (Tarjan's algorithm, without recursion), as a number."""
    index: list[int | None] = [None] * len(children)
    low = [0] * len(children)
    on_stack = [False] * len(children)
    component = [-1] * len(children)
    stack: list[int] = []
    visited = found = 0
    for root in range(len(children)):
        if index[root] is not None:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = visited
                visited += 1
                stack.append(node)
                on_stack[node] = True
            else:
                low[node] = min(low[node], low[children[node][i - 1]])
            while i < len(children[node]) and index[children[node][i]] is not None:
                if on_stack[children[node][i]]:
                    low[node] = min(low[node], index[children[node][i]])
                i += 1
            if i < len(children[node]):
                work.append((node, i + 1))
                work.append((children[node][i], 0))
            elif low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component[member] = found
                    if member == node:
                        break
                found += 1
    return component


def maximum_matching(unknowns: dict[int, list[str]]) -> dict[str, int]:
    """A maximum matching of relations to unknowns (Hopcroft-Karp), as ``{key: relation}``.

    Relations are visited in the order given and each relation's keys in its list's order, as NetworkX's
    ``hopcroft_karp_matching`` visits a graph built from them in that order, so the same input gives NetworkX's
    matching, whatever the hash seed.

    >>> sorted(maximum_matching({0: ["x", "y"], 1: ["x"], 2: ["x", "y"]}))
    ['x', 'y']
    """
    relations = list(unknowns)
    keys = list(dict.fromkeys(k for r in relations for k in unknowns[r]))
    key_ids = {k: i for i, k in enumerate(keys)}
    adjacent = [[key_ids[k] for k in unknowns[r]] for r in relations]
    owner: list[int | None] = [None] * len(keys)         # a key's relation (by place in ``relations``)
    partner: list[int | None] = [None] * len(relations)  # a relation's key
    layer: dict[int | None, float] = {}                  # None: the layer of a free key

    def layered() -> bool:
        """Layers of relations by alternating distance from the free ones; whether a free key is reached."""
        queue = []
        for v in range(len(relations)):
            layer[v] = 0 if partner[v] is None else _UNREACHED
            if partner[v] is None:
                queue.append(v)
        layer[None] = _UNREACHED
        for v in queue:  # grows while read
            if v is not None and layer[v] < layer[None]:
                for u in adjacent[v]:
                    if layer[owner[u]] is _UNREACHED:
                        layer[owner[u]] = layer[v] + 1
                        queue.append(owner[u])
        return layer[None] is not _UNREACHED

    def augment(v: int | None) -> bool:
        if v is None:
            return True
        for u in adjacent[v]:
            if layer[owner[u]] == layer[v] + 1 and augment(owner[u]):
                owner[u], partner[v] = v, u
                return True
        layer[v] = _UNREACHED
        return False

    while layered():
        for v in range(len(relations)):
            if partner[v] is None:
                augment(v)
    return {keys[u]: relations[v] for u, v in enumerate(owner) if v is not None}
