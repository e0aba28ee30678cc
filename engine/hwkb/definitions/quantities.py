"""The one syntax of quantities as text: how a number with its unit is written and shown.

Printing lives here; reading (``'989.4 TFLOPS'``, ``n/a``) joins it, so a KB
file, ``--set``, ``--given`` and a sweep value share one grammar.
"""
from __future__ import annotations

import math

__all__ = ["format_number"]


def format_number(x: float | None, digits: int = 4) -> str:
    """Four significant digits; whole numbers below 1e9 as integers.

    >>> format_number(1.8299449), format_number(989.4), format_number(3.86484e12), format_number(128.0)
    ('1.83', '989.4', '3.865e+12', '128')
    """
    if x is None:
        return "-"
    if math.isfinite(x) and x == int(x) and abs(x) < 1e9:
        return str(int(x))
    return f"{x:.{digits}g}"
