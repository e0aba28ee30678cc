"""SymPy expressions as plain numeric functions, on floats (``math``) or on arrays (``numpy``).

``sympy.lambdify`` covers everything the whitelist can write except what
``sympy.solve`` brings in on its own: solving ``s = p + exp(p) * q`` for ``p``
gives ``LambertW``, which neither ``math`` nor NumPy has. It is supplied here
from mpmath (a SymPy dependency), real branches only: a complex value is no
value of a KB quantity, so it raises ``ValueError`` like ``math.log(-1)``.

A solved direction is cached as the KB's own expression tree
(:func:`hwkb.definitions.symbolic.from_sympy`), not through this module; a
direction the tree cannot write (``LambertW``) is lambdified here on each run.
SymPy and NumPy are imported only when one of these functions is called.
"""
from __future__ import annotations

from typing import Callable, Sequence

__all__ = ["lambdify_math", "lambdify_numpy"]


def _lambert_w(x: float, branch: int = 0) -> float:
    import mpmath
    w = mpmath.lambertw(x, int(branch))
    if abs(w.imag) > 1e-12 * max(1.0, abs(w.real)):
        raise ValueError(f"LambertW({x:g}) on branch {int(branch)} is not real")
    return float(w.real)


def _lambert_w_array(x, branch=0):
    import numpy as np
    return np.vectorize(lambda v: _lambert_w_or_nan(v, branch), otypes=[float])(x)


def _lambert_w_or_nan(x: float, branch: int) -> float:
    try:
        return _lambert_w(float(x), branch)
    except ValueError:
        return float("nan")


def lambdify_math(symbols: Sequence, expr) -> Callable:
    """A function of floats; raises ValueError (or ZeroDivisionError) outside the domain."""
    import sympy
    return sympy.lambdify(list(symbols), expr, modules=[{"LambertW": _lambert_w}, "math"])


def lambdify_numpy(symbols: Sequence, expr) -> Callable:
    """A function of arrays; NaN outside the domain."""
    import sympy
    return sympy.lambdify(list(symbols), expr, modules=[{"LambertW": _lambert_w_array}, "numpy"])
