"""hwkb.audit.hints: a factor counts only where the check pins it down and only where it can arise."""
from __future__ import annotations

import pytest

from hwkb.audit.hints import has_information, hint_for

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
    kind, text = hint_for(hints_kb, "bandwidth", 4.0, 1.0, 1e-4, "bandwidth_law")
    assert kind == "power_of_two" and "exactly 4x what bandwidth_law gives" in text


@pytest.mark.parametrize("key, stated, implied, kind, words", [
    ("peak", 624, 312, "sparse", "looks like a sparse figure under a dense key"),
    ("bandwidth", 800, 100, "bits", "bits vs bytes"),
    ("register_total", 26.214, 25, "binary", "binary vs decimal prefix (Mi vs M"),
    ("clock", 1500, 1.5, "decimal", "a decimal prefix mix-up"),
    ("rate", 2048, 1024, "power_of_two", "an exact power of two"),
])
def test_each_kind_of_hint(hints_kb, key, stated, implied, kind, words):
    found = hint_for(hints_kb, key, stated, implied, 1e-4)
    assert found is not None and found[0] == kind and words in found[1]


def test_a_factor_without_a_twin_or_a_unit_of_information_is_only_a_power_of_two(hints_kb):
    assert hint_for(hints_kb, "rate", 2.0, 1.0, 1e-4)[0] == "power_of_two"     # no rate_sparse
    assert hint_for(hints_kb, "clock", 8.0, 1.0, 1e-4)[0] == "power_of_two"    # a clock is not bits
    assert hint_for(hints_kb, "peak", 1.0, 0.0) is None and hint_for(hints_kb, "peak", -1.0, 1.0) is None
