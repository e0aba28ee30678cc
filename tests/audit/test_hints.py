"""hwkb.audit.hints: a factor counts only where the check pins it down and only where it can arise."""
from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hwkb.audit.hints import has_information, hint_for
from hwkb.render.finding_words import hint_text, slip_text

from audit_kbs import HINTS, make_kb


@pytest.fixture(scope="module")
def hints_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "hints", HINTS)


def test_information_is_bits_and_bytes(hints_kb):
    assert has_information(hints_kb, "bandwidth") and has_information(hints_kb, "register_total")
    assert not has_information(hints_kb, "clock") and not has_information(hints_kb, "n")


def test_hints_need_a_factor_the_check_pins_down(hints_kb):
    assert hint_for(hints_kb, "clock", 1.024, 1.0, 0.001) is None                 # a clock has no binary prefix
    assert hint_for(hints_kb, "bandwidth", 1.1, 1.0, 0.2) is None                 # too coarse to tell
    hint = hint_for(hints_kb, "bandwidth", 4.0, 1.0, 1e-4, "bandwidth_law")
    assert hint.kind == "power_of_two" and "exactly 4x what bandwidth_law gives" in hint_text(hint)


@pytest.mark.parametrize("key, stated, implied, kind, words", [
    ("peak", 624, 312, "sparse", "looks like a sparse figure under a dense key"),
    ("bandwidth", 800, 100, "bits", "bits vs bytes"),
    ("register_total", 26.214, 25, "binary", "binary vs decimal prefix (Mi vs M"),
    ("clock", 1500, 1.5, "decimal", "a decimal prefix mix-up"),
    ("rate", 2048, 1024, "power_of_two", "an exact power of two"),
])
def test_each_kind_of_hint(hints_kb, key, stated, implied, kind, words):
    found = hint_for(hints_kb, key, stated, implied, 1e-4)
    assert found is not None and found.kind == kind and words in hint_text(found)


def test_a_factor_without_a_twin_or_a_unit_of_information_is_only_a_power_of_two(hints_kb):
    assert hint_for(hints_kb, "rate", 2.0, 1.0, 1e-4).kind == "power_of_two"     # no rate_sparse
    assert hint_for(hints_kb, "clock", 8.0, 1.0, 1e-4).kind == "power_of_two"    # a clock is not bits
    assert hint_for(hints_kb, "peak", 1.0, 0.0) is None and hint_for(hints_kb, "peak", -1.0, 1.0) is None


def _reference_hint(system, key, stated, implied, spread=1e-9, rule=None, information=None):
    """hint_for as it was written before its tests became one table: factor by factor, in order."""
    from hwkb.audit.hints import _BITS, _DECIMAL_STEPS, _POWER_STEPS, BINARY_BASES
    _BINARY = tuple(zip(BINARY_BASES, ("Ki vs k", "Mi vs M", "Gi vs G")))
    from hwkb.definitions.model import split_key
    from hwkb.definitions.display import display_scale, format_number
    if not (implied and math.isfinite(implied) and math.isfinite(stated)) or stated / implied <= 0:
        return None
    factor = stated / implied
    information = has_information(system, key) if information is None else information

    def near(f):
        return spread < math.sqrt(max(f, 1 / f)) - 1 and abs(factor / f - 1) <= spread + 1e-9

    scale, unit = display_scale(system.model.unit_of(key), (stated, implied))  # the one display rule, both alike
    unit = f" {unit}" if unit else ""
    source = f"what {rule} gives from the other figures" if rule else "what the other figures imply"
    said = (f"{key} = {format_number(stated * scale)}{unit} is {{factor}} {source} "
            f"({format_number(implied * scale)}{unit})")
    name, index = split_key(key)
    sparse = f"{name}_sparse"
    if near(2.0) and sparse in system.model.variables:
        twin = sparse if index is None else f"{sparse}[{index}]"
        return "sparse", (f"{said.format(factor='exactly 2x')}: looks like a sparse figure under a dense key "
                          f"(a sheet's 2:4 sparsity figure belongs to {twin})")
    if information:
        for f, words in ((_BITS, f"{_BITS:g}x"), (1 / _BITS, f"1/{_BITS:g} of")):
            if near(f):
                return "bits", f"{said.format(factor=words)}: bits vs bytes (a figure in bits read as bytes, or the reverse)"
        for base, pair in _BINARY:
            for f, words in ((base, f"{base:g}x"), (1 / base, f"1/{base:g} of")):
                if near(f):
                    return "binary", (f"{said.format(factor=words)}: binary vs decimal prefix ({pair}: "
                                      f"1 {pair[:2]}B = {base:g} {pair[-1]}B)")
    for k in _DECIMAL_STEPS:
        for f, words in ((1000.0 ** k, f"{1000 ** k:g}x"), (1000.0 ** -k, f"1/{1000 ** k:g} of")):
            if near(f):
                return "decimal", f"{said.format(factor=words)}: a decimal prefix mix-up (e.g. MHz written as GHz)"
    for k in _POWER_STEPS:
        for f, words in ((2.0 ** k, f"exactly {2 ** k}x"), (2.0 ** -k, f"exactly 1/{2 ** k} of")):
            if near(f):
                return "power_of_two", (f"{said.format(factor=words)}: an exact power of two — a precision (e.g. an "
                                        f"FP16 rate under an FP32 key) or per-unit (per SM vs per partition, FMA vs "
                                        f"flop) mix-up")
    return None


_KNOWN_FACTORS = [2.0, 8.0, 0.125, 1.024, 1 / 1.024, 1.048576, 1.073741824, 1000.0, 1e-6, 1e9, 4.0, 1 / 512, 1024.0,
                  1.0, 3.0, 1.5]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["peak", "bandwidth", "register_total", "clock", "rate", "n"]),
       factor=st.sampled_from(_KNOWN_FACTORS), off=st.floats(-0.05, 0.05), implied=st.floats(1e-3, 1e6),
       spread=st.floats(1e-12, 3.0), rule=st.sampled_from([None, "some_law"]),
       information=st.sampled_from([None, True, False]))
def test_the_table_of_tests_gives_what_the_loops_gave(hints_kb, key, factor, off, implied, spread, rule, information):
    stated = implied * factor * (1 + off)
    found = hint_for(hints_kb, key, stated, implied, spread, rule, information)
    assert (found and (found.kind, hint_text(found))) == _reference_hint(hints_kb, key, stated, implied, spread, rule,
                                                                         information)


def test_a_binary_factor_on_a_capacity_is_named_a_jedec_capacity(real_kb):
    """A vendor's "80 GB" of HBM read as 80e9 bytes is 74.5 GiB: JEDEC's convention, not any binary prefix."""
    hint = hint_for(real_kb, "memory_size", 74.5058, 80, 0.001)
    assert hint.kind == "binary" and "a JEDEC capacity read as decimal" in slip_text(hint)
    hint = hint_for(real_kb, "memory_bandwidth", 3350 / 1.073741824, 3350, 0.001)
    assert hint.kind == "binary" and "JEDEC" not in slip_text(hint)    # a rate's prefix is decimal: a binary one is a mix-up
