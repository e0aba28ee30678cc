"""How a verdict read the printed figures it weighed, where it read them otherwise than rounded to their digits.

A printed figure is known to its last significant digit, but vendors cut figures
short as well as round them (AMD prints 3.2768 TB/s as "3.2 TB/s"), and a figure's
trailing zeros say nothing about its precision ("900 GB/s" for 897), so a figure is
read to at least two significant figures (:func:`~hwkb.definitions.model.printed_interval`).
A check that holds only under such a reading says which one it used, so a reader
can judge it: ``truncated`` where the figures meet only if one was cut short,
``read to 2 significant figures`` where a figure's trailing zeros were dropped.

>>> reading(True, ["memory_bandwidth"])
'truncated; memory_bandwidth read to 2 significant figures'
>>> reading(False, ()) is None
True
"""
from __future__ import annotations

from typing import Iterable

from hwkb.definitions.model import VarKey
from hwkb.definitions.printed import TWO_FIGURES

__all__ = ["reading", "TRUNCATED"]

#: the reading of a check that holds only if a printed figure was cut short rather than rounded
TRUNCATED = "truncated"


def reading(truncated: bool, coarse: Iterable[VarKey]) -> str | None:
    """The reading a within-rounding verdict used: ``truncated``, the figures read to two significant figures,
    both, or None for figures read as rounded to their printed digits."""
    parts = [TRUNCATED] if truncated else []
    parts += [f"{key} {TWO_FIGURES}" for key in coarse]
    return "; ".join(parts) or None
