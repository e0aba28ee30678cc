"""The one syntax of quantities as text: how a number with its unit is written and read.

How one is shown is :mod:`~hwkb.definitions.display`.

A KB file, ``--set``, ``--given`` and a sweep value share one grammar: a number
(a Python float literal, underscores allowed; an exponent needs digits, so
``16exp/cycle`` is 16 of the unit ``exp/cycle``), then an optional unit in the
project's unit grammar (:mod:`hwkb.definitions.units`), or ``n/a`` (also ``na``, ``none``; any case) for a quantity that
does not exist. A bare number is in the unit it is read for.

>>> from hwkb.errors import Location
>>> from hwkb.formats.resources import default_kb_dirs
>>> from hwkb.definitions.units import Units
>>> units = Units.from_file(default_kb_dirs()[0] / "units.txt")
>>> reading = read_quantity("1500 MHz", "GHz", units, Location("--set"), key="clock_tc")
>>> reading.number, reading.magnitude, reading.unit, reading.value
('1500', 1500.0, 'MHz', 1.5)
>>> read_quantity("N/A", "GHz", units, Location("--set")).applicable
False
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from hwkb.definitions.display import format_number  # where renderers have always found them
from hwkb.definitions.limits import MAX_MAGNITUDE, MAX_QUANTITY_CHARS
from hwkb.definitions.units import NUMBER, Units
from hwkb.errors import LimitError, Location, UnitError

__all__ = ["NOT_APPLICABLE", "QuantityReading", "read_quantity", "format_number"]

#: the spellings of "this quantity does not exist here", compared without case
NOT_APPLICABLE = ("n/a", "na", "none")


@dataclass(frozen=True)
class QuantityReading:
    """Quantity text as read: the digits as printed, the magnitude in the unit written, the value in the unit asked.

    Not applicable (``n/a``): ``number`` is the text as written, ``magnitude`` and ``value`` are None and
    ``unit`` is the unit asked for.
    """
    text: str
    number: str
    magnitude: float | None
    unit: str
    value: float | None

    @property
    def applicable(self) -> bool:
        return self.magnitude is not None


def read_quantity(text: str, unit: str, units: Units, where: Location, *, key: str | None = None,
                  in_file: bool = False, positive: bool = False) -> QuantityReading:
    """``text`` read as a value of ``unit``: a number with an optional unit of the same dimension, or n/a.

    A number and a unit and nothing else: the unit is read by the project's grammar
    (:func:`~hwkb.definitions.units.parse_unit_text`), never by Pint's evaluator. Negative and non-finite
    numbers are refused (every KB quantity is a count, rate, size or time), and so are magnitudes beyond
    :data:`~hwkb.definitions.limits.MAX_MAGNITUDE`. ``key`` names the variable in messages; ``in_file`` gives
    the hints for a KB file, where a value is written with its unit, rather than those for a flag, where the
    unit is optional; ``positive`` refuses zero too (a variable declared ``positive: true``, such as an SM
    count, where zero would only make every law through it degenerate). Raises UnitError or LimitError at
    ``where``.
    """
    text = text.strip()
    if len(text) > MAX_QUANTITY_CHARS:
        raise LimitError("length", f"{len(text)} characters", f"{MAX_QUANTITY_CHARS} characters",
                         subject=f"quantity {text[:20]!r}...", where=where)
    if text.lower() in NOT_APPLICABLE:
        return QuantityReading(text, text, None, unit, None)
    shown = unit or "plain numbers"
    number, written = _split(text, unit)
    if in_file:
        how = f"write a number and a unit that fits {unit or 'a count'}, e.g. '{f'1 {unit}' if unit else '1'}'"
    else:
        how = f"write a number, optionally with a unit of {unit or 'a count'}"
    cannot_read = UnitError(f"cannot read {text!r} as " + (f"a value of {key}" if key else "a number"),
                            where=where, hint=how)
    try:
        magnitude = float(number)
    except ValueError:
        raise cannot_read from None
    try:
        fits = units.dimensions(written) == units.dimensions(unit)
    except LimitError as exc:
        raise exc.at(where) from None
    except UnitError as exc:
        if exc.message.startswith("unit "):  # out of range
            raise UnitError(f"{exc.message} in {text!r}", where=where, hint=exc.hint) from None
        if not in_file:
            raise cannot_read from None
        if not exc.message.startswith("unknown unit"):  # the grammar: say what in it is wrong
            raise UnitError(f"{exc.message} in {text!r}", where=where, hint=exc.hint) from None
        raise UnitError(f"unknown unit {written!r} in {text!r}", where=where,
                        hint=f"units are defined in {Path(units.source).name}; {key or 'the value'} is in {shown}"
                        ) from None
    if not fits:
        variable = f"{key}, which is in {shown}" if key else f"a variable in {shown}"
        raise UnitError(f"{text!r} does not fit {variable}", where=where,
                        hint=f"give it in {shown}" + (" or a unit of the same dimension" if in_file else ""))
    value = magnitude if written == unit else units.from_canonical(units.to_canonical(magnitude, written), unit)
    if not (math.isfinite(magnitude) and math.isfinite(value)):
        raise UnitError(f"{text!r} is not a finite number", where=where)
    if magnitude < 0:
        raise UnitError(f"{text!r} is negative, and no KB quantity is", where=where,
                        hint=f"give the size of {key or 'the value'}"
                             + ("; every variable is a count, rate, size or time" if in_file else ""))
    if positive and magnitude == 0:
        raise UnitError(f"{text!r} is zero, but {key or 'the value'} must be positive", where=where,
                        hint="give a value above 0, or n/a where the quantity does not exist")
    largest = max(magnitude, value)
    if largest > MAX_MAGNITUDE:
        raise LimitError("magnitude", f"{largest:g}", f"{MAX_MAGNITUDE:g}", subject=repr(text), where=where)
    return QuantityReading(text, number, magnitude, written, value)


def _split(text: str, unit: str) -> tuple[str, str]:
    """'989.4 TFLOPS' -> ('989.4', 'TFLOPS'); a bare number takes ``unit``; no number gives ''."""
    match = NUMBER.match(text)
    if match is None:
        return "", unit
    written = text[match.end():].strip()
    if written.startswith("/"):  # '1 /cycle' is one per cycle: the unit is 1/cycle
        written = "1" + written
    return match.group(0), written or unit
