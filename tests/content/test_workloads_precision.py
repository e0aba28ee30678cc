"""The precision a workload multiplies in picks its Tensor-Core peak (``workload_peak = tc_peak[matmul_precision]``):
FP8 runs at each GPU's own stated FP8 peak, and where the vendor's table has no FP8 the FP8 answers are n/a."""
from __future__ import annotations

import pytest

from hwkb import KnowledgeBase
from hwkb.render.solution_text import render_solution
from tests.content.test_workloads import LLAMA_70B_MULTIPLIED


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load()


def stated(kb, key, gpu, unit):
    """A figure the GPU states, in ``unit``."""
    fact = kb.context(gpu).facts[key]
    return kb.units.to_canonical(fact.value, fact.unit) / kb.units.to_canonical(1.0, unit)


@pytest.mark.parametrize("gpu", ["h100-sxm", "b200", "mi300x", "tpu-v5p", "gaudi3", "trainium3"])
def test_fp8_decode_at_a_large_batch_runs_at_the_stated_fp8_peak(kb, gpu):
    batch = 512
    solution = kb.solve("decode_compute_time", gpu=gpu, layers=["llama-3-70b", "fp8"], facts=[f"batch={batch}"])
    expected = 2 * LLAMA_70B_MULTIPLIED * batch / stated(kb, "tc_peak[fp8]", gpu, "FLOPS")  # seconds
    assert solution.magnitude * 1e-3 == pytest.approx(expected, rel=1e-9)  # ms


def test_the_fp8_peak_differs_from_twice_bf16_where_the_vendor_says_so(kb):
    peak = lambda gpu, layer: kb.solve("workload_peak", gpu=gpu, layers=["llama-3-70b", layer]).magnitude
    assert peak("tpu-v5p", "fp8") == peak("tpu-v5p", "bf16") == 459  # FP8 at the BF16 rate
    assert peak("gaudi3", "fp8") == peak("gaudi3", "bf16") == 1835
    assert peak("trainium3", "fp8") == 2517 and peak("trainium3", "bf16") == 671


@pytest.mark.parametrize("batch", [1, 512])
def test_fp8_on_an_a100_is_not_applicable_with_the_reason(kb, batch):
    solution = kb.solve("decode_tokens_per_s", gpu="a100-80gb-sxm", layers=["llama-3-70b", "fp8"],
                        facts=[f"batch={batch}"])
    assert str(solution.status) == "not_applicable"
    text = render_solution(solution)
    assert text.splitlines()[0] == "decode_tokens_per_s: not applicable"
    assert "tc_peak[fp8] (" in text and "Peak FP8 Tensor TFLOPS with FP16 Accumulate N/A" in text


def test_fp8_weights_only_on_an_a100_still_answers_the_memory_bound_decode(kb):
    solution = kb.solve("decode_tokens_per_s", gpu="a100-80gb-sxm", layers=["llama-3-70b", "fp8-weights-only"],
                        facts=["batch=1"])
    expected = stated(kb, "memory_bandwidth", "a100-80gb-sxm", "B/s") / (LLAMA_70B_MULTIPLIED * 1)  # 1 B per weight
    assert solution.magnitude == pytest.approx(expected, rel=1e-9)
    assert "limited by decode_memory_time" in render_solution(solution)


@pytest.mark.parametrize("gpu", ["v100", "t4", "a30", "mi250x", "mi210", "mi100", "tpu-v4", "tpu-v5e", "tpu-v6e"])
def test_gpus_without_fp8_state_it_with_a_source(kb, gpu):
    fact = kb.context(gpu).facts["tc_peak[fp8]"]
    assert not fact.applicable and fact.source and fact.doc
    assert str(kb.solve("prefill_time", gpu=gpu, layers=["llama-3-70b", "fp8"],
                        facts=["batch=1", "prompt_tokens=2048"]).status) == "not_applicable"


def test_bf16_on_an_a100_is_unchanged_by_the_missing_fp8(kb):
    solution = kb.solve("workload_peak", gpu="a100-80gb-sxm", layers=["llama-3-70b"])
    assert solution.magnitude == kb.solve("tc_peak[bf16]", gpu="a100-80gb-sxm").magnitude


def test_a_backward_question_solves_for_the_chosen_peak(kb):
    solution = kb.solve("tc_peak[fp8]", layers=["llama-3-70b", "fp8"],
                        facts=["batch=512", "decode_compute_time=10ms", "gpus=1"])  # no GPU: say how many share it
    expected = 2 * LLAMA_70B_MULTIPLIED * 512 / 10e-3 / 1e12  # TFLOPS
    assert solution.magnitude == pytest.approx(expected, rel=1e-9)


def test_explain_names_the_choice_that_picked_the_peak(kb):
    solution = kb.solve("workload_peak", gpu="h100-sxm", layers=["llama-3-70b", "fp8"])
    text = render_solution(solution, explain=True)
    assert "by law matmul_peak[fp8]: workload_peak = tc_peak[fp8]" in text
    assert ("chosen: matmul_precision = fp8   [fp8, definition, W8A8: weights and activations both in FP8, so the "
            "Tensor Cores multiply FP8]") in text
    chosen = solution.value.origin.to_dict(solution.value)["chosen"]
    assert chosen == [{"choice": "matmul_precision", "value": "fp8", "entity": "fp8",
                       "source": "definition, W8A8: weights and activations both in FP8, so the Tensor Cores multiply FP8"}]


def test_compare_shows_fp8_bounds_on_an_a100_as_not_applicable_not_as_needing_a_peak(kb):
    comparison = kb.compare(["a100-80gb-sxm", "h100-sxm"], layers=["llama-3-70b", "fp8"],
                            facts=["batch=1", "prompt_tokens=2048"])
    cells = {r.variable: r.cells for r in comparison.rows}
    for key in ("decode_tokens_per_s", "prefill_time"):
        assert (cells[key][0].value, cells[key][0].status) == (None, "not_applicable")
        assert cells[key][1].status == "derived"
    assert "gemm_time" not in cells  # no GEMM given: not a bound of this workload
    assert comparison.unsettled == ()
