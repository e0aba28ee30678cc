"""hwkb.solving.coverage: an unknown every maximum matching covers, the same as removing it shrinks the largest
matching; and every key a plan determines is one."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hwkb.solving.coverage import Coverage
from hwkb.solving.plan import make_plan

KEYS = [f"k{i}" for i in range(9)]
SYSTEMS = st.lists(st.frozensets(st.sampled_from(KEYS), min_size=1, max_size=4), max_size=10)
ANY = lambda r, k: True  # noqa: E731


def largest_matching(unknowns: dict[int, frozenset[str]]) -> int:
    """NetworkX's maximum matching size: the oracle, computed another way than Coverage's repair."""
    import networkx as nx
    graph = nx.Graph()
    graph.add_nodes_from(("r", r) for r in unknowns)
    graph.add_edges_from((("r", r), ("k", k)) for r, keys in unknowns.items() for k in keys)
    return len(nx.bipartite.hopcroft_karp_matching(graph, top_nodes=[("r", r) for r in unknowns])) // 2


@given(SYSTEMS, st.sets(st.sampled_from(KEYS), max_size=4), st.sampled_from(KEYS))
@settings(max_examples=400, deadline=None)
def test_covered_is_what_every_maximum_matching_covers(relations, known, key):
    """Repaired from the matching without ``known``: the same as matching afresh with and without ``key``."""
    unknowns = dict(enumerate(relations))
    left = {r: keys - known for r, keys in unknowns.items()}
    expected = key not in known and largest_matching({r: ks - {key} for r, ks in left.items()}) < largest_matching(left)
    assert Coverage(unknowns).covered(key, set(known)) == expected


@given(SYSTEMS, st.sets(st.sampled_from(KEYS), max_size=4))
@settings(max_examples=400, deadline=None)
def test_every_key_a_plan_determines_is_covered(relations, known):
    """Why the needs search may skip a trial whose target is not covered: no plan step gives such a key."""
    plan = make_plan(relations, known, ANY)
    coverage = Coverage({r: keys - set(known) for r, keys in enumerate(relations)})
    for key in plan.determined - set(known):
        assert coverage.covered(key, set())


def test_a_freed_relation_is_matched_again():
    """x and y by relation 0, y and z by 1: any one of the three may be left free. Knowing y frees the relation
    matched to it, which takes z: then x and z are both covered."""
    coverage = Coverage({0: frozenset({"x", "y"}), 1: frozenset({"y", "z"})})
    assert [coverage.covered(k, set()) for k in ("x", "y", "z")] == [False, False, False]
    assert [coverage.covered(k, {"y"}) for k in ("x", "z")] == [True, True]
