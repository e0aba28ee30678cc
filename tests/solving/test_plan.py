"""hwkb.solving.plan: propagation, matching and blocks, needs, routes -- on key sets alone, no SymPy."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwkb.solving import plan as plan_module
from hwkb.solving.plan import Plan, Step, find_needs, make_plan

ANY = lambda r, k: True  # noqa: E731  every direction solvable

# the tiny KB's structure: peak = sms * rate * clock (per precision), rate[bf16] = rate[fp16]
TINY = [frozenset({"peak[fp16]", "sms", "rate[fp16]", "clock"}),
        frozenset({"peak[bf16]", "sms", "rate[bf16]", "clock"}),
        frozenset({"rate[bf16]", "rate[fp16]"})]
# x + y = a, x - y = b, z = x * y / a
BLOCK = [frozenset({"a", "x", "y"}), frozenset({"b", "x", "y"}), frozenset({"z", "x", "y", "a"})]


def test_all_names_exist():
    assert sorted(plan_module.__all__) == ["NeedSearch", "Plan", "Step", "find_needs", "make_plan", "search_needs"]


def test_plan_uses_networkx_only_when_a_block_may_exist():
    """NetworkX (about 90 ms to import) is imported by the functions that need a graph, not with the module:
    propagation alone, most queries, never loads it."""
    tree = ast.parse(Path(plan_module.__file__).read_text())
    top = {alias.name.split(".")[0] for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
    top |= {node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}
    inner = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "networkx" in inner and "networkx" not in top and "sympy" not in top | inner
    code = ("import sys; from hwkb.solving.plan import make_plan; "
            "make_plan([frozenset({'p', 's', 'c'}), frozenset({'c', 'b'})], {'p', 's'}, lambda r, k: True); "
            "print('networkx' in sys.modules)")
    engine = str(Path(plan_module.__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": engine})
    assert done.stdout.strip() == "False"


def test_step_and_plan_are_frozen():
    step = Step((0,), ("a",))
    assert not step.is_block and Step((0, 1), ("a", "b")).is_block
    with pytest.raises(AttributeError):
        step.outputs = ()
    with pytest.raises(AttributeError):
        Plan((), frozenset(), ()).steps = ()


# ---------------------------------------------------------------- propagation

def test_propagation_in_rounds():
    p = make_plan(TINY, {"sms", "rate[fp16]", "peak[fp16]"}, ANY)
    assert p.steps == (Step((0,), ("clock",)), Step((2,), ("rate[bf16]",)), Step((1,), ("peak[bf16]",)))
    assert p.determined == frozenset().union(*TINY)
    assert p.checks == ()


def test_nothing_to_do():
    p = make_plan(TINY, set(), ANY)
    assert (p.steps, p.determined, p.checks) == ((), frozenset(), ())


def test_an_unsolvable_direction_is_not_taken():
    can = lambda r, k: not (r == 0 and k == "clock")
    p = make_plan(TINY, {"sms", "rate[fp16]", "peak[fp16]"}, can)
    assert p.steps == (Step((2,), ("rate[bf16]",)),)
    assert "clock" not in p.determined


def test_an_unusable_relation_is_left_out():
    p = make_plan(TINY, {"sms", "rate[fp16]", "peak[fp16]"}, ANY, usable=lambda r: r != 2)
    assert p.steps == (Step((0,), ("clock",)),)
    assert "peak[bf16]" not in p.determined


def test_over_determination_gives_checks():
    p = make_plan(TINY, {"sms", "rate[fp16]", "peak[fp16]", "clock"}, ANY)
    assert p.checks == (0,)  # all its keys are known: evidence for an audit
    assert Step((0,), ("clock",)) not in p.steps


def test_two_relations_for_one_key_give_one_step():
    rels = [frozenset({"a", "k"}), frozenset({"b", "k"})]
    p = make_plan(rels, {"a", "b"}, ANY)
    assert p.steps == (Step((0,), ("k",)),)
    assert p.checks == (1,)


# ---------------------------------------------------------------- matching and blocks

def test_a_square_system_becomes_a_block_then_propagation_continues():
    p = make_plan(BLOCK, {"a", "b"}, ANY)
    assert p.steps == (Step((0, 1), ("x", "y")), Step((2,), ("z",)))
    assert p.determined == frozenset({"a", "b", "x", "y", "z"})


def test_blocks_need_no_solvable_single_direction():
    p = make_plan(BLOCK, {"a", "b"}, lambda r, k: r == 2)
    assert p.steps[0] == Step((0, 1), ("x", "y"))


def test_an_underdetermined_pair_is_no_block():
    p = make_plan(BLOCK, {"a"}, ANY)
    assert p.steps == ()


def test_a_block_is_found_whatever_else_is_stuck():
    # {p, q} with one relation is stuck; it must not hide the square system {x, y}
    stuck = frozenset({"p", "q", "c"})
    for rels in ([stuck, BLOCK[0], BLOCK[1]], [BLOCK[0], BLOCK[1], stuck], [BLOCK[0], stuck, BLOCK[1]]):
        p = make_plan(rels, {"a", "b", "c"}, ANY)
        blocks = [s for s in p.steps if s.is_block]
        assert [s.outputs for s in blocks] == [("x", "y")], rels
        assert not {"p", "q"} & p.determined


def test_a_block_that_depends_on_a_stuck_key_is_not_taken():
    rels = [frozenset({"p", "q", "c"}), frozenset({"x", "y", "p"}), frozenset({"x", "y", "b"})]
    p = make_plan(rels, {"b", "c"}, ANY)
    assert p.steps == ()


def test_blocks_in_dependency_order():
    # u + v = a, u - v = b gives u, v; then x + y = u, x - y = v gives x, y
    rels = [frozenset({"x", "y", "u"}), frozenset({"x", "y", "v"}), frozenset({"u", "v", "a"}), frozenset({"u", "v", "b"})]
    p = make_plan(rels, {"a", "b"}, ANY)
    assert p.steps == (Step((2, 3), ("u", "v")), Step((0, 1), ("x", "y")))


# ---------------------------------------------------------------- needs

def test_needs_are_the_smallest_sets():
    assert find_needs(TINY, {"sms", "rate[fp16]"}, "clock", ANY) == [("peak[bf16]",), ("peak[fp16]",)]


def test_needs_of_two():
    # structurally, both peaks settle {sms, clock} as a block (SymPy would find that system singular)
    assert find_needs(TINY, {"rate[fp16]"}, "clock", ANY) == [
        ("peak[bf16]", "peak[fp16]"), ("peak[bf16]", "sms"), ("peak[fp16]", "sms")]


def test_needs_of_a_determined_target_are_none():
    assert find_needs(TINY, {"sms", "rate[fp16]", "peak[fp16]"}, "clock", ANY) == []


def test_needs_leave_out_excluded_keys():
    assert find_needs(TINY, {"sms", "rate[fp16]"}, "clock", ANY, excluded={"peak[bf16]"}) == [("peak[fp16]",)]


def test_needs_respect_usable_and_can_solve():
    # without rate[bf16] = rate[fp16] the bf16 route needs two keys, so only the fp16 one is smallest
    assert find_needs(TINY, {"sms", "rate[fp16]"}, "clock", ANY, usable=lambda r: r != 2) == [("peak[fp16]",)]
    assert find_needs(TINY, {"sms", "rate[fp16]"}, "clock", lambda r, k: k != "clock") == []


def test_needs_of_a_key_no_relation_mentions():
    assert find_needs(TINY, set(), "lonely", ANY) == []


def test_needs_through_a_block():
    assert find_needs(BLOCK, {"a"}, "z", ANY) == [("x",), ("y",), ("b",)]  # z's own inputs before the far b


# ---------------------------------------------------------------- blocks in order


# nine keys tied by twelve relations, with two square systems (one needing the other) and a stuck pair
SEEDED = ("rels = [frozenset(s.split()) for s in ['a x1 x2', 'b x1 x2', 'x1 x2 y1 y2', 'x1 y1 y2', "
          "'c y1 y2 z', 'p q d', 'z w', 'w x1 y2 e', 'q f', 'y1 y2 z w', 'x2 z', 'a b c d']]; "
          "from hwkb.solving.plan import make_plan, find_needs; "
          "from hwkb.solving.plan_blocks import components_in_order, maximum_matching; "
          "plan = make_plan(rels, {'a', 'b', 'c'}, lambda i, k: True); "
          "print(plan.steps, sorted(plan.determined), plan.checks); "
          "print(find_needs(rels, {'f'}, 'e', lambda i, k: True)); "
          "print(components_in_order({'k' + str(i): ['k' + str((i * 7) % 13)] for i in range(13)})); "
          "print(maximum_matching({r: sorted(ks) for r, ks in enumerate(rels)}))")


def test_the_plan_is_the_same_whatever_the_hash_seed():
    """Sets of strings iterate in an order that changes with PYTHONHASHSEED; the plan must not."""
    engine = str(Path(plan_module.__file__).resolve().parents[2])
    outputs = [subprocess.run([sys.executable, "-c", SEEDED], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONPATH": engine, "PYTHONHASHSEED": seed}).stdout
               for seed in ("0", "1", "77")]
    assert outputs[0] == outputs[1] == outputs[2]
    assert "Step(relations=(0, 1), outputs=('x1', 'x2'))" in outputs[0]


def test_the_needs_search_stops_at_its_budget_and_says_how_far_it_got():
    full = plan_module.search_needs(TINY, {"rate[fp16]"}, "clock", ANY)
    assert (full.tried, full.candidates, full.largest, full.complete) == (6, 3, 2, True)
    cut = plan_module.search_needs(TINY, {"rate[fp16]"}, "clock", ANY, budget=5)
    assert (cut.tried, cut.largest, cut.complete) == (5, 2, False)
    assert cut.sets == [("peak[bf16]", "peak[fp16]"), ("peak[bf16]", "sms")]  # what the budget reached, no more


def test_a_search_cut_by_its_budget_is_noted():
    from hwkb.solving.needs import budget_note
    cut = plan_module.search_needs(TINY, {"rate[fp16]"}, "clock", ANY, budget=2)
    assert budget_note("clock", cut) == ("the search for what would settle clock stopped at its budget of 2 trial "
                                         "plans, during the sets of 1 of the 3 nearest variables that reach it",)
    assert budget_note("clock", plan_module.search_needs(TINY, {"rate[fp16]"}, "clock", ANY)) == ()


def test_a_trial_plan_is_the_plan_make_plan_makes():
    """The needs search's trials start from the finished plan; each must be the plan made from scratch."""
    import itertools
    rels = [frozenset(s.split()) for s in ["a x1 x2", "b x1 x2", "x1 x2 y1 y2", "x1 y1 y2", "c y1 y2 z", "p q d",
                                           "z w", "w x1 y2 e", "q f", "y1 y2 z w", "x2 z", "a b c d"]]
    base = make_plan(rels, {"f"}, ANY)
    trials = plan_module._Trials(rels, base.determined, ANY, lambda r: True)
    keys = sorted({k for ks in rels for k in ks} - base.determined)
    for size in (1, 2, 3):
        for added in itertools.combinations(keys, size):
            assert trials.plan(added) == make_plan(rels, base.determined | set(added), ANY), added


def _every_trial_planned(relations, known, target):
    """The sets a search that plans every trial from scratch with make_plan finds, the same candidates in order."""
    import itertools
    base = make_plan(relations, known, ANY)
    if target in base.determined:
        return []
    near = plan_module._distances(relations, lambda r: True, target)
    reach = plan_module._reach(relations, lambda r: True, base.determined, target)
    keys = sorted((k for k in near if k not in base.determined and k != target),
                  key=lambda k: (near[k], k))[:plan_module.MAX_NEED_CANDIDATES]
    keys = [k for k in keys if k in reach]
    for size in range(1, plan_module.MAX_NEED_SIZE + 1):
        found = [c for c in itertools.combinations(keys, size)
                 if target in make_plan(relations, base.determined | set(c), ANY).determined]
        if found:
            return sorted((tuple(sorted(c)) for c in found), key=lambda c: (sum(near[k] for k in c), c))
    return []


SYSTEM = st.lists(st.frozensets(st.sampled_from([f"k{i}" for i in range(10)]), min_size=1, max_size=4),
                  min_size=1, max_size=12)


@given(SYSTEM, st.sets(st.sampled_from([f"k{i}" for i in range(10)]), max_size=3),
       st.sampled_from([f"k{i}" for i in range(10)]))
@settings(max_examples=300, deadline=None)
def test_the_needs_search_finds_what_planning_every_trial_finds(relations, known, target):
    """Trials skipped for an uncovered target, and plans shared from where propagation stops, change no set."""
    assert find_needs(relations, known, target, ANY) == _every_trial_planned(relations, known, target)


def test_the_search_for_what_settles_an_fp64_clock_plans_few_trials():
    """GB300's FP64 clock: 10,700 sets of up to 3 of the 40 nearest keys are tried, and before the coverage test
    4,041 of them were planned whole (a block search across ~170 pending relations each), 26 s of CPU in all."""
    from hwkb import KnowledgeBase
    from hwkb.solving.needs import needs_of
    kb = KnowledgeBase.load()
    solver = kb.solver(kb.context("gb300"))
    search = needs_of(solver, "clock_fp64")
    assert (search.tried, search.candidates, search.largest, search.complete) == (10_700, 40, 3, True)
    assert search.sets == [("fp64_flop_per_sm_cycle", "fp64_peak", "sm_count"),
                           ("fp64_flop_per_sm_cycle", "fp64_peak", "register_file_total"),
                           ("fp64_flop_per_sm_cycle", "fp64_peak", "shading_units")]
    assert search.planned <= 40
