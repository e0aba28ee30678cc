"""Plots of sweeps (``hwkb solve VAR --sweep ... --plot FILE``); matplotlib is the optional ``plot`` extra.

matplotlib is imported only here and only when a plot is asked for; figures
are built with :class:`matplotlib.figure.Figure`, never pyplot, so nothing
global is touched and no display is needed. One axis draws a line; two draw
one line per value of the second axis (up to :data:`MAX_LINES`) or else a
colour map.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .errors import QueryError

if TYPE_CHECKING:
    from .sweep import SweepResult

__all__ = ["PLOT_FORMATS", "MAX_LINES", "check_plot_file", "plot_sweep"]

PLOT_FORMATS = ("png", "svg", "pdf")
MAX_LINES = 12


def check_plot_file(path: str | Path) -> str:
    """The format for ``path`` (from its suffix); fails before any work when it cannot be drawn."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in PLOT_FORMATS:
        raise QueryError(f"cannot draw {str(path)!r}", hint=f"give a file ending in {', '.join('.' + f for f in PLOT_FORMATS)}")
    _figure_class()
    return suffix


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise QueryError("--plot needs matplotlib, which is not installed",
                         hint="install it with: pip install 'hwkb[plot]'") from None
    return Figure


def _label(key: str, unit: str) -> str:
    return f"{key} [{unit}]" if unit else key


def plot_sweep(result: "SweepResult", path: str | Path) -> Path:
    """Draw the sweep into ``path``; returns the path written."""
    import numpy as np
    fmt = check_plot_file(path)
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
