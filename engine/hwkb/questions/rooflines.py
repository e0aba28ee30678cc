"""Rooflines side by side (``KnowledgeBase.roofline``): each GPU's roofs, ridge points and kernels placed.

Each GPU's roofs are its FP32 peak and every Tensor-Core peak it has, with the ridge point where each
meets the memory bandwidth (the KB's ``ridge_point_fp32`` and ``ridge_point[p]`` laws); a kernel given
as ``(name, intensity)`` (flop/B) is placed on every roof through ``attainable_fp32`` and
``attainable_peak[p]``. How rooflines print and plot is the render stage's.

``layers`` (``--with``) and ``facts`` (``--set``) place a workload's kernels too: each of :data:`KERNELS` the
workload's context derives (a model's decode step, its decode attention and prefill, a GEMM's or an attention
layer's shape) is a
point at the intensity its law gives, labelled with the workload whose figures place it and the kernel, never a
stated intensity;
a model's kernel its context cannot settle is named in ``notes`` with what it needs (``batch``).

A roof asked for by name (``precisions``) that a GPU does not have is a :class:`MissingRoof`, with the answer that
says why (the A100's ``tc_peak[fp8]`` is stated n/a from NVIDIA's table), never a row left out in silence.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from hwkb.errors import QueryError, UsageError
from hwkb.questions.comparison import input_needs
from hwkb.results import Result
from hwkb.solving.solution import Solution

__all__ = ["Roof", "MissingRoof", "GpuRoofline", "Rooflines", "rooflines", "parse_point", "workload_points", "FP32",
           "KERNELS"]

FP32 = "fp32"
#: a workload's kernels on the roofline: each one's label and the variable whose law gives its intensity
KERNELS = (("decode", "decode_intensity"), ("decode attention", "decode_attention_intensity"),
           ("prefill", "prefill_intensity"), ("attention", "attention_intensity"), ("GEMM", "arithmetic_intensity"))
#: the kernels every model has (a GEMM's or an attention layer's are the kernel workloads' own)
MODEL_KERNELS = ("decode_intensity", "prefill_intensity")


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
class MissingRoof:
    """A roof asked for that the GPU lacks: ``solution`` is the answer for its peak (or, the peak known, its ridge
    point): not applicable with the n/a it rests on, or underdetermined with what would settle it."""
    precision: str
    solution: Solution

    def to_dict(self) -> dict:
        out = {"precision": self.precision, "variable": self.solution.variable, "status": str(self.solution.status),
               "notes": list(self.solution.notes)}
        if self.solution.needs:
            out["needs"] = [list(n) for n in self.solution.needs]
        return out


@dataclass(frozen=True)
class GpuRoofline:
    gpu: str
    name: str
    memory_bandwidth: float  # GB/s
    roofs: tuple[Roof, ...]
    missing: tuple[MissingRoof, ...] = ()  # the roofs asked for by name that it does not have


@dataclass(frozen=True, repr=False)
class Rooflines(Result):
    """What ``roofline`` answers: a row per GPU and roof; ``to_dict()`` is its JSON."""
    gpus: tuple[GpuRoofline, ...]
    points: tuple[tuple[str, float], ...] = ()
    laws: tuple[str, ...] = ()  # for each point, the variable whose law gave its intensity ("" for --point)
    layers: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        out = {"command": "roofline", "status": "ok",
               "gpus": [{"gpu": g.gpu, "name": g.name, "memory_bandwidth": g.memory_bandwidth,
                         "roofs": [r.to_dict(self.points) for r in g.roofs],
                         **({"missing": [m.to_dict() for m in g.missing]} if g.missing else {})}
                        for g in self.gpus]}
        if self.layers or self.facts:
            laws = self.laws or ("",) * len(self.points)
            out.update({"with": list(self.layers), "given": list(self.facts), "notes": list(self.notes),
                        "kernels": [{"name": name, "intensity": x, "variable": law}
                                    for (name, x), law in zip(self.points, laws) if law]})
        return out


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


def _roof(kb, gpu: str, precision: str, points) -> Roof | MissingRoof:
    peak_key, ridge_key, attainable_key = (("fp32_peak", "ridge_point_fp32", "attainable_fp32") if precision == FP32
                                           else (f"tc_peak[{precision}]", f"ridge_point[{precision}]",
                                                 f"attainable_peak[{precision}]"))
    peak = kb.solve(peak_key, gpu=gpu)
    ridge = kb.solve(ridge_key, gpu=gpu) if peak.determined else peak
    if not ridge.determined:
        return MissingRoof(precision, ridge)
    attainable = tuple(_value(kb, attainable_key, gpu, [f"arithmetic_intensity={x}"]) for _, x in points)
    return Roof(precision, peak.magnitude, ridge.magnitude, attainable, kb.model.unit_of(peak_key),
                kb.model.unit_of(ridge_key))


def workload_points(kb, gpu: str, layers: Sequence[str], facts: Sequence[str] = ()
                    ) -> tuple[list[tuple[str, float]], list[str], list[str]]:
    """The kernels of the workloads in ``layers`` on ``gpu``: their points (label, intensity in flop/B), the
    variable each intensity's law gave, and notes naming a model's kernels the context cannot settle."""
    workloads = [layer for layer in layers if kb.model.entity(layer).kind == "workload"]
    if not workloads:
        raise UsageError(f"--with {' '.join(layers)}: no workload to place on the roofline",
                         hint="layer a workload whose kernels to place, e.g. --with llama-3-70b --with fp8")
    name = "+".join(workloads)
    points, laws, notes = [], [], []
    model = kb.solve("params", None, layers).determined
    for label, key in KERNELS:
        solution = kb.solve(key, gpu, layers, facts)
        if solution.determined and solution.value is not None and not solution.value.stated:
            owners = {v.origin.entity for v in solution.value.facts()}  # the workloads whose figures place it
            points.append((f"{'+'.join(w for w in workloads if w in owners) or name} {label}", solution.magnitude))
            laws.append(key)
        elif model and key in MODEL_KERNELS:
            wanted = " and ".join(input_needs(kb, key, gpu, layers, facts)) or "more figures"
            notes.append(f"{name} {label} not placed: {key} needs {wanted} (give it with --set)")
    if not points and not notes:
        raise QueryError(f"--with {name}: no kernel of it has an intensity here",
                         hint="layer a model (llama-3-70b), a GEMM or an attention workload")
    return points, laws, notes


def rooflines(kb, gpus: Sequence[str], points: Sequence[tuple[str, float] | str] = (),
              precisions: Sequence[str] = (), layers: Sequence[str] = (), facts: Sequence[str] = ()) -> Rooflines:
    """Every GPU's roofs (``precisions``, or FP32 and every Tensor-Core precision it has) with the kernels placed;
    a kernel is ``(name, intensity)`` or ``'name=intensity'``, and those of the workloads ``layers`` hold. A
    precision named in ``precisions`` that a GPU has no roof for is in its ``missing``, with why."""
    points = [parse_point(p) if isinstance(p, str) else p for p in points]
    laws = [""] * len(points)
    notes: list[str] = []
    if layers and gpus:
        placed, placed_laws, notes = workload_points(kb, gpus[0], layers, facts)
        points += placed
        laws += placed_laws
    wanted = list(precisions) or [FP32, *kb.model.indices["precision"].values]
    out = []
    for gpu in gpus:
        bandwidth = _value(kb, "memory_bandwidth", gpu)  # an unknown id fails here, as --gpu, with suggestions
        entity = kb.model.entity(gpu)
        if bandwidth is None:
            raise UsageError(f"--gpu {gpu}: its memory bandwidth is not known, so it has no roofline",
                             hint="pick a product that states memory_bandwidth")
        found = [_roof(kb, gpu, p, points) for p in wanted]
        roofs = tuple(r for r in found if isinstance(r, Roof))
        missing = tuple(r for r in found if isinstance(r, MissingRoof)) if precisions else ()
        out.append(GpuRoofline(gpu, entity.name or gpu, bandwidth, roofs, missing))
    return Rooflines(tuple(out), tuple(points), tuple(laws), tuple(layers), tuple(facts), tuple(notes))
