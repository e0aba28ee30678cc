"""The project's unit registry, built from ``kb/units.txt`` alone, and the grammar of unit text.

Pint's default registry is not loaded: its ``cycle`` is an angle (2π rad) and
its thousand units slow every start. ``kb/units.txt`` defines hwkb's own
units; ``cycle`` there is a base dimension and ``hertz = cycle / second``.

No text reaches Pint's expression evaluator, which evaluates arithmetic
(``9**9**9`` would never finish). Unit text is read by the project's own
grammar: names defined in the registry (with their prefixes) joined by ``*``
and ``/``, each with an optional whole exponent ``^n`` or ``**n`` of at most
:data:`~hwkb.definitions.limits.MAX_UNIT_EXPONENT`, parentheses, and ``1``
(``1/cycle``). Each line of ``units.txt`` is checked against the same grammar
(with a number in front, and ``[dimension]``) before Pint sees it.

Numbers are computed in *canonical* units: the product of the base units of
the dimensioned quantities (second, cycle, bit, meter, watt, and the counted
kinds op, token, exp, warp, thread, block, pixel, texel, each worth 1: FMA = 2
op), with dimensionless units (SM, percent ...) reduced to plain numbers. A law that balances
dimensionally therefore needs no conversion factors in its canonical form.

>>> from hwkb.formats.resources import default_kb_dirs
>>> units = Units.from_file(default_kb_dirs()[0] / "units.txt")
>>> units.to_canonical(2048, "FMA/cycle")
4096.0
>>> units.from_canonical(1.83e9, "GHz")
1.83
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import pint
from pint.util import UnitsContainer

from hwkb.definitions.limits import (MAX_DEFINITION_EXPONENT, MAX_MAGNITUDE, MAX_QUANTITY_CHARS, MAX_UNIT_EXPONENT,
                                     read_regular_file)
from hwkb.errors import KBError, LimitError, Location, UnitError

__all__ = ["Units", "Dimensions", "format_dimensions", "NUMBER", "parse_unit_text"]

Dimensions = frozenset  # of (dimension name, Fraction exponent) pairs, e.g. {("[time]", -1)}

#: a float literal; an exponent needs digits after the e, so '16exp/cycle' is 16 exp/cycle
NUMBER = re.compile(r"[+-]?(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9]+)?")
_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*|%)|(?P<int>[0-9]+)|(?P<op>\*\*|[*/^()+-]))")
_UNIT_GRAMMAR = "a unit is names from units.txt joined by *, / and ^ with a whole exponent, e.g. 'FMA/cycle', 'mm^2'"
_DEFINITION_HINT = "write 'name = definition = alias' as in Pint's definitions syntax"
_NAME = r"[A-Za-z_][A-Za-z0-9_]*-?|%"
_DEFINED = re.compile(rf"(?:{_NAME}|\[[A-Za-z_]*\])\Z")
_VALUE = re.compile(r"\s*(?P<number>[+-]?[0-9.][0-9.eE+-]*?)\s*(?:\*\*\s*(?P<power>[0-9]+))?\s*(?:\*\s*|(?=/)|\Z)")


def format_dimensions(dims: Dimensions) -> str:
    if not dims:
        return "dimensionless"
    num = [f"{d}" + (f"^{e}" if e != 1 else "") for d, e in sorted(dims) if e > 0]
    den = [f"{d}" + (f"^{-e}" if e != -1 else "") for d, e in sorted(dims) if e < 0]
    text = "*".join(num) or "1"
    return f"{text}/{'/'.join(den)}" if den else text


def parse_unit_text(text: str) -> dict[str, int]:
    """Unit text as names with their whole exponents: ``'GB/s'`` -> ``{'GB': 1, 's': -1}``; ``''`` -> ``{}``.

    Only the grammar is checked here, not whether the names are defined. Raises UnitError (the syntax) or
    LimitError (an exponent or the length), without a place: the caller knows where the text came from.
    """
    if len(text) > MAX_QUANTITY_CHARS:
        raise LimitError("length", f"{len(text)} characters", f"{MAX_QUANTITY_CHARS} characters",
                         subject=f"unit {text[:20]!r}...")
    tokens = []
    position = 0
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None:
            raise UnitError(f"cannot read unit {text!r}: unexpected {stripped[position:].strip()[:1]!r}",
                            hint=_UNIT_GRAMMAR)
        tokens.append((match.lastgroup, match.group(match.lastgroup)))
        position = match.end()
    if not tokens or tokens == [("name", "dimensionless")]:
        return {}
    parser = _UnitParser(text, tokens)
    powers = parser.product()
    if parser.position != len(tokens):
        raise parser.unexpected()
    for name, exponent in powers.items():
        if abs(exponent) > MAX_UNIT_EXPONENT:
            raise LimitError("exponent", exponent, MAX_UNIT_EXPONENT, subject=f"unit {text!r}")
    return {name: e for name, e in powers.items() if e}


class _UnitParser:
    """Recursive descent over unit tokens: product := power (('*'|'/') power)*, power := atom (('^'|'**') int)?"""

    def __init__(self, text: str, tokens: list[tuple[str, str]]):
        self.text, self.tokens, self.position = text, tokens, 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def unexpected(self) -> UnitError:
        token = self.peek()
        what = f"unexpected {token[1]!r}" if token else "it ends too early"
        return UnitError(f"cannot read unit {self.text!r}: {what}", hint=_UNIT_GRAMMAR)

    def product(self) -> dict[str, int]:
        powers = self.power()
        while self.peek() in (("op", "*"), ("op", "/")):
            sign = 1 if self.tokens[self.position][1] == "*" else -1
            self.position += 1
            for name, exponent in self.power().items():
                powers[name] = powers.get(name, 0) + sign * exponent
        return powers

    def power(self) -> dict[str, int]:
        token = self.peek()
        if token is None:
            raise self.unexpected()
        self.position += 1
        if token[0] == "name" and token[1] != "dimensionless":
            powers = {token[1]: 1}
        elif token == ("int", "1") or token == ("name", "dimensionless"):
            powers = {}
        elif token == ("op", "("):
            powers = self.product()
            if self.peek() != ("op", ")"):
                raise self.unexpected()
            self.position += 1
        else:
            self.position -= 1
            raise self.unexpected()
        if self.peek() in (("op", "^"), ("op", "**")):
            self.position += 1
            exponent = self.exponent()
            powers = {name: e * exponent for name, e in powers.items()}
        return powers

    def exponent(self) -> int:
        sign = 1
        if self.peek() in (("op", "-"), ("op", "+")):
            sign = -1 if self.tokens[self.position][1] == "-" else 1
            self.position += 1
        token = self.peek()
        if token is None or token[0] != "int":
            raise self.unexpected()
        self.position += 1
        if len(token[1]) > 3 or int(token[1]) > MAX_UNIT_EXPONENT:
            shown = token[1] if len(token[1]) <= 20 else f"{token[1][:20]}..."
            raise LimitError("exponent", f"{'-' if sign < 0 else ''}{shown}", MAX_UNIT_EXPONENT,
                             subject=f"unit {self.text!r}")
        return sign * int(token[1])


def _screen_definitions(text: str, path: Path) -> tuple[list[str], dict[str, tuple[str, Location]]]:
    """The lines of units.txt, each checked against the grammar before Pint reads it (Pint evaluates arithmetic),
    and the unit names their definitions refer to, with the line of the first reference."""
    lines = []
    references: dict[str, tuple[str, Location]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        lines.append(line)
        if line:
            where = Location(str(path), number)
            for name in _screen_definition(line, where):
                references.setdefault(name, (line, where))
    return lines, references


def _screen_definition(line: str, where: Location) -> dict[str, int]:
    bad = UnitError(f"cannot read the unit definition {line!r}", where=where, hint=_DEFINITION_HINT)
    parts = [part.strip() for part in line.split("=")]
    if len(parts) < 2 or not all(_DEFINED.match(part) for part in parts[:1] + parts[2:]):
        raise bad
    value = parts[1]
    if re.fullmatch(r"\[[A-Za-z_]*\]", value):
        return {}
    match = _VALUE.match(value)
    rest = value
    if match is not None and match.group("number") and NUMBER.fullmatch(match.group("number")):
        base, power = float(match.group("number")), match.group("power")
        if power is not None and (len(power) > 3 or int(power) > MAX_DEFINITION_EXPONENT):
            raise LimitError("exponent", power if len(power) <= 20 else f"{power[:20]}...", MAX_DEFINITION_EXPONENT,
                             subject=f"the unit definition {line!r}", where=where)
        try:
            factor = base ** int(power) if power is not None else base
        except OverflowError:
            factor = math.inf
        if not (1 / MAX_MAGNITUDE <= factor <= MAX_MAGNITUDE):
            raise LimitError("factor", f"{factor:g}", (f"{1 / MAX_MAGNITUDE:g}", f"{MAX_MAGNITUDE:g}"),
                             subject=f"the unit definition {line!r}", where=where)
        rest = value[match.end():]
    elif match is not None and match.group("number"):
        raise bad
    try:
        return parse_unit_text(rest) if rest.strip() else {}
    except LimitError as exc:
        raise LimitError(exc.what, exc.found, exc.limit, subject=f"the unit definition {line!r}",
                         where=where) from None
    except UnitError:
        raise bad from None


def _definitions_text(path: Path) -> str:
    try:
        return read_regular_file(path)
    except LimitError:
        raise
    except KBError as exc:
        raise UnitError(exc.message.replace("cannot read file", "cannot read unit definitions", 1),
                        where=exc.where) from None


def _registry(lines: list[str], path: Path) -> pint.UnitRegistry:
    registry = pint.UnitRegistry(None, autoconvert_offset_to_baseunit=False)
    try:
        registry.load_definitions(lines)
    except Exception as exc:  # Pint raises several unrelated types for bad definitions
        raise UnitError(f"cannot read unit definitions: {exc}", where=Location(str(path)),
                        hint=_DEFINITION_HINT) from exc
    return registry


def _defined_names(line: str) -> list[str]:
    """The names a (screened) definition line defines: its name and its aliases (``_`` is no alias)."""
    parts = [part.strip() for part in line.split("=")]
    return [name for name in parts[:1] + parts[2:] if name not in ("_", "_-")]


def _check_addition(base: pint.UnitRegistry, defined: dict[str, tuple[str, Location]], name: str, line: str,
                    where: Location) -> None:
    """Refuse an overlay's definition of ``name`` if the registry so far defines it (a prefix, a unit, an alias,
    or a prefixed unit such as ``Gbit``)."""
    earlier = defined.get(name)
    if earlier is None and not name.endswith("-") and not name.startswith("["):
        try:
            known = bool(base.parse_unit_name(name))
        except Exception:  # Pint's own errors for a name it cannot split
            known = False
        if known:
            earlier = ("", None)
    if earlier is None:
        return
    what = "the prefix" if name.endswith("-") else "the dimension" if name.startswith("[") else "the unit"
    place = f"it is defined at {earlier[1]}" if earlier[1] is not None else "the registry has it already"
    raise UnitError(f"the unit definition {line!r} redefines {what} {name!r}", where=where,
                    hint=f"{place}; a --kb overlay's units.txt may add units, never redefine one")


class Units:
    """A Pint registry plus the canonical-unit arithmetic the engine needs."""

    def __init__(self, registry: pint.UnitRegistry, source: str):
        self.registry = registry
        self.source = source
        self.sources: tuple[str, ...] = (source,)  # every units.txt read: the KB's own, then overlays
        self._factor = lru_cache(maxsize=None)(self._factor_uncached)
        self._unit = lru_cache(maxsize=4096)(self._unit_uncached)
        self._base_units: dict[str, pint.Unit] = {}  # per registry: a cache on the method would keep every registry

    @classmethod
    def from_file(cls, path: Path) -> "Units":
        return cls.from_files([path])

    @classmethod
    def from_files(cls, paths: Sequence[Path]) -> "Units":
        """The registry of the first ``units.txt`` with what each later one (a ``--kb`` overlay's) adds.

        An overlay may define new units and prefixes, never redefine one the registry holds: ``giga- = 1e10``
        or ``GHz = 1e10 * Hz`` would silently change every figure written with it. Repeating a definition
        word for word (a copy of the KB's own file) changes nothing and is allowed.
        """
        paths = [Path(p) for p in paths]
        lines: list[str] = []
        references: dict[str, tuple[str, Location]] = {}
        defined: dict[str, tuple[str, Location]] = {}  # each name, prefix and alias -> (its definition, where)
        base = None
        for index, path in enumerate(paths):
            own, refs = _screen_definitions(_definitions_text(path), path)
            if index == 1:
                base = _registry(lines, paths[0])
            for number, line in enumerate(own, start=1):
                if not line:
                    continue
                where, names, normal = Location(str(path), number), _defined_names(line), " ".join(line.split())
                if index and all(defined.get(n, ("",))[0] == normal for n in names):
                    continue  # the same definition again
                for name in names:
                    if index:
                        _check_addition(base, defined, name, line, where)
                    defined.setdefault(name, (normal, where))
                lines.append(line)
            for name, ref in refs.items():
                references.setdefault(name, ref)
        registry = _registry(lines, paths[-1] if len(paths) > 1 else paths[0])
        for name, (line, where) in references.items():
            try:
                registry.get_name(name)
            except Exception:  # Pint's UndefinedUnitError, or an AttributeError for a private-looking name
                raise UnitError(f"the unit definition {line!r} refers to {name!r}, which is not defined",
                                where=where, hint="define a unit before or after, in units.txt") from None
        units = cls(registry, str(paths[0]))
        units.sources = tuple(str(p) for p in paths)
        return units

    def parse_unit(self, text: str, where: Location | None = None) -> pint.Unit:
        """Unit text read by the project's grammar (never Pint's evaluator) as a Pint unit."""
        try:
            return self._unit(text or "")
        except KBError as exc:
            raise exc.at(where) from None

    def _unit_uncached(self, text: str) -> pint.Unit:
        powers: dict[str, int] = {}
        for name, exponent in parse_unit_text(text).items():
            try:
                defined = self.registry.get_name(name)
            except Exception:  # Pint's UndefinedUnitError, or an AttributeError for a private-looking name
                raise UnitError(f"unknown unit {text!r}", hint=f"units are defined in {Path(self.source).name}"
                                ) from None
            if defined:
                powers[defined] = powers.get(defined, 0) + exponent
                if abs(powers[defined]) > MAX_UNIT_EXPONENT:
                    raise LimitError("exponent", powers[defined], MAX_UNIT_EXPONENT, subject=f"unit {text!r}")
        return self.registry.Unit(UnitsContainer({n: e for n, e in powers.items() if e}))

    def split_quantity(self, text: str, where: Location | None = None) -> tuple[float, str]:
        """``'989.4 TFLOPS'`` -> ``(989.4, 'TFLOPS')``, the unit checked; a bare number has the unit ``''``."""
        match = NUMBER.match(text.strip())
        written = text.strip()[match.end():].strip() if match else ""
        if match is None or len(text) > MAX_QUANTITY_CHARS:
            raise UnitError(f"cannot read {text[:MAX_QUANTITY_CHARS]!r} as a value with a unit", where=where,
                            hint="write a number and a unit, e.g. '1.83 GHz'")
        if written.startswith("/"):  # '1 /cycle' is one per cycle: the unit is 1/cycle
            written = "1" + written
        try:
            self.parse_unit(written)
        except LimitError as exc:
            raise exc.at(where) from None
        except UnitError:
            raise UnitError(f"cannot read {text!r} as a value with a unit", where=where,
                            hint="write a number and a unit, e.g. '1.83 GHz'") from None
        try:
            return float(match.group(0)), written
        except ValueError:  # a literal the pattern lets through and float() does not: never, but a message if so
            raise UnitError(f"cannot read {text!r} as a value with a unit", where=where,
                            hint="write a number and a unit, e.g. '1.83 GHz'") from None

    def parse_quantity(self, text: str, where: Location | None = None) -> pint.Quantity:
        """``'989.4 TFLOPS'`` -> Quantity; a bare number is dimensionless."""
        magnitude, written = self.split_quantity(text, where)
        return self.registry.Quantity(magnitude, self.parse_unit(written))

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
        out_of_range = UnitError(f"unit {unit!r} is out of range", hint="use a unit within 1e-300 .. 1e300")
        try:
            dims = self.registry.get_dimensionality(parsed)
            canonical = self.registry.Unit(UnitsContainer())
            for dim, exponent in dims.items():
                canonical = canonical * self._base_unit(dim) ** exponent
            factor = float(self.registry.Quantity(1.0, parsed).to(canonical).magnitude)
        except (OverflowError, ZeroDivisionError, ValueError) as exc:
            raise out_of_range from exc
        except pint.PintError as exc:  # a definition through an unknown unit
            raise UnitError(f"unit {unit!r} cannot be converted: {exc}",
                            hint=f"check its definition in {Path(self.source).name}") from None
        if not (1e-300 <= abs(factor) <= 1e300):
            raise out_of_range
        return factor, frozenset((d, Fraction(e).limit_denominator(64)) for d, e in dims.items())

    def _base_unit(self, dim: str) -> pint.Unit:
        if dim in self._base_units:
            return self._base_units[dim]
        for name, definition in self.registry._units.items():
            reference = getattr(definition, "reference", None)
            if getattr(definition, "is_base", False) and reference is not None and dict(reference) == {dim: 1}:
                unit = self._base_units[dim] = self.registry.Unit(UnitsContainer({name: 1}))
                return unit
        raise UnitError(f"no base unit for dimension {dim}", where=Location(self.source))

    def compatible(self, unit_a: str, unit_b: str) -> bool:
        return self.dimensions(unit_a) == self.dimensions(unit_b)
