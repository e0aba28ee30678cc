"""hwkb.solving.blocks: whether a block is regular, for every linear system of full rank whatever the signs of its
roots, and never for a singular one."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import kb_from_text
from hwkb import KnowledgeBase
from hwkb.definitions.expressions import Ref, parse_relation
from hwkb.formats.caches import SolutionCache
from hwkb.solving.blocks import regular_at_random, singular_everywhere
from hwkb.solving.relations import Relation, _Template


def relation(name: str, text: str) -> Relation:
    """A relation of the equation ``text``, as compile_relations makes one from a rule (no rule needed here)."""
    ast = parse_relation(text)
    keys = tuple(dict.fromkeys(str(r) for r in ast.references()))
    shape = ast.map_refs(lambda r: Ref(f"x{keys.index(str(r))}"))
    return Relation(name, None, keys, ast, _Template(shape, len(keys), SolutionCache()))


def linear_block(rows: list[list[int]]) -> tuple[list[Relation], list[str]]:
    """``b_i = sum_j rows[i][j] * y_j``: the outputs ``y_j``, each ``b_i`` an input."""
    outputs = [f"y{j}" for j in range(len(rows))]
    relations = [relation(f"row{i}", f"b{i} = " + " + ".join(f"({c}) * {y}" for c, y in zip(row, outputs)))
                 for i, row in enumerate(rows)]
    return relations, outputs


def determinant(rows: list[list[int]]) -> int:
    if len(rows) == 1:
        return rows[0][0]
    return sum((-1) ** j * rows[0][j] * determinant([r[:j] + r[j + 1:] for r in rows[1:]]) for j in range(len(rows)))


def test_a_sum_and_a_difference_are_regular():
    """x + y = a, x - y = b fix both, though y < 0 wherever b > a: the random inputs may well be such."""
    relations = [relation("sum", "a = x + y"), relation("difference", "b = x - y")]
    assert regular_at_random(relations, ["x", "y"]) is True
    assert singular_everywhere(relations, ["x", "y"]) is False


def test_two_equations_in_one_sum_are_not_regular():
    relations = [relation("sum", "a = x + y"), relation("twice", "b = 2 * x + 2 * y")]
    assert regular_at_random(relations, ["x", "y"]) is False


def test_a_block_through_a_step_has_no_newton_root_and_raises_nothing():
    """ceil has no derivative NumPy can print: neither Newton search finds a root, so the block is not regular."""
    relations = [relation("stepped", "a = ceil(x) * y"), relation("difference", "b = x - y")]
    assert regular_at_random(relations, ["x", "y"]) is False


def test_two_laws_that_meet_only_at_zero_are_not_regular():
    """Both FP32 peak laws are linear in the peak and the clock; at random inputs they meet only at 0."""
    kb = KnowledgeBase.load()
    relations = [kb.relation_index["fp32_peak_law"], kb.relation_index["fp32_peak_from_shading_units"]]
    assert regular_at_random(relations, ["clock_fp32", "fp32_peak"]) is False


COEFFICIENTS = st.integers(-5, 5)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 3).flatmap(lambda n: st.lists(st.lists(COEFFICIENTS, min_size=n, max_size=n),
                                                         min_size=n, max_size=n)))
def test_a_linear_system_is_regular_exactly_when_it_has_full_rank(rows):
    relations, outputs = linear_block(rows)
    assert regular_at_random(relations, outputs) is (determinant(rows) != 0)


@settings(max_examples=25, deadline=None)
@given(row=st.lists(COEFFICIENTS.filter(bool), min_size=2, max_size=3), factor=st.integers(-4, 4).filter(bool))
def test_a_row_a_multiple_of_another_is_singular(row, factor):
    rows = [row, [factor * c for c in row]] + [[int(i == j) for j in range(len(row))] for i in range(2, len(row))]
    relations, outputs = linear_block(rows)
    assert regular_at_random(relations, outputs) is False


SUM_AND_DIFFERENCE = """
variables:
  x: {unit: GHz, doc: one clock}
  y: {unit: GHz, doc: another clock}
  s: {unit: GHz, doc: their sum}
  d: {unit: GHz, doc: their difference}
rules:
  sum_law: {doc: the sum, eq: s = x + y, source: test}
  difference_law: {doc: the difference, eq: d = x - y, source: test}
"""
PRODUCTS = """
apart: {kind: product, facts: {s: 3 GHz, d: 1 GHz}}
backwards: {kind: product, facts: {s: 1 GHz, d: 2 GHz}}
"""


def test_a_sum_and_a_difference_need_nothing_more(tmp_path):
    """Where the figures leave no positive root, the block still fixes both: the solver says so and asks for no
    further figure (it asked for y while the block was taken for irregular)."""
    kb = kb_from_text(tmp_path, SUM_AND_DIFFERENCE, PRODUCTS)
    assert (kb.solve("x", gpu="apart").value.magnitude, kb.solve("y", gpu="apart").value.magnitude) == (2.0, 1.0)
    answer = kb.solve("x", gpu="backwards").to_dict()
    assert (answer["status"], answer["needs"], answer["notes"]) == (
        "underdetermined", [], ["the system sum_law, difference_law has 0 positive solutions for x, y"])
