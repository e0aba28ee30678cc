"""Rooflines side by side (``KnowledgeBase.roofline``): each GPU's roofs, ridge points and kernels placed.

Each GPU's roofs are its FP32 peak and every Tensor-Core peak it has, with the ridge point where each
meets the memory bandwidth (the KB's ``ridge_point_fp32`` and ``ridge_point[p]`` laws); a kernel given
as ``(name, intensity)`` (flop/B) is placed on every roof through ``attainable_fp32`` and
``attainable_peak[p]``. How rooflines print and plot is the render stage's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from hwkb.errors import UsageError
from hwkb.results import Result

__all__ = ["Roof", "GpuRoofline", "Rooflines", "rooflines", "parse_point", "FP32"]

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


@dataclass(frozen=True, repr=False)
class Rooflines(Result):
    """What ``roofline`` answers: a row per GPU and roof; ``to_dict()`` is its JSON."""
    gpus: tuple[GpuRoofline, ...]
    points: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict:
        return {"command": "roofline", "status": "ok",
                "gpus": [{"gpu": g.gpu, "name": g.name, "memory_bandwidth": g.memory_bandwidth,
                          "roofs": [r.to_dict(self.points) for r in g.roofs]} for g in self.gpus]}


def parse_point(text: str) -> tuple[str, float]:
    """``'gemm=300'`` as a kernel: its name and arithmetic intensity (flop/B, positive)."""
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


def rooflines(kb, gpus: Sequence[str], points: Sequence[tuple[str, float] | str] = (),
              precisions: Sequence[str] = ()) -> Rooflines:
    """Every GPU's roofs (``precisions``, or FP32 and every Tensor-Core precision it has) with the kernels placed;
    a kernel is ``(name, intensity)`` or ``'name=intensity'``."""
    points = [parse_point(p) if isinstance(p, str) else p for p in points]
    wanted = list(precisions) or [FP32, *kb.model.indices["precision"].values]
    out = []
    for gpu in gpus:
        bandwidth = _value(kb, "memory_bandwidth", gpu)  # an unknown id fails here, as --gpu, with suggestions
        entity = kb.model.entity(gpu)
        if bandwidth is None:
            raise UsageError(f"--gpu {gpu}: its memory bandwidth is not known, so it has no roofline",
                             hint="pick a product that states memory_bandwidth")
        roofs = tuple(r for p in wanted if (r := _roof(kb, gpu, p, points)) is not None)
        out.append(GpuRoofline(gpu, entity.name or gpu, bandwidth, roofs))
    return Rooflines(tuple(out), tuple(points))
