"""hwkb.render.plots: the figures a reader would put in a report (units on axes and in legends, constant
parameters in the title, readable ticks, labelled ridge points), checked on the figure objects."""
from __future__ import annotations

import numpy as np
import pytest

from hwkb.render.plots import context_title, roof_groups, run_labels, spread, whole_number_ticks
from hwkb.questions.rooflines import GpuRoofline, Roof, Rooflines
from hwkb.questions.sweeps import Axis, SweepResult
from hwkb.simulation.scheduler import SimulationResult

ROOFLINES = Rooflines((
    GpuRoofline("big", "Big GPU", 3000.0, (Roof("fp32", 60.0, 20.0), Roof("fp16", 900.0, 300.0),
                                          Roof("bf16", 900.0, 300.0), Roof("int8", 1800.0, 600.0))),
    GpuRoofline("small", "Small GPU", 1500.0, (Roof("fp32", 20.0, 13.3), Roof("fp16", 300.0, 200.0))),
), (("gemm", 300.0),))


def run(warps, ilp, latency=500):
    return SimulationResult(warps, ilp, 16, latency, 100, "gto", issued=warps * 10, cycles=1000)


def texts(axes) -> list[str]:
    return [t.get_text() for t in axes.texts]


def test_ticks_of_whole_numbers_do_not_smear():
    assert whole_number_ticks([10, 12, 16, 20, 24, 28, 32], log=True) == [10, 12, 16, 20, 24, 28, 32]
    ticks = whole_number_ticks(list(range(1, 65)), log=True)
    assert ticks == [1, 2, 4, 8, 16, 32, 64]
    assert len(whole_number_ticks(list(range(0, 1001)), log=False)) <= 11


def test_constant_parameters_go_to_the_title_and_the_varying_ones_to_the_legend():
    constant, labels = run_labels([run(w, ilp) for w in (1, 2) for ilp in (1, 4)])
    assert constant == "compute=16, latency=500 cycles, gto"
    assert sorted(labels.values()) == ["ilp=1", "ilp=4"]


def test_utilization_figure():
    pytest.importorskip("matplotlib")
    from hwkb.render.plots import utilization_figure
    figure = utilization_figure([run(w, ilp) for w in range(1, 33) for ilp in (1, 4)])
    (axes,) = figure.axes
    assert axes.get_title() == "scheduler utilization (compute=16, latency=500 cycles, gto)"
    assert [t.get_text() for t in axes.get_xticklabels()] == ["1", "2", "4", "8", "16", "32"]
    assert axes.get_ylim() == (0, 100) and axes.get_ylabel() == "utilization (%)"
    assert all(not line.get_clip_on() for line in axes.get_lines())  # a marker at 100 % is drawn whole
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["ilp=1", "ilp=4"]
    single = utilization_figure([run(w, 1) for w in (1, 2, 4)])
    assert single.axes[0].get_legend() is None  # one line: everything is in the title


def test_sweep_figure_has_units_in_labels_and_legend():
    pytest.importorskip("matplotlib")
    from hwkb.render.plots import sweep_figure
    first, second = Axis("sm_count", "", (64.0, 96.0, 128.0), True), Axis("clock_tc", "GHz", (1.5, 2.0))
    grid = np.meshgrid(first.values, second.values, indexing="ij")
    values = (grid[0] * grid[1]).ravel()
    figure = sweep_figure(SweepResult("tc_peak[bf16]", "TFLOPS", (first, second),
                                      tuple(g.ravel() for g in grid), values, "closed form"))
    (axes,) = figure.axes
    assert axes.get_ylabel() == "tc_peak[bf16] (TFLOPS)" and axes.get_xlabel() == "sm_count"
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["clock_tc = 1.5 GHz", "clock_tc = 2 GHz"]
    assert [t.get_text() for t in axes.get_xticklabels()] == ["64", "96", "128"]
    assert axes.get_title() == "tc_peak[bf16] (TFLOPS) over sm_count and clock_tc"
    titled = sweep_figure(SweepResult("tc_peak[bf16]", "TFLOPS", (first, second), tuple(g.ravel() for g in grid),
                                      values, "closed form"), context_title("hopper", ["fast"], ["tile_m=64"]))
    assert titled.axes[0].get_title().endswith("\nhopper + fast, tile_m=64")


def test_equal_peaks_are_one_roof():
    assert roof_groups(ROOFLINES.gpus[0]) == [("fp32", 60.0, 20.0), ("fp16, bf16", 900.0, 300.0),
                                              ("int8", 1800.0, 600.0)]


def test_labels_are_spread_apart_and_keep_their_order():
    placed = spread([1.0, 1.01, 1.02, 3.0], 0.1)
    assert placed == sorted(placed) and all(b - a >= 0.1 - 1e-9 for a, b in zip(placed, placed[1:]))
    assert placed[3] == 3.0 and abs(sum(placed[:3]) / 3 - 1.01) < 1e-9  # a cluster stays centred on its wish
    assert spread([2.0, 1.0], 0.1) == [2.0, 1.0]


def test_roofline_figure_is_readable():
    pytest.importorskip("matplotlib")
    from hwkb.render.plots import roofline_figure
    (axes,) = roofline_figure(ROOFLINES).axes
    assert axes.get_xlabel() == "arithmetic intensity (flop/B)"
    assert axes.get_ylabel() == "attainable throughput (TFLOPS; TOPS for int8)"
    assert axes.get_xscale() == axes.get_yscale() == "log"
    assert [t.get_text() for t in axes.get_legend().get_texts()] == [
        "Big GPU: 3000 GB/s", "Small GPU: 1500 GB/s", "ridge points (flop/B)", "kernels on each roof"]
    labels = texts(axes)
    for ridge in ("20 flop/B", "300 flop/B", "600 flop/B", "13.3 flop/B", "200 flop/B"):
        assert ridge in labels
    assert {"fp16, bf16 900", "int8 1800", "fp32 60", "fp32 20", "fp16 300"} <= set(labels)
    assert "gemm\n300 flop/B" in labels
    assert "Big GPU, Small GPU" in axes.get_title()
    ticks = [t.get_text() for t in axes.get_yticklabels() if t.get_text()]
    assert "1000" in ticks and "100" in ticks  # plain numbers, not 10^3



def test_a_kernel_far_below_the_ridges_stays_on_the_figure():
    pytest.importorskip("matplotlib")
    from hwkb.render.plots import roofline_figure
    decode = Rooflines(ROOFLINES.gpus, (("llama decode", 1.0),))
    (axes,) = roofline_figure(decode).axes
    low, _ = axes.get_ylim()
    assert low <= 1.0 * 1500.0 / 1000 / 3  # the Small GPU's crossing at 1 flop/B, in TFLOPS, with room below
    assert "llama decode\n1 flop/B" in texts(axes)
