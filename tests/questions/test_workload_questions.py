"""``compare --with`` and ``roofline --with``: a workload on several GPUs and its kernels on the roofline, each
figure checked against the same quantity computed here by hand from the configs' and datasheets' figures; and
every answer's derivation ends in sourced facts, figures given with --set, or named defaults."""
from __future__ import annotations

import json
import math

import pytest

from hwkb import KnowledgeBase
from hwkb.errors import UsageError
from hwkb.solving.points import TRIAL_SOURCE
from hwkb.render.note_words import note_text

LLAMA_70B = 70_553_706_496  # Meta's module shapes counted in tests/content/test_workloads.py
MULTIPLIED = LLAMA_70B - 128256 * 8192  # a step looks the input embedding's rows up: it reads and multiplies the rest
KV_PER_TOKEN = 80 * 2 * 8 * 128 * 2  # layers x (K and V) x kv_heads x head_dim x BF16 bytes
BANDWIDTH = {"h100-sxm": 3350e9, "mi300x": 5300e9, "b200": 8000e9}  # the datasheets' B/s
FP8_PEAK = {"h100-sxm": 1979e12, "mi300x": 2614.9e12, "b200": 4500e12}  # the datasheets' dense FP8 flop/s
MEMORY_GIB = {"h100-sxm": 80, "mi300x": 192, "b200": 180}
GPUS = list(BANDWIDTH)


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load()


@pytest.fixture(scope="module")
def fp8_batch_1(kb):
    return kb.compare(GPUS, layers=["llama-3-70b", "fp8"], facts=["batch=1", "prompt_tokens=2048"])


def row(comparison, variable):
    (found,) = [r for r in comparison.rows if r.variable == variable]
    return found


# ---------------------------------------------------------------- compare --with

def test_the_workload_section_heads_the_headline(fp8_batch_1):
    sections = list(dict.fromkeys(r.section for r in fp8_batch_1.rows))
    assert sections[:2] == ["workload", "memory and bandwidth"]
    assert [r.variable for r in fp8_batch_1.rows if r.section == "workload"] == [
        "decode_tokens_per_s", "prefill_time", "gpus_needed"]


def test_each_gpus_decode_bound_is_its_bandwidth_over_the_fp8_weights(fp8_batch_1):
    decode = row(fp8_batch_1, "decode_tokens_per_s")
    for gpu, cell in zip(GPUS, decode.cells):
        assert cell.status == "derived" and cell.bound_by == ("decode_memory_time",)
        assert cell.value == pytest.approx(BANDWIDTH[gpu] / MULTIPLIED, rel=1e-9)


def test_each_gpus_prefill_bound_is_the_work_at_its_own_fp8_peak(fp8_batch_1):
    prefill = row(fp8_batch_1, "prefill_time")
    for gpu, cell in zip(GPUS, prefill.cells):
        assert cell.value == pytest.approx(2 * MULTIPLIED * 2048 / FP8_PEAK[gpu] * 1e3, rel=1e-9)  # ms
        assert cell.bound_by == ("prefill_compute_time",)


def test_a_prefill_two_h100s_hold_runs_at_both_peaks(kb):
    """BF16 weights need two H100s (memory_fit), and each multiplies its half of every layer at its own peak."""
    solution = kb.solve("prefill_time", gpu="h100-sxm", layers=["llama-3-70b"], facts=["batch=1", "prompt_tokens=2048"])
    assert solution.magnitude == pytest.approx(2 * MULTIPLIED * 2048 / (2 * 989.4e12) * 1e3, rel=1e-9)  # ms


def test_a_one_token_prefill_is_bound_by_reading_the_weights(kb):
    comparison = kb.compare(["h100-sxm"], ["prefill_time"], layers=["llama-3-70b", "fp8"],
                            facts=["batch=1", "prompt_tokens=1"])
    assert row(comparison, "prefill_time").cells[0].bound_by == ("prefill_memory_time",)


def test_bf16_weights_need_two_h100s_and_one_of_the_others(kb):
    comparison = kb.compare(GPUS, ["gpus_needed"], layers=["llama-3-70b"], facts=["batch=1"])
    needed = [c.value for c in row(comparison, "gpus_needed").cells]
    assert needed == [math.ceil(2 * LLAMA_70B / (MEMORY_GIB[g] * 2**30)) for g in GPUS] == [2, 1, 1]


def test_a_model_two_h100s_hold_decodes_over_both(kb):
    """Tensor parallelism: each GPU reads its half of the weights at its own bandwidth (communication not modelled)."""
    comparison = kb.compare(GPUS, ["decode_tokens_per_s", "gpus"], layers=["llama-3-70b"], facts=["batch=1"])
    gpus = [c.value for c in row(comparison, "gpus").cells]
    decode = [c.value for c in row(comparison, "decode_tokens_per_s").cells]
    assert gpus == [2, 1, 1]
    assert decode == pytest.approx([n * BANDWIDTH[g] / (2 * MULTIPLIED) for n, g in zip(gpus, GPUS)], rel=1e-9)


@pytest.mark.parametrize("asked, gpus", [(1, 2), (2, 2), (8, 8)])
def test_more_gpus_than_hold_the_model_are_asked_for_with_tensor_parallel_size(kb, asked, gpus):
    solution = kb.solve("decode_tokens_per_s", gpu="h100-sxm", layers=["llama-3-70b"],
                        facts=["batch=1", f"tensor_parallel_size={asked}"])  # never fewer than the 2 that hold it
    assert solution.magnitude == pytest.approx(gpus * BANDWIDTH["h100-sxm"] / (2 * MULTIPLIED), rel=1e-9)


def test_the_gpus_a_decode_rate_needs_is_a_backward_question(kb):
    needed = kb.solve("tensor_parallel_size", gpu="h100-sxm", layers=["llama-3-70b"], facts=["batch=1"],
                      where=["decode_tokens_per_s >= 100 token/s"])
    assert (needed.magnitude, needed.extra["bound"]) == (math.ceil(100 / (BANDWIDTH["h100-sxm"] / (2 * MULTIPLIED))),
                                                         "lower") == (5, "lower")


def test_splitting_decode_leaves_where_it_turns_compute_bound(kb):
    one, eight = (kb.solve("decode_compute_share", gpu="b200", layers=["llama-3-70b", "fp8"],
                           facts=["batch=512", f"tensor_parallel_size={n}"]).magnitude for n in (1, 8))
    assert one == eight == pytest.approx(2 * MULTIPLIED * 512 * BANDWIDTH["b200"] / (MULTIPLIED * FP8_PEAK["b200"]),
                                         rel=1e-9)


def test_past_the_ridge_the_compute_time_binds(kb):
    comparison = kb.compare(["b200"], ["decode_tokens_per_s"], layers=["llama-3-70b", "fp8"], facts=["batch=512"])
    (cell,) = row(comparison, "decode_tokens_per_s").cells
    assert cell.bound_by == ("decode_compute_time",)
    assert cell.value == pytest.approx(512 / (2 * MULTIPLIED * 512 / FP8_PEAK["b200"]), rel=1e-9)


def test_what_no_gpu_settles_is_named_with_what_it_needs(kb):
    comparison = kb.compare(["h100-sxm", "mi300x"], layers=["llama-3-70b"])
    assert [r.section for r in comparison.rows].count("workload") == 0
    assert comparison.unsettled == (("decode_tokens_per_s", ("batch",)), ("prefill_time", ("batch", "prompt_tokens")),
                                    ("gpus_needed", ("batch",)))  # the figures no law gives, not prefill_flop
    assert ("not settled on these GPUs: decode_tokens_per_s needs batch; prefill_time needs batch and prompt_tokens; "
            "gpus_needed needs batch (give them with --set)") in comparison.render("text").splitlines()
    one = kb.compare(["h100-sxm"], layers=["llama-3-70b"], facts=["batch=1"])
    assert "not settled on these GPUs: prefill_time needs prompt_tokens (give it with --set)" in str(one).splitlines()
    named = kb.compare(["h100-sxm"], ["decode_tokens_per_s"], layers=["llama-3-70b"], facts=["batch=1"])
    assert named.unsettled == ()


def test_a_plain_compare_has_no_workload_section_and_no_bound_by_line(kb):
    plain = kb.compare(["h100-sxm", "mi300x"])
    assert "workload" not in {r.section for r in plain.rows}
    assert "bound by" not in plain.render("text") and "with" not in plain.to_dict()


def test_every_form_shows_the_workload_and_what_binds(fp8_batch_1):
    text = fp8_batch_1.render("text").splitlines()
    assert text[0] == "each GPU with llama-3-70b + fp8; given batch=1, prompt_tokens=2048"
    assert text[2] == "[workload]" and text[3].startswith("decode_tokens_per_s")
    assert text[4].split() == ["bound", "by", *["decode_memory_time"] * 3]
    assert text[-1] == ("* derived from the stated figures (hwkb explain VAR --gpu ID --with llama-3-70b --with fp8 "
                        "--set batch=1 --set prompt_tokens=2048)")
    markdown = fp8_batch_1.render("markdown")
    assert "| **workload** |" in markdown and "|   bound by |  | decode_memory_time |" in markdown
    assert "bound by" in fp8_batch_1.render("html")
    csv_lines = fp8_batch_1.render("csv").splitlines()
    assert csv_lines[2] == ("decode_tokens_per_s bound_by,,workload,,decode_memory_time,,decode_memory_time,,"
                            "decode_memory_time")
    document = json.loads(fp8_batch_1.render("json"))
    assert document["with"] == ["llama-3-70b", "fp8"] and document["given"] == ["batch=1", "prompt_tokens=2048"]
    assert document["rows"][0]["values"][0]["bound_by"] == ["decode_memory_time"]


# ---------------------------------------------------------------- roofline --with

def points_of(result):
    return dict(result.points)


def test_decode_and_prefill_sit_at_the_intensities_of_their_work_and_traffic(kb):
    result = kb.roofline(["h100-sxm"], precisions=["bf16"], layers=["llama-3-70b"],
                         facts=["batch=4", "context=4096", "prompt_tokens=2048"])
    points = points_of(result)
    decode = 2 * MULTIPLIED * 4 / (2 * MULTIPLIED + KV_PER_TOKEN * 4096 * 4)
    prefill = 2 * MULTIPLIED * 2048 * 4 / (2 * MULTIPLIED + KV_PER_TOKEN * 2048 * 4)
    attention = 4 * 128 * 64 * 80 / KV_PER_TOKEN  # per cached token: 64 query heads x 4 head_dim FLOP, all layers
    assert points == pytest.approx({"llama-3-70b decode": decode, "llama-3-70b decode attention": attention,
                                    "llama-3-70b prefill": prefill}, rel=1e-9)
    assert attention == 8.0
    assert result.laws == ("decode_intensity", "decode_attention_intensity", "prefill_intensity")
    (roof,) = result.gpus[0].roofs
    assert roof.attainable == pytest.approx((decode * 3350 / 1000, attention * 3350 / 1000, 989.4),
                                            rel=1e-9)  # TFLOPS: under the slope, on the roof


def test_decode_attention_work_is_every_query_head_against_the_cache(kb):
    solution = kb.solve("decode_attention_flop", "h100-sxm", ["llama-3-70b"], ["batch=4", "context=8192"])
    assert solution.magnitude * 1e9 == pytest.approx(4 * 8192 * 80 * 64 * (2 * 128 + 2 * 128), rel=1e-12)  # QK^T, PV


def test_a_latent_cache_places_no_decode_attention(kb):
    """DeepSeek-V3 caches a compressed latent, not heads of head_dim: the GQA law does not read it."""
    result = kb.roofline(["h100-sxm"], precisions=["fp8"], layers=["deepseek-v3"], facts=["batch=1"])
    assert [name for name, _ in result.points] == ["deepseek-v3 decode"]


def test_kernel_workloads_sit_at_their_shapes_intensities(kb):
    attention = points_of(kb.roofline(["h100-sxm"], layers=["attention-llama-3-70b-8k"]))
    flop = 4 * 8192**2 * 64 * 128 * 0.5  # FlashAttention-2's count, causal
    traffic = 8192 * (64 + 8) * (128 + 128) * 2  # Q and O, K and V, once each, BF16
    assert attention == pytest.approx({"attention-llama-3-70b-8k attention": flop / traffic}, rel=1e-9)
    gemm = points_of(kb.roofline(["h100-sxm"], layers=["gemm-llama-3-70b-mlp-up-decode"]))
    m, n, k = 1, 28672, 8192
    assert gemm == pytest.approx({"gemm-llama-3-70b-mlp-up-decode GEMM": 2 * m * n * k / ((m * k + k * n + m * n) * 2)},
                                 rel=1e-9)


def test_a_stated_intensity_is_never_placed(kb):
    result = kb.roofline(["h100-sxm"], layers=["llama-3-70b"], facts=["batch=1", "arithmetic_intensity=5"])
    assert [name for name, _ in result.points] == ["llama-3-70b decode", "llama-3-70b decode attention"]


def test_a_model_without_a_batch_names_what_its_kernels_need(kb):
    result = kb.roofline(["h100-sxm"], precisions=["fp8"], layers=["llama-3-70b", "fp8"])
    assert result.points == (("llama-3-70b decode attention", 8.0),)  # per cached token: no batch in it
    assert result.notes == ("llama-3-70b decode not placed: decode_intensity needs batch (give it with --set)",
                            "llama-3-70b prefill not placed: prefill_intensity needs batch and prompt_tokens "
                            "(give it with --set)")
    assert result.render("text").splitlines()[0] == "kernels of llama-3-70b + fp8"


def test_a_scenario_alone_places_nothing_and_says_so(kb):
    with pytest.raises(UsageError) as caught:
        kb.roofline(["h100-sxm"], layers=["fp8"])
    assert caught.value.message == "--with fp8: no workload to place on the roofline"


def test_the_kernels_print_in_every_form(kb):
    result = kb.roofline(["h100-sxm", "b200"], precisions=["fp8"], layers=["llama-3-70b", "fp8"], facts=["batch=1"])
    text = result.render("text")
    assert "llama-3-70b decode @ 2" in text.splitlines()[1]
    assert "placed by law: llama-3-70b decode at decode_intensity" in text
    assert "llama-3-70b decode @ 2" in result.render("markdown") and "llama-3-70b decode" in result.render("html")
    assert result.render("csv").splitlines()[0].endswith(",llama-3-70b decode,llama-3-70b decode attention")
    document = json.loads(result.render("json"))
    assert document["kernels"] == [{"name": "llama-3-70b decode", "intensity": 2.0, "variable": "decode_intensity"},
                                   {"name": "llama-3-70b decode attention", "intensity": 8.0,
                                    "variable": "decode_attention_intensity"}]


# ---------------------------------------------------------------- every leaf sourced

def leaves(value):
    if value.stated:
        yield value
        return
    assert value.origin.source, f"{value.key} by {value.origin.rule} has no source"
    for child in value.origin.inputs:
        yield from leaves(child)


def assert_leaves_sourced(kb, solution, given, asked=None):
    """Each leaf is a fact its entity states with a source, a figure given with --set, or a default the KB names
    with its source (the asked variable's trial value at a threshold is the answer itself)."""
    given_keys = {text.split("=")[0] for text in given}
    found = list(leaves(solution.value))
    assert found
    for leaf in found:
        origin = leaf.origin
        if origin.via == "set":
            assert leaf.key in given_keys or (leaf.key == asked and origin.source == TRIAL_SOURCE), leaf.key
        elif origin.via == "default":
            assert origin.source and kb.model.variables[leaf.key.split("[")[0]].default is not None, leaf.key
        else:
            assert origin.via in ("fact", "scenario") and origin.entity and origin.source, leaf.key


@pytest.mark.parametrize("gpu", GPUS)
@pytest.mark.parametrize("variable", ["decode_tokens_per_s", "prefill_time", "gpus_needed"])
def test_every_compare_cell_rests_on_sourced_leaves(kb, fp8_batch_1, gpu, variable):
    given = ["batch=1", "prompt_tokens=2048"]
    explained = kb.explain(variable, gpu, ["llama-3-70b", "fp8"], given).solution
    assert explained.magnitude == row(fp8_batch_1, variable).cells[GPUS.index(gpu)].value
    assert_leaves_sourced(kb, explained, given)


@pytest.mark.parametrize("gpu", ["mi300x", "mi325x", "h100-sxm"])
def test_the_backward_bandwidth_rests_on_sourced_leaves(kb, gpu):
    given = ["batch=1", "target_tokens_per_s=100"]
    solution = kb.explain("memory_bandwidth", gpu, ["llama-3-70b"], given,
                          ["decode_tokens_per_s >= target_tokens_per_s"]).solution
    assert solution.status == "derived"
    assert_leaves_sourced(kb, solution, given, asked="memory_bandwidth")


@pytest.mark.parametrize("layers, given, variable", [
    (["llama-3-70b", "fp8"], ["batch=1"], "decode_intensity"),
    (["llama-3-70b"], ["batch=1"], "decode_attention_intensity"),
    (["llama-3-70b", "fp8"], ["batch=1", "prompt_tokens=2048"], "prefill_intensity"),
    (["attention-llama-3-70b-8k"], [], "attention_intensity"),
    (["gemm-llama-3-70b-mlp-up-prefill"], [], "arithmetic_intensity"),
])
def test_every_roofline_point_rests_on_sourced_leaves(kb, layers, given, variable):
    result = kb.roofline(["h100-sxm"], layers=layers, facts=given)
    placed = {law: x for law, (_, x) in zip(result.laws, result.points)}
    explained = kb.explain(variable, "h100-sxm", layers, given).solution
    assert explained.magnitude == placed[variable]
    assert_leaves_sourced(kb, explained, given)


def test_a_what_if_of_the_needed_bandwidth_names_what_both_sides_set_aside(kb):
    result = kb.what_if(["memory_bandwidth"], gpu="mi300x", layers=["llama-3-70b"],
                        given=["batch=1", "target_tokens_per_s=100"], changes=["target_tokens_per_s=200"],
                        where=["decode_tokens_per_s >= target_tokens_per_s"])
    (row_,) = result.rows
    assert row_.baseline.magnitude == pytest.approx(2 * MULTIPLIED * 100 / 1e9, rel=1e-6)  # GB/s, BF16 weights
    assert row_.change == pytest.approx(1.0, rel=1e-6)
    assert tuple(map(note_text, result.notes)) == ("set aside memory_bandwidth = 5.3 TB/s (mi300x) to solve for it",
                            "set aside memory_bus_bits = 8192 and memory_data_rate = 5.2 Gbit/s (mi300x) too: they fix "
                            "memory_bandwidth through memory_bandwidth_law")


def test_two_kernel_workloads_are_each_labelled_by_their_own(kb):
    result = kb.roofline(["h100-sxm"], layers=["gemm-llama-3-70b-mlp-up-decode", "attention-llama-3-70b-8k"])
    assert [name for name, _ in result.points] == ["attention-llama-3-70b-8k attention",
                                                   "gemm-llama-3-70b-mlp-up-decode GEMM"]
