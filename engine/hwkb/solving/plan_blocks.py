"""The planner's graph work (:mod:`hwkb.solving.plan`): which relations form a joint block, found with NetworkX.

A block is a square system of relations solved together. Among the relations
still pending, a maximum matching of relations to unknowns (Hopcroft-Karp) and the
strongly connected components of the matched dependency graph, in topological
order, give the first one. Nodes are integer ids added in a fixed order, so the
answer does not depend on the hash seed. The answer depends on the pending
relations' unknowns alone, so a cache may keep it
(:meth:`hwkb.solving.block_results.BlockResults.first_block`): NetworkX takes
about 90 ms to import.
"""
from __future__ import annotations

__all__ = ["Block", "first_block", "maximum_matching", "components_in_order"]

Block = tuple[tuple[int, ...], tuple[str, ...]]  # a block's relations (by place) and its outputs, each sorted


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

    NetworkX's condensation, in topological order; among components free at the same time, the one holding
    the earliest node (in the mapping's order) first. Nodes are integer ids, so neither the components nor
    their order depend on the hash seed.

    >>> components_in_order({"a": ["b"], "b": ["c"], "c": ["b"], "d": []})
    [['a'], ['b', 'c'], ['d']]
    """
    import networkx as nx
    names = list(dict.fromkeys([*successors, *(c for cs in successors.values() for c in cs)]))
    ids = {name: i for i, name in enumerate(names)}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(names)))
    graph.add_edges_from((ids[node], ids[child]) for node, children in successors.items() for child in children)
    dag = nx.condensation(graph)
    first = {c: min(dag.nodes[c]["members"]) for c in dag}
    return [sorted(names[i] for i in dag.nodes[c]["members"])
            for c in nx.lexicographical_topological_sort(dag, key=first.__getitem__)]


def maximum_matching(unknowns: dict[int, list[str]]) -> dict[str, int]:
    """A maximum matching of relations to unknowns (NetworkX's Hopcroft-Karp), as ``{key: relation}``.

    Relations and keys are integer nodes added in order (relations as given, keys as first met), so the
    same input gives the same matching whatever the hash seed.

    >>> sorted(maximum_matching({0: ["x", "y"], 1: ["x"], 2: ["x", "y"]}))
    ['x', 'y']
    """
    import networkx as nx
    relations = list(unknowns)
    keys = list(dict.fromkeys(k for r in relations for k in unknowns[r]))
    key_ids = {k: len(relations) + i for i, k in enumerate(keys)}
    graph = nx.Graph()
    graph.add_nodes_from(range(len(relations) + len(keys)))
    graph.add_edges_from((i, key_ids[k]) for i, r in enumerate(relations) for k in unknowns[r])
    matched = nx.bipartite.hopcroft_karp_matching(graph, top_nodes=range(len(relations)))
    return {keys[node - len(relations)]: relations[partner] for node, partner in sorted(matched.items())
            if node >= len(relations)}
