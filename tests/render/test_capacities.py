"""hwkb.render.capacities: a system's memory shown as vendors print it, the per-chip GB multiplied."""
from __future__ import annotations

import pytest

from hwkb.render import capacities
from hwkb.render.capacities import vendor_capacity_scale


def test_all_names_exist():
    assert capacities.__all__ == ["vendor_capacity_scale"]


@pytest.mark.parametrize("unit, values, shown, label", [
    ("TiB", [72 * 186 / 1024], 13.392, "TB"),            # NVIDIA's GB200 NVL72: "13.4 TB"
    ("TiB", [9216 * 192 / 1024], 1.769472, "PB"),        # Google's TPU7x pod: "1.77 PB"
    ("TiB", [8 * 80 / 1024], 640, "GB"),                 # a DGX H100's 8 x 80 GB
    ("PiB", [1.0], 1.048576, "PB"),                     # 1,048,576 GB
])
def test_a_systems_memory_is_the_per_chip_gb_multiplied_and_prefixed_decimally(unit, values, shown, label):
    factor, got = vendor_capacity_scale(unit, values)
    assert (values[0] * factor, got) == (pytest.approx(shown), label)


@pytest.mark.parametrize("unit", ["GiB", "MiB", "KiB", "GB/s", "TB/s", "B"])
def test_other_units_are_left_to_the_display_rule(unit):
    assert vendor_capacity_scale(unit, [5000.0]) is None
