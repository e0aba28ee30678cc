"""hwkb.formats.query_files: the saved-query file format, read with every problem at file:line:col."""
from __future__ import annotations

import pytest

from hwkb.errors import KBErrors, Location, UnknownNameError
from hwkb.formats import query_files
from hwkb.formats.query_files import Column, Layer, Row, load_query, saved_queries

QUERY = """\
title: Tiny peaks
doc: what the table shows
source: tiny book
columns:
  - {header: GPU}
  - {header: clock, variable: clock, unit: MHz, format: .0f, suffix: " MHz", set: {sm_count: 90}}
  - {header: peak, variable: "peak[{precision}]"}
rows:
  - {label: Chip, gpu: chip, params: {precision: fp16}}
  - label: Arch at 1 GHz
    gpu: arch
    with: [chip, arch]
    set: {clock: 1 GHz, 'peak[bf16]': n/a}
    where: ["peak[fp16] >= 100 TFLOPS"]
    params: {precision: bf16}
"""


def write(tmp_path, text: str):
    path = tmp_path / "q.yaml"
    path.write_text(text)
    return path


def errors_of(tmp_path, text: str) -> list[str]:
    path = write(tmp_path, text)
    with pytest.raises(KBErrors) as info:
        load_query(str(path))
    return [f"{e.where.line}:{e.where.col}: {e.message}" + (f"; {e.hint}" if e.hint else "")
            for e in info.value.errors]


def test_a_query_as_written(tmp_path):
    path = write(tmp_path, QUERY)
    query = load_query(str(path))
    assert (query.name, query.title, query.doc, query.source, query.where) == (
        "q", "Tiny peaks", "what the table shows", "tiny book", Location(str(path), 1, 1))
    assert query.columns == (
        Column("GPU", Location(str(path), 5, 5)),
        Column("clock", Location(str(path), 6, 5), "clock", "MHz", ".0f", " MHz", Layer(facts=("sm_count=90",))),
        Column("peak", Location(str(path), 7, 5), "peak[{precision}]"))
    assert query.rows == (
        Row("Chip", Location(str(path), 9, 5), Layer("chip", params=(("precision", "fp16"),))),
        Row("Arch at 1 GHz", Location(str(path), 10, 5),
            Layer("arch", ("chip", "arch"), ("clock=1 GHz", "peak[bf16]=n/a"), ("peak[fp16] >= 100 TFLOPS",),
                  (("precision", "bf16"),))))


def test_saved_queries_by_name():
    known = saved_queries()
    assert {"peaks", "latency_hiding", "operand_bandwidth", "exp_bound"} <= set(known)
    assert load_query("peaks").name == "peaks" and known["peaks"].suffix == ".yaml"


def test_unknown_query_name_suggests():
    with pytest.raises(UnknownNameError) as info:
        load_query("peak")
    assert str(info.value) == "unknown saved query 'peak'; did you mean 'peaks'?"


def test_bad_query_file_names_file_and_line(tmp_path):
    path = write(tmp_path, "title: t\ncolumns:\n  - {header: x, variable: sm_count, format: '{0.__class__}'}\nrows: []\n")
    with pytest.raises(KBErrors) as info:
        load_query(str(path))
    assert str(info.value).endswith(
        "q.yaml:3:45: format '{0.__class__}' is not a number format; "
        "use a format spec like .2f, .0f, .3g or .0% (a percentage of a fraction)")


@pytest.mark.parametrize("text, messages", [
    ("- a\n", ["1:1: a query must be a mapping of 'key: value' lines"]),
    ("title: t\ncolumns: {a: b}\nrows: []\n", ["2:10: columns must be a list"]),
    ("title: t\ncolumns: []\n", ["1:1: a query lacks 'rows'"]),
    ("title: t\ncolumns: [{variable: x}]\nrows: [{label: r, gpu: [a, b]}]\n",
     ["2:11: a column lacks 'header'", "3:24: gpu must be a single line of text"]),
    ("title: t\ncolumns: []\nrows: [{label: r, set: {clock: [1, GHz]}}]\n",
     ["3:32: the value of 'clock' must be a number with its unit"]),
    ("title: t\ncolumns: []\nrows: [{label: r, colour: red}]\n",
     ["3:19: unknown field 'colour' in a row; allowed: label, gpu, with, set, where, params"]),
    ("title: t\ncolumns: []\nrows: [1, 2\n", ["4:1: malformed YAML: expected ',' or ']', but got '<stream end>' "
                                               "while parsing a flow sequence; "
                                               "check the indentation and the brackets around this place"]),
])
def test_problems_of_a_query_file(tmp_path, text, messages):
    assert errors_of(tmp_path, text) == messages


def test_an_empty_query_file(tmp_path):
    path = write(tmp_path, "")
    with pytest.raises(KBErrors) as info:
        load_query(str(path))
    assert [str(e) for e in info.value.errors] == [f"{path}: empty query file"]


def test_module_surface():
    assert sorted(query_files.__all__) == ["Column", "Layer", "Query", "Row", "SavedQueryList", "load_query",
                                           "saved_queries", "saved_query_titles"]
