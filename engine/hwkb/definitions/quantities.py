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
import re
from dataclasses import dataclass
from pathlib import Path

from hwkb.definitions.display import JEDEC_NOTE, format_number  # where renderers have always found them
from hwkb.definitions.limits import MAX_MAGNITUDE, MAX_QUANTITY_CHARS, MIN_MAGNITUDE
from hwkb.definitions.units import NUMBER, Units
from hwkb.errors import LimitError, Location, UnitError

__all__ = ["NOT_APPLICABLE", "QuantityReading", "read_quantity", "format_number", "jedec_unit", "jedec_label",
           "JEDEC_NOTE"]

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
    printed: str | None = None  # the unit as written, where it is read as another (a capacity's GB as GiB)

    @property
    def applicable(self) -> bool:
        return self.magnitude is not None


def read_quantity(text: str, unit: str, units: Units, where: Location, *, key: str | None = None,
                  in_file: bool = False, positive: bool = False, integer: bool = False, capacity: bool = False,
                  least: float | None = None) -> QuantityReading:
    """``text`` read as a value of ``unit``: a number with an optional unit of the same dimension, or n/a.

    A number and a unit and nothing else: the unit is read by the project's grammar
    (:func:`~hwkb.definitions.units.parse_unit_text`), never by Pint's evaluator. Negative and non-finite
    numbers are refused (every KB quantity is a count, rate, size or time), and so are magnitudes beyond
    :data:`~hwkb.definitions.limits.MAX_MAGNITUDE`. ``key`` names the variable in messages; ``in_file`` gives
    the hints for a KB file, where a value is written with its unit, rather than those for a flag, where the
    unit is optional; ``positive`` refuses zero too (a variable declared ``positive: true``, such as an SM
    count, where zero would only make every law through it degenerate). A magnitude above zero but below
    ``least`` (the variable's smallest physical value, in ``unit``) or below
    :data:`~hwkb.definitions.limits.MIN_MAGNITUDE` is refused as zero is: ``1e-320`` SMs is no figure.
    ``integer`` refuses a value that is not whole (a flag's count; a KB file may give an estimate a tolerance
    instead). ``capacity`` reads a decimal prefix of bytes as the binary one vendors mean by it (JEDEC: a
    printed ``80 GB`` of HBM is 80 GiB), keeping the unit as written in ``printed``. Raises UnitError or
    LimitError at ``where``.
    """
    text = text.strip()
    if len(text) > MAX_QUANTITY_CHARS:
        raise LimitError("length", f"{len(text)} characters", f"{MAX_QUANTITY_CHARS} characters",
                         subject=f"quantity {text[:20]!r}...", where=where)
    if text.lower() in NOT_APPLICABLE:
        return QuantityReading(text, text, None, unit, None)
    shown = unit or "plain numbers"
    number, written = _split(text, unit)
    printed = None
    if capacity and jedec_unit(written) != written:
        printed, written = written, jedec_unit(written)
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
    floor = MIN_MAGNITUDE if least is None else max(least, MIN_MAGNITUDE)
    if magnitude > 0 and value < floor:
        raise UnitError(f"{text!r} is below the smallest value {key or 'a quantity'} can have ({floor:g}"
                        f"{' ' + unit if unit else ''})", where=where,
                        hint="give a physical value, or n/a where the quantity does not exist")
    if integer and abs(value - round(value)) > 1e-9 * max(1.0, abs(value)):
        raise UnitError(f"{key or 'the value'} counts whole things, but {text!r} is not whole", where=where,
                        hint="give a whole number")
    return QuantityReading(text, number, magnitude, written, value, printed)



#: a decimal prefix of bytes as printed -> the binary one a capacity means by it (JEDEC; "KB" is JEDEC's kilo)
_JEDEC = {"k": "Ki", "K": "Ki", "M": "Mi", "G": "Gi"}
#: above GB, vendors multiply the per-chip "GB" and prefix the product decimally: a system's "13.4 TB" is 13,400 GB
#: of 2^30 bytes (NVIDIA's GB200 NVL72: 72 x 186 GB), not 13.4 TiB (kb/units.txt)
_SYSTEM = {"T": "jedec_TB", "P": "jedec_PB"}
_DECIMAL_BYTES = re.compile(r"^(k|K|M|G|T|P)(B|byte|bytes)$")


def jedec_unit(written: str) -> str:
    """The unit a vendor means by a capacity printed in ``written``: ``GB`` -> ``GiB``, ``TB`` -> a thousand of
    those (``jedec_TB``); any other as is.

    >>> jedec_unit("GB"), jedec_unit("KB"), jedec_unit("MiB"), jedec_unit("GB/s"), jedec_unit("PB")
    ('GiB', 'KiB', 'MiB', 'GB/s', 'jedec_PB')
    """
    match = _DECIMAL_BYTES.match(written.strip())
    if match is None:
        return written
    if match.group(1) in _SYSTEM:
        return _SYSTEM[match.group(1)]
    return f"{_JEDEC[match.group(1)]}{match.group(2)}"


def jedec_label(unit: str) -> str:
    """A binary capacity unit as vendors print it: ``GiB`` -> ``GB``, ``KiB`` -> ``KB``; any other as is.

    >>> jedec_label("GiB"), jedec_label("KiB"), jedec_label("B"), jedec_label("GB/s")
    ('GB', 'KB', 'B', 'GB/s')
    """
    match = re.fullmatch(r"(Ki|Mi|Gi|Ti)(B|byte|bytes)", unit.strip())
    return f"{'K' if match.group(1) == 'Ki' else match.group(1)[0]}{match.group(2)}" if match else unit


def _split(text: str, unit: str) -> tuple[str, str]:
    """'989.4 TFLOPS' -> ('989.4', 'TFLOPS'); a bare number takes ``unit``; no number gives ''."""
    match = NUMBER.match(text)
    if match is None:
        return "", unit
    written = text[match.end():].strip()
    if written.startswith("/"):  # '1 /cycle' is one per cycle: the unit is 1/cycle
        written = "1" + written
    return match.group(0), written or unit
