"""``hwkb roofline --gpu A --gpu B ... [--point NAME=INTENSITY] [--plot FILE]``: rooflines side by side.

Each GPU's roofs are its FP32 peak and every Tensor-Core peak it has, with the ridge point where each
meets the memory bandwidth (the KB's ``ridge_point_fp32`` and ``ridge_point[p]`` laws); a kernel given
as ``--point NAME=INTENSITY`` (flop/B) is placed on every roof through ``attainable_fp32`` and
``attainable_peak[p]``.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from hwkb.cli import flags
from hwkb.cli.plots import check_plot_path, plot_roofline
from hwkb.definitions.display import format_number, format_quantity
from hwkb.errors import KBError, UsageError

__all__ = ["add_arguments", "run", "Roof", "GpuRoofline", "Rooflines", "rooflines", "parse_point"]

FP32 = "fp32"


@dataclass(frozen=True)
class Roof:
    """One flat roof: its precision, peak, ridge point and each kernel's attainable peak, in the units the KB
    gives the precision (TFLOPS and flop/B; TOPS and op/B for an integer one)."""
    precision: str
    peak: float
    ridge_point: float
    attainable: tuple[float, ...] = ()
    peak_unit: str = "TFLOPS"
    ridge_unit: str = "flop/B"

    def to_dict(self, points) -> dict:
        return {"precision": self.precision, "peak": self.peak, "ridge_point": self.ridge_point,
                "points": [{"name": name, "intensity": x, "attainable": a}
                           for (name, x), a in zip(points, self.attainable)]}


@dataclass(frozen=True)
class GpuRoofline:
    gpu: str
    name: str
    memory_bandwidth: float  # GB/s
    roofs: tuple[Roof, ...]


@dataclass(frozen=True)
class Rooflines:
    """What ``hwkb roofline`` prints: a row per GPU and roof; ``to_dict()`` is its JSON."""
    gpus: tuple[GpuRoofline, ...]
    points: tuple[tuple[str, float], ...] = ()

    def table(self) -> list[list[str]]:
        header = ["GPU", "memory GB/s", "roof", "peak", "ridge point",
                  *(f"{name} @ {format_number(x)}" for name, x in self.points)]
        rows = [header]
        for g in self.gpus:
            for roof in g.roofs:
                rows.append([g.gpu, format_number(g.memory_bandwidth), roof.precision,
                             format_quantity(roof.peak, roof.peak_unit),
                             format_quantity(roof.ridge_point, roof.ridge_unit),
                             *(format_number(a) for a in roof.attainable)])
        return rows

    def __str__(self) -> str:
        table = self.table()
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        lines = ["  ".join(c.ljust(w) if i == 0 or i == 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
                 .rstrip() for row in table]
        if self.points:
            lines.append("kernel columns: what each roof allows at the kernel's intensity (flop/B), "
                         "in the roof's peak unit")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"status": "ok", "gpus": [{"gpu": g.gpu, "name": g.name, "memory_bandwidth": g.memory_bandwidth,
                                          "roofs": [r.to_dict(self.points) for r in g.roofs]} for g in self.gpus]}


def parse_point(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    try:
        intensity = float(value)
    except ValueError:
        intensity = -1.0
    if not sep or not name.strip() or not intensity > 0:
        raise UsageError(f"--point: {text!r} is not NAME=INTENSITY", hint="e.g. --point gemm=300 (flop/B, positive)")
    return name.strip(), intensity


def _value(kb, key: str, gpu: str, facts=()) -> float | None:
    solution = kb.solve(key, gpu=gpu, facts=list(facts))
    return solution.magnitude if solution.determined else None


def _roof(kb, gpu: str, precision: str, points) -> Roof | None:
    peak_key, ridge_key, attainable_key = (("fp32_peak", "ridge_point_fp32", "attainable_fp32") if precision == FP32
                                           else (f"tc_peak[{precision}]", f"ridge_point[{precision}]",
                                                 f"attainable_peak[{precision}]"))
    peak, ridge = _value(kb, peak_key, gpu), _value(kb, ridge_key, gpu)
    if peak is None or ridge is None:
        return None
    attainable = tuple(_value(kb, attainable_key, gpu, [f"arithmetic_intensity={x}"]) for _, x in points)
    return Roof(precision, peak, ridge, attainable, kb.model.unit_of(peak_key), kb.model.unit_of(ridge_key))


def rooflines(kb, gpus, points=(), precisions=()) -> Rooflines:
    """Every GPU's roofs (``precisions``, or FP32 and every Tensor-Core precision it has) with the kernels placed."""
    wanted = list(precisions) or [FP32, *kb.model.indices["precision"].values]
    out = []
    for gpu in gpus:
        bandwidth = _value(kb, "memory_bandwidth", gpu)
        if bandwidth is None:
            raise UsageError(f"--gpu {gpu}: its memory bandwidth is not known, so it has no roofline",
                             hint="pick a product that states memory_bandwidth")
        roofs = tuple(r for p in wanted if (r := _roof(kb, gpu, p, points)) is not None)
        entity = kb.model.entities[gpu]
        out.append(GpuRoofline(gpu, entity.name or gpu, bandwidth, roofs))
    return Rooflines(tuple(out), tuple(points))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", action="append", required=True, metavar="ID", help="a product (repeat for several)")
    p.add_argument("--point", action="append", default=[], metavar="NAME=INTENSITY",
                   help="a kernel at an arithmetic intensity in flop/B, placed on every roof")
    p.add_argument("--precision", action="append", default=[], metavar="P",
                   help="the roofs to draw: fp32 or a Tensor-Core precision (default: all the GPU has)")
    p.add_argument("--plot", metavar="FILE", help="also draw the rooflines on log-log axes (.png or .svg)")
    p.add_argument("--force", action="store_true", help="with --plot: replace an existing file")


def run(args: argparse.Namespace) -> int:
    try:
        points = [parse_point(t) for t in args.point]
        if args.plot:
            check_plot_path(args.plot, overwrite=args.force)
        kb = flags.load_kb(args)
        result = rooflines(kb, args.gpu, points, args.precision)
        if args.plot:
            plot_roofline(result, args.plot, overwrite=args.force)
    except KBError as exc:
        return flags.report_error(args.command, args.json, exc)
    flags.emit(args, result, str(result))
    return 0
