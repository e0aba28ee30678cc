"""hwkb.render.tables: a comparison's and a sheet's figures are data until this stage words them."""
from __future__ import annotations

import json

import pytest

from conftest import TINY
from hwkb import KnowledgeBase
from hwkb.questions.comparison import Cell
from hwkb.render.tables import cell_text, origin_text, row_scale


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load([TINY], default=False)


def test_a_cell_is_its_printed_digits_na_or_its_number_marked_derived():
    assert cell_text(Cell(None, "not_applicable")) == "n/a"
    assert cell_text(Cell(1.0e3, "stated", "1000")) == "1000"
    assert cell_text(Cell(1.0e3, "stated", "1000"), 1e-3) == "1"  # another scale: the number, not the digits
    assert cell_text(Cell(0.5, "derived"), 100) == "50*"
    assert row_scale("fraction", "", [Cell(0.5, "derived"), None]) == (100, "%")
    assert row_scale("GiB", "GB", [Cell(80.0, "stated")]) == (1, "GB")


def test_a_sheet_keeps_where_its_figures_come_from_as_data(kb):
    sheet = kb.sheet("chip")
    rows = {r.variable: r for r in sheet.rows}
    stated, inherited, derived = rows["sm_count"], rows["fma_rate[fp16]"], rows["clock"]
    assert (stated.source, stated.inherited) == ("tiny datasheet", "")
    assert (inherited.source, inherited.inherited) == ("tiny whitepaper, table 3", "arch")
    assert derived.cell.status == "derived" and derived.rule.startswith("peak_law") and derived.inputs
    data = sheet.to_dict()["rows"]
    assert data[0]["origin"] == {"source": "tiny datasheet", "entity": None, "also": []}


def test_the_render_stage_words_the_origins_in_every_form(kb):
    sheet = kb.sheet("chip")
    rows = {r.variable: r for r in sheet.rows}
    assert origin_text(rows["fma_rate[fp16]"]) == "tiny whitepaper, table 3 [arch]"
    assert origin_text(rows["clock"]) == f"{rows['clock'].rule} ({', '.join(rows['clock'].inputs)})"
    document = json.loads(sheet.render("json"))
    assert [r["origin"] for r in document["rows"]] == [origin_text(r) for r in sheet.rows]
    assert all(r["findings"] == [] for r in document["rows"])


def test_a_figure_that_does_not_exist_shows_no_unit(real_kb):
    lines = str(real_kb.sheet("mi300x")).splitlines()
    (line,) = [l for l in lines if l.strip().startswith("transistors_per_die ")]
    assert line.split()[1] == "n/a" and "Gtransistor" not in line
