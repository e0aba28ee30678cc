"""hwkb.solving.plan_blocks: the planner's matching and the matched graph's components in order, and the first
block they give, on key sets alone."""
from __future__ import annotations

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
