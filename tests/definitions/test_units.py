"""hwkb.definitions.units: the project's own registry and canonical arithmetic."""
from __future__ import annotations

from fractions import Fraction

import pint
import pytest

from conftest import TINY
from hwkb.definitions import units as units_module
from hwkb.errors import LimitError, Location, UnitError
from hwkb.formats.resources import default_kb_dirs
from hwkb.definitions.units import Units, format_dimensions


@pytest.fixture(scope="module")
def units() -> Units:
    """The real KB's registry: these tests pin the project's conventions."""
    return Units.from_file(default_kb_dirs()[0] / "units.txt")


def test_all_names_exist():
    assert sorted(units_module.__all__) == ["Dimensions", "NUMBER", "Units", "format_dimensions", "parse_unit_text"]


def test_our_cycle_is_a_dimension_not_pints_angle(units):
    assert units.dimensions("cycle") == frozenset({("[cycle]", 1)})
    assert units.to_canonical(1, "cycle") == 1.0
    assert dict(units.registry.Quantity("1 cycle").dimensionality) == {"[cycle]": 1}
    # Pint's own registry would make a cycle 2π radians, dimensionless: hwkb must not load it
    assert pint.UnitRegistry().Quantity("1 cycle").dimensionless


def test_hertz_counts_cycles_per_second(units):
    assert units.dimensions("Hz") == frozenset({("[cycle]", 1), ("[time]", -1)})
    assert units.compatible("Hz", "cycle/s")
    assert units.to_canonical(1.83, "GHz") == pytest.approx(1.83e9)
    assert units.from_canonical(1.83e9, "GHz") == pytest.approx(1.83)


def test_a_rate_per_cycle_times_a_clock_is_per_second(units):
    assert units.dimensions("FMA/cycle") == frozenset({("[operation]", 1), ("[cycle]", -1)})
    assert units.compatible("FLOPS", "FMA/cycle * GHz")


def test_an_fma_is_two_flop(units):
    assert units.to_canonical(1, "FMA") == 2.0
    assert units.to_canonical(2048, "FMA/cycle") == 4096.0
    assert units.to_canonical(1, "flop") == 1.0
    assert units.dimensions("FMA") == frozenset({("[operation]", 1)}) == units.dimensions("flop")
    assert units.to_canonical(989.4, "TFLOPS") == pytest.approx(989.4e12)


def test_binary_and_decimal_prefixes_differ(units):
    assert units.to_canonical(1, "KiB") == 1024 * 8
    assert units.to_canonical(1, "kB") == 1000 * 8
    assert units.from_canonical(units.to_canonical(1, "MiB"), "MB") == pytest.approx(1.048576)
    assert units.from_canonical(units.to_canonical(256, "KiB"), "kB") == pytest.approx(262.144)


def test_bits_and_bytes(units):
    assert units.to_canonical(1, "byte") == 8 * units.to_canonical(1, "bit")
    assert units.to_canonical(1, "B") == 8.0
    assert units.to_canonical(1, "register") == 32.0
    assert units.from_canonical(units.to_canonical(16384, "register"), "KiB") == 64.0
    assert units.compatible("Gbit/s", "GB/s")
    assert units.from_canonical(units.to_canonical(8, "Gbit/s"), "GB/s") == pytest.approx(1.0)


def test_counts_are_plain_numbers(units):
    for unit in ("SM", "score", "instruction", "transistor", "transfer", "", "dimensionless"):
        assert units.dimensions(unit) == frozenset(), unit
        assert units.to_canonical(3, unit) == 3.0
    assert units.to_canonical(50, "%") == pytest.approx(0.5)


@pytest.mark.parametrize("unit, dimension", [("flop", "[operation]"), ("op", "[operation]"), ("FMA", "[operation]"),
                                             ("token", "[token]"), ("exp", "[exponential]"), ("warp", "[warp]"),
                                             ("thread", "[thread]"), ("block", "[block]"), ("pixel", "[pixel]"),
                                             ("texel", "[texel]")])
def test_counts_a_confusion_would_make_wrong_are_dimensions(units, unit, dimension):
    """Operations, tokens, exps, warps, threads, blocks, pixels and texels are worth 1 each in canonical numbers,
    but none converts into another."""
    assert units.dimensions(unit) == frozenset({(dimension, 1)})
    assert units.to_canonical(3, unit) == (6.0 if unit == "FMA" else 3.0)


@pytest.mark.parametrize("a, b", [("TFLOPS", "token/s"), ("flop/B", "token/B"), ("exp/s", "FLOPS"),
                                  ("token", ""), ("flop", "")])
def test_operations_tokens_and_exps_do_not_mix(units, a, b):
    assert not units.compatible(a, b)


@pytest.mark.parametrize("a, b", [("warp", "thread"), ("thread/warp", ""), ("warp/block", "warp"),
                                  ("register/warp", "register"), ("thread", "flop"), ("block", ""),
                                  ("Gpixel/s", "Gtexel/s"), ("pixel/cycle", "FMA/cycle")])
def test_warps_threads_blocks_pixels_and_texels_do_not_mix(units, a, b):
    """2048 threads are 64 warps only through threads_per_warp, which the KB states per architecture."""
    assert not units.compatible(a, b)


def test_threads_become_warps_through_a_rate_in_thread_per_warp(units):
    assert units.compatible("thread / (thread/warp)", "warp")
    assert units.to_canonical(2048, "thread") / units.to_canonical(32, "thread/warp") == 64.0
    assert units.dimensions("register/thread") == frozenset({("[information]", 1), ("[thread]", -1)})


def test_integer_operations_are_floating_point_ones_in_size(units):
    assert units.compatible("TOPS", "TFLOPS") and units.compatible("op/B", "flop/B")
    assert units.to_canonical(1, "TOPS") == units.to_canonical(1, "TFLOPS")


def test_parse_quantity(units):
    q = units.parse_quantity("989.4 TFLOPS")
    assert (q.magnitude, q.units) == (989.4, units.registry.parse_units("TFLOPS"))
    assert str(q.units) == "teraFLOPS"  # Pint spells the prefix out; the engine converts by factor
    bare = units.parse_quantity("3")
    assert isinstance(bare, pint.Quantity) and bare.dimensionless and bare.magnitude == 3
    assert units.quantity_to_canonical(units.parse_quantity("2 FMA/cycle")) == 4.0


def test_parse_unit_errors_name_the_unit_and_the_file(units):
    where = Location("f.yaml", 2, 3)
    with pytest.raises(UnitError) as info:
        units.parse_unit("GHzz", where=where)
    assert info.value.where == where
    assert info.value.message == "unknown unit 'GHzz'"
    assert info.value.hint == "units are defined in units.txt"
    with pytest.raises(UnitError) as info:
        units.parse_unit("KB")  # a kilobyte is kB (SI) or KiB (binary)
    assert str(info.value) == "unknown unit 'KB'; units are defined in units.txt"


def test_parse_quantity_error(units):
    with pytest.raises(UnitError) as info:
        units.parse_quantity("3 furlongs")
    assert str(info.value) == "cannot read '3 furlongs' as a value with a unit; write a number and a unit, e.g. '1.83 GHz'"


def test_an_empty_unit_is_dimensionless(units):
    assert units.parse_unit("") == units.registry.parse_units("dimensionless")


def test_an_exponent_beyond_the_limit_is_a_limit_error(units):
    with pytest.raises(LimitError) as info:
        units.dimensions("GHz**99999")
    assert str(info.value) == "unit 'GHz**99999': exponent 99999 exceeds the limit of 8"
    assert (info.value.what, info.value.found, info.value.limit) == ("exponent", "99999", 8)


def test_unit_exponents_are_whole_numbers(units):
    assert units.dimensions("Hz^2") == frozenset({("[cycle]", Fraction(2)), ("[time]", Fraction(-2))})
    with pytest.raises(UnitError) as info:
        units.dimensions("Hz**0.5")
    assert info.value.message == "cannot read unit 'Hz**0.5': unexpected '.'"


@pytest.mark.parametrize("dims, text", [
    (frozenset(), "dimensionless"),
    (frozenset({("[time]", -1)}), "1/[time]"),
    (frozenset({("[cycle]", 1), ("[time]", -1)}), "[cycle]/[time]"),
    (frozenset({("[information]", 2), ("[time]", -2)}), "[information]^2/[time]^2"),
    (frozenset({("[information]", 1), ("[cycle]", 1)}), "[cycle]*[information]"),
    (frozenset({("[time]", Fraction(1, 2))}), "[time]^1/2"),
])
def test_format_dimensions(dims, text):
    assert format_dimensions(dims) == text


def test_a_registry_of_its_own_per_load():
    a, b = Units.from_file(TINY / "units.txt"), Units.from_file(TINY / "units.txt")
    assert a.registry is not b.registry
    assert a.source == str(TINY / "units.txt")


def test_tiny_registry_has_only_its_own_units():
    tiny = Units.from_file(TINY / "units.txt")
    assert tiny.to_canonical(1, "FMA/cycle") == 2.0
    with pytest.raises(UnitError):
        tiny.parse_unit("warp")  # defined in kb/units.txt, not in the tiny one


def test_bad_definition_names_its_line_and_runs_nothing(tmp_path):
    path = tmp_path / "units.txt"
    sentinel = tmp_path / "pwned"
    path.write_text("second = [time] = s\n"
                    "# a comment\n"
                    f"evil = __import__('os').system('touch {sentinel}') = ev\n")
    with pytest.raises(UnitError) as info:
        Units.from_file(path)
    assert info.value.where == Location(str(path), 3)
    assert info.value.message == f"cannot read the unit definition \"evil = __import__('os').system('touch {sentinel}') = ev\""
    assert info.value.hint == "write 'name = definition = alias' as in Pint's definitions syntax"
    assert not sentinel.exists()


def test_missing_units_file(tmp_path):
    with pytest.raises(UnitError) as info:
        Units.from_file(tmp_path / "units.txt")
    assert info.value.where == Location(str(tmp_path / "units.txt"))
    assert info.value.message.startswith("cannot read unit definitions: ")
