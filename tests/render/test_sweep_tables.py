"""hwkb.render.sweep_tables: a sweep printed in chunks is, byte for byte, what the row-by-row forms print."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from hwkb.definitions.display import display_scale, format_number
from hwkb.questions import sweep_grid
from hwkb.render import sweep_tables
from hwkb.questions.sweeps import Axis, SweepResult

VALUES = [0.5, -0.0, 0.0, 12345.0, 1e9, 2.5e9, 123456789.0, float("nan"), float("inf"), 1 / 3, -7.0, 1e-20,
          99999.5, 1e16, 3.0]


@pytest.fixture(params=[(4, 8), (1 << 18, 1 << 20)], ids=["small chunks", "one chunk"])
def chunked(request, monkeypatch):
    chunk, kept = request.param
    monkeypatch.setattr(sweep_tables, "CHUNK", chunk)
    monkeypatch.setattr(sweep_grid, "CHUNK", chunk)
    monkeypatch.setattr(sweep_tables, "_KEPT", kept)


def _result(notes=()) -> SweepResult:
    first, second = Axis("sm_count", "", (64.0, 96.0, 1e10), True), Axis("clock", "GHz", (0.5, 1.0, 1.25, 2.0, 1e-7))
    grid = tuple(g.ravel() for g in np.meshgrid(first.values, second.values, indexing="ij"))
    return SweepResult("peak", "TFLOPS", (first, second), grid, np.array(VALUES), "closed form", None, tuple(notes))


def _table_row_by_row(result: SweepResult) -> str:
    """Each column in the unit the one display rule picks for its numbers, the numbers formatted one by one."""
    rows = result.rows()
    scales = [display_scale(unit, [row[i] for row in rows]) for i, unit in enumerate(result.units)]
    headers = [f"{c} [{u}]" if u else c for c, (_, u) in zip(result.columns, scales)]
    text = [[format_number(None if x is None else x * f) for x, (f, _) in zip(row, scales)] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in text)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(t.rjust(w) for t, w in zip(row, widths)) for row in text]
    return "\n".join(lines + [f"note: {n}" for n in result.notes])


def test_the_grid_is_computed_in_chunks_as_a_meshgrid(chunked):
    result = _result()
    computed = SweepResult(result.variable, result.unit, result.axes, None, result.values, result.method)
    assert all(np.array_equal(a, b) for a, b in zip(computed.grid, result.grid))
    assert [g.tolist() for g in sweep_grid.grid_chunk(result.axes, 4, 7)] == [[64.0, 96.0, 96.0], [1e-7, 0.5, 1.0]]


def test_the_table(chunked):
    result = _result(notes=("a note",))
    assert result.render() == _table_row_by_row(result)


def test_the_table_shows_a_fraction_in_percent_and_a_large_rate_with_a_prefix_where_csv_keeps_the_unit(chunked):
    axis = Axis("smem_share", "fraction", (0.25, 0.5), False)
    result = SweepResult("rate", "exp/s", (axis,), None, np.array([2.5e12, 5e12]), "closed form", None)
    assert result.render().splitlines() == ["smem_share [%]  rate [Texp/s]", "            25            2.5",
                                            "            50              5"]
    assert result.render("csv").splitlines() == ["smem_share [fraction],rate [exp/s]", "0.25,2500000000000.0",
                                            "0.5,5000000000000.0"]


def test_csv(chunked):
    result = _result()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["sm_count", "clock [GHz]", "peak [TFLOPS]"])
    for row in result.rows():
        writer.writerow(["" if x is None else repr(x) for x in row])
    assert result.render("csv") == buffer.getvalue()


@pytest.mark.parametrize("depth", [0, 1, 3])
def test_json_rows_at_any_depth(chunked, depth):
    result = _result()
    document = {"rows": result.rows()}
    for _ in range(depth - 1):
        document = {"inner": document}
    expected = json.dumps(document if depth else result.rows(), indent=2)
    mark = "rows here"
    holder = {"rows": mark}
    for _ in range(depth - 1):
        holder = {"inner": holder}
    head, tail = json.dumps(holder if depth else mark, indent=2).split(json.dumps(mark))
    assert head + "".join(sweep_tables.json_row_chunks(result.axes, result.values, depth)) + tail == expected


def test_no_rows_is_an_empty_list():
    axis = Axis("x", "", ())
    result = SweepResult("y", "", (axis,), None, np.array([]), "closed form")
    assert "".join(sweep_tables.json_row_chunks(result.axes, result.values, 1)) == "[]"


def _range_result(integer: bool, values) -> SweepResult:
    axis = Axis("sm_count" if integer else "clock", "" if integer else "GHz",
                sweep_grid.AxisValues(-3.0 if integer else 0.25, 1.0 if integer else 0.125, len(values)), integer)
    return SweepResult("peak", "TFLOPS", (axis,), None, np.array(values), "closed form")


@pytest.mark.parametrize("integer", [True, False], ids=["whole range", "fractional range"])
@pytest.mark.parametrize("values", [[float(v) for v in range(-5, 7)], VALUES], ids=["whole values", "any values"])
def test_a_range_longer_than_a_chunk_prints_as_its_listed_values(chunked, integer, values):
    """A range axis (values computed when asked, texts row by row when it has more values than a chunk rows) prints
    exactly as the same axis listed."""
    ranged = _range_result(integer, values)
    axis = ranged.axes[0]
    listed_axis = Axis(axis.key, axis.unit, tuple(axis.values), integer)
    listed = SweepResult("peak", "TFLOPS", (listed_axis,), None, ranged.values, "closed form")
    assert axis.values == listed_axis.values and list(axis.values) == [axis.values[i] for i in range(len(values))]
    assert ranged.render() == listed.render() == _table_row_by_row(listed)
    assert ranged.render("csv") == listed.render("csv")
    assert "".join(sweep_tables.sweep_json_chunks(ranged)) == "".join(sweep_tables.sweep_json_chunks(listed))


def test_a_range_holds_three_numbers_however_long():
    values = sweep_grid.AxisValues(1.0, 1.0, 10_000_000)
    assert (len(values), values[-1], values[2], repr(sweep_grid.AxisValues(64.0, 64.0, 3))) == (
        10_000_000, 1e7, 3.0, "(64.0, 128.0, 192.0)")
    assert sweep_grid.all_whole(values) and not sweep_grid.all_whole(sweep_grid.AxisValues(0.5, 1.0, 3))
