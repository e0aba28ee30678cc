"""Peer tools' files as trees of plain values, each value knowing its file:line:col.

JSON and YAML go through the one guarded YAML reader
(:func:`hwkb.formats.yaml_nodes.read_yaml`: a regular file of at most
``MAX_YAML_BYTES``, depth and node counts bounded, aliases never expanded, the
safe loader only), so every figure keeps its place; a JSON file is first
checked by :func:`json.loads`, so YAML-only syntax in a ``.json`` file is an
error, as the tool itself would find it. A CSV is read by :mod:`csv` from text
of at most ``MAX_FILE_BYTES``. Nothing here runs code from a file, and a bad
file is one :class:`~hwkb.errors.LoadError` at its place.

A peer's file is someone else's: a number's text is bounded in length before it
is converted (Python refuses integers of over 4,300 digits with a ValueError), a
text is Unicode scalar values only (a lone surrogate cannot be printed or
written), a key holds no control character (it names an entry, and names are
printed), and digits are ASCII (``float`` would read Arabic-Indic digits). YAML
merge keys (``<<: *base``) are merged as PyYAML's SafeLoader merges them, the
loader AIConfigurator reads its systems with (``sdk/perf_database.py``,
``get_database``): the mapping's own keys first, then each merged mapping's in
order. A CSV may begin with a UTF-8 byte-order mark, and names each column once.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "x.json"
>>> _ = path.write_text('{"name": "a",\\n "peak": 312}')
>>> tree = read_tree(path)
>>> tree.value["peak"].value, tree.value["peak"].text, tree.value["peak"].where.line
(312, '312', 2)
"""
from __future__ import annotations

import ast
import csv
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Union

from hwkb.definitions.limits import (MAX_FILE_BYTES, MAX_MAGNITUDE, MAX_YAML_BYTES, read_regular_chunks,
                                    read_regular_file)
from hwkb.errors import KBError, LimitError, LoadError, Location, NotHardwareFile
from hwkb.formats.yaml_nodes import Node, read_yaml

__all__ = ["Item", "NotHardwareFile", "read_tree", "read_csv_rows", "read_csv_cells", "cell_item", "read_python_dict",
           "number_of", "text_of", "cell_text", "split_lines", "MAX_CSV_ROWS", "MAX_CSV_COLUMNS", "MAX_NUMBER_CHARS"]

#: rows one CSV may hold: Epoch's whole table has ~200
MAX_CSV_ROWS = 100_000
#: columns one CSV may hold: Epoch's table has 38; each column a reader does not map is named in the report, so a
#: header of a million columns would be a million names (and took 48 s)
MAX_CSV_COLUMNS = 1_000
#: a number's text: a figure within MAX_MAGNITUDE needs ~40 characters, written out to the byte
MAX_NUMBER_CHARS = 200
_MERGE_TAG = "tag:yaml.org,2002:merge"

Plain = Union[str, int, float, bool, None, dict, list]
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


@dataclass(frozen=True)
class Item:
    """A value of a file with its place; ``text`` is a number as printed (its digits give its rounding)."""
    value: Plain  # dict[str, Item] | list[Item] | str | int | float | bool | None
    where: Location
    text: str | None = None

    def get(self, *path: str) -> "Item | None":
        """The item at ``path`` below this mapping, or None where a key is missing."""
        item: Item | None = self
        for key in path:
            if item is None or not isinstance(item.value, dict):
                return None
            item = item.value.get(key)
        return item


def read_tree(path: Path) -> Item:
    """A JSON or YAML file (by its suffix; anything but ``.json`` is read as YAML) as a tree of items."""
    if path.suffix.lower() == ".json":
        text = read_regular_file(path, MAX_YAML_BYTES)
        try:
            json.loads(text, parse_int=str, parse_float=str)  # the syntax only: numbers are read below, bounded
        except json.JSONDecodeError as exc:
            raise LoadError(f"malformed JSON: {exc.msg}", where=Location(str(path), exc.lineno, exc.colno)) from None
        except RecursionError:
            raise LoadError("malformed JSON: nested too deep", where=Location(str(path))) from None
    errors: list[KBError] = []
    root = read_yaml(path, errors)
    if errors:
        raise errors[0]
    if root is None:
        raise LoadError("the file is empty", where=Location(str(path)))
    return _item(path, root)


def _item(path: Path, node: Node) -> Item:
    where = _place(path, node)
    if node.id == "mapping":
        out: dict[str, Item] = {}
        merged: dict[str, Item] = {}
        for key, value in node.value:
            if key.id != "scalar":
                raise LoadError("a key must be a plain name", where=_place(path, key))
            if key.tag == _MERGE_TAG:
                for source in value.value if value.id == "sequence" else [value]:
                    if source.id != "mapping":
                        raise LoadError("a merge key '<<' takes a mapping or a list of mappings",
                                        where=_place(path, source))
                    for k, v in _item(path, source).value.items():
                        merged.setdefault(k, v)
                continue
            _check_text(key.value, "a key", _place(path, key), name=True)
            if key.value in out:
                raise LoadError(f"duplicate key {key.value!r}", where=_place(path, key),
                                hint=f"it is given already at line {out[key.value].where.line}")
            out[key.value] = _item(path, value)
        return Item({**merged, **out} if merged else out, where)
    if node.id == "sequence":
        return Item([_item(path, n) for n in node.value], where)
    if node.tag in _NUMBER_TAGS and node.style is None:
        return Item(_number(node.value, where), where, node.value)
    if node.tag == "tag:yaml.org,2002:null":
        return Item(None, where)
    if node.tag == "tag:yaml.org,2002:bool":
        return Item(node.value.lower() == "true", where)
    _check_text(str(node.value), "a text", where)
    return Item(str(node.value), where)


def _place(path: Path, node: Node) -> Location:
    return Location(str(path), node.start_mark.line + 1, node.start_mark.column + 1)


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_OR_CONTROL = re.compile("[\ud800-\udfff\x00-\x1f\x7f-\x9f]")  # lone surrogates, Unicode's Cc


def _check_text(text: str, what: str, where: Location, name: bool = False) -> None:
    """Text is Unicode scalar values (no lone surrogate); a name (``name``) holds no control character either."""
    found = (_SURROGATE_OR_CONTROL if name else _SURROGATE).search(text)
    if found is None:
        return
    bad = found.group()
    shown = text.encode("unicode_escape", "backslashreplace").decode("ascii")[:60]
    if "\ud800" <= bad <= "\udfff":
        raise LoadError(f"{what} holds a lone surrogate '{bad.encode('unicode_escape').decode('ascii')}', which is "
                        f"not a character: '{shown}'", where=where, hint="write text as UTF-8")
    raise LoadError(f"{what} holds a control character: '{shown}'", where=where,
                    hint="text is shown on terminals as it is; write it as one line of plain text")


def _number(text: str, where: Location) -> int | float:
    if len(text) > MAX_NUMBER_CHARS:
        raise LimitError("number length", f"{len(text)} characters", f"{MAX_NUMBER_CHARS} characters",
                         subject=f"{text[:20]}...", where=where)
    if not text.isascii():
        raise LoadError(f"{text!r} is not a decimal number", where=where, hint="write ASCII digits, e.g. 16 or 1.41e9")
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise LoadError(f"{text!r} is not a decimal number", where=where, hint="write digits, e.g. 16 or 1.41e9") from None
    if not math.isfinite(value):
        raise LoadError(f"{text!r} is not a finite number", where=where)
    if abs(value) > MAX_MAGNITUDE:
        raise LimitError("magnitude", text, f"{MAX_MAGNITUDE:g}", where=where)
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def read_csv_rows(path: Path) -> tuple[list[str], list[dict[str, Item]]]:
    """A CSV with a header line: its columns and a mapping per row, each cell an item at the row's first line.

    A cell that reads as a number is a number (its text kept); an empty cell is None.
    """
    columns, rows = read_csv_cells(path)
    return columns, [{column: _cell(cell, where) for column, cell in zip(columns, cells)} for where, cells in rows]


def read_csv_cells(path: Path) -> tuple[list[str], Iterator[tuple[Location, list[str]]]]:
    """A CSV's columns and its rows as they come, each its place and its cells' text stripped (an empty cell is
    ""): a reader converts only the cells it maps (:func:`cell_item`), a row at a time, so a file of 10^5 rows
    is never 10^6 items, nor all in memory: the text is decoded a megabyte at a time as the rows are asked for
    (57 MB of Epoch rows was a 230 MB ``StringIO``). The checks of :func:`read_csv_rows` all hold: the header's,
    each row's length and count. The text is strict UTF-8, so no cell holds a lone surrogate."""
    reader = csv.reader(split_lines(read_regular_chunks(path, MAX_FILE_BYTES)))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise LoadError(f"malformed CSV: {exc}", where=Location(str(path), reader.line_num)) from None
    if not header:
        raise LoadError("the file has no header line", where=Location(str(path), 1))
    if len(header) > MAX_CSV_COLUMNS:
        raise LimitError("CSV columns", len(header), MAX_CSV_COLUMNS, where=Location(str(path), 1),
                         hint="a hardware table names each figure once; split the file or drop the columns "
                              "no reader maps")
    columns = [h.strip() for h in header]
    seen: set[str] = set()
    for column in columns:
        _check_text(column, "a column name", Location(str(path), 1), name=True)
        if column in seen:
            raise LoadError(f"column {column!r} is given twice", where=Location(str(path), 1),
                            hint="a CSV names each column once; which of the two is meant cannot be told")
        seen.add(column)
    return columns, _csv_rows(str(path), reader, len(header))


#: where ``io.StringIO(text, newline="")`` ends a line, as ``csv`` reads it: after \n, and after a \r no \n follows
_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


def _lines(text: str) -> list[str]:
    """``_LINE_END.split(text)``: where every \r is followed by \n (no lone \r ends a line), the same as splitting
    at each \n, 4.8x to 13x faster (a MB of real Epoch rows, 600 characters a line: the regular expression tries
    its lookbehinds at every character; least of 3 to 7, ``benchmarks/peer_scale.py --pieces``, load 6 to 11)."""
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return _LINE_END.split(text)
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + [last]


def split_lines(pieces: Iterator[str]) -> Iterator[str]:
    """The lines of a text given in ``pieces``, each with its ending, as a file opened with ``newline=""`` gives
    them (a byte-order mark, as Excel writes, dropped)."""
    carry = ""
    first = True
    for piece in pieces:
        if first and piece:
            piece, first = piece.removeprefix("\ufeff"), False
        lines = _lines(carry + piece)
        carry = lines.pop()  # the rest of a line the next piece goes on with
        if not carry and lines and lines[-1].endswith("\r"):
            carry = lines.pop()  # a \r the next piece may follow with its \n
        yield from lines
    if carry:
        yield carry


def _csv_rows(file: str, reader, width: int) -> Iterator[tuple[Location, list[str]]]:
    """The rows of ``reader`` after its header. (Splitting a quote-free line at its commas instead of reading it
    through ``csv.reader`` won 1.17x on synthetic Epoch rows and lost on real ones (0.90x: most of their rows
    quote a note), least of 5, load 8: left out.)"""
    count = 0
    start = reader.line_num + 1
    try:
        for cells in reader:
            where = Location(file, start)
            start = reader.line_num + 1
            cells = list(map(str.strip, cells))
            if not any(cells):
                continue
            if count >= MAX_CSV_ROWS:
                raise LimitError("CSV rows", f"over {MAX_CSV_ROWS}", MAX_CSV_ROWS, where=where)
            count += 1
            if len(cells) != width:
                raise LoadError(f"a row of {len(cells)} cells under a header of {width}", where=where,
                                hint="quote a cell that holds a comma")
            yield where, cells
    except csv.Error as exc:
        raise LoadError(f"malformed CSV: {exc}", where=Location(file, reader.line_num)) from None


def _cell(cell: str, where: Location) -> Item:
    text = cell.strip()
    if not text:
        return Item(None, where)
    _check_text(text, "a cell", where)
    return cell_item(text, where)


def cell_item(text: str, where: Location) -> Item:
    """A CSV cell's stripped, non-empty ``text`` (checked for surrogates) as an item: a number where it reads as
    one in ASCII digits (its text kept), None for a non-finite figure, else the text."""
    if not text.isascii():  # float() reads any script's digits: '٢٠٤٨' is a text, not a figure
        return Item(text, where)
    try:
        value = float(text)
    except ValueError:
        return Item(text, where)
    if len(text) > MAX_NUMBER_CHARS:
        _number(text, where)  # the length limit, as for any number
    if not math.isfinite(value):  # Epoch writes inf for a ratio over a missing price: no figure
        return Item(None, where)
    return Item(_number(text, where), where, text)


def number_of(item: Item | None, what: str) -> float | None:
    """A figure's number, None where the file gives none (missing, null, empty); an error for anything else."""
    if item is None or item.value is None:
        return None
    if isinstance(item.value, bool) or not isinstance(item.value, (int, float)):
        raise LoadError(f"{what} must be a number, not {str(item.value)[:40]!r}", where=item.where)
    return item.value


def text_of(item: Item | None, what: str) -> str | None:
    """A text field (a name, a data type), None where missing; an error for a list or a mapping."""
    if item is None or item.value is None:
        return None
    if isinstance(item.value, (dict, list)):
        raise LoadError(f"{what} must be text", where=item.where)
    text = item.text or str(item.value)
    if _SURROGATE_OR_CONTROL.search(text):
        raise LoadError(f"{what} holds a control character", where=item.where,
                        hint="text is shown on terminals as it is; write it as one line of plain text")
    return text


_FLOAT_WORDS = frozenset({"inf", "infinity", "nan"})


def cell_text(text: str, where: Location, what: str) -> str | None:
    """``text_of(cell_item(text, where), what)``: a cell's text (a name), None where it gives none. A cell that
    opens with a letter is text unless it is "inf", "infinity" or "nan" (the numbers ``float`` reads that open
    with one), without trying it as a number: 0.34 us a name instead of 1.94 (5.7x, least of 3, in-process, load 10)."""
    if text and text[0].isalpha() and text.lower() not in _FLOAT_WORDS:
        if _SURROGATE_OR_CONTROL.search(text):
            return text_of(Item(text, where), what)  # its error
        return text
    return text_of(cell_item(text, where), what) if text else None


def read_python_dict(path: Path, name: str) -> Item:
    """The dict literal a Python module assigns to ``name``, read with :mod:`ast`, never imported or run.

    Each value is a literal (:func:`ast.literal_eval` on it); anything else (a call, a name, an expression) is
    refused at its line. A number keeps its source text, so its printed digits give its rounding.
    """
    text = read_regular_file(path, MAX_YAML_BYTES)
    try:
        module = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise LoadError(f"not valid Python: {exc.msg}", where=Location(str(path), exc.lineno, exc.offset)) from None
    found = None
    for statement in module.body:
        targets = (statement.targets if isinstance(statement, ast.Assign)
                   else [statement.target] if isinstance(statement, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and statement.value is not None:
            found = statement.value
    if found is None:
        raise LoadError(f"no assignment to {name!r} in the module", where=Location(str(path), 1),
                        hint=f"the file holds '{name} = {{...}}' at its top level")
    if not isinstance(found, ast.Dict):
        raise LoadError(f"{name} is not a dict literal", where=_ast_place(path, found))
    return _ast_item(path, text, found)


def _ast_place(path: Path, node: ast.AST) -> Location:
    return Location(str(path), getattr(node, "lineno", None), getattr(node, "col_offset", -1) + 1)


def _ast_item(path: Path, text: str, node: ast.expr) -> Item:
    where = _ast_place(path, node)
    if isinstance(node, ast.Dict):
        out: dict[str, Item] = {}
        for key, value in zip(node.keys, node.values):
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                raise LoadError("a key must be a quoted name", where=_ast_place(path, key or value))
            _check_text(key.value, "a key", _ast_place(path, key), name=True)
            if key.value in out:
                raise LoadError(f"duplicate key {key.value!r}", where=_ast_place(path, key),
                                hint=f"it is given already at line {out[key.value].where.line}")
            out[key.value] = _ast_item(path, text, value)
        return Item(out, where)
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        shown = (ast.get_source_segment(text, node) or type(node).__name__)[:40]
        raise LoadError(f"{shown!r} is not a literal: hwkb reads the file, never runs it", where=where,
                        hint="write the figure itself, e.g. 989") from None
    if isinstance(value, bool) or value is None:
        return Item(value, where)
    if isinstance(value, (int, float)):
        source = ast.get_source_segment(text, node) or repr(value)
        return Item(_number(source.lstrip("+"), where), where, source.lstrip("+"))
    if isinstance(value, str):
        _check_text(value, "a text", where)
        return Item(value, where)
    if isinstance(value, (list, tuple)):
        return Item([_ast_item(path, text, n) for n in node.elts], where)  # type: ignore[attr-defined]
    raise LoadError(f"a {type(value).__name__} where hwkb reads numbers, texts and mappings", where=where)
