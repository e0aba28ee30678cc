"""The entity cache: a KB file's entities as built, so that a warm load reads neither YAML nor fact text.

Building an entity (composing its YAML, checking every key, reading every
quantity) is most of what a load costs; for a file whose text, rules, units and
loader code are unchanged the result is the same, so it is kept as JSON under a
hash of all of them (the ``source`` of a :mod:`~hwkb.formats.caches.entries` entry, signed by the cache),
one entry per file path.
Only the model's own frozen types are stored (:class:`~hwkb.definitions.model.Entity`,
:class:`~hwkb.definitions.model.Fact`, :class:`~hwkb.errors.Location`, tuples,
mappings, text and numbers), each field checked against its declared type when
read back: an entry can at worst be a miss, never run code or hand on a wrong type.
Every place is stored as line and column in the entity's own file, so messages
name the file as this load found it.
"""
from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Callable, Mapping

from hwkb.definitions.choices import Selection
from hwkb.definitions.model import Entity, Fact
from hwkb.errors import Location
from hwkb.formats.caches.directory import CacheDirectory
from hwkb.formats.caches.entries import digest, read_entry, write_entry

__all__ = ["cached_entities", "store_entities"]

_PLAIN = frozenset((str, int, float, bool, type(None)))
_LOCATION_FIELDS = ("file", "line", "col")

_CLASSES = {"Entity": Entity, "Fact": Fact, "Selection": Selection}
#: the names a field's declared type may be made of, and what each stands for
_TYPES = {"None": type(None), "str": str, "VarKey": str, "VarName": str, "EntityId": str, "int": int,
          "float": (int, float), "bool": bool, "Location": Location, "Fact": Fact, "Entity": Entity,
          "Selection": Selection}
#: the classes built by setting their fields directly: frozen dataclasses without __post_init__ or slots
_DIRECT = frozenset(cls for cls in (Location, Fact, Entity, Selection) if dataclasses.is_dataclass(cls)
                    and not hasattr(cls, "__post_init__") and "__slots__" not in vars(cls))


def store_entities(cache: CacheDirectory | None, source: str, file: str, entities: list[Entity]) -> None:
    """Keep ``entities`` (all of ``file``'s, in order) under ``source``; entities it cannot store are skipped."""
    if cache is None:
        return
    try:
        payload = json.dumps([_encode(e, file) for e in entities], separators=(",", ":"), allow_nan=True)
    except TypeError:  # a place in another file, a type the cache does not know: not kept
        return
    write_entry(cache, _entry(cache, file), source, payload)


def cached_entities(cache: CacheDirectory | None, source: str, file: str) -> list[Entity] | None:
    """The entities stored under ``source``, their places in ``file``; None if there is no intact entry."""
    if cache is None:
        return None
    payload = read_entry(cache, _entry(cache, file), source)
    if payload is None:
        return None
    try:
        entities = [_decode(item, file) for item in json.loads(payload)]
    except (ValueError, TypeError, IndexError, RecursionError):
        return None
    return entities if all(isinstance(e, Entity) for e in entities) else None


def _entry(cache: CacheDirectory, file: str) -> Path:
    """One entry per KB file, whatever it was made from: a newer build replaces the older, none pile up."""
    return cache / "entities" / f"{digest(file)[:32]}.json"


def _encode(value, file: str):
    """JSON of a value: text, numbers and null as they are, a mapping as an object, anything else as a list
    whose first item names its type (``"L"`` a place, ``"T"`` a tuple, else the class)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Location):
        if value.file != file:
            raise TypeError(f"a place in another file: {value}")
        return ["L", value.line, value.col]
    if isinstance(value, tuple):
        return ["T", *(_encode(v, file) for v in value)]
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("a mapping with keys that are not text")
        return {k: _encode(v, file) for k, v in value.items()}
    name = type(value).__name__
    if _CLASSES.get(name) is type(value) and _field_checks(name) is not None:
        return [name, *(_encode(getattr(value, f.name), file) for f in dataclasses.fields(value))]
    raise TypeError(f"the cache does not keep a {name}")


def _decode(item, file: str):
    kind = type(item)
    if kind is list:
        tag = item[0]
        if tag == "L":
            _, line, col = item
            if not (type(line) is int and type(col) is int):
                raise TypeError("malformed place")
            return _build(Location, _LOCATION_FIELDS, (file, line, col))
        values = [v if type(v) in _PLAIN else _decode(v, file) for v in item[1:]]
        if tag == "T":
            return tuple(values)
        checks = _field_checks(tag) if tag in _CLASSES else None
        if checks is None or len(values) != len(checks):
            raise TypeError(f"malformed {tag!r}")
        for (simple, check), value in zip(checks, values):
            if type(value) not in simple and not check(value):
                raise TypeError(f"malformed {tag!r}")
        return _build(_CLASSES[tag], _field_names(tag), values)
    if kind is dict:
        return {k: v if type(v) in _PLAIN else _decode(v, file) for k, v in item.items()}
    if kind in _PLAIN:
        return item
    raise TypeError("malformed entry")


def _build(cls: type, names: tuple[str, ...], values):
    """An instance of a frozen dataclass from checked field values, its fields set directly when it has no
    ``__post_init__`` (a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, most of
    what reading the cache would cost)."""
    if cls not in _DIRECT:
        return cls(*values)
    obj = object.__new__(cls)
    obj.__dict__.update(zip(names, values))
    return obj


@functools.lru_cache(maxsize=None)
def _field_names(name: str) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(_CLASSES[name]))


@functools.lru_cache(maxsize=None)
def _field_checks(name: str) -> tuple[tuple[frozenset, Callable[[object], bool]], ...] | None:
    """For each field of the class ``name``: the exact types that fit it outright, and whether a value fits its
    declared type; None if a field's type is one the cache does not know."""
    checks = tuple((_simple_types(f.type), _checker(f.type)) for f in dataclasses.fields(_CLASSES[name]))
    return None if any(check is None for _, check in checks) else checks


def _simple_types(annotation: str) -> frozenset:
    """The plain types among ``annotation``'s alternatives (``float | None`` -> int, float, NoneType)."""
    out: set[type] = set()
    for alternative in _split(annotation, "|"):
        base = alternative.strip().strip("\"'")
        if base in _TYPES:
            out.update(_TYPES[base] if isinstance(_TYPES[base], tuple) else (_TYPES[base],))
    return frozenset(out)


@functools.lru_cache(maxsize=None)
def _checker(annotation: str) -> Callable[[object], bool] | None:
    """Whether a value fits ``annotation`` (``'tuple[EntityId, ...] | None'``), its exact type checked (a bool is
    no number); None for a type not in _TYPES."""
    exact: set[type] = set()
    nested = []
    for alternative in _split(annotation, "|"):
        base, _, inner = alternative.strip().partition("[")
        base, inner = base.strip().strip("\"'"), inner[:-1] if inner.endswith("]") else inner
        if base == "tuple":
            element = _checker(_split(inner, ",")[0])
            nested.append(element and (lambda v, e=element: type(v) is tuple and all(map(e, v))))
        elif base == "Mapping":
            key, value = (_checker(p) for p in _split(inner, ","))
            nested.append(key and value and (
                lambda v, k=key, w=value: type(v) is dict and all(k(a) and w(b) for a, b in v.items())))
        elif base in _TYPES:
            exact.update(_TYPES[base] if isinstance(_TYPES[base], tuple) else (_TYPES[base],))
        else:
            return None
    if not all(nested):
        return None
    types = frozenset(exact)
    if not nested:
        return lambda v: type(v) in types
    return lambda v: type(v) in types or any(n(v) for n in nested)


def _split(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c == "[") - (c == "]")
        if c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]
