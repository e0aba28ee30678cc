"""A system's memory as vendors print it: the per-chip "GB" (JEDEC's, 2^30 bytes) multiplied, with decimal prefixes
above it. NVIDIA prints the GB200 NVL72's 72 x 186 GB as "13.4 TB" (13.08 TiB), Google the TPU7x pod's
9,216 x 192 GB as "1.77 PB" (1,728 TiB); kb/units.txt defines the units a stated system figure is read in.
"""
from __future__ import annotations

from typing import Iterable

__all__ = ["vendor_capacity_scale"]

#: binary capacity units above GiB -> GiB each: the units a system's memory is declared in
_GIB_PER = {"TiB": 1024.0, "PiB": 1024.0 ** 2}
_VENDOR = ("GB", "TB", "PB")


def vendor_capacity_scale(unit: str, magnitudes: Iterable[float | None]) -> tuple[float, str] | None:
    """The factor and label that show magnitudes in ``unit`` as vendors print a system's memory, or None for a unit
    that is no binary capacity above GiB (a chip's "80 GB" is shown as its GiB already are).

    >>> factor, label = vendor_capacity_scale("TiB", [13.078125]); round(13.078125 * factor, 3), label
    (13.392, 'TB')
    >>> factor, label = vendor_capacity_scale("TiB", [1728.0]); round(1728.0 * factor, 4), label
    (1.7695, 'PB')
    """
    gib = _GIB_PER.get(unit)
    if gib is None:
        return None
    largest = max((abs(m) for m in magnitudes if m is not None), default=0.0) * gib
    step = 0
    while step < len(_VENDOR) - 1 and largest >= 1000.0 ** (step + 1):
        step += 1
    return gib / 1000.0 ** step, _VENDOR[step]
