"""The laws that turn one count into another (warps, threads, blocks) name the conversion: a rate the KB states per
architecture (threads_per_warp, warps_per_block) or a default worth 1 with its source, never a bare 1 hidden in a
plain number."""
from __future__ import annotations

import pytest

CONVERSIONS = {  # variable: (its unit, the law that uses it)
    "warps_per_round": ("warp", "littles_law_warps"),
    "blocks_per_smem_allocation": ("block", "shared_memory_limit"),
    "elements_per_thread": ("element/thread", "warp_span"),
    "block_size_per_shift_unit": ("thread/block", "ptx_block_shift_is_block_size"),
}


@pytest.mark.parametrize("name", CONVERSIONS)
def test_each_conversion_is_a_sourced_default_worth_one(real_kb, name):
    unit, law = CONVERSIONS[name]
    variable = real_kb.model.variables[name]
    assert variable.unit == unit and variable.default is not None and variable.default.source
    assert real_kb.units.to_canonical(variable.default.value, unit) == 1.0
    assert name in {str(ref) for ref in real_kb.model.rules[law].relation.references()}


def test_littles_law_counts_one_warp_per_round_in_flight(real_kb):
    """The chapter's row: 1 load and 16 compute instructions at 500 cycles, 517 / 17 warps."""
    facts = ["loads_per_round=1", "compute_per_round=16", "latency_cycles=500"]
    answer = real_kb.solve("warps_needed", facts=facts)
    assert answer.magnitude == pytest.approx(517 / 17) and answer.unit == "warp"
    assert real_kb.solve("warps_needed", facts=[*facts, "warps_per_round=2 warp"]).magnitude == \
        pytest.approx(2 * 517 / 17)


@pytest.mark.parametrize("gpu, threads, warps", [("h100-sxm", 256, 8), ("a100", 100, 4), ("p100", 1024, 32)])
def test_threads_become_warps_through_the_architectures_warp_size(real_kb, gpu, threads, warps):
    answer = real_kb.solve("warps_per_block", gpu=gpu, facts=[f"threads_per_block={threads}"])
    assert (answer.magnitude, answer.unit) == (warps, "warp/block")
