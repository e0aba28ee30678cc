"""hwkb.solving.solve_bounds: an equation too large for SymPy is solved forward only, with the reason logged."""
from __future__ import annotations

import logging

import sympy

from conftest import kb_from_text
from hwkb.solving.solve_bounds import MAX_SOLVE_DEGREE, degree_bound, solve_refusal

RULES = """
variables:
  a: {unit: "", doc: a}
  b: {unit: "", doc: b}
  c: {unit: "", doc: c}
rules:
  huge:      {doc: d, source: s, eq: 'a = ((b + 1) ** 64) ** 64'}
  quadratic: {doc: d, source: s, eq: 'a = b ** 2 + c * b'}
"""


def test_a_power_of_a_power_is_forward_only_with_a_note(tmp_path, caplog):
    kb = kb_from_text(tmp_path, RULES, "{}\n")
    huge = next(r for r in kb.relations if r.name == "huge")
    with caplog.at_level(logging.INFO, logger="hwkb.solve"):
        assert not huge.can_solve_for("b")  # returns at once: sympy.solve is never called
    assert f"degree 4096 in x1 (at most {MAX_SOLVE_DEGREE} is solved); that direction is forward-only" in caplog.text
    quadratic = next(r for r in kb.relations if r.name == "quadratic")
    assert quadratic.can_solve_for("c") and quadratic.can_solve_for("b")


def test_the_degree_is_bounded_without_expanding():
    b, c = sympy.symbols("b c")
    assert degree_bound(b ** 2 * c + b, b) == 2
    assert degree_bound(sympy.sqrt(b) * (b + c) ** 3, b) == 4
    assert degree_bound(sympy.exp(b) + c ** 9, b) == 1
    assert degree_bound(((b + 1) ** 64) ** 64, b) == 4096


def test_a_long_equation_is_refused_by_its_size():
    b = sympy.Symbol("b")
    long = sum(sympy.Symbol(f"y{i}") * b for i in range(500))
    assert "operations" in solve_refusal(long, b) and solve_refusal(b ** 2 - 3, b) is None
