"""The real KB's answers in engineers' units: fractions in percent and large rates with a prefix in text, integer
precisions in TOPS, while the JSON keeps fractions as fractions and numbers in their declared unit."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli, share_kb_with_cli


@pytest.fixture(autouse=True)
def _one_kb(real_kb, monkeypatch):
    share_kb_with_cli(monkeypatch, real_kb)


OCCUPANCY = ("--gpu", "h100-sxm", "--set", "threads_per_block=256", "--set", "regs_per_thread=48",
             "--set", "smem_per_block=0")


def test_a_fraction_is_a_percentage_in_text_and_a_fraction_in_json(capsys):
    code, out, _ = run_cli(capsys, "solve", "occupancy", *OCCUPANCY)
    assert code == 0 and out.splitlines()[0] == "occupancy = 62.5 %  (derived)"
    code, out, _ = run_cli(capsys, "solve", "occupancy", *OCCUPANCY, "--json")
    document = json.loads(out)
    assert (document["value"], document["unit"]) == (0.625, "fraction")


def test_a_large_rate_has_an_si_prefix_in_text_and_its_unit_in_json(capsys):
    code, out, _ = run_cli(capsys, "solve", "sfu_exp_rate", "--gpu", "h100-sxm")
    assert code == 0 and out == "sfu_exp_rate = 4.188 Texp/s  (derived)\n"
    code, out, _ = run_cli(capsys, "solve", "sfu_exp_rate", "--gpu", "h100-sxm", "--json")
    document = json.loads(out)
    assert document["unit"] == "exp/s" and document["value"] == pytest.approx(4.1873e12, rel=1e-4)


@pytest.mark.parametrize("args", [("solve", "tc_peak[int8]", "--gpu", "h100-sxm"),
                                  ("explain", "tc_peak[int8]", "--gpu", "h100-sxm")])
def test_int8_is_in_tops(capsys, args):
    code, out, _ = run_cli(capsys, *args)
    assert code == 0 and out.startswith("tc_peak[int8] = 1979 TOPS")


def test_compare_shows_int8_in_tops_and_one_prefix_per_row(capsys):
    code, out, _ = run_cli(capsys, "compare", "a100", "h100-sxm", "--vars", "tc_peak[int8],tc_peak[bf16],sfu_exp_rate")
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:] if line and line[0] != "["}
    assert code == 0
    assert rows["tc_peak[int8]"] == ["TOPS", "624*", "1979*"] and rows["tc_peak[bf16]"] == ["TFLOPS", "312", "989.4"]
    assert rows["sfu_exp_rate"] == ["Texp/s", "2.438*", "4.188*"]
    code, out, _ = run_cli(capsys, "compare", "a100", "--vars", "sfu_exp_rate", "--json")
    (row,) = json.loads(out)["rows"]
    assert row["unit"] == "exp/s" and row["values"][0]["value"] == pytest.approx(2.4375e12, rel=1e-3)


def test_sheet_shows_int8_in_tops_and_a_rate_with_a_prefix(capsys):
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "h100-sxm")
    lines = {line.split()[0]: line.split()[1:3] for line in out.splitlines()[1:] if line.startswith("  ") and
             not line.strip().startswith("!")}
    assert lines["tc_peak[int8]"] == ["1979*", "TOPS"] and lines["sfu_exp_rate"] == ["4.188*", "Texp/s"]
    assert lines["tc_flop_per_sm_cycle[int8]"] == ["8192*", "op/cycle"]


def test_a_sweep_table_shows_percent_where_its_csv_keeps_the_fraction(capsys):
    args = ("solve", "exp_utilization[fp8]", "--gpu", "h100-sxm", "--sweep", "d_qk=64,128", "--set", "d_v=128")
    code, out, _ = run_cli(capsys, *args)
    assert code == 0 and out.splitlines() == ["d_qk  exp_utilization[fp8] [%]", "  64                     133.3",
                                              " 128                       100"]
    code, out, _ = run_cli(capsys, *args, "--format", "csv")
    assert out.splitlines()[2] == "128,1.0"


def test_a_set_in_a_count_of_another_kind_is_refused(capsys):
    code, out, err = run_cli(capsys, "solve", "clock_tc", "--set", "tc_peak[bf16]=100 token/s", "--set", "sm_count=100",
                             "--set", "tc_fma_per_sm_cycle[bf16]=500")
    assert (code, out) == (2, "")
    assert err == "error: --set: '100 token/s' does not fit tc_peak[bf16], which is in TFLOPS; give it in TFLOPS\n"
    code, out, _ = run_cli(capsys, "solve", "clock_tc", "--set", "tc_peak[bf16]=100 TOPS", "--set", "sm_count=100",
                           "--set", "tc_fma_per_sm_cycle[bf16]=500")
    assert code == 0 and out.startswith("clock_tc = 1 GHz")


def test_warps_asked_in_threads_are_refused_with_the_flag_and_the_unit_to_use(capsys):
    """2048 threads are 64 warps on an H100, 32 on a wavefront-64 part: the tool refuses to guess."""
    code, out, err = run_cli(capsys, "solve", "resident_warps_per_sm", *OCCUPANCY,
                             "--where", "resident_warps_per_sm >= 2048 thread")
    assert (code, out) == (2, "")
    assert err == ("error: --where 'resident_warps_per_sm >= 2048 thread': the left side is resident_warps_per_sm, in "
                   "warp ([warp]), the right side '2048 thread' ([thread]); give '2048 thread' in a unit of [warp], such "
                   "as warp\n")
    code, out, _ = run_cli(capsys, "solve", "resident_warps_per_sm", *OCCUPANCY, "--where",
                           "resident_warps_per_sm >= 32 warp")
    assert code == 0 and out.startswith("resident_warps_per_sm = 40 warp  (derived)")


def test_a_block_size_set_in_warps_is_refused(capsys):
    code, out, err = run_cli(capsys, "solve", "occupancy", "--gpu", "h100-sxm", "--set", "threads_per_block=8 warp",
                             "--set", "regs_per_thread=48", "--set", "smem_per_block=0")
    assert (code, out) == (2, "")
    assert err == ("error: --set: '8 warp' does not fit threads_per_block, which is in thread/block; give it in "
                   "thread/block\n")
