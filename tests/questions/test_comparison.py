"""hwkb.questions.comparison: each derived cell is solve's answer for it (its route, whole counts, ceiling).

The real cases are every derived figure of the KB's products (alone and with each workload layered) that solve
answers otherwise than the plan's first value did: clocks above the stated boost clock, a clock whose routes
disagree, and figures solve takes by another route. No product derives a fractional count; the counts below
come from a tiny KB (and a --set on the B200).
"""
from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings, strategies as st

from conftest import TINY, build_kb
from hwkb import KnowledgeBase
from hwkb.questions.comparison import answer_cell, gpu_cells, input_needs

#: (product, key): clocks a peak gives above the product's stated boost clock, within the rounding of the figures
ABOVE_BOOST = [("h100-sxm", "clock_fp64"), ("mi250", "clock_fp64"), ("mi250x", "clock_fp64"),
               ("mi300a", "clock_fp64"), ("mi300a", "clock_tc"), ("mi100", "clock_tc"), ("a100", "clock_tc"),
               ("a100-80gb-sxm", "clock_tc"), ("mi250", "clock_tc"), ("mi250x", "clock_tc"), ("mi350x", "clock_fp64")]

#: (product, key, the plan's first value, solve's answer): the sheet showed the first, solve answers the second
OTHER_ROUTE = [("mi250", "clock_tc", 1.69959, 1.70006), ("mi250x", "clock_tc", 1.69922, 1.70011),
               ("mi300x", "clock_tc", 2.09961, 2.09993), ("mi325x", "clock_tc", 2.09961, 2.09993),
               ("mi300a", "clock_tc", 2.10047, 2.10004), ("mi210", "clock_tc", 1.70147, 1.69959),
               ("mi100", "clock_tc", 1.50228, 1.50195), ("mi355x", "clock_tc", 2.39868, 2.38419),
               ("h100-pcie", "tc_fma_per_sm_cycle[fp8]", 4098.71, 4096)]

COUNTED = """\
    counted:
      kind: product
      facts:
        peak[fp16]: 204.8 TFLOPS
        fma_rate[fp16]: 1024 FMA/cycle
        clock: {clock}
"""


@pytest.fixture(scope="module")
def counts_kb(tmp_path_factory) -> KnowledgeBase:
    """The tiny KB with three products that state no SM count: 204.8 TFLOPS at 1024 FMA/cycle is 100 SMs at 1 GHz,
    so "1.9 GHz" allows 50 to 54 SMs, "1.001 GHz" only 100, and "1.024 GHz" none."""
    root = build_kb(tmp_path_factory.mktemp("counts") / "kb", base=TINY)
    text = "".join(textwrap.dedent(COUNTED).replace("counted", name).format(clock=clock)
                   for name, clock in (("run-chip", "1.9 GHz"), ("one-chip", "1.001 GHz"), ("none-chip", "1.024 GHz")))
    text += "open-chip:\n  kind: product\n  facts:\n    peak[fp16]: 204.8 TFLOPS\n    fma_rate[fp16]: 1024 FMA/cycle\n"
    (root / "gpus" / "counted.yaml").write_text(text)
    return KnowledgeBase.load([root], default=False)


@pytest.mark.parametrize("gpu, key", ABOVE_BOOST)
def test_a_clock_above_the_boost_clock_is_said_so_as_solve_says_it(real_kb, gpu, key):
    cells, _ = gpu_cells(real_kb, gpu)
    solution = real_kb.solve(key, gpu)
    cell = cells[key]
    assert cell.above is not None and cell.above == solution.above and cell.above.ceiling == "clock_boost"
    assert (cell.value, cell.status) == (solution.magnitude, "derived") and cell.flagged
    assert cell.to_dict()["above_ceiling"] == solution.to_dict()["above_ceiling"]


@pytest.mark.parametrize("gpu, key, first, answer", OTHER_ROUTE)
def test_a_derived_cell_takes_the_route_solve_answers_by(real_kb, gpu, key, first, answer):
    (planned,) = [v for v in real_kb.solver(real_kb.context(gpu)).derived() if v.key == key]
    cells, _ = gpu_cells(real_kb, gpu)
    assert planned.magnitude == pytest.approx(first, rel=3e-6)
    assert cells[key].value == pytest.approx(answer, rel=3e-6) and cells[key].value == real_kb.solve(key, gpu).magnitude
    (derived,) = [v for v in real_kb.derive(gpu).values if v.key == key]  # derive answers as solve does too
    assert derived.magnitude == cells[key].value


def test_a_clock_solve_answers_below_the_boost_is_not_flagged(real_kb):
    """mi210: the plan's first route gave 1.70147 GHz, above its 1.7 GHz boost; solve's gives 1.69959."""
    cell = gpu_cells(real_kb, "mi210")[0]["clock_tc"]
    assert cell.above is None and not cell.flagged


def test_a_clock_whose_routes_disagree_is_an_inconsistent_cell(real_kb):
    """The MI350X's BF16 and FP16 peaks give 2.203 GHz, its FP8, INT8 and FP64 ones 2.2: the sheet showed
    2.2003 GHz derived, solve answers inconsistent."""
    (planned,) = [v for v in real_kb.solver(real_kb.context("mi350x")).derived() if v.key == "clock_tc"]
    cell = gpu_cells(real_kb, "mi350x")[0]["clock_tc"]
    assert planned.magnitude == pytest.approx(2.20032, rel=3e-6)
    assert cell.status == "inconsistent" == real_kb.solve("clock_tc", "mi350x").status and cell.flagged
    assert real_kb.derive("mi350x").status_of("clock_tc") == "inconsistent"  # derive says so too


def test_every_derived_cell_is_solves_answer(real_kb):
    for gpu in ("h100-sxm", "mi250", "tpu-v5e"):
        cells, _ = gpu_cells(real_kb, gpu)
        for solution in real_kb.solver(real_kb.context(gpu)).derived_answers():
            expected = real_kb.solve(solution.variable, gpu)
            assert solution.to_dict() == expected.to_dict()
            cell = cells[solution.variable]
            assert (cell.value, cell.status, cell.whole, cell.above) == (
                expected.magnitude, str(expected.status), expected.whole, expected.above)


def test_a_fractional_count_is_the_run_of_whole_counts(counts_kb):
    cell = gpu_cells(counts_kb, "run-chip")[0]["sm_count"]
    assert (cell.value, cell.status, cell.whole.first, cell.whole.last) == (50, "derived", 50, 54)
    assert not cell.flagged and cell.to_dict()["whole_counts"]["counts"] == [50, 54]


def test_the_one_whole_count_within_the_rounding_is_the_cell(counts_kb):
    cell = gpu_cells(counts_kb, "one-chip")[0]["sm_count"]
    assert (cell.value, cell.status) == (100, "derived") and cell.whole.single and not cell.flagged


def test_no_whole_count_within_the_rounding_is_an_inconsistent_cell(counts_kb):
    cell = gpu_cells(counts_kb, "none-chip")[0]["sm_count"]
    assert cell.status == "inconsistent" and not cell.whole.any and cell.flagged
    assert cell.to_dict()["whole_counts"]["counts"] is None


def test_a_given_count_that_leaves_a_fractional_count_is_inconsistent(real_kb):
    """149 SMs over the B200's two dies is 74.5 SMs per die: counts are exact, so no whole count fits."""
    comparison = real_kb.compare(["b200"], ["sms_per_die"], facts=["sm_count=149"])
    (cell,) = comparison.rows[0].cells
    assert cell.status == "inconsistent" and cell.value == 74.5 and not cell.whole.any
    assert real_kb.solve("sms_per_die", "b200", facts=["sm_count=149"]).status == "inconsistent"


def test_a_derived_answer_cell_names_the_limits_that_bind_it(real_kb):
    solution = real_kb.solve("decode_tokens_per_s", "h100-sxm", ["llama-3-70b"], ["batch=1", "context=4096"])
    cell = answer_cell(solution)
    assert cell.bound_by == tuple(solution.limiter.origin.bound_by) and cell.bound_by


def test_input_needs_never_offer_the_figure_asked_for_under_another_name(real_kb):
    """The RTX 6000 Ada states no FP8 peak: with an FP8 model layered, workload_peak is tc_peak[fp8] (matmul_peak),
    so compare offered 'workload_peak needs tc_peak[fp8]', the answer renamed, which solve never offers."""
    layers = ["llama-3-70b", "fp8"]
    needs = input_needs(real_kb, "workload_peak", "rtx-6000-ada", layers, [])
    assert needs == ("clock_tc", "tc_fma_per_sm_cycle[fp8]")
    assert needs in real_kb.solve("workload_peak", "rtx-6000-ada", layers).needs
    comparison = real_kb.compare(["rtx-6000-ada"], ["tc_peak[fp8]", "workload_peak"], layers=layers)
    assert dict(comparison.unsettled) == {"tc_peak[fp8]": needs, "workload_peak": needs}


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=501, max_value=2999), st.integers(min_value=1, max_value=3))
def test_a_compared_count_is_solves_answer_for_any_printed_clock(counts_kb, millis, decimals):
    """Whatever clock is given, to whatever digits, the comparison's SM count is solve's: the one whole count,
    the run of them, or inconsistent."""
    clock = f"clock={millis / 1000:.{decimals}f}GHz"
    (cell,) = counts_kb.compare(["open-chip"], ["sm_count"], facts=[clock]).rows[0].cells
    solution = counts_kb.solve("sm_count", "open-chip", facts=[clock])
    assert (cell.value, cell.status, cell.whole) == (solution.magnitude, str(solution.status), solution.whole)
