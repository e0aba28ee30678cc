"""Plots of simulation runs and of sweeps; matplotlib is an optional extra (``pip install 'hwkb[plot]'``).

matplotlib is imported only inside the functions here, so the rest of the
engine, and ``import hwkb.cli.plots`` itself, work without it. The figures are
built with :class:`matplotlib.figure.Figure` directly, never through pyplot,
so drawing leaves no global state behind and needs no display.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from hwkb.errors import Location, MissingExtraError, QueryError, SimulationInputError
from hwkb.questions.sweeps import SweepResult
from hwkb.solving.scheduler import SimulationResult

__all__ = ["PLOT_FORMATS", "MAX_LINES", "check_plot_path", "plot_utilization", "plot_sweep", "plot_roofline"]

PLOT_FORMATS = ("png", "svg")
MAX_LINES = 12  # a two-axis sweep draws one line per value of its second axis up to this many, else a colour map


def check_plot_path(path: str | Path, overwrite: bool = True) -> str:
    """The format to save ``path`` in, from its suffix; fails before any work if it cannot be drawn.

    Raises :class:`SimulationInputError` for a suffix other than ``.png`` or
    ``.svg``, :class:`QueryError` for an existing file unless ``overwrite`` (the
    command line's --force, as for --output), and :class:`MissingExtraError` if
    matplotlib is not installed.
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in PLOT_FORMATS:
        raise SimulationInputError("plot file", str(path), "a path ending in .png or .svg")
    if not overwrite and Path(path).exists():
        raise QueryError("the file exists", where=Location(str(path)), hint="give --force to replace it")
    _figure_class()
    return suffix


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise MissingExtraError("matplotlib", "plot", "plotting") from exc
    return Figure


def plot_utilization(runs: Sequence[SimulationResult], path: str | Path) -> Path:
    """Draw utilization (0-100 %) against warps, one labelled line per (ilp, compute, latency, policy).

    The file format follows the suffix, ``.png`` or ``.svg``; returns the path written.
    """
    fmt = check_plot_path(path)
    if not runs:
        raise SimulationInputError("runs", list(runs), "at least one SimulationResult")
    lines: dict[tuple[int, int, int, str], list[SimulationResult]] = {}
    for run in runs:
        lines.setdefault((run.ilp, run.compute, run.latency, run.policy), []).append(run)
    figure = _figure_class()(figsize=(7, 4.5), layout="constrained")
    axes = figure.subplots()
    for (ilp, compute, latency, policy), line in lines.items():
        line.sort(key=lambda run: run.warps)
        axes.plot([run.warps for run in line], [100 * run.utilization for run in line], marker="o",
                  label=f"ilp={ilp}, compute={compute}, latency={latency}, {policy}")
    warps = sorted({run.warps for run in runs})
    if warps[-1] >= 16 * warps[0]:  # warps grids are usually powers of two
        axes.set_xscale("log", base=2)
    axes.set_xticks(warps, [str(w) for w in warps])
    axes.set_ylim(0, 100)
    axes.set_xlabel("warps per scheduler")
    axes.set_ylabel("utilization (%)")
    axes.set_title("scheduler utilization")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    path = Path(path)
    figure.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    return path


def _label(key: str, unit: str) -> str:
    return f"{key} [{unit}]" if unit else key


def plot_sweep(result: SweepResult, path: str | Path) -> Path:
    """Draw the sweep into ``path``; returns the path written."""
    fmt = check_plot_path(path)
    if len(result.axes) > 2:
        raise QueryError(f"cannot draw a sweep over {len(result.axes)} variables",
                         hint="plot at most two --sweep axes; use --format csv for more")
    figure = _figure_class()(figsize=(7, 4.5), layout="constrained")
    axes = figure.subplots()
    first = result.axes[0]
    ylabel = _label(result.variable, result.unit)
    if len(result.axes) == 1:
        axes.plot(result.grid[0], result.values, marker="o" if len(first.values) <= 40 else None)
        axes.set_xlabel(_label(first.key, first.unit))
        axes.set_ylabel(ylabel)
    else:
        second = result.axes[1]
        table = result.values.reshape(len(first.values), len(second.values))
        if len(second.values) <= MAX_LINES:
            for j, v in enumerate(second.values):
                axes.plot(first.values, table[:, j], marker="o" if len(first.values) <= 40 else None,
                          label=f"{second.key} = {v:g}")
            axes.legend(fontsize="small")
            axes.set_xlabel(_label(first.key, first.unit))
            axes.set_ylabel(ylabel)
        else:
            mesh = axes.pcolormesh(np.asarray(second.values), np.asarray(first.values), table, shading="auto")
            figure.colorbar(mesh, ax=axes, label=ylabel)
            axes.set_xlabel(_label(second.key, second.unit))
            axes.set_ylabel(_label(first.key, first.unit))
    axes.set_title(result.variable)
    axes.grid(True, alpha=0.3)
    path = Path(path)
    figure.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    return path


def plot_roofline(result, path: str | Path) -> Path:
    """Draw ``result``'s rooflines (a :class:`hwkb.cli.roofline.Rooflines`) on log-log axes.

    One colour per GPU, one line style per roof; each ridge point is marked and labelled with its
    intensity, and each kernel is a dotted vertical line with its attainable throughput on every roof.
    """
    fmt = check_plot_path(path)
    figure = _figure_class()(figsize=(8, 5.5), layout="constrained")
    axes = figure.subplots()
    styles = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 1)), (0, (5, 5))]
    precisions = list(dict.fromkeys(r.precision for g in result.gpus for r in g.roofs))
    ridges = [r.ridge_point for g in result.gpus for r in g.roofs] + [x for _, x in result.points]
    if not ridges:
        raise QueryError("no roofline to draw: no GPU has a peak and a memory bandwidth")
    x_lo, x_hi = min(ridges) / 16, max(ridges) * 16
    xs = np.geomspace(x_lo, x_hi, 200)
    colours = [f"C{i % 10}" for i in range(len(result.gpus))]
    for colour, gpu in zip(colours, result.gpus):
        for roof in gpu.roofs:
            style = styles[precisions.index(roof.precision) % len(styles)]
            axes.plot(xs, np.minimum(roof.peak, xs * gpu.memory_bandwidth / 1000), color=colour, linestyle=style,
                      label=f"{gpu.name} {roof.precision}")
            axes.plot([roof.ridge_point], [roof.peak], marker="o", color=colour)
            axes.annotate(f"{roof.ridge_point:.3g}", (roof.ridge_point, roof.peak), textcoords="offset points",
                          xytext=(4, 4), fontsize="x-small", color=colour)
    for name, intensity in result.points:
        axes.axvline(intensity, color="grey", linestyle=":", linewidth=1)
        axes.annotate(name, (intensity, 1), xycoords=("data", "axes fraction"), textcoords="offset points",
                      xytext=(2, -12), fontsize="small", color="grey")
        for colour, gpu in zip(colours, result.gpus):
            for roof in gpu.roofs:
                axes.plot([intensity], [min(roof.peak, intensity * gpu.memory_bandwidth / 1000)], marker="x",
                          color=colour)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(x_lo, x_hi)
    axes.set_xlabel("arithmetic intensity (flop/B)")
    axes.set_ylabel("attainable throughput (TFLOPS)")
    axes.set_title("roofline (ridge points marked with their intensity)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="x-small", ncol=2)
    path = Path(path)
    figure.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    return path
