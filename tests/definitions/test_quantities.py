"""hwkb.definitions.quantities: the one syntax of quantity text, read for KB files, --set, --given and --sweep."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from conftest import TINY
from hwkb.definitions import quantities
from hwkb.definitions.quantities import NOT_APPLICABLE, QuantityReading, format_number, read_quantity
from hwkb.definitions.units import Units
from hwkb.errors import KBError, Location, UnitError

FLAG = Location("--set")
FILE = Location("gpus/x.yaml", 3, 12)


@pytest.fixture(scope="module")
def units() -> Units:
    return Units.from_file(TINY / "units.txt")


def test_module_surface():
    assert sorted(quantities.__all__) == ["JEDEC_NOTE", "NOT_APPLICABLE", "QuantityReading", "format_number",
                                          "jedec_label", "jedec_unit", "read_quantity"]
    assert NOT_APPLICABLE == ("n/a", "na", "none")


@pytest.mark.parametrize("text, number, magnitude, unit, value", [
    ("1.5GHz", "1.5", 1.5, "GHz", 1.5),
    ("1.5 GHz", "1.5", 1.5, "GHz", 1.5),
    ("  1.5 GHz ", "1.5", 1.5, "GHz", 1.5),
    ("1500 MHz", "1500", 1500.0, "MHz", 1.5),          # kept as written, and in the unit asked for
    ("1e9Hz", "1e9", 1e9, "Hz", 1.0),
    ("2", "2", 2.0, "GHz", 2.0),                      # a bare number is in the unit asked for
    ("1_000 MHz", "1_000", 1000.0, "MHz", 1.0),
    (".5 GHz", ".5", 0.5, "GHz", 0.5),
    ("+2 GHz", "+2", 2.0, "GHz", 2.0),
    ("0 GHz", "0", 0.0, "GHz", 0.0),
])
def test_numbers_with_an_optional_unit(units, text, number, magnitude, unit, value):
    reading = read_quantity(text, "GHz", units, FLAG, key="clock")
    assert (reading.number, reading.magnitude, reading.unit, reading.value) == (number, magnitude, unit,
                                                                                pytest.approx(value))
    assert reading.text == text.strip() and reading.applicable


@pytest.mark.parametrize("text, unit, value", [
    ("2 /cycle", "1/cycle", 2.0), ("2/cycle", "1/cycle", 2.0), ("2 1/cycle", "1/cycle", 2.0),
    ("2048flop/cycle", "FMA/cycle", 1024.0),            # a count of another scale, converted
    ("16fma/cycle", "FMA/cycle", 16.0),                 # an exponent needs digits: not 16e...
])
def test_units_in_pint_syntax(units, text, unit, value):
    assert read_quantity(text, unit, units, FLAG).value == pytest.approx(value)


@pytest.mark.parametrize("text", ["n/a", "N/A", "na", "NA", "none", "None", "NONE", " n/a "])
def test_not_applicable_is_spelled_one_way_everywhere(units, text):
    for in_file in (False, True):
        reading = read_quantity(text, "GHz", units, FLAG, in_file=in_file)
        assert reading == QuantityReading(text.strip(), text.strip(), None, "GHz", None)
        assert not reading.applicable


# the messages a KB file gives (in_file) and those of a flag: a file writes its units, a flag may leave them out
@pytest.mark.parametrize("text, in_file, message", [
    ("fast", True, "gpus/x.yaml:3:12: cannot read 'fast' as a value of clock; "
                   "write a number and a unit that fits GHz, e.g. '1 GHz'"),
    ("fast", False, "--set: cannot read 'fast' as a value of clock; write a number, optionally with a unit of GHz"),
    ("3 furlongs", True, "gpus/x.yaml:3:12: unknown unit 'furlongs' in '3 furlongs'; "
                         "units are defined in units.txt; clock is in GHz"),
    ("3 furlongs", False, "--set: cannot read '3 furlongs' as a value of clock; "
                          "write a number, optionally with a unit of GHz"),
    ("5 TFLOPS", True, "gpus/x.yaml:3:12: '5 TFLOPS' does not fit clock, which is in GHz; "
                       "give it in GHz or a unit of the same dimension"),
    ("5TFLOPS", False, "--set: '5TFLOPS' does not fit clock, which is in GHz; give it in GHz"),
    ("1e999 GHz", True, "gpus/x.yaml:3:12: '1e999 GHz' is not a finite number"),
    ("1e400GHz", False, "--set: '1e400GHz' is not a finite number"),
    ("-3 GHz", True, "gpus/x.yaml:3:12: '-3 GHz' is negative, and no KB quantity is; "
                     "give the size of clock; every variable is a count, rate, size or time"),
    ("-3", False, "--set: '-3' is negative, and no KB quantity is; give the size of clock"),
    ("1 GHz**99999", True, "gpus/x.yaml:3:12: unit 'GHz**99999': exponent 99999 exceeds the limit of 8"),
    ("1 GHz**99999", False, "--set: unit 'GHz**99999': exponent 99999 exceeds the limit of 8"),
])
def test_errors_name_where_the_text_came_from(units, text, in_file, message):
    with pytest.raises(KBError) as info:
        read_quantity(text, "GHz", units, FILE if in_file else FLAG, key="clock", in_file=in_file)
    assert str(info.value) == message


def test_a_count_is_in_plain_numbers(units):
    with pytest.raises(UnitError) as info:
        read_quantity("2GHz", "", units, FLAG, key="sm_count")
    assert str(info.value) == "--set: '2GHz' does not fit sm_count, which is in plain numbers; give it in plain numbers"
    with pytest.raises(UnitError) as info:
        read_quantity("many", "", units, FLAG, key="sm_count")
    assert str(info.value) == "--set: cannot read 'many' as a value of sm_count; write a number, optionally with a " \
                              "unit of a count"


def test_without_a_key_the_messages_speak_of_a_number(units):
    where = Location("--sweep 'clock=1:2:1s'")
    with pytest.raises(UnitError) as info:
        read_quantity("1s", "GHz", units, where)
    assert str(info.value) == "--sweep 'clock=1:2:1s': '1s' does not fit a variable in GHz; give it in GHz"
    with pytest.raises(UnitError) as info:
        read_quantity("a", "", units, where)
    assert str(info.value) == ("--sweep 'clock=1:2:1s': cannot read 'a' as a number; "
                               "write a number, optionally with a unit of a count")


def test_a_conversion_that_overflows_is_not_finite(units):
    with pytest.raises(UnitError, match="is not a finite number"):
        read_quantity("1e300 THz", "Hz", units, FLAG)


def test_format_number():
    assert [format_number(x) for x in (1.8299449, 989.4, 3.86484e12, 128.0, None)] == [
        "1.83", "989.4", "3.865e+12", "128", "-"]
    assert [format_number(x) for x in (-0.0, -3.0, 1e9, math.nan, math.inf, -math.inf, 7, 2.5, 1.23456)] == [
        "0", "-3", "1e+09", "nan", "inf", "-inf", "7", "2.5", "1.235"]


@given(st.floats() | st.integers(-10**12, 10**12), st.integers(1, 8))
def test_format_number_is_whole_numbers_as_integers_else_significant_digits(x, digits):
    whole = math.isfinite(x) and x == int(x) and abs(x) < 1e9
    assert format_number(x, digits) == (str(int(x)) if whole else f"{x:.{digits}g}")


@pytest.mark.parametrize("text, magnitude, unit, printed", [
    ("80 GB", 80.0, "GiB", "GB"), ("40 MB", 40.0, "MiB", "MB"), ("228 KB", 228.0, "KiB", "KB"),
    ("256 kB", 256.0, "KiB", "kB"), ("80 GiB", 80.0, "GiB", None), ("4096 B", 4096.0, "B", None),
])
def test_a_capacity_reads_a_printed_decimal_prefix_as_jedecs(real_kb, text, magnitude, unit, printed):
    reading = read_quantity(text, "KiB", real_kb.units, FLAG, key="smem", capacity=True)
    assert (reading.magnitude, reading.unit, reading.printed) == (magnitude, unit, printed)
    decimal = read_quantity(text.replace("KB", "kB"), "KiB", real_kb.units, FLAG)   # not a capacity: as written
    assert decimal.printed is None and decimal.unit == text.replace("KB", "kB").split()[1]


@pytest.mark.parametrize("text, kwargs, message", [
    ("1e-307", {}, "--set: '1e-307' is below the smallest value clock can have (1e-30 GHz)"),
    ("5e-324", {}, "--set: '5e-324' is below the smallest value clock can have (1e-30 GHz)"),
    ("0.5", {"least": 1.0}, "--set: '0.5' is below the smallest value clock can have (1 GHz)"),
    ("1.5", {"integer": True}, "--set: clock counts whole things, but '1.5' is not whole; give a whole number"),
])
def test_a_tiny_magnitude_or_a_fraction_of_a_count_is_refused(units, text, kwargs, message):
    with pytest.raises(UnitError) as info:
        read_quantity(text, "GHz", units, FLAG, key="clock", **kwargs)
    assert str(info.value).startswith(message)
