"""Answers a demanding GPU engineer would not accept, found by a sweep of every product's headline questions
(clocks, unit counts, peaks, memory, per-die figures): each test holds the KB to the vendor's own figures."""
from __future__ import annotations

import pytest

from hwkb.solving.solution import Status


@pytest.fixture(scope="module")
def kb(real_kb):
    return real_kb


@pytest.mark.parametrize("gpu", ["mi300x", "mi325x", "mi300a"])
def test_an_mi300_package_count_of_transistors_is_not_split_over_its_xcds(kb, gpu):
    """AMD's 153 and 146 billion count every die of the package: split over the XCDs they would give one XCD
    design 19.1 billion on an MI300X and 24.3 billion on an MI300A."""
    solution = kb.solve("transistors_per_die", gpu=gpu)
    assert solution.status == Status.NOT_APPLICABLE
    assert kb.solve("transistor_count", gpu=gpu).status == Status.STATED
