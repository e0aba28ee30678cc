"""A sweep's forms: its table, CSV and JSON rows printed in chunks, 10^7 rows never one string or a list.

Printing formats a short axis's distinct values once and picks them per row, a long one's (more values than a
chunk has rows) row by row; the target's column is formatted point by point; each in one vectorised pass
over a chunk. Each text is exactly what the row-by-row forms give:
:func:`~hwkb.definitions.display.format_number` in the table, each column in the unit
:func:`~hwkb.definitions.display.display_scale` shows it in (a fraction in percent, a large rate with a
prefix), ``repr`` in CSV and JSON, in the declared units, an empty cell (``null``, ``-``) for a value that
is not finite. The grid itself is the question's (:mod:`hwkb.questions.sweep_grid`).
"""
from __future__ import annotations

import csv
import io
import json
from typing import Callable, Iterator, Sequence

import numpy as np

from hwkb.definitions.display import display_scale
from hwkb.questions.sweep_grid import AxisValues, all_whole, axis_take, grid_indices
from hwkb.render.json_form import document, json_text
from hwkb.render.note_words import note_text

__all__ = ["table_chunks", "csv_chunks", "json_row_chunks", "sweep_chunks", "sweep_json_chunks", "FORMS", "WHY_NOT"]

#: rows per printed chunk: a chunk's texts take some MB (at 2^18, a chunk's JSON rows and axis texts took some tens:
#: 10^7 points of one axis then passed 300 MB); the whole of 10^7 points would take gigabytes
CHUNK = 1 << 16
#: up to this many points the table's texts are kept between measuring the widths and printing
_KEPT = 1 << 20

#: an axis's texts: its values (an array) -> one text each
Texts = Callable[[np.ndarray], list[str]]


def _ends(values: Sequence[float]) -> Sequence[float]:
    """What the largest magnitude of an axis is among: a range's two ends, else all its values."""
    return (values[0], values[-1]) if isinstance(values, AxisValues) and len(values) else values


def _table_texts(values: np.ndarray) -> list[str]:
    """``format_number`` of each value, ``-`` where it is not finite, vectorised over the chunk."""
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(values)
        whole = finite & (values == np.trunc(values)) & (np.abs(values) < 1e9)
    if whole.all():  # every value's text is its integer's: NumPy writes them all at once
        return values.astype(np.int64).astype(str).tolist()
    texts = [format(x, ".4g") for x in values.tolist()]
    with np.errstate(invalid="ignore"):
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


def _repr_texts(axis) -> Texts:
    """An axis's CSV and JSON texts: ``repr`` of each value, an int's for a whole-number axis (NumPy writes an
    int's digits all at once)."""
    if axis.integer:
        return lambda values: values.astype(np.int64).astype(str).tolist()
    return lambda values: list(map(repr, values.tolist()))


def _columns(axes: Sequence, values: np.ndarray, start: int, stop: int, axis_texts: Sequence[Texts],
             value_texts: Texts) -> list[list[str]]:
    """The texts of each column for the rows ``start`` to ``stop``, each axis's by its function in ``axis_texts``:
    from its distinct values, or row by row where it has more values than there are rows."""
    columns = []
    for axis, index, texts in zip(axes, grid_indices(axes, start, stop), axis_texts):
        if len(axis.values) > stop - start:
            columns.append(texts(axis_take(axis, index)))
            continue
        distinct = np.array(texts(axis_take(axis, np.arange(len(axis.values)))), dtype=object)
        columns.append(distinct[index].tolist())
    columns.append(value_texts(values[start:stop]))
    return columns


def _axis_width(axis, factor: float) -> int:
    """The widest of an axis's table texts: a range of whole numbers below 1e9 shown as they are from its two
    ends (its texts are its integers', longest at an end), any other axis from all its texts."""
    values = axis.values
    if isinstance(values, AxisValues) and values.count and factor == 1 and all_whole(values):
        ends = axis_take(axis, np.array([0, values.count - 1]))
        if np.all(np.abs(ends) < 1e9):
            return max(len(str(int(x))) for x in ends.tolist())
    return max((max(map(len, _table_texts(axis_take(axis, np.arange(i, min(i + CHUNK, len(values)))) * factor)))
                for i in range(0, len(values), CHUNK)), default=0)


def _largest(values: np.ndarray) -> float | None:
    """The largest finite magnitude of ``values``, None if there is none; a chunk at a time (the finite values of
    10^7 points, copied whole, were 160 MB more at the peak)."""
    found = None
    for start in range(0, values.size, CHUNK):
        chunk = np.abs(values[start:start + CHUNK])
        chunk = chunk[np.isfinite(chunk)]
        if chunk.size:
            found = max(found or 0.0, float(chunk.max()))
    return found


def table_chunks(columns: Sequence[str], units: Sequence[str], axes: Sequence, values: np.ndarray,
                 notes: Sequence) -> Iterator[str]:
    """The table as ``SweepResult.render`` gives it, in pieces: the widths are measured in a first pass."""
    total = values.size
    largest = _largest(values)
    scales = [display_scale(a.unit, _ends(a.values)) for a in axes] + [display_scale(units[-1], (largest,))]
    headers = [f"{c} [{u}]" if u else c for c, (_, u) in zip(columns, scales)]
    factor = scales[-1][0]
    axis_texts = [lambda x, f=f: _table_texts(x * f) for f, _ in scales[:-1]]  # format_number(x * f) of each
    axis_widths = [_axis_width(a, f) for a, (f, _) in zip(axes, scales)]
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
        yield "".join(map(line.format, *_columns(axes, values, start, stop, axis_texts, value_texts)))
    for note in notes:
        yield f"\nnote: {note_text(note)}"


def csv_chunks(axes: Sequence, values: np.ndarray) -> Iterator[str]:
    """The CSV rows (after the header) as ``csv.writer`` writes them: no cell needs quoting."""
    line = ",".join(["{}"] * (len(axes) + 1)) + "\n"
    for start in range(0, values.size, CHUNK):
        columns = _columns(axes, values, start, min(start + CHUNK, values.size), [_repr_texts(a) for a in axes],
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
        columns = _columns(axes, values, start, min(start + CHUNK, values.size), [_repr_texts(a) for a in axes],
                           lambda chunk: _plain_texts(chunk, "null"))
        yield ("," if start else "") + ",".join(map(row.format, *columns))
    yield "\n" + "  " * depth + "]"


def sweep_chunks(result, fmt: str) -> Iterator[str]:
    """A sweep's text (no newline at the end) or CSV (its header first), in pieces."""
    if fmt == "csv":
        return _csv_with_header(result)
    return table_chunks(result.columns, result.units, result.axes, result.values, result.notes)


def _csv_with_header(result) -> Iterator[str]:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([f"{c} [{u}]" if u else c for c, u in zip(result.columns, result.units)])
    yield buffer.getvalue()
    yield from csv_chunks(result.axes, result.values)


def sweep_json_chunks(result, command: str | None = None) -> Iterator[str]:
    """The sweep's JSON document, its rows in pieces as they are formatted (10^7 rows never as one list)."""
    mark = "rows of the sweep"
    data = result.to_dict(rows=mark)
    head, tail = json_text(document(command or data["command"], data)).split(json.dumps(mark), 1)
    yield head
    yield from json_row_chunks(result.axes, result.values, depth=1)
    yield tail


FORMS = {"SweepResult": {"text": lambda s: "".join(sweep_chunks(s, "text")),
                         "csv": lambda s: "".join(sweep_chunks(s, "csv"))}}
WHY_NOT = {"SweepResult": {fmt: "a grid of numbers: --format csv or --json" for fmt in ("markdown", "html")}}
