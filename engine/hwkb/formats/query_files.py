"""Saved query files: tables defined in YAML (:mod:`hwkb.questions.saved_queries` runs them).

A query names its rows (each a context: ``gpu``, ``with``, ``set``, ``where``
and ``params``) and its columns (a ``label``, or a ``variable`` with display
``unit``, ``format`` and a context layer of its own; with ``limiter``, the limit that binds the variable instead
of its value). A column's variable may
use ``{name}`` placeholders filled from the row's ``params``. See
``queries/README.md`` for the format with an example of every field.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from hwkb.definitions.units import parse_unit_text
from hwkb.errors import KBError, KBErrors, LoadError, Location, UnknownNameError
from hwkb.formats.caches.directory import CacheDirectory
from hwkb.formats.resources import queries_dir
from hwkb.formats.yaml_nodes import Node, NodeReader, read_yaml

__all__ = ["Query", "Column", "Row", "Layer", "load_query", "saved_queries", "SavedQueryList", "saved_query_titles"]

_FORMAT = re.compile(r"^\.?\d{0,2}[fgde%]$")
_CONTEXT_FIELDS = ("gpu", "with", "set", "where", "params")


@dataclass(frozen=True)
class Layer:
    """A piece of query context: an entity (``gpu``), entities layered on it (``with``), facts (``set``),
    relations (``where``) and placeholders (``params``)."""
    gpu: str | None = None
    layers: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    where: tuple[str, ...] = ()
    params: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Column:
    header: str
    where: Location
    variable: str | None = None      # None: the row's label
    unit: str | None = None
    format: str | None = None
    suffix: str = ""
    layer: Layer = field(default_factory=Layer)
    #: with ``limiter:``, the cell names the limit that binds the variable (a min/max law's), each limit shown
    #: by its word here (``blocks_limit_regs: registers``) or by its own name
    limiter: tuple[tuple[str, str], ...] | None = None


@dataclass(frozen=True)
class Row:
    label: str
    where: Location
    layer: Layer = field(default_factory=Layer)


@dataclass(frozen=True)
class Query:
    name: str
    title: str
    doc: str
    source: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    where: Location


def saved_queries() -> dict[str, Path]:
    return {p.stem: p for p in sorted(queries_dir().glob("*.yaml"))}


def saved_query_titles() -> tuple[tuple[str, str], ...]:
    """The saved queries' names and titles, read without the YAML parser (listing them stays light)."""
    out = []
    for name, path in saved_queries().items():
        title = re.search(r"^title:\s*(.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
        out.append((name, title.group(1).strip().strip("'\"") if title else ""))
    return tuple(out)


@dataclass(frozen=True)
class SavedQueryList:
    """The saved queries as a table of name and title: what ``hwkb run`` with no name prints."""
    queries: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict:
        return {"command": "run", "status": "ok", "title": "Saved queries", "columns": ["query", "title"],
                "units": [None, None], "rows": [list(q) for q in self.queries]}


def load_query(name_or_path: str, cache: Path | CacheDirectory | None = None) -> Query:
    """A saved query by name (``peaks``) or by path; ``cache``: the cache directory for the YAML tree, if any."""
    path = Path(name_or_path)
    if not (path.suffix in (".yaml", ".yml") and path.is_file()):
        known = saved_queries()
        if name_or_path not in known:
            raise UnknownNameError("saved query", name_or_path, known)
        path = known[name_or_path]
    errors: list[KBError] = []
    root = read_yaml(path, errors, cache)
    query = None if root is None else _read_query(NodeReader(path, errors), root, path.stem)
    if errors or query is None:
        raise KBErrors(errors or [LoadError("empty query file", where=Location(str(path)))])
    return query


def _read_query(reader: NodeReader, root: Node, name: str) -> Query | None:
    fields = reader.mapping(root, "a query", ("title", "doc", "source", "columns", "rows"), ("title", "columns", "rows"))
    if not fields or "columns" not in fields or "rows" not in fields:  # what is missing is reported
        return None
    text = lambda k: reader.text(fields[k][1], k) if k in fields else ""
    columns = []
    for node in reader.items(fields["columns"][1], "columns"):
        c = reader.mapping(node, "a column", ("header", "variable", "unit", "format", "suffix", "limiter",
                                              *_CONTEXT_FIELDS), ("header",))
        if c is None or "header" not in c:
            continue
        unit = reader.text(c["unit"][1], "unit") if "unit" in c else None
        if unit is not None:
            try:
                parse_unit_text(unit)
            except KBError as exc:  # the grammar and its limits; the names are checked when the query runs
                reader.errors.append(exc.at(reader.at(c["unit"][1])))
        fmt = reader.text(c["format"][1], "format") if "format" in c else None
        if fmt is not None and not _FORMAT.match(fmt):
            reader.error(c["format"][1], f"format {fmt!r} is not a number format",
                         "use a format spec like .2f, .0f, .3g or .0% (a percentage of a fraction)")
        columns.append(Column(reader.text(c["header"][1], "header") or "", reader.at(node),
                              reader.text(c["variable"][1], "variable") if "variable" in c else None,
                              unit, fmt,
                              reader.text(c["suffix"][1], "suffix") if "suffix" in c else "",
                              _layer(reader, c), _limiter_words(reader, c)))
    rows = []
    for node in reader.items(fields["rows"][1], "rows"):
        r = reader.mapping(node, "a row", ("label", *_CONTEXT_FIELDS), ("label",))
        if r is not None and "label" in r:
            rows.append(Row(reader.text(r["label"][1], "label") or "", reader.at(node), _layer(reader, r)))
    return Query(name, text("title"), text("doc"), text("source"), tuple(columns), tuple(rows), reader.at(root))


def _limiter_words(reader: NodeReader, fields: dict[str, tuple[Node, Node]]) -> tuple[tuple[str, str], ...] | None:
    if "limiter" not in fields:
        return None
    words = reader.mapping(fields["limiter"][1], "limiter") or {}
    return tuple((name, reader.text(value, name) or name) for name, (_, value) in words.items())


def _layer(reader: NodeReader, fields: dict[str, tuple[Node, Node]]) -> Layer:
    gpu = reader.text(fields["gpu"][1], "gpu") if "gpu" in fields else None
    layers = tuple(reader.names(fields["with"][1], "with") or ()) if "with" in fields else ()
    sets, params, where = [], [], []
    if "set" in fields:
        for key, (_, value) in (reader.mapping(fields["set"][1], "set") or {}).items():
            text = reader.scalar(value)
            if text is not None:
                sets.append(f"{key}={text}")
            else:
                reader.error(value, f"the value of {key!r} must be a number with its unit")
    if "params" in fields:
        for key, (_, value) in (reader.mapping(fields["params"][1], "params") or {}).items():
            params.append((key, reader.text(value, key) or ""))
    if "where" in fields:
        where = reader.names(fields["where"][1], "where") or []
    return Layer(gpu, layers, tuple(sets), tuple(where), tuple(params))
