"""A peer tool's GPU entry as KB facts: the field table every format module fills in, and the figures it writes.

A :class:`PeerField` is one row of a format's mapping, as data: where the
figure sits in the tool's entry, the KB key it states, the unit the tool's own
code reads it in (``GiB`` where the code multiplies by ``1024**3``), the
factor that turns it into the KB's quantity (2 for a per-direction bandwidth
the KB states both ways), the further fields multiplied in (LLMCompass states
an SM's work as sublanes x array height x width) and the tool's source line
that consumes it. :mod:`hwkb.formats.peers.entry_facts` turns one entry into a
:class:`PeerEntry` whose facts keep the figure's printed digits, so the audit
allows exactly the rounding (or truncation) the file wrote; :func:`tool_figures` goes the
other way for ``hwkb export``.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Mapping, NamedTuple, Sequence

from hwkb.definitions.model import Entity, EntityId, Fact, Model, VarKey, half_unit
from hwkb.definitions.units import Units
from hwkb.errors import LoadError, Location, suggest
from hwkb.formats.peers.documents import Item

__all__ = ["PeerField", "PeerDefault", "NameMatch", "NOT_A_PRODUCT", "EXPORT_PREFIX", "PeerEntry", "PeerFormat",
           "Written", "tool_figures", "Number", "printable", "json_text", "nest", "display", "check_keys",
           "name_table", "DTYPES", "CanonicalFigures"]

#: a tool's data-type names -> the KB's precision index
DTYPES: Mapping[str, str] = {"fp16": "fp16", "float16": "fp16", "half": "fp16", "bf16": "bf16", "bfloat16": "bf16",
                             "fp8": "fp8", "int8": "int8", "fp64": "fp64", "fp4": "fp4", "tf32": "tf32"}


@dataclass(frozen=True)
class PeerField:
    """One figure of a tool's layout and the KB key it states: ``key = scale x figure (x times...)``."""
    field: str                 # the tool's name for it
    path: tuple[str, ...]      # where it sits in an entry
    key: VarKey                # the KB key; "{dtype}" is replaced by the precision the ``dtype`` field names
    unit: str                  # the unit the tool's code reads the number in
    consumed: str              # the tool's source that reads it (file:line) and what it does with it
    scale: float = 1.0
    times: tuple[tuple[str, ...], ...] = ()
    exact: bool = False        # a count: no rounding
    dtype: tuple[str, ...] | None = None
    doc: str = ""              # dense or sparse, per GPU or per system, anything a reader must know


#: the start of the name ``hwkb export`` gives a GPU ("hwkb-h100-sxm"): never one of the tool's shipped names, so
#: the tool never shadows its own config with it (or it with its own); ``audit --from`` reads the KB id after it
EXPORT_PREFIX = "hwkb-"

#: a NameMatch's entity for a file that names no product (a design point): audited against itself, not listed
#: among the products the KB lacks
NOT_A_PRODUCT = ""


@dataclass(frozen=True)
class PeerDefault:
    """A figure a tool derives from another when a file leaves it out: ``key = factor x of`` (its code at
    ``where``); a file that writes exactly that figure may have copied the default rather than a datasheet."""
    key: VarKey
    of: VarKey
    factor: float
    where: str


@dataclass(frozen=True)
class NameMatch:
    """The KB entity a tool's GPU name is; ``skip``: keys of a variant the KB entity is not (memory of a
    40 GB part against an 80 GB one), with why."""
    entity: EntityId
    skip: tuple[VarKey, ...] = ()
    why: str = ""


def name_table(lines: str, variants: Mapping[str, NameMatch] | None = None) -> dict[str, NameMatch]:
    """A format's name table: one ``tool name  KB id`` a line (two spaces or more between), and the variants
    that leave some keys out."""
    pairs = (re.split(r"\s{2,}", line.strip()) for line in lines.strip().splitlines())
    return {**{name: NameMatch(entity) for name, entity in pairs}, **(variants or {})}


class CanonicalFigures(NamedTuple):
    """A plain row's figures in canonical numbers, as the audit reads a row: its keys, in the order of its facts,
    are its shape (rows of one shape share their checks)."""
    keys: tuple[VarKey, ...]
    mid: Mapping[VarKey, float]


@dataclass(frozen=True)
class PeerEntry:
    """One GPU of a tool's file: its facts in the tool's units, each from the field that states it."""
    format: str
    name: str
    where: Location
    facts: Mapping[VarKey, Fact]
    fields: Mapping[VarKey, PeerField]
    match: NameMatch | None
    notes: tuple[str, ...] = ()
    written: Mapping[VarKey, str] = field(default_factory=dict)  # each figure as the file writes it ("4 x 16 x 16")
    unread: tuple[str, ...] = ()  # the entry's keys (columns) no field reads: a renamed one is named, never silent
    defaults: tuple["PeerDefault", ...] = ()  # figures the tool derives when the file leaves them out
    #: a table's row whose figures are all plain, as canonical numbers (its facts are then made when asked for)
    canonical: "CanonicalFigures | None" = None

    @classmethod
    def at_once(cls, format: str, name: str, where: Location, facts: Mapping[VarKey, Fact],
                fields: Mapping[VarKey, PeerField], match: NameMatch | None, written: Mapping[VarKey, str],
                unread: tuple[str, ...], canonical: "CanonicalFigures") -> "PeerEntry":
        """A plain row's entry (no notes, no defaults), its fields set at once: a frozen dataclass's ``__init__``
        sets each through ``object.__setattr__``, 1.7 us an entry against 0.7 (2.6x, least of 7,
        ``benchmarks/peer_scale.py --pieces``, load 6; 2.3x to 6.0x over four runs); the same entry, equal to one
        made the plain way."""
        entry = object.__new__(cls)
        entry.__dict__.update(format=format, name=name, where=where, facts=facts, fields=fields, match=match,
                              notes=(), written=written, unread=unread, defaults=(), canonical=canonical,
                              id=f"{format}:{name}")
        return entry

    def with_note(self, note: str) -> "PeerEntry":
        return replace(self, notes=self.notes + (note,))

    @functools.cached_property
    def id(self) -> EntityId:
        """Asked three times a row by a streamed audit (its occurrence, its totals, its JSON): made once, kept in
        the entry's ``__dict__`` (an entry set :meth:`at_once` is given it there): 0.1 us a row for the three against
        0.2 (2.7x, least of 7, ``benchmarks/peer_scale.py --pieces``, load 2)."""
        return f"{self.format}:{self.name}"

    def entity(self) -> Entity:
        """A datasheet entity of the entry's figures alone, for the audit of its internal redundancy."""
        return Entity(self.id, "datasheet", self.name, f"{self.format} entry {self.name!r}", self.where, (),
                      dict(self.facts), f"{self.format} file {self.where.file}")


@dataclass(frozen=True)
class Written:
    """What ``export`` writes: the file's text, the keys it used (field -> key) and what it could not settle."""
    text: str
    used: Mapping[str, VarKey]
    missing: Mapping[str, VarKey]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PeerFormat:
    """A tool's hardware-file layout: how to read entries from a file and write one from the KB's figures."""
    name: str
    tool: str
    files: str
    fields: tuple[PeerField, ...]
    names: Mapping[str, NameMatch]
    read: Callable[[object, Model, Units], list[PeerEntry]]
    write: Callable[..., Written]  # (name, figures, units, na={key: why n/a}) -> Written
    suffix: str
    doc: str = ""
    keys: tuple[VarKey, ...] = field(default=())
    finds_data_by_name: bool = False  # the tool finds measured data by the system's name: export keeps its name
    # a reader of one entry at a time, for a file of many (an Epoch CSV): checks the file's head when called, then
    # reads its entries as they are asked for
    entries: Callable[[object, Model, Units], Iterator[PeerEntry]] | None = None

    def iter_entries(self, path, model: Model, units: Units) -> Iterator[PeerEntry]:
        """The entries of one file, read as they are asked for where the format can (:attr:`entries`)."""
        return self.entries(path, model, units) if self.entries is not None else iter(self.read(path, model, units))

    def export_keys(self) -> tuple[VarKey, ...]:
        """Every KB key an export asks for (a ``{dtype}`` key at the layout's default precision)."""
        return self.keys or tuple(dict.fromkeys(f.key.replace("{dtype}", "fp16") for f in self.fields))


def display(file: str) -> str:
    return file.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Number:
    """A figure as ``export`` writes it: its text, whose last digit is what a re-read allows."""
    text: str

    @property
    def value(self) -> float:
        return float(self.text)


def printable(x: float, exact: bool = False) -> Number:
    """A count, or a whole number of at most 15 digits (80 GiB in bytes, 85899345920), as an integer; else six
    significant digits when that text still encloses the value within half its last digit (so ``audit --from`` on
    the written file allows what the text shows), else all the float's digits.

    >>> printable(85899345920.0).text, printable(989.4).text, printable(2.0 ** -0.5).text
    ('85899345920', '989.4', '0.707107')
    """
    if exact or (x == int(x) and abs(x) < 1e15):
        return Number(str(int(round(x))))
    short = f"{x:.6g}"
    if "e" in short:
        mantissa, exponent = short.split("e")
        short = f"{mantissa}e{int(exponent)}"
    return Number(short if abs(float(short) - x) <= half_unit(short) else repr(float(x)))


def json_text(data: object, indent: int = 4, level: int = 0) -> str:
    """``data`` (mappings, lists, text, :class:`Number`, None, bools) as JSON, numbers as their text."""
    pad, inner = " " * (indent * level), " " * (indent * (level + 1))
    if isinstance(data, Number):
        return data.text
    if isinstance(data, dict):
        if not data:
            return "{}"
        items = [f"{inner}{json.dumps(str(k))}: {json_text(v, indent, level + 1)}" for k, v in data.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(data, list):
        return "[" + ", ".join(json_text(v, indent, level + 1) for v in data) + "]"
    return json.dumps(data)


def tool_figures(fields: Sequence[PeerField], figures: Mapping[VarKey, float], units: Units,
                 dtype: str = "fp16") -> tuple[dict[tuple[str, ...], Number | None], dict[str, VarKey], dict[str, VarKey]]:
    """The single-field figures of a layout from the KB's canonical ``figures``: path -> number in the tool's
    unit (None where the KB cannot settle it), and which fields were used and which missing."""
    out: dict[tuple[str, ...], Number | None] = {}
    used: dict[str, VarKey] = {}
    missing: dict[str, VarKey] = {}
    for f in fields:
        if f.times:
            continue
        key = f.key.replace("{dtype}", dtype)
        canonical = figures.get(key)
        if canonical is None:
            out[f.path] = None
            missing[f.field] = key
            continue
        out[f.path] = printable(units.from_canonical(canonical, f.unit) / f.scale, f.exact)
        used[f.field] = key
    return out, used, missing


def nest(values: Mapping[tuple[str, ...], object], keep_none: bool = True) -> dict:
    """Paths and values as nested mappings, in the order given."""
    out: dict = {}
    for path, value in values.items():
        if value is None and not keep_none:
            continue
        node = out
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
    return out


def check_keys(item: Item, allowed: Sequence[str], what: str) -> dict[str, Item]:
    """A mapping item's keys, each one the layout knows (a typo is named with the nearest key)."""
    if not isinstance(item.value, dict):
        raise LoadError(f"{what} must be a mapping of 'key: value'", where=item.where)
    for key, value in item.value.items():
        if key not in allowed:
            close = suggest(key, allowed, n=1)
            raise LoadError(f"unknown field {key!r} in {what}", where=value.where,
                            hint=f"did you mean {close[0]!r}?" if close else f"the fields are {', '.join(allowed)}")
    return item.value
