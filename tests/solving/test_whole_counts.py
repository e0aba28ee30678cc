"""hwkb.solving.whole_counts: a count a law gives fractional is answered with the whole counts its figures allow.

The tiny KB's law: peak = sm_count x fma_rate x clock (2 flop per FMA); 204.8 TFLOPS at 1024 FMA/cycle is 100 SMs
at 1 GHz.
"""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from hwkb.solving import whole_counts
from hwkb.solving.solution import Interval, Status

FIGURES = ["peak[fp16]=204.8TFLOPS", "fma_rate[fp16]=1024"]


def test_all_names_exist():
    assert sorted(whole_counts.__all__) == ["counted", "figure_bounds", "whole_counts"]


def test_a_fractional_count_is_the_run_of_whole_counts_within_the_figures_rounding(tiny_kb):
    """52.63 SMs at "1.9 GHz": the clock is 1.85 to 2.0 GHz, so any of 50 to 54 SMs fits."""
    solution = tiny_kb.solve("sm_count", facts=[*FIGURES, "clock=1.9GHz"])
    assert solution.status == Status.DERIVED and solution.magnitude == 50
    assert solution.intervals == (Interval(50, 54, True, True),)
    assert solution.extra == {"bound": "both", "upper": 54}
    assert solution.whole.computed == pytest.approx(52.6316, abs=1e-4)
    assert (round(solution.whole.lower, 3), round(solution.whole.upper, 3)) == (49.939, 54.107)


def test_the_one_whole_count_within_the_rounding_is_the_answer(tiny_kb):
    """99.9 SMs at "1.001 GHz": only 100 fits 1.0005 to 1.002 GHz."""
    solution = tiny_kb.solve("sm_count", facts=[*FIGURES, "clock=1.001GHz"])
    assert solution.status == Status.DERIVED and solution.magnitude == 100 and solution.value.canonical == 100
    assert solution.intervals is None and solution.whole.computed == pytest.approx(99.9001, abs=1e-4)


def test_no_whole_count_within_the_rounding_is_inconsistent(tiny_kb):
    """97.66 SMs at "1.024 GHz": 1.0235 to 1.025 GHz allows 97.44 to 97.80, no whole count."""
    solution = tiny_kb.solve("sm_count", facts=[*FIGURES, "clock=1.024GHz"])
    assert solution.status == Status.INCONSISTENT and not solution.whole.any
    assert solution.to_dict()["whole_counts"]["counts"] is None


def test_a_whole_count_is_answered_as_before(tiny_kb):
    solution = tiny_kb.solve("sm_count", facts=[*FIGURES, "clock=1GHz"])
    assert solution.status == Status.DERIVED and solution.magnitude == 100 and solution.whole is None


def test_a_stated_count_is_not_read_as_whole_counts(tiny_kb):
    solution = tiny_kb.solve("sm_count", gpu="chip", facts=["clock=1.9GHz"])
    assert solution.status == Status.INCONSISTENT and solution.whole is None


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1001, max_value=2999))
def test_a_count_is_reported_exactly_when_a_clock_within_the_printed_one_gives_it(tiny_kb, millis):
    """For a clock printed to three decimals (the peak and the rate given to many digits, so nearly exact), a
    whole SM count is among the answers exactly when the clock it needs lies within the printed clock's rounding
    (half a unit below, a unit above)."""
    clock = millis / 1000
    facts = ["peak[fp16]=204.800000000TFLOPS", "fma_rate[fp16]=1024.00000000", f"clock={clock:.3f}GHz"]
    solution = tiny_kb.solve("sm_count", facts=facts)
    needed = {n: 204.8e12 / (2 * 1024 * n) / 1e9 for n in range(40, 220)}
    fits = sorted(n for n, c in needed.items() if clock - 0.0005 - 1e-9 <= c <= clock + 0.001 + 1e-9)
    computed = 100 / clock
    if math.isclose(computed, round(computed), rel_tol=1e-9):
        assert solution.magnitude == round(computed)
    elif not fits:
        assert solution.status == Status.INCONSISTENT
    else:
        upper = solution.extra.get("upper", solution.magnitude)
        assert solution.status == Status.DERIVED and list(range(int(solution.magnitude), int(upper) + 1)) == fits
