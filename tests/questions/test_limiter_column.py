"""A saved query's ``limiter`` column: each cell names the limit that binds its variable, in the column's words."""
from __future__ import annotations

import pytest

from conftest import kb_from_text
from hwkb.errors import KBErrors
from hwkb.formats.query_files import load_query
from hwkb.questions.saved_queries import run_query
from hwkb.render.answers import query_cells

RULES = """
variables:
  lanes:  {unit: "", doc: lanes the register file allows}
  slots:  {unit: "", doc: lanes the issue slots allow}
  cap:    {unit: "", doc: lanes the chip is built with}
  active: {unit: "", doc: lanes that run}
rules:
  least:
    doc: the least of the limits binds
    eq: active = min(lanes, slots, cap)
    source: test
"""
GPUS = """
chip:
  kind: product
  facts:
    cap: 64
"""
QUERY = """
title: Which limit binds
columns:
  - {header: case}
  - {header: active, variable: active, format: .0f}
  - header: limited by
    variable: active
    limiter: {lanes: registers, slots: issue slots}
rows:
  - {label: registers, gpu: chip, set: {lanes: 8, slots: 16}}
  - {label: tie, gpu: chip, set: {lanes: 16, slots: 16}}
  - {label: the chip, gpu: chip, set: {lanes: 100, slots: 200}}
  - {label: unknown, gpu: chip, set: {lanes: 8}}
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    return kb_from_text(tmp_path_factory.mktemp("limiter"), RULES, GPUS)


def test_each_cell_names_its_binding_limit(kb, tmp_path):
    path = tmp_path / "limits.yaml"
    path.write_text(QUERY)
    result = run_query(load_query(str(path)), kb)
    assert result.columns == ["case", "active", "limited by"] and result.units == [None, "", None]
    assert [row[1:] for row in query_cells(result)] == [["8", "registers"], ["16", "registers & issue slots"],
                                                ["64", "cap"], ["-", "-"]]
    assert result.rows[2] == ["the chip", 64, "cap"] and result.rows[3][2] is None  # a limit left out: its name


def test_limiter_words_are_a_mapping(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(QUERY.replace("limiter: {lanes: registers, slots: issue slots}", "limiter: [lanes]"))
    with pytest.raises(KBErrors) as info:
        load_query(str(path))
    assert "limiter" in str(info.value)
