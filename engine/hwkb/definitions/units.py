"""The project's unit registry, built from ``kb/units.txt`` alone.

Pint's default registry is not loaded: its ``cycle`` is an angle (2π rad) and
its thousand units slow every start. ``kb/units.txt`` defines hwkb's own
units; ``cycle`` there is a base dimension and ``hertz = cycle / second``.

Numbers are computed in *canonical* units: the product of the base units of
the dimensioned quantities (second, cycle, bit, meter, watt), with
dimensionless units (flop, FMA = 2 flop, warp, percent ...) reduced to plain
numbers. A law that balances dimensionally therefore needs no conversion
factors in its canonical form.

>>> from hwkb.formats.resources import default_kb_dirs
>>> units = Units.from_file(default_kb_dirs()[0] / "units.txt")
>>> units.to_canonical(2048, "FMA/cycle")
4096.0
>>> units.from_canonical(1.83e9, "GHz")
1.83
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import pint

try:  # Pint's definitions parser, to point at the line it rejected
    from flexparser.flexparser import ParsingError
except ImportError:  # another Pint: its own message is all there is
    ParsingError = None

from hwkb.errors import Location, UnitError

__all__ = ["Units", "Dimensions", "format_dimensions"]

Dimensions = frozenset  # of (dimension name, Fraction exponent) pairs, e.g. {("[time]", -1)}


def format_dimensions(dims: Dimensions) -> str:
    if not dims:
        return "dimensionless"
    num = [f"{d}" + (f"^{e}" if e != 1 else "") for d, e in sorted(dims) if e > 0]
    den = [f"{d}" + (f"^{-e}" if e != -1 else "") for d, e in sorted(dims) if e < 0]
    text = "*".join(num) or "1"
    return f"{text}/{'/'.join(den)}" if den else text


def _bad_definition(registry: pint.UnitRegistry, path: Path) -> tuple[int | None, str | None]:
    """The line and text of the first definition Pint's parser rejected, if it tells."""
    try:
        parsed = registry._def_parser.parse_file(path)
        for definition in registry._def_parser.iter_parsed_project(parsed):
            if ParsingError is not None and isinstance(definition, ParsingError):
                return definition.start_line, definition.raw
    except Exception:  # the private parser API of another Pint version: fall back to Pint's message
        pass
    return None, None


class Units:
    """A Pint registry plus the canonical-unit arithmetic the engine needs."""

    def __init__(self, registry: pint.UnitRegistry, source: str):
        self.registry = registry
        self.source = source
        self._factor = lru_cache(maxsize=None)(self._factor_uncached)

    @classmethod
    def from_file(cls, path: Path) -> "Units":
        registry = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=False)
        try:
            registry.load_definitions(str(path))
        except Exception as exc:  # Pint raises several unrelated types for bad definitions
            line, text = _bad_definition(registry, path)
            if text is not None:
                raise UnitError(f"cannot read the unit definition {text!r}", where=Location(str(path), line),
                                hint="write 'name = definition = alias' as in Pint's definitions syntax") from exc
            raise UnitError(f"cannot read unit definitions: {exc}", where=Location(str(path))) from exc
        return cls(registry, str(path))

    def parse_unit(self, text: str, where: Location | None = None) -> pint.Unit:
        try:
            return self.registry.parse_units(text or "dimensionless")
        except Exception as exc:
            raise UnitError(f"unknown unit {text!r}", where=where,
                            hint=f"units are defined in {Path(self.source).name}") from exc

    def parse_quantity(self, text: str, where: Location | None = None) -> pint.Quantity:
        """``'989.4 TFLOPS'`` -> Quantity; a bare number is dimensionless."""
        try:
            q = self.registry.Quantity(text)
        except Exception as exc:
            raise UnitError(f"cannot read {text!r} as a value with a unit", where=where,
                            hint="write a number and a unit, e.g. '1.83 GHz'") from exc
        if not isinstance(q, pint.Quantity):
            q = self.registry.Quantity(q)
        return q

    def dimensions(self, unit: str) -> Dimensions:
        return self._factor(unit)[1]

    def to_canonical(self, magnitude: float, unit: str) -> float:
        return float(magnitude) * self._factor(unit)[0]

    def from_canonical(self, magnitude: float, unit: str) -> float:
        return float(magnitude) / self._factor(unit)[0]

    def quantity_to_canonical(self, q: pint.Quantity) -> float:
        return self.to_canonical(q.magnitude, str(q.units))

    def _factor_uncached(self, unit: str) -> tuple[float, Dimensions]:
        parsed = self.parse_unit(unit)
        try:
            dims = self.registry.get_dimensionality(parsed)
            canonical = self.registry.parse_units("dimensionless")
            for dim, exponent in dims.items():
                canonical = canonical * self._base_unit(dim) ** exponent
            factor = float(self.registry.Quantity(1.0, parsed).to(canonical).magnitude)
        except (OverflowError, ZeroDivisionError, ValueError) as exc:  # e.g. 'GHz**99999'
            raise UnitError(f"unit {unit!r} is out of range", hint="use a unit within 1e-300 .. 1e300") from exc
        if not (0.0 < abs(factor) < float("inf")):
            raise UnitError(f"unit {unit!r} is out of range", hint="use a unit within 1e-300 .. 1e300")
        return factor, frozenset((d, Fraction(e).limit_denominator(64)) for d, e in dims.items())

    @lru_cache(maxsize=None)
    def _base_unit(self, dim: str) -> pint.Unit:
        for name, definition in self.registry._units.items():
            reference = getattr(definition, "reference", None)
            if getattr(definition, "is_base", False) and reference is not None and dict(reference) == {dim: 1}:
                return self.registry.parse_units(name)
        raise UnitError(f"no base unit for dimension {dim}", where=Location(self.source))

    def compatible(self, unit_a: str, unit_b: str) -> bool:
        return self.dimensions(unit_a) == self.dimensions(unit_b)
