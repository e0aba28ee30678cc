"""Blocks: relations that must be solved together, as SymPy systems, exactly where it can and numerically where not.

The solver hands a block its equations with every known value substituted
(numbers); closed forms hand it equations in free symbols. Either way the
answer is the roots with every unknown positive, as every KB quantity is.
Where SymPy gives no explicit numeric root, Newton's method in log space finds
the positive one. SymPy and NumPy are imported when a block is first solved: most
queries have none.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from hwkb.definitions.model import VarKey
from hwkb.solving.relations import Relation, key_of_symbol, symbol_of

if TYPE_CHECKING:
    import sympy

__all__ = ["BlockRoots", "Misfit", "positive_roots", "newton_positive", "regular_at_random", "singular_everywhere",
           "least_misfit"]

#: the relative step of the finite differences (Jacobians, uncertainty)
STEP = 1e-6


@dataclass(frozen=True)
class BlockRoots:
    """The admissible roots of a block; ``numeric`` when they came from Newton's method, not from algebra."""
    roots: tuple[dict, ...]
    numeric: bool = False
    failure: str | None = None   # why SymPy gave nothing, when it raised


def positive_roots(equations: Sequence[sympy.Expr], unknowns: Sequence[sympy.Symbol]) -> BlockRoots:
    """The roots of ``equations = 0`` with every unknown positive (or not known to be otherwise).

    Equations of numbers alone fall back to Newton's method when SymPy has no
    explicit numeric root; symbolic ones keep what SymPy gives.
    """
    import sympy
    numbers_only = all(e.free_symbols <= set(unknowns) for e in equations)
    try:
        roots = sympy.solve(list(equations), list(unknowns), dict=True)
        failure = None
    except (NotImplementedError, ValueError, TypeError) as exc:
        roots, failure = [], str(exc)
    if numbers_only:
        if failure is None and all(r.get(u) is not None and r[u].is_number for r in roots for u in unknowns):
            return BlockRoots(tuple(r for r in roots if all(r[u].is_real and r[u] > 0 for u in unknowns)))
        root = newton_positive(equations, unknowns)
        return BlockRoots(() if root is None else (root,), numeric=root is not None)
    admissible = tuple(r for r in roots if all(u in r and not (r[u].is_number and not r[u].is_positive)
                                               for u in unknowns))
    return BlockRoots(admissible, failure=failure)


def newton_positive(equations, unknowns, starts=(1.0, 1e-3, 1e3, 1e9, 1e-9), tolerance=1e-12) -> dict | None:
    """A positive root of the equations by Newton's method in log space (every KB quantity is positive).

    Returns ``{symbol: value}`` or None (also for a block through ``ceil`` or ``floor``, whose Jacobian has no
    numeric form); tried from a few starting magnitudes, since the canonical values of one block can lie many
    orders apart.
    """
    import numpy as np
    import sympy
    logs = sympy.symbols(f"u0:{len(unknowns)}", real=True)
    functions = _residual_and_jacobian([e.xreplace({x: sympy.exp(u) for x, u in zip(unknowns, logs)})
                                        for e in equations], logs)
    if functions is None:
        return None
    for start in starts:
        u = _newton_from(*functions, np.full(len(unknowns), math.log(start)), clip=5.0,  # at most e^5 a step
                         converged=lambda step, u: np.max(np.abs(step)) < tolerance)
        if u is not None:
            return {x: sympy.Float(math.exp(v)) for x, v in zip(unknowns, u)}
    return None


def regular_at_random(relations: Sequence[Relation], outputs: Sequence[VarKey]) -> bool:
    """At random values of its inputs, the block has a root with a Jacobian of full rank.

    Structurally, {tc_peak[bf16], tc_peak[fp16]} are two equations in sm_count and clock_tc; in
    numbers both fix only their product. Random inputs matter: two equations that fix only a product
    (or that force a relation among the inputs, such as shading_units = sm_count * fp32_lanes_per_sm)
    have no root there at all. Singular at a generic point means singular everywhere.

    The root need not be positive: random inputs are no real GPU's, and x + y = a, x - y = b, which fix
    both, put y below 0 wherever b > a. A positive root is sought first (in log space, where the KB's
    products are easy), then one of any sign but 0: two laws that force a relation among the inputs
    (fp32_peak = sm_count * fp32_lanes_per_sm * fp32_lane_rate * clock_fp32 and fp32_peak = shading_units *
    fp32_lane_rate * clock_fp32, for fp32_peak and clock_fp32) meet only at 0, which is no quantity's value.
    """
    if any(r.template is None for r in relations):
        return True  # a simulated rule: no equation to differentiate
    import sympy
    rng = random.Random(2026)  # a fixed point: the same answer every run
    point = {k: math.exp(rng.uniform(-1.0, 1.0)) for r in relations for k in r.keys if k not in outputs}
    unknowns = [symbol_of(k) for k in outputs]
    equations = [r.residual.xreplace({symbol_of(k): sympy.Float(v) for k, v in point.items() if k in r.keys})
                 for r in relations]  # SymPy numbers: a residual of inputs alone (0 * y) stays an expression
    root = newton_positive(equations, unknowns) or _newton_real(equations, unknowns)
    if root is None:
        return False
    point.update({key_of_symbol(x): float(v) for x, v in root.items()})
    return _rank(relations, outputs, point) == len(outputs)


def _newton_real(equations, unknowns, starts=(1.0, -1.0, 1e3, -1e3), tolerance=1e-12) -> dict | None:
    """A real root of any sign, every output away from 0, by Newton's method, or None: what
    :func:`regular_at_random` needs where the random inputs leave no positive root."""
    import numpy as np
    import sympy
    functions = _residual_and_jacobian(list(equations), list(unknowns))
    if functions is None:
        return None
    for start in starts:
        x = _newton_from(*functions, np.full(len(unknowns), start), clip=None,
                         converged=lambda step, x: np.max(np.abs(step)) <= tolerance * max(1.0, np.max(np.abs(x))))
        if x is not None and np.min(np.abs(x)) > _ZERO * max(1.0, np.max(np.abs(x))):  # a root at 0: no quantity's
            return {u: sympy.Float(v) for u, v in zip(unknowns, x)}
    return None


def _residual_and_jacobian(equations, variables):
    """The equations and their Jacobian as NumPy functions of ``variables``, or None for a block through a step
    (``ceil``, ``floor``), whose derivative NumPy cannot print: such a block has no Newton root."""
    import sympy
    residual = sympy.lambdify(variables, equations, modules="numpy")
    try:
        return residual, sympy.lambdify(variables, sympy.Matrix(equations).jacobian(variables), modules="numpy")
    except NotImplementedError:
        return None


def _newton_from(residual, jacobian, x, clip, converged):
    """Newton's iteration from ``x`` (each step clipped to ``clip`` if given) until ``converged(step, x)``;
    None where it leaves the finite numbers, meets a singular Jacobian or runs 100 steps."""
    import numpy as np
    with np.errstate(all="ignore"):
        for _ in range(100):
            r = np.asarray(residual(*x), dtype=float)
            if not np.all(np.isfinite(r)):
                return None
            try:
                step = np.linalg.solve(np.asarray(jacobian(*x), dtype=float), -r)
            except np.linalg.LinAlgError:
                return None
            x = x + (step if clip is None else np.clip(step, -clip, clip))
            if converged(step, x):
                return x
    return None
    for start in starts:
        x = np.full(len(unknowns), start)
        with np.errstate(all="ignore"):
            for _ in range(100):
                r = np.asarray(residual(*x), dtype=float)
                if not np.all(np.isfinite(r)):
                    break
                try:
                    step = np.linalg.solve(np.asarray(jacobian(*x), dtype=float), -r)
                except np.linalg.LinAlgError:
                    break
                x = x + step
                if np.max(np.abs(step)) <= tolerance * max(1.0, np.max(np.abs(x))):
                    if np.min(np.abs(x)) <= _ZERO * max(1.0, np.max(np.abs(x))):
                        break  # a root at 0: no quantity's
                    return {u: sympy.Float(v) for u, v in zip(unknowns, x)}
    return None


#: how near 0, relative to the largest, an output of a root found at inputs near 1 must be to count as 0
_ZERO = 1e-9


def singular_everywhere(relations: Sequence[Relation], outputs: Sequence[VarKey]) -> bool:
    """The block's Jacobian in its outputs is short of full rank at a random point, so everywhere.

    Two equations that fix only a product (a GPU's shading units and its FP32 peak, both through
    sm_count * fp32_lanes_per_sm) are such a block: where the figures agree every split of the product is a
    root, so a root found is arbitrary, and where they do not there is none. No root is needed to see it.
    """
    if any(r.template is None for r in relations):
        return False  # a simulated rule: no equation to differentiate
    rng = random.Random(2027)  # a fixed point: the same answer every run
    point = {k: math.exp(rng.uniform(-1.0, 1.0)) for r in relations for k in r.keys}
    try:
        return _rank(relations, outputs, point) < len(outputs)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return False  # not defined there: left to the roots


@dataclass(frozen=True)
class Misfit:
    """How far a block's relations are from holding together, at the positive outputs that bring them closest.

    ``misses`` are each relation's relative miss there (as a log ratio of its sides), ``slack`` what its known
    values' rounding allows it; the block is contradictory when one miss exceeds its slack.
    """
    misses: tuple[float, ...]
    slack: tuple[float, ...]
    point: dict

    @property
    def contradictory(self) -> bool:
        return any(abs(m) > s for m, s in zip(self.misses, self.slack))

    @property
    def spread(self) -> float:
        """The relative gap between the relations at the closest fit: what the figures would have to move, in all."""
        return math.expm1(sum(abs(m) for m in self.misses))


def least_misfit(relations: Sequence[Relation], outputs: Sequence[VarKey], known: dict[VarKey, float],
                 slack: Sequence[float]) -> Misfit | None:
    """The closest fit of a block that has no root: Gauss-Newton on each relation's log ratio of sides over its slack.

    A singular block (two peaks fixing only the product SMs x clock) has a root only where its known values
    agree; where they do not, the least-squares fit in the logarithms of the outputs shows by how much. Product
    laws are linear in those logarithms, so the fit is found in a step; None if a side is not positive.
    """
    import numpy as np

    def misses(logs) -> np.ndarray | None:
        point = {**known, **{k: math.exp(u) for k, u in zip(outputs, logs)}}
        out = []
        for relation in relations:
            try:
                lhs, rhs = relation.residual_value(point)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                return None
            if not (lhs > 0 and rhs > 0 and math.isfinite(lhs) and math.isfinite(rhs)):
                return None
            out.append(math.log(lhs / rhs))
        return np.array(out)

    weights = 1.0 / np.asarray(slack, dtype=float)
    logs = np.zeros(len(outputs))
    for _ in range(50):
        r = misses(logs)
        if r is None:
            return None
        jacobian = np.empty((len(relations), len(outputs)))
        for j in range(len(outputs)):
            shifted = logs.copy()
            shifted[j] += STEP
            r2 = misses(shifted)
            if r2 is None:
                return None
            jacobian[:, j] = (r2 - r) / STEP
        step = np.linalg.lstsq(jacobian * weights[:, None], -r * weights, rcond=None)[0]
        logs = logs + np.clip(step, -20.0, 20.0)
        if np.max(np.abs(step)) < 1e-10:
            break
    r = misses(logs)
    if r is None:
        return None
    return Misfit(tuple(float(m) for m in r), tuple(float(x) for x in slack),
                  {k: math.exp(u) for k, u in zip(outputs, logs)})


def _rank(relations: Sequence[Relation], outputs: Sequence[VarKey], point: dict) -> int:
    """The rank of the block's Jacobian in its outputs at ``point`` (relative finite differences)."""
    import numpy as np
    jacobian = []
    for relation in relations:
        lhs, rhs = relation.residual_value(point)
        scale = max(abs(lhs), abs(rhs)) or 1.0
        row = []
        for key in outputs:
            shifted = dict(point)
            shifted[key] = point[key] * (1 + STEP)
            l2, r2 = relation.residual_value(shifted)
            row.append(((l2 - r2) - (lhs - rhs)) / (STEP * scale))
        jacobian.append(row)
    return int(np.linalg.matrix_rank(np.array(jacobian), tol=1e-4))
