"""A peer tool's entry as KB facts: :func:`build_entry` for an entry of a JSON or YAML tree, :class:`CellLayout`
for the rows of a table, each figure checked alike (a count whole, nothing negative, a product within the
magnitude limit, the field's unit fitting its KB variable's) and kept with its printed digits.
"""
from __future__ import annotations

import difflib
from collections import abc
import functools
import math
from typing import Mapping, Sequence

from hwkb.definitions.limits import MAX_MAGNITUDE
from hwkb.definitions.model import Fact, Model, VarKey, half_unit, split_key
from hwkb.definitions.units import Units
from hwkb.errors import KBError, LimitError, LoadError, Location, escaped
from hwkb.formats.peers.documents import MAX_NUMBER_CHARS, Item, cell_item, number_of, text_of
from hwkb.formats.peers.entries import (DTYPES, EXPORT_PREFIX, CanonicalFigures, NameMatch, PeerEntry, PeerField,
                                        display)
from hwkb.formats.stated_facts import printed

__all__ = ["build_entry", "CellLayout"]


def build_entry(fmt: str, tool: str, name: str, item: Item | Mapping[str, Item], where: Location,
                fields: Sequence[PeerField], names: Mapping[str, NameMatch], model: Model, units: Units,
                also_read: Sequence[str] = (), known: Sequence[str] = ()) -> PeerEntry:
    """The facts one entry states through ``fields`` (a missing, null or zero figure states nothing); every key
    neither a field nor in ``also_read`` (a name, a flag the reader looks at) is listed as unread, and one the tool
    does not ``know`` either with the field it looks like a misspelling of."""
    root = item if isinstance(item, Item) else Item(dict(item), where)
    stated = _Stated(fmt, tool, name, where, model, units)
    for f in fields:
        first = root.get(*f.path)
        if first is None or first.value is None:  # not given: most of a wide table's cells
            continue
        stated.add(f, [first, *(root.get(*p) for p in f.times)], root)
    unread = _unread_leaves(tuple(_leaves(root)), _read_paths(fields), tuple(also_read), tuple(known))
    return stated.entry(names, unread)


class CellLayout:
    """A table's header against a format's fields, worked out once for all its rows: which cell each field
    reads, and the columns none reads. Each row is then an entry of :func:`build_entry`'s facts, made from its
    cells' text without an item per cell (an Epoch CSV of 10^5 rows is 10^6 cells, 5 of 38 columns mapped)."""

    def __init__(self, fmt: str, tool: str, columns: Sequence[str], fields: Sequence[PeerField],
                 names: Mapping[str, NameMatch], model: Model, units: Units, also_read: Sequence[str] = (),
                 known: Sequence[str] = ()):
        if any(f.times or f.dtype or len(f.path) != 1 for f in fields):
            raise ValueError("a table's fields each read one column")
        place = {c: i for i, c in enumerate(columns)}
        self.fmt, self.tool, self.names, self.model, self.units = fmt, tool, names, model, units
        self.cells = tuple((f, place[f.path[0]]) for f in fields if f.path[0] in place)
        self.unread = _unread_leaves(tuple(columns), _read_paths(fields), tuple(also_read), tuple(known))
        self._columns = tuple((i, f.key, f.exact) for f, i in self.cells)  # flat, for the loop over every row
        self._factors: list[float | None] = [None] * len(self.cells)  # each field's _plain_factor, once asked

    def entry(self, name: str, cells: Sequence[str], where: Location) -> PeerEntry:
        """The entry of one row: ``cells`` stripped, "" where empty, in the header's order. A row whose every
        mapped figure is plain (:meth:`_plain`) is read once into canonical numbers and its facts are built only
        when asked for: most of a large table's rows are audited from those numbers alone. A real Epoch row in
        11.5 us instead of 60 (5.3x, least of 7, ``benchmarks/peer_scale.py --pieces``, load 6; 4.3x to 5.8x over
        three runs at load 6 to 10)."""
        plain = self._plain(cells)
        if plain is None:
            return self._stated(name, cells, where).entry(self.names, self.unread)
        deferred = _Deferred(self, name, cells, where)
        # escaped(name): a printable name (no control character, no lone surrogate, all escaped rewrites) is its
        # own, tested in 0.06 us instead of the regular expression's 0.27 (4.2x, least of 9, in-process, load 2)
        name = name if name.isprintable() else escaped(name)
        keys = tuple(plain)
        return PeerEntry.at_once(self.fmt, name, where, _Later(deferred, "facts", keys),
                                 _Later(deferred, "by_key", keys), _match(self.names, self.model, name),
                                 _Later(deferred, "written", keys), self.unread, CanonicalFigures(keys, plain))

    def _stated(self, name: str, cells: Sequence[str], where: Location) -> "_Stated":
        stated = _Stated(self.fmt, self.tool, name, where, self.model, self.units)
        for f, i in self.cells:
            if cells[i]:
                first = cell_item(cells[i], where)
                if first.value is not None:
                    stated.add(f, [first], None)
        return stated

    def _plain(self, cells: Sequence[str]) -> dict[VarKey, float] | None:
        """The row's figures in canonical numbers where each mapped cell is empty, not finite (no figure, as
        :func:`cell_item` reads it) or a plain figure: ASCII, within the length and magnitude limits, above zero,
        whole for a count, its field's variable declared and fitting; None otherwise (a zero, a text, a negative
        or too large a figure), for :meth:`_stated` to read it as it says (a note, an error). A long figure that is
        a whole number of 12 significant digits or fewer is not read to 12 digits again: a row's long figures in
        0.3 us instead of 1.3 on Epoch's own rows (5.0x; 1.2x on the benchmark's scaled copies, whose long figures
        mostly carry float noise), least of 7, ``benchmarks/peer_scale.py --pieces``, load 2."""
        mid: dict[VarKey, float] = {}
        for n, (i, key, exact) in enumerate(self._columns):
            text = cells[i]
            if not text:
                continue
            if not text.isascii() or len(text) > MAX_NUMBER_CHARS:
                return None
            try:
                value = float(text)
            except ValueError:
                return None
            if not 0 < value <= MAX_MAGNITUDE:
                if value == value and abs(value) != math.inf:
                    return None  # zero, negative or beyond the limit
                continue  # inf or nan: Epoch's ratio over a missing price, no figure
            if exact and not value.is_integer():
                return None
            factor = self._factors[n]
            if factor is None:
                factor = self._factors[n] = self._plain_factor(self.cells[n][0])
            if not factor or key in mid:
                return None
            # as _Stated.add's value, then fact_numbers' canonical one (Units.to_canonical: value x factor); a whole
            # number of 12 significant digits or fewer (a multiple of 10^6 below 10^18, Epoch's 671000000000000.0)
            # is as the 12-digit reading leaves it
            twelve = len(text) < 13 or value < 1e18 and value % 1e6 == 0.0
            mid[key] = (value if twelve else float(f"{value:.12g}")) * factor
        return mid

    def _plain_factor(self, f: PeerField) -> float:
        """The canonical factor of ``f``'s unit where it states its figure unscaled under a variable the KB
        declares in a unit that fits; 0.0 where not (each row then says why)."""
        if f.scale != 1:
            return 0.0
        try:
            if _variable(self.model, self.units, self.fmt, f, f.key, Location(self.fmt)) is None:
                return 0.0
        except KBError:
            return 0.0
        return self.units.to_canonical(1.0, f.unit)


class _Stated:
    """An entry's facts as its fields state them, one figure at a time (:meth:`add`)."""

    def __init__(self, fmt: str, tool: str, name: str, where: Location, model: Model, units: Units):
        self.fmt, self.tool, self.where, self.model, self.units = fmt, tool, where, model, units
        self.name = escaped(name)  # a file's stem or a name in it: printed, so never a control character raw
        self.eid = f"{fmt}:{self.name}"
        self.source = f"{tool} {display(where.file)}: {self.name}"
        self.facts: dict[VarKey, Fact] = {}
        self.by_key: dict[VarKey, PeerField] = {}
        self.written: dict[VarKey, str] = {}
        self.notes: list[str] = []

    def add(self, f: PeerField, items: Sequence[Item | None], root: Item | None) -> None:
        """The figure ``f`` states from ``items`` (its field's, then each of ``f.times``; the first given);
        ``root``: the entry, where a ``dtype`` field names the precision."""
        first = items[0]
        numbers = ([number_of(i, ".".join(p)) for i, p in zip(items, (f.path, *f.times))] if f.times
                   else [number_of(first, f.path[0] if len(f.path) == 1 else ".".join(f.path))])
        if None in numbers:
            return
        if min(numbers) < 0:
            raise LoadError(f"{f.field} must not be negative", where=first.where)
        if 0 in numbers:
            self.notes.append(f"{f.field} is 0: read as not given")
            return
        if f.exact:
            for p, i, n in zip((f.path, *f.times), items, numbers):
                if not float(n).is_integer():
                    raise LoadError(f"{'.'.join(p)} is a count: {i.text or n} is not a whole number", where=i.where)
        product = math.prod(numbers) * f.scale
        if not product <= MAX_MAGNITUDE:  # each factor within the limit, their product far beyond it
            raise LimitError("magnitude", f"{product:.3g}", f"{MAX_MAGNITUDE:g}",
                             subject=f"{f.field}, the product of " + " x ".join(p[-1] for p in (f.path, *f.times)),
                             where=first.where)
        key = f.key
        if f.dtype is not None:
            dtype = text_of(root.get(*f.dtype), ".".join(f.dtype))
            precision = DTYPES.get((dtype or "").lower())
            if precision is None:
                self.notes.append(f"{f.field}: data type {dtype!r} has no KB precision; not read")
                return
            key = key.replace("{dtype}", precision)
        variable = _variable(self.model, self.units, self.fmt, f, key, first.where)
        if variable is None:
            self.notes.append(f"{f.field}: this KB declares no {split_key(key)[0]}; not read")
            return
        value = float(f"{product:.12g}")  # 89 x 0.1 is 8.9, not 8.900000000000002
        plain = not f.times and f.scale == 1 and first.text is not None
        text = first.text if plain else printed(value)
        exact = f.exact or variable.integer
        # a figure as the file prints it is rounded or cut short (Fact.interval); a product or a scaled one is known
        # to its first field's printed digits, scaled, either way
        tolerance = (0.0 if exact else None if plain
                     else half_unit(first.text or printed(numbers[0])) * value / numbers[0])
        self.facts[key] = Fact(key, value, f.unit, text, f"{self.source} ({f.field})", self.eid, first.where,
                               tolerance=tolerance)
        self.by_key[key] = f
        self.written[key] = (" x ".join(i.text or printed(n) for i, n in zip(items, numbers)) if f.times
                             else first.text or printed(numbers[0]))

    def entry(self, names: Mapping[str, NameMatch], unread: tuple[str, ...]) -> PeerEntry:
        return PeerEntry(self.fmt, self.name, self.where, self.facts, self.by_key,
                         _match(names, self.model, self.name), tuple(self.notes), self.written, unread)


def _match(names: Mapping[str, NameMatch], model: Model, name: str) -> NameMatch | None:
    """The KB entity a name is: its name table's, or the KB id after ``export``'s prefix."""
    exported = name.removeprefix(EXPORT_PREFIX)
    return names.get(name) or (NameMatch(exported) if exported in model.entities else None)


class _Deferred:
    """A plain row's facts, the fields stating them and their printed text, made the first time one is asked for
    (a report of a disagreement, a comparison with a KB product, the Python API's ``entry.facts``)."""

    __slots__ = ("layout", "name", "cells", "where", "stated")

    def __init__(self, layout: CellLayout, name: str, cells: Sequence[str], where: Location):
        self.layout, self.name, self.cells, self.where, self.stated = layout, name, cells, where, None

    def part(self, which: str) -> Mapping:
        if self.stated is None:
            self.stated = self.layout._stated(self.name, self.cells, self.where)
        return getattr(self.stated, which)


class _Later(abc.Mapping):
    """One of a :class:`_Deferred` row's mappings: its keys known as the row is read, its values when asked for."""

    __slots__ = ("deferred", "which", "_keys")

    def __init__(self, deferred: _Deferred, which: str, keys: tuple[VarKey, ...]):
        self.deferred, self.which, self._keys = deferred, which, keys

    def __getitem__(self, key):
        return self.deferred.part(self.which)[key]

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def __repr__(self) -> str:
        return repr(dict(self))


_VARIABLES: dict[tuple[int, int, int, VarKey], tuple[Model, Units, PeerField, object]] = {}


def _variable(model: Model, units: Units, fmt: str, f: PeerField, key: VarKey, where: Location):
    """The variable ``f`` states as ``key`` (None where the KB declares no such variable), its unit checked
    against the field's: worked out once per model and field, not per row (a bad key raises at each row)."""
    found = _VARIABLES.get((id(model), id(units), id(f), key))  # by identity: hashing a field costs a row's work
    if found is not None and found[0] is model and found[1] is units and found[2] is f:
        return found[3]
    if split_key(key)[0] not in model.variables:
        variable = None
    else:
        variable = model.check_key(key, where=where)
        if units.dimensions(f.unit) != units.dimensions(variable.unit):
            raise KBError(f"{fmt} field {f.field} in {f.unit or 'a count'} does not fit {key} "
                          f"({variable.unit or 'a count'})", where=Location(f"hwkb/formats/peers ({fmt})"))
    if len(_VARIABLES) >= 4096:
        _VARIABLES.clear()
    _VARIABLES[(id(model), id(units), id(f), key)] = (model, units, f, variable)
    return variable


_READ_PATHS: dict[int, tuple[Sequence[PeerField], tuple[str, ...]]] = {}


def _read_paths(fields: Sequence[PeerField]) -> tuple[str, ...]:
    """The dotted paths a layout's fields read, kept per layout (by identity: hashing the fields costs more than
    a row's own work)."""
    found = _READ_PATHS.get(id(fields))
    if found is None or found[0] is not fields:
        if len(_READ_PATHS) >= 64:
            _READ_PATHS.clear()
        found = _READ_PATHS[id(fields)] = (fields, tuple(dict.fromkeys(
            ".".join(p) for f in fields for p in (f.path, *f.times, *((f.dtype,) if f.dtype else ())))))
    return found[1]


@functools.lru_cache(maxsize=256)
def _unread_leaves(leaves: tuple[str, ...], read_paths: tuple[str, ...], also_read: tuple[str, ...],
                   known: tuple[str, ...]) -> tuple[str, ...]:
    """The keys of an entry no field reads (a misspelt one with the field it looks like): the same for every row
    of a CSV, so worked out once per header, not per row."""
    prefixes = tuple(k for k in known if k.endswith("."))  # 'misc.nccl_mem.': a mapping of any keys
    return tuple(k if k in known or k.startswith(prefixes) else _unread(k, read_paths) for k in leaves
                 if k not in read_paths and k not in also_read)


#: how alike a key's last name and a field's must be to name the field as what the key misspells (Flop ~ Flops)
_MISSPELT = 0.85


@functools.lru_cache(maxsize=4096)
def _unread(key: str, read_paths: tuple[str, ...]) -> str:
    """A key no field reads, with the field it is nearest to where it looks like a misspelling of one."""
    parent, _, last = key.rpartition(".")
    close = [p for p in read_paths if p.rpartition(".")[0] == parent
             and difflib.SequenceMatcher(None, last, p.rpartition(".")[2]).ratio() >= _MISSPELT]
    return f"{key} (did you mean {close[0]!r}?)" if close else key


def _leaves(item: Item, prefix: str = "") -> list[str]:
    """The dotted paths of a mapping's keys whose values are not mappings themselves."""
    if not isinstance(item.value, dict):
        return [prefix] if prefix else []
    out: list[str] = []
    for key, value in item.value.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value.value, dict):
            out += _leaves(value, path)
        elif path:
            out.append(path)
    return out
