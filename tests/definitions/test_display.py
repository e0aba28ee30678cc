"""hwkb.definitions.display: the one rule numbers are shown by in text."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from hwkb.definitions import display
from hwkb.definitions.display import display_scale, format_number, format_parts, format_quantity, integer_ops_unit


def test_module_surface():
    assert sorted(display.__all__) == ["FRACTION_UNIT", "JEDEC_NOTE", "PREFIX_FROM", "display_scale", "format_number",
                                       "format_parts", "format_quantity", "integer_ops_unit"]


@pytest.mark.parametrize("x, unit, text", [
    (0.375, "fraction", "37.5 %"),          # a fraction: a percentage
    (1.0, "fraction", "100 %"),
    (0.4763, "fraction", "47.63 %"),
    (3.86484e12, "exp/s", "3.865 Texp/s"),  # a large rate: an SI prefix, not an exponent
    (4.395e12, "exp/s", "4.395 Texp/s"),
    (3350.0, "GB/s", "3350 GB/s"),          # below 10^4 a rate stays in its unit
    (16000.0, "GB/s", "16 TB/s"),           # a prefixed rate moves up from its own prefix
    (18000.0, "TFLOPS", "18 PFLOPS"),
    (1979.0, "TOPS", "1979 TOPS"),
    (1.83, "GHz", "1.83 GHz"),
    (5e10, "B", "5e+10 B"),                 # not a rate: as it is
    (2.5e6, "Gpixel/s", "2.5 Ppixel/s"),
    (3.5e7, "GiB/s", "35000000 GiB/s"),     # a binary prefix is left alone
    (5.5e4, "Pixel/s", "55 kPixel/s"),      # an alias that merely starts like a prefix is not one
    (128.0, "", "128"),
    (None, "GHz", "-"),
])
def test_format_quantity(x, unit, text):
    assert format_quantity(x, unit) == text


def test_a_column_shares_the_prefix_its_largest_number_needs():
    assert display_scale("exp/s", [2.438e12, 4.395e12, None, math.nan]) == (1e-12, "Texp/s")
    assert display_scale("exp/s", [math.inf]) == (1, "exp/s")
    assert display_scale("exp/s", []) == (1, "exp/s")
    assert display_scale("fraction", []) == (100, "%")


def test_the_largest_prefix_is_the_last():
    assert format_quantity(1e30, "exp/s") == "1e+15 Pexp/s"   # peta is the largest prefix units.txt defines


@given(st.floats(min_value=1e4, max_value=1e17, allow_nan=False))
def test_a_prefixed_rate_is_the_same_quantity_below_a_thousand(x):
    factor, unit = display_scale("exp/s", [x])
    assert 1 <= x * factor < 1000 and unit == {1e-3: "kexp/s", 1e-6: "Mexp/s", 1e-9: "Gexp/s", 1e-12: "Texp/s",
                                              1e-15: "Pexp/s"}[factor]


def test_format_parts_keeps_number_and_unit_apart():
    assert format_parts(0.5, "fraction") == ("50", "%")
    assert format_parts(None, "GHz") == ("-", "GHz")


def test_integer_work_is_counted_in_operations():
    assert [integer_ops_unit(u) for u in ("TFLOPS", "PFLOPS", "flop/cycle", "FLOP/cycle", "flop/B", "TFLOPS/W",
                                          "FMA/cycle", "GHz", "")] == \
        ["TOPS", "POPS", "op/cycle", "op/cycle", "op/B", "TOPS/W", "FMA/cycle", "GHz", ""]


def test_format_number_is_unchanged_for_a_bare_number():
    assert format_number(3.86484e12) == "3.865e+12" and format_number(0.375) == "0.375"


@given(x=st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10**6, 10**6),
       unit=st.sampled_from(["", "GHz", "TFLOPS", "fraction", "GB/s", "exp/s", "Gtexel/s", "MiB", "B/s", "TOPS"]))
def test_format_quantity_is_its_parts_joined(x, unit):
    """The shortcut for a number shown as it is agrees with the one rule (display_scale, format_number)."""
    assert format_quantity(x, unit) == " ".join(format_parts(x, unit)).rstrip()
