"""Saved queries: tables defined in YAML, run through the engine.

A query names its rows (each a context: ``gpu``, ``with``, ``set``, ``where``
and ``params``) and its columns (a ``label``, or a ``variable`` with display
``unit``, ``format`` and a context layer of its own). A column's variable may
use ``{name}`` placeholders filled from the row's ``params``. See
``queries/README.md`` for the format with an example of every field.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml.nodes import ScalarNode, SequenceNode

from hwkb.errors import KBError, KBErrors, LoadError, Location, QueryError, UnitError
from hwkb.formats.load import _Reader, read_yaml
from hwkb.formats.resources import queries_dir

__all__ = ["Query", "Column", "Row", "QueryResult", "load_query", "run_query", "saved_queries"]

_FORMAT = re.compile(r"^\.?\d{0,2}[fgde%]$")
_PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")
_CONTEXT_FIELDS = ("gpu", "with", "set", "where", "params")


@dataclass(frozen=True)
class Layer:
    """A piece of query context: an entity, entities layered on it, facts, relations, placeholders."""
    gpu: str | None = None
    with_: tuple[str, ...] = ()
    set: tuple[str, ...] = ()
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


@dataclass(frozen=True)
class QueryResult:
    title: str
    columns: list[str]
    rows: list[list]
    text: list[list[str]]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"title": self.title, "columns": self.columns, "rows": self.rows}

    def render(self) -> str:
        widths = [max([len(c), *(len(r[i]) for r in self.text)]) for i, c in enumerate(self.columns)]
        lines = [self.title, ""]
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(self.columns, widths))))
        for row in self.text:
            lines.append("  ".join(t.ljust(w) if i == 0 else t.rjust(w) for i, (t, w) in enumerate(zip(row, widths))))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def saved_queries() -> dict[str, Path]:
    return {p.stem: p for p in sorted(queries_dir().glob("*.yaml"))}


def load_query(name_or_path: str, kb=None) -> Query:
    """A saved query by name (``peaks``) or by path."""
    path = Path(name_or_path)
    if not (path.suffix in (".yaml", ".yml") and path.is_file()):
        known = saved_queries()
        if name_or_path not in known:
            from hwkb.errors import UnknownNameError
            raise UnknownNameError("saved query", name_or_path, known)
        path = known[name_or_path]
    errors: list[KBError] = []
    root = read_yaml(path, errors)
    query = None if root is None else _read_query(_Reader(path, errors), root, path.stem)
    if errors or query is None:
        raise KBErrors(errors or [LoadError("empty query file", where=Location(str(path)))])
    return query


def _read_query(reader: _Reader, root, name: str) -> Query | None:
    fields = reader.mapping(root, "a query", ("title", "doc", "source", "columns", "rows"), ("title", "columns", "rows"))
    if not fields:
        return None
    text = lambda k: reader.text(fields[k][1], k) if k in fields else ""
    columns = []
    for node in _items(reader, fields["columns"][1], "columns"):
        c = reader.mapping(node, "a column", ("header", "variable", "unit", "format", "suffix", *_CONTEXT_FIELDS),
                           ("header",))
        if c is None:
            continue
        fmt = reader.text(c["format"][1], "format") if "format" in c else None
        if fmt is not None and not _FORMAT.match(fmt):
            reader.error(c["format"][1], f"format {fmt!r} is not a number format",
                         "use a format spec like .2f, .0f, .3g or .0% (a percentage of a fraction)")
        columns.append(Column(reader.text(c["header"][1], "header") or "", reader.at(node),
                              reader.text(c["variable"][1], "variable") if "variable" in c else None,
                              reader.text(c["unit"][1], "unit") if "unit" in c else None, fmt,
                              reader.text(c["suffix"][1], "suffix") if "suffix" in c else "",
                              _layer(reader, c)))
    rows = []
    for node in _items(reader, fields["rows"][1], "rows"):
        r = reader.mapping(node, "a row", ("label", *_CONTEXT_FIELDS), ("label",))
        if r is not None:
            rows.append(Row(reader.text(r["label"][1], "label") or "", reader.at(node), _layer(reader, r)))
    return Query(name, text("title"), text("doc"), text("source"), tuple(columns), tuple(rows), reader.at(root))


def _items(reader, node, what):
    if not isinstance(node, SequenceNode):
        reader.error(node, f"{what} must be a list")
        return []
    return node.value


def _layer(reader: _Reader, fields) -> Layer:
    gpu = reader.text(fields["gpu"][1], "gpu") if "gpu" in fields else None
    layers = tuple(reader.names(fields["with"][1], "with") or ()) if "with" in fields else ()
    sets, params, where = [], [], []
    if "set" in fields:
        for key, (_, value) in (reader.mapping(fields["set"][1], "set") or {}).items():
            if isinstance(value, ScalarNode):
                sets.append(f"{key}={value.value}")
            else:
                reader.error(value, f"the value of {key!r} must be a number with its unit")
    if "params" in fields:
        for key, (_, value) in (reader.mapping(fields["params"][1], "params") or {}).items():
            params.append((key, reader.text(value, key) or ""))
    if "where" in fields:
        where = reader.names(fields["where"][1], "where") or []
    return Layer(gpu, layers, tuple(sets), tuple(where), tuple(params))


def run_query(query: Query, kb) -> QueryResult:
    """Every cell computed by the engine; an undetermined cell is None (shown as '-')."""
    rows, text, notes = [], [], []
    for row in query.rows:
        cells, shown = [], []
        params = dict(row.layer.params)
        for column in query.columns:
            if column.variable is None:
                cells.append(row.label)
                shown.append(row.label)
                continue
            variable = _fill(column.variable, params, column)
            layer = [row.layer, column.layer]
            gpu = column.layer.gpu or row.layer.gpu
            layers = [w for part in layer for w in part.with_]
            sets = [_fill(s, params, column) for part in layer for s in part.set]
            where = [_fill(w, params, column) for part in layer for w in part.where]
            try:
                solution = kb.solve(variable, gpu=gpu, layers=layers, facts=sets, where=where)
            except KBError as exc:
                raise QueryError(f"{query.name}: row {row.label!r}, column {column.header!r}: {exc}",
                                 where=row.where) from exc
            value = solution.magnitude if solution.determined else None
            if column.unit and column.unit != solution.unit:
                _check_column_unit(kb, column, variable, solution.unit)
            if value is not None and column.unit and column.unit != solution.unit:
                value = kb.units.from_canonical(kb.units.to_canonical(value, solution.unit), column.unit)
            if solution.status == "inconsistent":
                notes.append(f"{row.label} / {column.header}: routes disagree ({solution.status})")
            cells.append(value)
            shown.append(_format(value, column))
        rows.append(cells)
        text.append(shown)
    return QueryResult(query.title, [c.header for c in query.columns], rows, text, notes)


def _check_column_unit(kb, column: Column, variable: str, unit: str) -> None:
    """A column shown in a unit of another dimension than its variable's is a mistake of the query file."""
    try:
        fits = kb.units.dimensions(column.unit) == kb.units.dimensions(unit)
    except UnitError as exc:
        raise QueryError(f"column {column.header!r}: {exc.message}", where=column.where, hint=exc.hint) from None
    if not fits:
        raise QueryError(f"column {column.header!r} shows {variable} in {column.unit!r}, but {variable} is in {unit}",
                         where=column.where, hint=f"give a unit of the same dimension as {unit}")


def _fill(template: str, params: dict, column: Column) -> str:
    def sub(m):
        if m.group(1) not in params:
            raise QueryError(f"column {column.header!r} uses {{{m.group(1)}}}, which the row's params do not give",
                             where=column.where)
        return params[m.group(1)]
    return _PLACEHOLDER.sub(sub, template)


def _format(value, column: Column) -> str:
    if value is None:
        return "-"
    if column.format:
        text = format(value, column.format)
    else:
        from hwkb.definitions.quantities import format_number
        text = format_number(value)
    return text + column.suffix
