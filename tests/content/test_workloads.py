"""Workloads on the hardware: the LLM bounds of kb/rules/workloads.yaml against figures computed here, by hand."""
from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings, strategies as st

from hwkb import KnowledgeBase
from hwkb.formats.query_files import load_query
from hwkb.questions.saved_queries import run_query
from hwkb.render.answers import query_cells
from hwkb.render.solution_text import render_solution
from hwkb.render.note_words import note_text


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load()


def dense_params(layers, hidden, heads, kv_heads, head_dim, intermediate, vocab):
    """Llama-style weights counted from the module shapes of Meta's model.py, independently of the KB's laws."""
    q_o = 2 * hidden * heads * head_dim
    k_v = 2 * hidden * kv_heads * head_dim
    mlp = 3 * hidden * intermediate
    return layers * (q_o + k_v + mlp + 2 * hidden) + 2 * vocab * hidden + hidden


LLAMA_70B = dense_params(80, 8192, 64, 8, 128, 28672, 128256)
# a step reads and multiplies all but the input embedding, whose rows it looks up (Meta's Transformer.forward)
LLAMA_70B_MULTIPLIED = LLAMA_70B - 128256 * 8192


def test_llama_3_70b_counts_its_published_parameters(kb):
    assert LLAMA_70B == 70_553_706_496
    assert kb.solve("params", layers=["llama-3-70b"]).magnitude == LLAMA_70B


def test_decode_bound_is_the_bandwidth_over_the_bytes_per_token(kb):
    solution = kb.solve("decode_tokens_per_s", gpu="h100-sxm", layers=["llama-3-70b", "fp8"], facts=["batch=1"])
    expected = 3.35e12 / (LLAMA_70B_MULTIPLIED * 1)  # one byte per FP8 weight, an empty cache
    assert render_solution(solution).splitlines()[0] == f"decode_tokens_per_s = {expected:.4g} token/s  (derived)"
    assert "limited by decode_memory_time" in render_solution(solution)


def test_set_weight_bytes_is_the_same_question(kb):
    a = kb.solve("decode_tokens_per_s", gpu="h100-sxm", layers=["llama-3-70b"], facts=["batch=1", "bytes_per_weight=1"])
    b = kb.solve("decode_tokens_per_s", gpu="h100-sxm", layers=["llama-3-70b", "fp8"], facts=["batch=1"])
    assert a.magnitude == pytest.approx(b.magnitude, rel=1e-12)


def test_b200_turns_compute_bound_at_the_ridge_over_two(kb):
    # FP8 weights: 1 B per weight, 2 FLOP per weight per token, the B200's stated 4.5 PFLOPS FP8 over 8 TB/s
    batch = kb.solve("compute_bound_batch", gpu="b200", layers=["llama-3-70b", "fp8"]).magnitude
    peak = kb.solve("tc_peak[fp8]", gpu="b200").magnitude * 1e12  # TFLOPS
    bandwidth = kb.solve("memory_bandwidth", gpu="b200").magnitude * 1e9  # GB/s
    assert batch == pytest.approx(peak * 1 / (2 * bandwidth))
    least = kb.solve("batch", gpu="b200", layers=["llama-3-70b", "fp8"], where=["decode_compute_share >= 1"])
    assert least.magnitude == math.ceil(batch)


def test_gpus_needed_for_405b_at_128k_context(kb):
    solution = kb.solve("gpus_needed", gpu="mi300x", layers=["llama-3-405b"], facts=["context=131072", "batch=8"])
    weights = dense_params(126, 16384, 128, 8, 128, 53248, 128256) * 2
    cache = 126 * 2 * 8 * 128 * 2 * 131072 * 8
    memory_size = kb.solve("memory_size", gpu="mi300x")
    assert memory_size.unit == "GiB"  # AMD's "192 GB" of HBM, read in the JEDEC convention
    memory = memory_size.magnitude * 2**30
    assert solution.magnitude == math.ceil((weights + cache) / memory)


def test_mla_caches_the_latent_and_the_rotary_key(kb):
    solution = kb.solve("kv_bytes_per_token", layers=["deepseek-v3"])
    assert solution.magnitude == pytest.approx(61 * (512 + 64) * 2 / 1e3)  # kB


def test_qwen2_72b_counts_the_72_71b_of_its_card(kb):
    counted = dense_params(80, 8192, 64, 8, 128, 29568, 152064)  # Q/K/V biases left out, as in the KB
    assert kb.solve("params", layers=["qwen2-72b"]).magnitude == counted
    assert round(counted / 1e9, 2) == 72.71  # 'Hello Qwen2', Model Information table: # Params 72.71B


def test_measured_attention_efficiency_stretches_the_ideal_time(kb):
    layers = ["attention-llama-3-70b-8k"]
    ideal = kb.solve("attention_compute_time", gpu="a100-80gb-sxm", layers=layers).magnitude
    measured = kb.solve("attention_compute_time", gpu="a100-80gb-sxm",
                        layers=[*layers, "measured-flashattention2-a100"]).magnitude
    assert measured == pytest.approx(ideal / 0.73)


@pytest.mark.parametrize("gpu, scenario, share", [("h100-sxm", "measured-batch1-decode-h100", 0.27),
                                                  ("l4", "measured-batch1-decode-l4", 0.81)])
def test_measured_decode_share_scales_the_bandwidth_bound(kb, gpu, scenario, share):
    facts = ["batch=1", "context=2048"]
    ideal = kb.solve("decode_tokens_per_s", gpu=gpu, layers=["llama-3-8b"], facts=facts).magnitude
    measured = kb.solve("decode_tokens_per_s", gpu=gpu, layers=["llama-3-8b", scenario], facts=facts).magnitude
    assert measured == pytest.approx(ideal * share)

MODELS = ["llama-3-8b", "llama-3-70b", "llama-3-405b", "mixtral-8x7b", "qwen2-72b", "deepseek-v3"]
# on the MI300X and MI325X bus width x data rate also fix the bandwidth: the backward question sets them aside too;
# the H100 PCIe states no memory size, so how many GPUs hold a model, and so its decode bound, is open there
GPUS = ["h100-sxm", "h200-sxm", "b200", "a100", "tpu-v6e", "gaudi3", "l40s", "mi300x", "mi325x"]


@settings(max_examples=12, deadline=None)
@given(model=st.sampled_from(MODELS), gpu=st.sampled_from(GPUS), rate_ratio=st.floats(1.01, 5.0),
       context=st.sampled_from([0, 4096]))
@example(model="llama-3-70b", gpu="mi300x", rate_ratio=2.0, context=4096)
@example(model="deepseek-v3", gpu="mi325x", rate_ratio=1.5, context=0)
def test_backward_bandwidth_reads_the_forward_answer_backwards(kb, model, gpu, rate_ratio, context):
    facts = ["batch=1", f"context={context}"]
    forward = kb.solve("decode_tokens_per_s", gpu=gpu, layers=[model], facts=facts).magnitude
    target = forward * rate_ratio
    needed = kb.solve("memory_bandwidth", gpu=gpu, layers=[model], facts=[*facts, f"target_tokens_per_s={target}"],
                      where=["decode_tokens_per_s >= target_tokens_per_s"])
    bandwidth = kb.solve("memory_bandwidth", gpu=gpu).magnitude
    (admissible,) = needed.intervals
    assert admissible.upper is None
    assert admissible.lower == pytest.approx(bandwidth * rate_ratio, rel=1e-6)
    needed = admissible.lower
    again = kb.solve("decode_tokens_per_s", gpu=gpu, layers=[model], facts=[*facts, f"memory_bandwidth={needed} GB/s"])
    assert again.magnitude == pytest.approx(target, rel=1e-6)


@pytest.mark.parametrize("gpu, bus_bits, data_rate", [("mi300x", "8192", "5.2"), ("mi325x", "8192", "6")])
def test_backward_bandwidth_sets_aside_the_bus_and_data_rate_that_fix_it(kb, gpu, bus_bits, data_rate):
    needed = kb.solve("memory_bandwidth", gpu=gpu, layers=["llama-3-70b"],
                      facts=["batch=1", "target_tokens_per_s=100"], where=["decode_tokens_per_s >= target_tokens_per_s"])
    assert needed.status == "derived"
    assert needed.intervals[0].lower == pytest.approx(LLAMA_70B_MULTIPLIED * 2 * 100 / 1e9, rel=1e-6)  # GB/s, BF16 weights
    assert note_text(needed.notes[1]) == (f"set aside memory_bus_bits = {bus_bits} and memory_data_rate = {data_rate} Gbit/s "
                               f"({gpu}) too: they fix memory_bandwidth through memory_bandwidth_law")


def test_the_data_rate_needed_keeps_the_bus_and_sets_aside_the_bandwidth_it_moves(kb):
    needed = kb.solve("memory_data_rate", gpu="mi300x", layers=["llama-3-70b"],
                      facts=["batch=1", "target_tokens_per_s=100"], where=["decode_tokens_per_s >= target_tokens_per_s"])
    bandwidth = LLAMA_70B_MULTIPLIED * 2 * 100  # B/s for 100 token/s of BF16 weights
    assert needed.intervals[0].lower == pytest.approx(bandwidth * 8 / 8192 / 1e9, rel=1e-6)  # Gbit/s per pin
    assert note_text(needed.notes[1]) == ("set aside memory_bandwidth = 5.3 TB/s (mi300x) too: it follows memory_data_rate "
                               "through memory_bandwidth_law")  # released as the what-if releases it, as stated


def test_a_data_rate_given_with_set_fixes_the_bandwidth_and_is_checked(kb):
    needed = kb.solve("memory_bandwidth", gpu="mi300x", layers=["llama-3-70b"],
                      facts=["batch=1", "target_tokens_per_s=100", "memory_data_rate=5.2 Gbit/s",
                             "memory_bus_bits=8192"],
                      where=["decode_tokens_per_s >= target_tokens_per_s"])
    assert needed.status == "inconsistent"
    assert needed.notes[1] == ("memory_bandwidth is fixed by memory_bus_bits (given with --set), memory_data_rate (given with --set) "
                               "through "
                               "memory_bandwidth_law: the constraints check that value")


def test_llm_decode_query_tabulates_the_bounds(kb):
    result = run_query(load_query("llm_decode"), kb)
    rows = {row[0]: row[1:] for row in query_cells(result)}
    assert result.columns == ["GPU and model", "Decode bound", "GPUs", "Compute/memory", "Prefill 2048 tokens"]
    assert len(rows) == 15
    llama_8b = dense_params(32, 4096, 32, 8, 128, 14336, 128256) - 128256 * 4096
    assert rows["H100 SXM, Llama 3 8B"][:2] == [f"{3.35e12 / (llama_8b * 2):.1f} token/s", "1"]
    assert rows["H100 SXM, Llama 3 70B"][:2] == [f"{2 * 3.35e12 / (LLAMA_70B_MULTIPLIED * 2):.1f} token/s", "2"]
    assert rows["B200, Llama 3 70B"][3] == f"{2 * LLAMA_70B_MULTIPLIED * 2048 / 2250e12 * 1e3:.1f} ms"
