"""hwkb.solving.plan_blocks: the planner's matching and the matched graph's components in order, and the first
block they give, on key sets alone; the matching and the order are NetworkX's, pair for pair."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hwkb.solving import plan_blocks
from hwkb.solving.plan import make_plan
from hwkb.solving.plan_blocks import components_in_order, first_block, maximum_matching


def test_all_names_exist():
    assert sorted(plan_blocks.__all__) == ["Block", "components_in_order", "first_block", "maximum_matching"]


def test_components_come_before_what_depends_on_them():
    graph = {"x": ["y"], "y": ["x", "z"], "z": [], "w": ["x"]}
    assert components_in_order(graph) == [["w"], ["x", "y"], ["z"]]
    chain = {str(i): [str(i + 1)] for i in range(5000)}  # no recursion, however deep
    assert len(components_in_order(chain)) == 5001


def test_the_matching_is_maximum():
    unknowns = {0: ["x", "y"], 1: ["x"], 2: ["y", "z"], 3: ["z"]}
    owner = maximum_matching(unknowns)
    assert len(owner) == 3  # 3 keys: 3 is the maximum
    assert all(key in unknowns[r] for key, r in owner.items()) and len(set(owner.values())) == 3


def test_the_first_block_is_the_one_the_others_wait_for():
    """{x1, x2} by relations 0 and 1; {y1, y2} by 2 and 3 needs x1: the first comes first, whatever the places."""
    unknowns = {0: frozenset({"y1", "y2", "x1"}), 1: frozenset({"y1", "y2"}), 5: frozenset({"x1", "x2"}),
                7: frozenset({"x1", "x2"})}
    assert first_block(unknowns) == ((5, 7), ("x1", "x2"))
    assert first_block({0: frozenset({"y1", "y2"}), 1: frozenset({"y1", "y2"})}) == ((0, 1), ("y1", "y2"))


def test_no_square_system_is_no_block():
    assert first_block({0: frozenset({"a", "b"}), 1: frozenset({"b", "c"})}) is None
    assert first_block({0: frozenset({"a", "b"}), 1: frozenset({"b", "c"}), 2: frozenset({"c", "d"})}) is None


def test_a_relation_left_over_is_no_part_of_the_block():
    """Three relations in two unknowns: two of them settle both, the third is then a check."""
    assert first_block({0: frozenset({"a", "b"}), 1: frozenset({"a", "b"}), 2: frozenset({"a", "b"})}) == (
        (0, 1), ("a", "b"))


def test_the_planner_takes_a_block_from_the_function_it_is_given():
    """A cache of :func:`first_block` stands in for it (:mod:`hwkb.solving.block_results`)."""
    relations = [frozenset({"a", "x", "y"}), frozenset({"b", "x", "y"}), frozenset({"z", "x"})]
    asked = []
    plan = make_plan(relations, {"a", "b"}, lambda r, k: True,
                     square_block=lambda unknowns: asked.append(dict(unknowns)) or first_block(unknowns))
    assert asked == [{0: frozenset({"x", "y"}), 1: frozenset({"x", "y"}), 2: frozenset({"x", "z"})}]
    assert [(s.relations, s.outputs) for s in plan.steps] == [((0, 1), ("x", "y")), ((2,), ("z",))]


# ---------------------------------------------------------------- the very answers of NetworkX

def networkx_matching(unknowns: dict[int, list[str]]) -> dict[str, int]:
    """The matching as the planner took it from NetworkX before: integer nodes added in order."""
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


def networkx_components(successors: dict[str, list[str]]) -> list[list[str]]:
    """The components as the planner took them from NetworkX before: condensation, sorted lexicographically."""
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


KEYS = st.sampled_from([f"k{i}" for i in range(12)])
SYSTEMS = st.dictionaries(st.integers(0, 60), st.lists(KEYS, min_size=1, max_size=4, unique=True), max_size=14)
GRAPHS = st.dictionaries(KEYS, st.lists(KEYS, max_size=4), max_size=12)


@given(SYSTEMS)
@settings(max_examples=300, deadline=None)
def test_the_matching_is_networkx_s(unknowns):
    """Not only as large: the very pairs, which decide the blocks (a system may have many maximum matchings)."""
    assert maximum_matching(unknowns) == networkx_matching(unknowns)


@given(GRAPHS)
@settings(max_examples=300, deadline=None)
def test_the_components_and_their_order_are_networkx_s(successors):
    assert components_in_order(successors) == networkx_components(successors)
