"""hwkb.audit.enclosures: every enclosure holds every value its boxes allow, and two disjoint ones never meet."""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings, strategies as st

from hwkb.audit.enclosures import Enclosure, compile_interval

x, y, z = sympy.symbols("x y z", positive=True)
EXPRESSIONS = [
    x * y / 2,
    x / (y + z),
    (x + y) ** 2 / z,
    sympy.sqrt(x * y) - z,
    sympy.exp(x / 100) * sympy.log(1 + y),
    sympy.Min(x, y) * z,
    sympy.Max(x, y / z),
    sympy.floor(x) + sympy.ceiling(y),
    2 * (x + y) / (x * y),          # the chapter's operand bytes per multiply-add, 2(M+N)/(MN)
    x ** sympy.Rational(1, 3) * y ** -2,
]
POSITIVE = st.floats(0.01, 1000.0, allow_nan=False, allow_infinity=False)
RELATIVE = st.floats(0.0, 0.1)


@settings(max_examples=300, deadline=None)
@given(which=st.integers(0, len(EXPRESSIONS) - 1), mids=st.tuples(POSITIVE, POSITIVE, POSITIVE),
       radii=st.tuples(RELATIVE, RELATIVE, RELATIVE), where=st.tuples(*[st.floats(-1, 1)] * 3))
def test_the_enclosure_holds_every_point_of_the_boxes(which, mids, radii, where):
    expr = EXPRESSIONS[which]
    boxes = [Enclosure.around(m, m * r) for m, r in zip(mids, radii)]
    enclosure = compile_interval(expr, (x, y, z))(boxes)
    point = {s: m * (1 + r * w) for s, m, r, w in zip((x, y, z), mids, radii, where)}
    value = float(expr.subs(point))
    assert enclosure.lo[0] <= value <= enclosure.hi[0], (expr, point, enclosure)


def test_whole_columns_at_once():
    f = compile_interval(x * y, (x, y))
    out = f([Enclosure.around(np.array([1.0, 2.0, 3.0]), 0.0), Enclosure.around(np.array([4.0, 5.0, 6.0]), 0.5)])
    assert out.lo.shape == (3,)
    assert np.all(out.lo <= np.array([4.0, 10.0, 18.0])) and np.all(np.array([4.0, 10.0, 18.0]) <= out.hi)
    assert out.lo[0] == pytest.approx(3.5) and out.hi[2] == pytest.approx(19.5)


def test_bounds_are_rounded_outward():
    third = compile_interval(x / 3, (x,))([Enclosure.around(1.0, 0.0)])
    lo, hi = third.lo[0], third.hi[0]
    assert lo < 1 / 3 < hi  # rounded outward: the float nearest 1/3 lies strictly inside
    assert hi - lo <= 8 * math.ulp(1 / 3)  # x / 3 is x times an enclosure of 1/3: a few ulps, no more


@given(a=POSITIVE, b=POSITIVE, gap=st.floats(0.01, 0.5))
def test_disjoint_enclosures_do_not_meet(a, b, gap):
    lower = Enclosure.around(a, a * 0.001)
    upper = Enclosure.around(a * (1 + gap) + a * 0.01, a * 0.001)
    assert not lower.meets(upper).any()
    assert lower.meets(Enclosure.around(a, b)).all()


def four_products(a: Enclosure, b: Enclosure) -> tuple[np.ndarray, np.ndarray]:
    """The general product: least and greatest of the four bound products (0 * inf counting as 0), rounded out."""
    with np.errstate(all="ignore"):
        p = np.stack([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi])
        p = np.where(np.isnan(p), 0.0, p)
        return np.nextafter(p.min(axis=0), -np.inf), np.nextafter(p.max(axis=0), np.inf)


BOUND = st.one_of(st.floats(1e-300, 1e300), st.sampled_from([5e-324, 1e-310, 1.0, 1.7976931348623157e308]))
MAYBE_NEGATIVE = st.one_of(BOUND, st.floats(-1e300, 1e300), st.sampled_from([0.0, -0.0, -1.0]))


@settings(max_examples=300, deadline=None)
@given(first=st.lists(st.tuples(MAYBE_NEGATIVE, BOUND), min_size=1, max_size=4),
       second=st.lists(st.tuples(BOUND, BOUND), min_size=1, max_size=4), infinite=st.booleans())
def test_the_positive_shortcut_is_the_general_product_bit_for_bit(first, second, infinite):
    """Intervals in (0, inf] multiply and invert in one case, not four: the same floats, every time."""
    n = min(len(first), len(second))
    a = Enclosure(*np.sort(np.array(first[:n]), axis=1).T)
    upper = np.sort(np.array(second[:n]), axis=1).T
    b = Enclosure(upper[0], np.where(infinite, np.inf, upper[1]))
    with np.errstate(all="ignore"):
        product = a * b
        inverse = b.reciprocal()
        expected = np.nextafter(1.0 / b.hi, -np.inf), np.nextafter(1.0 / b.lo, np.inf)
    lo, hi = four_products(a, b)
    assert np.array_equal(product.lo, lo) and np.array_equal(product.hi, hi)
    assert np.array_equal(inverse.lo, expected[0]) and np.array_equal(inverse.hi, expected[1])
    assert b.positive() and a.positive() == bool((a.lo > 0).all())
