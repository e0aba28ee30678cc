"""Blocks: relations that must be solved together, as SymPy systems, exactly where it can and numerically where not.

The solver hands a block its equations with every known value substituted
(numbers); closed forms hand it equations in free symbols. Either way the
answer is the roots with every unknown positive, as every KB quantity is.
Where SymPy gives no explicit numeric root, Newton's method in log space finds
the positive one.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import sympy

from hwkb.definitions.model import VarKey
from hwkb.solving.relations import Relation, key_of_symbol, symbol_of

__all__ = ["BlockRoots", "positive_roots", "newton_positive", "regular_at_random"]

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

    Returns ``{symbol: value}`` or None; tried from a few starting magnitudes, since the canonical
    values of one block can lie many orders apart.
    """
    logs = sympy.symbols(f"u0:{len(unknowns)}", real=True)
    substituted = [e.xreplace({x: sympy.exp(u) for x, u in zip(unknowns, logs)}) for e in equations]
    residual = sympy.lambdify(logs, substituted, modules="numpy")
    jacobian = sympy.lambdify(logs, sympy.Matrix(substituted).jacobian(logs), modules="numpy")
    for start in starts:
        u = np.full(len(unknowns), math.log(start))
        with np.errstate(all="ignore"):
            for _ in range(100):
                r = np.asarray(residual(*u), dtype=float)
                if not np.all(np.isfinite(r)):
                    break
                try:
                    step = np.linalg.solve(np.asarray(jacobian(*u), dtype=float), -r)
                except np.linalg.LinAlgError:
                    break
                u = u + np.clip(step, -5.0, 5.0)  # damped: at most a factor e^5 per iteration
                if np.max(np.abs(step)) < tolerance:
                    return {x: sympy.Float(math.exp(v)) for x, v in zip(unknowns, u)}
    return None


def regular_at_random(relations: Sequence[Relation], outputs: Sequence[VarKey]) -> bool:
    """At random values of its inputs, the block has a positive root with a Jacobian of full rank.

    Structurally, {tc_peak[bf16], tc_peak[fp16]} are two equations in sm_count and clock_tc; in
    numbers both fix only their product. Random inputs matter: two equations that fix only a product
    (or that force a relation among the inputs, such as shading_units = sm_count * fp32_lanes_per_sm)
    have no root there at all. Singular at a generic point means singular everywhere.
    """
    if any(r.template is None for r in relations):
        return True  # a simulated rule: no equation to differentiate
    rng = random.Random(2026)  # a fixed point: the same answer every run
    point = {k: math.exp(rng.uniform(-1.0, 1.0)) for r in relations for k in r.keys if k not in outputs}
    unknowns = [symbol_of(k) for k in outputs]
    equations = [r.residual.xreplace({symbol_of(k): v for k, v in point.items() if k in r.keys})
                 for r in relations]
    root = newton_positive(equations, unknowns)
    if root is None:
        return False
    point.update({key_of_symbol(x): float(v) for x, v in root.items()})
    return _rank(relations, outputs, point) == len(outputs)


def _rank(relations: Sequence[Relation], outputs: Sequence[VarKey], point: dict) -> int:
    """The rank of the block's Jacobian in its outputs at ``point`` (relative finite differences)."""
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
