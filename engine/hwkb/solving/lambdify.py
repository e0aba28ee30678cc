"""SymPy expressions as plain numeric functions, on floats (``math``) or on arrays (``numpy``).

``sympy.lambdify`` covers everything the whitelist can write except what
``sympy.solve`` brings in on its own: solving ``s = p + exp(p) * q`` for ``p``
gives ``LambertW``, which neither ``math`` nor NumPy has. It is supplied here
from mpmath (a SymPy dependency), real branches only: a complex value is no
value of a KB quantity, so it raises ``ValueError`` like ``math.log(-1)``.

:func:`lambdified_code` is the text ``lambdify`` runs for an expression on
floats. A solved direction is cached as that text (:mod:`hwkb.solving.relations`)
and compiled by the project's own compiler, so a warm run computes exactly what
``lambdify`` computed, without importing SymPy or NumPy; this module imports
them only when one of its functions is called.
"""
from __future__ import annotations

import inspect
import re
from typing import Callable, Sequence

__all__ = ["lambdify_math", "lambdify_numpy", "lambdified_code"]

_ONE_RETURN = re.compile(r"def _lambdifygenerated\([^)]*\):\n    return (?P<code>[^\n]+)\n\Z")


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


def lambdified_code(symbols: Sequence, expr) -> str | None:
    """The one expression :func:`lambdify_math` evaluates for ``expr`` (``'x0/(x1*x2)'``), or None when it
    needs more than one line."""
    try:
        source = inspect.getsource(lambdify_math(symbols, expr))
    except (OSError, TypeError):
        return None
    found = _ONE_RETURN.fullmatch(source)
    return found.group("code") if found else None
