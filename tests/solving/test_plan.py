"""hwkb.solving.plan: propagation, matching and blocks -- on key sets alone, no SymPy."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hwkb.solving import plan as plan_module
from hwkb.solving.plan import Plan, Step, make_plan

from tiny_structures import ANY, BLOCK, TINY


def test_all_names_exist():
    assert sorted(plan_module.__all__) == ["Plan", "Step", "block_core", "make_plan", "may_close", "propagate"]


def test_plan_uses_networkx_only_when_a_block_may_exist():
    """NetworkX (about 90 ms to import) is imported by the functions that need a graph, not with the module:
    propagation alone, most queries, never loads it."""
    from hwkb.solving import need_search, plan_blocks
    inner = set()
    for module in (plan_module, need_search, plan_blocks):
        tree = ast.parse(Path(module.__file__).read_text())
        top = {alias.name.split(".")[0] for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
        top |= {node.module.split(".")[0] for node in tree.body if isinstance(node, ast.ImportFrom) and node.module}
        inner |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        assert "networkx" not in top and "sympy" not in top, module.__name__
    assert "networkx" in inner and "sympy" not in inner
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


# ---------------------------------------------------------------- blocks in order


# nine keys tied by twelve relations, with two square systems (one needing the other) and a stuck pair
SEEDED = ("rels = [frozenset(s.split()) for s in ['a x1 x2', 'b x1 x2', 'x1 x2 y1 y2', 'x1 y1 y2', "
          "'c y1 y2 z', 'p q d', 'z w', 'w x1 y2 e', 'q f', 'y1 y2 z w', 'x2 z', 'a b c d']]; "
          "from hwkb.solving.plan import make_plan; from hwkb.solving.need_search import find_needs; "
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
