"""Plots of simulation runs and of sweeps; matplotlib is an optional extra (``pip install 'hwkb[plot]'``).

matplotlib is imported only inside the functions here, so the rest of the
engine, and ``import hwkb.render.plots`` itself, work without it. The figures are
built with :class:`matplotlib.figure.Figure` directly, never through pyplot,
so drawing leaves no global state behind and needs no display.
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from hwkb.definitions.quantities import format_number
from hwkb.errors import MissingExtraError, QueryError, SimulationInputError
from hwkb.render.files import check_target, write_atomic

if TYPE_CHECKING:  # names for the annotations: a simulation's plot needs no SymPy, which the sweeps import
    from hwkb.questions.sweeps import SweepResult
    from hwkb.simulation.scheduler import SimulationResult

__all__ = ["PLOT_FORMATS", "MAX_LINES", "check_plot_path", "plot_utilization", "plot_sweep", "plot_roofline",
           "utilization_figure", "sweep_figure", "context_title", "roofline_figure", "whole_number_ticks", "run_labels", "roof_groups",
           "spread"]

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
    check_target(Path(path), overwrite)
    _figure_class()
    return suffix


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise MissingExtraError("matplotlib", "plot", "plotting") from exc
    return Figure


#: the simulation's parameters as a legend or title names them, with their units
RUN_PARAMETERS = (("ilp", "ilp={}"), ("compute", "compute={}"), ("latency", "latency={} cycles"), ("policy", "{}"))


def _save(figure, path: str | Path, fmt: str, overwrite: bool) -> Path:
    """Draw ``figure`` in memory and write it through the one writer (:func:`~hwkb.render.files.write_atomic`)."""
    path = Path(path)
    drawn = io.BytesIO()
    figure.savefig(drawn, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    write_atomic(path, drawn.getvalue(), overwrite=overwrite)
    return path


def whole_number_ticks(values: Sequence[float], log: bool, most: int = 10) -> list[float]:
    """The ticks of an axis of whole numbers: every value when they are few, else a readable subset.

    On a log axis the powers of two between the ends (and the ends), thinned to at most ``most``, so that
    10, 12, 16, 20, 24, 28, 32 do not smear into one label; on a linear axis every k-th value.

    >>> whole_number_ticks([1, 2, 4, 8, 16], log=True)
    [1, 2, 4, 8, 16]
    >>> whole_number_ticks(list(range(1, 33)), log=True)
    [1, 2, 4, 8, 16, 32]
    >>> whole_number_ticks(list(range(10, 33)), log=True)
    [10, 16, 32]
    >>> whole_number_ticks(list(range(0, 101, 5)), log=False)
    [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    """
    values = sorted(set(values))
    if len(values) <= most:
        return values
    if log:
        lo, hi = values[0], values[-1]
        powers = [2 ** k for k in range(int(np.ceil(np.log2(lo))), int(np.floor(np.log2(hi))) + 1)]
        ticks = sorted({lo, *powers, hi})
        step = int(np.ceil(len(ticks) / most))
        return ticks[::step] if ticks[::step][-1] == hi else [*ticks[::step], hi]
    step = int(np.ceil((len(values) - 1) / most))
    return values[::step]


def run_labels(runs: Sequence[SimulationResult]) -> tuple[str, dict[tuple, str]]:
    """The title's constant parameters and each line's legend text (the parameters that vary between lines)."""
    keys = sorted({tuple(getattr(run, name) for name, _ in RUN_PARAMETERS) for run in runs}, key=str)
    varying = [i for i in range(len(RUN_PARAMETERS)) if len({key[i] for key in keys}) > 1]
    constant = [RUN_PARAMETERS[i][1].format(keys[0][i]) for i in range(len(RUN_PARAMETERS)) if i not in varying]
    labels = {key: ", ".join(RUN_PARAMETERS[i][1].format(key[i]) for i in varying) for key in keys}
    return ", ".join(constant), labels


def plot_utilization(runs: Sequence[SimulationResult], path: str | Path, overwrite: bool = True) -> Path:
    """Draw utilization (0-100 %) against warps per scheduler, one line per configuration.

    The parameters every run shares go to the title, the ones that vary to the legend. The file format
    follows the suffix, ``.png`` or ``.svg``; returns the path written.
    """
    fmt = check_plot_path(path, overwrite)
    if not runs:
        raise SimulationInputError("runs", list(runs), "at least one SimulationResult")
    return _save(utilization_figure(runs), path, fmt, overwrite)


def utilization_figure(runs: Sequence[SimulationResult]):
    """The figure :func:`plot_utilization` saves."""
    constant, labels = run_labels(runs)
    lines: dict[tuple, list[SimulationResult]] = {}
    for run in runs:
        lines.setdefault(tuple(getattr(run, name) for name, _ in RUN_PARAMETERS), []).append(run)
    figure = _figure_class()(figsize=(7, 4.5), layout="constrained")
    axes = figure.subplots()
    for key in labels:
        line = sorted(lines[key], key=lambda run: run.warps)
        axes.plot([run.warps for run in line], [100 * run.utilization for run in line], marker="o",
                  clip_on=False, label=labels[key] or None)
    warps = sorted({run.warps for run in runs})
    log = warps[-1] >= 16 * warps[0]  # warps grids are usually powers of two
    if log:
        axes.set_xscale("log", base=2)
        axes.minorticks_off()
    ticks = whole_number_ticks(warps, log)
    axes.set_xticks(ticks, [str(w) for w in ticks])
    axes.set_ylim(0, 100)
    axes.set_xlabel("warps per scheduler")
    axes.set_ylabel("utilization (%)")
    axes.set_title("scheduler utilization" + (f" ({constant})" if constant else ""))
    axes.grid(True, alpha=0.3)
    if len(labels) > 1:
        axes.legend(fontsize="small")
    return figure


def _label(key: str, unit: str) -> str:
    return f"{key} ({unit})" if unit else key


def _value_label(key: str, value: float, unit: str) -> str:
    return f"{key} = {value:g}" + (f" {unit}" if unit else "")


def context_title(gpu: str | None = None, layers: Sequence[str] = (), facts: Sequence[str] = (),
                  where: Sequence[str] = ()) -> str:
    """What a sweep holds constant, for its title: ``h100-sxm + sfu-doubled, tile_m=64, d_v = d_qk``."""
    entities = " + ".join([*([gpu] if gpu else []), *layers])
    return ", ".join(part for part in (entities, *facts, *where) if part)


def plot_sweep(result: SweepResult, path: str | Path, context: str = "", overwrite: bool = True) -> Path:
    """Draw the sweep into ``path``, ``context`` (what it holds constant) under its title; returns the path."""
    fmt = check_plot_path(path, overwrite)
    if len(result.axes) > 2:
        raise QueryError(f"cannot draw a sweep over {len(result.axes)} variables",
                         hint="plot at most two --sweep axes; use --format csv for more")
    return _save(sweep_figure(result, context), path, fmt, overwrite)


def sweep_figure(result: SweepResult, context: str = ""):
    """The figure :func:`plot_sweep` saves: a line (per value of a second axis), or a colour map for many."""
    figure = _figure_class()(figsize=(7, 4.5), layout="constrained")
    axes = figure.subplots()
    first = result.axes[0]
    ylabel = _label(result.variable, result.unit)
    marker = "o" if len(first.values) <= 40 else None
    x_axis = first
    if len(result.axes) == 1:
        axes.plot(result.grid[0], result.values, marker=marker, clip_on=False)
        axes.set_ylabel(ylabel)
    else:
        second = result.axes[1]
        table = result.values.reshape(len(first.values), len(second.values))
        if len(second.values) <= MAX_LINES:
            for j, v in enumerate(second.values):
                axes.plot(first.values, table[:, j], marker=marker, clip_on=False,
                          label=_value_label(second.key, v, second.unit))
            axes.legend(fontsize="small")
            axes.set_ylabel(ylabel)
        else:
            mesh = axes.pcolormesh(np.asarray(second.values), np.asarray(first.values), table, shading="auto")
            figure.colorbar(mesh, ax=axes, label=ylabel)
            axes.set_ylabel(_label(first.key, first.unit))
            x_axis = second
    axes.set_xlabel(_label(x_axis.key, x_axis.unit))
    if x_axis.integer:
        ticks = whole_number_ticks(x_axis.values, log=False)
        axes.set_xticks(ticks, [f"{t:g}" for t in ticks])
    axes.set_title(_label(result.variable, result.unit) + f" over {' and '.join(a.key for a in result.axes)}"
                   + (f"\n{context}" if context else ""))
    axes.grid(True, alpha=0.3)
    return figure


def roof_groups(gpu) -> list[tuple[str, float, float]]:
    """A GPU's distinct roofs as (precisions joined, peak, ridge point): peaks equal to the four digits shown are
    one line, not two.

    ``gpu`` is a :class:`hwkb.questions.rooflines.GpuRoofline`.
    """
    groups: dict[float, list] = {}
    for roof in gpu.roofs:
        groups.setdefault(float(f"{roof.peak:.4g}"), []).append(roof)
    return [(", ".join(r.precision for r in roofs), roofs[0].peak, roofs[0].ridge_point) for roofs in groups.values()]


def spread(positions: Sequence[float], gap: float) -> list[float]:
    """``positions`` moved apart, as little as may be, so that neighbours are at least ``gap`` apart (order kept).

    >>> spread([0.0, 0.01, 1.0], 0.1)
    [-0.045, 0.055, 1.0]
    """
    order = sorted(range(len(positions)), key=lambda i: positions[i])
    placed = [positions[i] for i in order]
    for _ in range(len(placed)):  # push up, then centre each cluster on its wish
        for k in range(1, len(placed)):
            placed[k] = max(placed[k], placed[k - 1] + gap)
        clusters, start = [], 0
        for k in range(1, len(placed) + 1):
            if k == len(placed) or placed[k] - placed[k - 1] > gap + 1e-12:
                clusters.append((start, k))
                start = k
        moved = False
        for a, b in clusters:
            shift = sum(positions[order[k]] - placed[k] for k in range(a, b)) / (b - a)
            if a > 0:
                shift = max(shift, placed[a - 1] + gap - placed[a])
            if abs(shift) > 1e-12:
                moved = True
                for k in range(a, b):
                    placed[k] += shift
        if not moved:
            break
    out = [0.0] * len(placed)
    for k, i in enumerate(order):
        out[i] = round(placed[k], 12)
    return out


def plot_roofline(result, path: str | Path, overwrite: bool = True) -> Path:
    """Draw ``result``'s rooflines (a :class:`hwkb.questions.rooflines.Rooflines`) on log-log axes; returns the path."""
    fmt = check_plot_path(path, overwrite)
    return _save(roofline_figure(result), path, fmt, overwrite)


def roofline_figure(result):
    """The figure :func:`plot_roofline` saves.

    One colour per GPU: its memory roof (the slope, its bandwidth in the legend) and each distinct flat roof,
    labelled at the right with its precisions and peak; each ridge point is marked and labelled with its
    intensity in flop/B, and each kernel is a dotted vertical line with a cross where it meets every roof.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator
    groups = [roof_groups(gpu) for gpu in result.gpus]
    ridges = [ridge for g in groups for _, _, ridge in g] + [x for _, x in result.points]
    if not ridges:
        raise QueryError("no roofline to draw: no GPU has a peak and a memory bandwidth")
    x_lo, x_hi = min(ridges) / 16, max(ridges) * 16
    peaks = [peak for g in groups for _, peak, _ in g]
    crossings = [min(peak, x * gpu.memory_bandwidth / 1000) for gpu, g in zip(result.gpus, groups)
                 for _, peak, _ in g for _, x in result.points]  # a decode step sits far below the ridges
    y_lo, y_hi = min([min(peaks) / 100, *(c / 3 for c in crossings)]), max(peaks) * 2
    figure = _figure_class()(figsize=(9, 6), layout="constrained")
    axes = figure.subplots()
    labels = []  # (log10 of the roof, text, colour)
    for i, (gpu, roofs) in enumerate(zip(result.gpus, groups)):
        colour = f"C{i % 10}"
        per_tflops = gpu.memory_bandwidth / 1000  # GB/s x flop/B = Gflop/s; the axis is in TFLOPS
        top_ridge = max(ridge for _, _, ridge in roofs)
        axes.plot([x_lo, top_ridge], [x_lo * per_tflops, top_ridge * per_tflops], color=colour, linewidth=2,
                  label=f"{gpu.name}: {format_number(gpu.memory_bandwidth)} GB/s")
        for precisions, peak, ridge in roofs:
            axes.plot([ridge, x_hi], [peak, peak], color=colour, linewidth=2)
            axes.plot([ridge], [peak], marker="o", color=colour)
            axes.annotate(f"{format_number(ridge, 3)} flop/B", (ridge, peak), textcoords="offset points",
                          xytext=(-6, 4), ha="right", fontsize="small", color=colour)
            labels.append((np.log10(peak), f"{precisions} {format_number(peak)}", colour))
        for name, intensity in result.points:
            for _, peak, _ in roofs:
                axes.plot([intensity], [min(peak, intensity * per_tflops)], marker="x", color=colour, markersize=7)
    gap = 0.05 * (np.log10(y_hi) - np.log10(y_lo))
    for y, (_, text, colour) in zip(spread([y for y, _, _ in labels], gap), labels):
        axes.annotate(text, (1, 10 ** y), xycoords=("axes fraction", "data"), textcoords="offset points",
                      xytext=(4, 0), va="center", fontsize="small", color=colour, annotation_clip=False)
    for name, intensity in result.points:
        axes.axvline(intensity, color="grey", linestyle=":", linewidth=1)
        axes.annotate(f"{name}\n{format_number(intensity, 3)} flop/B", (intensity, 0), textcoords="offset points",
                      xycoords=("data", "axes fraction"), xytext=(3, 4), fontsize="small", color="dimgrey")
    axes.plot([], [], marker="o", color="black", linestyle="none", label="ridge points (flop/B)")
    if result.points:
        axes.plot([], [], marker="x", color="black", linestyle="none", label="kernels on each roof")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(x_lo, x_hi)
    axes.set_ylim(y_lo, y_hi)
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    for axis in (axes.xaxis, axes.yaxis):
        axis.set_major_locator(LogLocator(base=10))
        axis.set_major_formatter(plain)
    int8 = any("int8" in text for _, text, _ in labels)
    axes.set_xlabel("arithmetic intensity (flop/B)")
    axes.set_ylabel("attainable throughput (TFLOPS" + ("; TOPS for int8)" if int8 else ")"))
    axes.set_title("Rooflines: " + ", ".join(gpu.name for gpu in result.gpus)
                   + "\nflat roofs labelled with their precisions and peak (TFLOPS)")
    axes.grid(True, which="major", alpha=0.4)
    axes.grid(True, which="minor", alpha=0.12)
    axes.legend(loc="upper left", fontsize="small")  # above the memory roofs, where no roof runs
    return figure
