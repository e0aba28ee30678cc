"""``hwkb roofline`` on the real KB: ridge points from the roofline laws, kernels placed on every roof."""
from __future__ import annotations

import json

import pytest

from hwkb.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_gives_every_gpus_ridge_points(capsys):
    code, out, _ = run(capsys, "roofline", "--gpu", "h100-sxm", "--gpu", "a100", "--point", "gemm=300", "--json")
    document = json.loads(out)
    assert code == 0 and document["command"] == "roofline" and document["status"] == "ok"
    h100, a100 = document["gpus"]
    roofs = {r["precision"]: r for r in h100["roofs"]}
    assert roofs["bf16"]["ridge_point"] == pytest.approx(989.4e12 / 3.35e12)       # peak / bandwidth, flop/B
    assert roofs["fp32"]["points"][0]["attainable"] == pytest.approx(67)            # past the FP32 ridge
    assert roofs["fp8"]["points"][0]["attainable"] == pytest.approx(300 * 3.35)     # below the FP8 ridge
    assert {r["precision"] for r in a100["roofs"]} >= {"fp32", "tf32", "bf16"} and "fp8" not in \
        {r["precision"] for r in a100["roofs"]}


def test_text_is_a_row_per_roof(capsys):
    code, out, _ = run(capsys, "roofline", "--gpu", "p100", "--point", "stream=0.25")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:3] == ["GPU", "memory", "GB/s"]
    assert lines[1].split() == ["p100", "732", "fp32", "10.6", "TFLOPS", "14.48", "flop/B", "0.183"]


def test_an_integer_roof_is_in_tops_and_op_per_byte(capsys):
    code, out, _ = run(capsys, "roofline", "--gpu", "h100-sxm", "--precision", "int8")
    assert code == 0 and out.splitlines()[1].split() == ["h100-sxm", "3350", "int8", "1979", "TOPS", "590.7", "op/B"]


def test_a_roof_asked_for_that_the_gpu_lacks_says_why(capsys):
    """The A100 states no FP8 path (NVIDIA's table): the roofline says so, in solve's words, not an empty table alone."""
    _, out, _ = run(capsys, "solve", "tc_peak[fp8]", "--gpu", "a100-80gb-sxm", "--json")
    (why,) = json.loads(out)["notes"]
    assert why.startswith("tc_peak[fp8] is stated as n/a at kb/gpus/nvidia.yaml:")
    assert "NVIDIA's A100 column prints 'Peak FP8 Tensor TFLOPS with FP16 Accumulate N/A'" in why
    code, out, _ = run(capsys, "roofline", "--gpu", "a100-80gb-sxm", "--gpu", "h100-sxm", "--precision", "fp8")
    lines = out.splitlines()
    assert code == 0 and [line.split()[:3] for line in lines[1:-1]] == [["h100-sxm", "3350", "fp8"]]
    assert lines[-1] == f"a100-80gb-sxm has no fp8 roof: {why}"
    code, out, _ = run(capsys, "roofline", "--gpu", "a100-80gb-sxm", "--precision", "fp8", "--json")
    a100 = json.loads(out)["gpus"][0]
    assert a100["roofs"] == [] and a100["missing"] == [
        {"precision": "fp8", "variable": "tc_peak[fp8]", "status": "not_applicable", "notes": [why]}]


def test_a_roof_whose_peak_nothing_settles_names_what_would(capsys):
    """CDNA 3's files say nothing of MXFP4 (neither a rate nor n/a): the MI300X's roof is not drawn and the line says
    what would settle its peak. (The A100 states MXFP4 n/a since NVIDIA's Ampere list of formats was read.)"""
    code, out, _ = run(capsys, "roofline", "--gpu", "mi300x", "--precision", "mxfp4")
    last = out.splitlines()[-1]
    assert code == 0 and last.startswith("mi300x has no mxfp4 roof: tc_peak[mxfp4] is underdetermined "
                                         "(give one of {") and "{tc_fma_per_sm_cycle[mxfp4]}" in last


def test_every_roof_the_gpu_has_is_drawn_without_a_word_on_the_rest(capsys):
    code, out, _ = run(capsys, "roofline", "--gpu", "a100-80gb-sxm")
    assert code == 0 and "has no" not in out


def test_a_bad_point_is_one_error_line(capsys):
    code, out, err = run(capsys, "roofline", "--gpu", "a100", "--point", "gemm")
    assert code == 2 and out == "" and err.startswith("error: --point: 'gemm' is not NAME=INTENSITY")


def test_plot_is_written(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "r.svg"
    code, _, _ = run(capsys, "roofline", "--gpu", "h100-sxm", "--gpu", "a100", "--precision", "bf16",
                     "--point", "gemm=300", "--plot", str(target))
    assert code == 0 and "ridge points" in target.read_text()


def test_roofline_plot_needs_force_to_replace(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "r.svg"
    target.write_text("mine")
    code, out, err = run(capsys, "roofline", "--gpu", "p100", "--plot", str(target))
    assert code == 2 and out == "" and err == f"error: {target}: the file exists; give --force to replace it\n"
    code, _, _ = run(capsys, "roofline", "--gpu", "p100", "--plot", str(target), "--force")
    assert code == 0 and "ridge points (flop/B)" in target.read_text()
