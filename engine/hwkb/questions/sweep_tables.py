"""A sweep's grid and rows in chunks: 10^7 points evaluated, and printed as a table, CSV or JSON, without ever
holding the grid or a list of rows.

The grid is the product of the axes, the first varying slowest; a chunk of it is computed from the flat
point numbers (:func:`grid_chunk`). Printing formats each axis's distinct values once and picks them per
row; only the target's column is formatted point by point, with one vectorised pass over a chunk. Each
text is exactly what the row-by-row forms give: :func:`~hwkb.definitions.display.format_number` in the
table, each column in the unit :func:`~hwkb.definitions.display.display_scale` shows it in (a fraction in
percent, a large rate with a prefix), ``repr`` in CSV and JSON, in the declared units, an empty cell
(``null``, ``-``) for a value that is not finite.
"""
from __future__ import annotations

import math
from typing import Iterator, Sequence

import numpy as np

from hwkb.definitions.display import display_scale, format_number

__all__ = ["CHUNK", "grid_chunk", "table_chunks", "csv_chunks", "json_row_chunks"]

#: points per chunk: a chunk's texts take some tens of MB, the whole of 10^7 points would take gigabytes
CHUNK = 1 << 18
#: up to this many points the table's texts are kept between measuring the widths and printing
_KEPT = 1 << 20


def grid_chunk(axes: Sequence, start: int, stop: int) -> tuple[np.ndarray, ...]:
    """The grid's points ``start`` to ``stop`` (flat numbers, the first axis slowest), one array per axis."""
    return tuple(np.asarray(axis.values, dtype=float)[index] for axis, index in zip(axes, _indices(axes, start, stop)))


def _indices(axes: Sequence, start: int, stop: int) -> list[np.ndarray]:
    flat = np.arange(start, stop, dtype=np.int64)
    out, stride = [], math.prod(len(a.values) for a in axes)
    for axis in axes:
        stride //= len(axis.values)
        out.append((flat // stride) % len(axis.values))
    return out


def _axis_cell(axis, x: float):
    return int(x) if axis.integer else x


def _table_texts(values: np.ndarray) -> list[str]:
    """``format_number`` of each value, ``-`` where it is not finite, vectorised over the chunk."""
    texts = [format(x, ".4g") for x in values.tolist()]
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(values)
        whole = finite & (values == np.trunc(values)) & (np.abs(values) < 1e9)
        differs = whole & ((np.abs(values) >= 1e4) | (values == 0))  # below 1e4 '.4g' is the integer's text
    for i in np.flatnonzero(differs).tolist():
        texts[i] = str(int(values[i]))
    for i in np.flatnonzero(~finite).tolist():
        texts[i] = "-"
    return texts


def _plain_texts(values: np.ndarray, empty: str) -> list[str]:
    """``repr`` of each value (as CSV and JSON write a float), ``empty`` where it is not finite."""
    texts = list(map(repr, values.tolist()))
    for i in np.flatnonzero(~np.isfinite(values)).tolist():
        texts[i] = empty
    return texts


def _columns(axes: Sequence, values: np.ndarray, start: int, stop: int, axis_texts, value_texts) -> list[list[str]]:
    """The texts of each column for the rows ``start`` to ``stop``: the axes' from their distinct values, each
    formatted by its function in ``axis_texts``."""
    columns = []
    for axis, index, text in zip(axes, _indices(axes, start, stop), axis_texts):
        distinct = np.array([text(_axis_cell(axis, x)) for x in axis.values], dtype=object)
        columns.append(distinct[index].tolist())
    columns.append(value_texts(values[start:stop]))
    return columns


def table_chunks(columns: Sequence[str], units: Sequence[str], axes: Sequence, values: np.ndarray,
                 notes: Sequence[str]) -> Iterator[str]:
    """The table as ``SweepResult.render`` gives it, in pieces: the widths are measured in a first pass."""
    total = values.size
    finite = values[np.isfinite(values)]
    largest = float(np.abs(finite).max()) if finite.size else None
    scales = [display_scale(a.unit, a.values) for a in axes] + [display_scale(units[-1], (largest,))]
    headers = [f"{c} [{u}]" if u else c for c, (_, u) in zip(columns, scales)]
    factor = scales[-1][0]
    axis_text = [lambda x, f=f: format_number(x * f) for f, _ in scales[:-1]]
    axis_widths = [max((len(t(_axis_cell(a, x))) for x in a.values), default=0) for a, t in zip(axes, axis_text)]
    kept, value_width = [], 0
    for start in range(0, total, CHUNK):
        texts = _table_texts(values[start:start + CHUNK] * factor)
        value_width = max(value_width, max(map(len, texts)))
        if total <= _KEPT:
            kept.append(texts)
    widths = [max(len(h), w if total else 0) for h, w in zip(headers, [*axis_widths, value_width])]
    yield "  ".join(h.rjust(w) for h, w in zip(headers, widths))
    line = "\n" + "  ".join(f"{{:>{w}}}" for w in widths)
    for n, start in enumerate(range(0, total, CHUNK)):
        stop = min(start + CHUNK, total)
        value_texts = (lambda chunk, n=n: kept[n]) if kept else (lambda chunk: _table_texts(chunk * factor))
        yield "".join(map(line.format, *_columns(axes, values, start, stop, axis_text, value_texts)))
    for note in notes:
        yield f"\nnote: {note}"


def csv_chunks(axes: Sequence, values: np.ndarray) -> Iterator[str]:
    """The CSV rows (after the header) as ``csv.writer`` writes them: no cell needs quoting."""
    line = ",".join(["{}"] * (len(axes) + 1)) + "\n"
    for start in range(0, values.size, CHUNK):
        columns = _columns(axes, values, start, min(start + CHUNK, values.size), [repr] * len(axes),
                           lambda chunk: _plain_texts(chunk, ""))
        yield "".join(map(line.format, *columns))


def json_row_chunks(axes: Sequence, values: np.ndarray, depth: int) -> Iterator[str]:
    """The rows as ``json.dumps(rows, indent=2)`` writes them ``depth`` levels deep in a document."""
    if values.size == 0:
        yield "[]"
        return
    outer, inner = "\n" + "  " * (depth + 1), "\n" + "  " * (depth + 2)
    row = outer + "[" + inner + ("," + inner).join(["{}"] * (len(axes) + 1)) + outer + "]"
    yield "["
    for start in range(0, values.size, CHUNK):
        columns = _columns(axes, values, start, min(start + CHUNK, values.size), [repr] * len(axes),
                           lambda chunk: _plain_texts(chunk, "null"))
        yield ("," if start else "") + ",".join(map(row.format, *columns))
    yield "\n" + "  " * depth + "]"
