"""hwkb.render.tables: a comparison's and a sheet's figures are data until this stage words them."""
from __future__ import annotations

import json

import pytest

from conftest import TINY
from hwkb import KnowledgeBase
from hwkb.questions.comparison import Cell
from hwkb.render.tables import cell_text, origin_text, row_scale, status_text


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


def test_a_derived_cell_shows_solves_verdict():
    """A run of whole counts as 121–130, a flagged figure (no whole count fits, above its ceiling) with !."""
    from hwkb.solving.solution import AboveCeiling, WholeCounts
    run = WholeCounts("sm_count", 127.13, 120.7, 130.6, 121, 130)
    none = WholeCounts("sm_count", 97.66, 97.44, 97.8, 98, 97)
    above = AboveCeiling("clock_fp64", 2.0123, "clock_boost", 1.98, 1.967, 2.08, False, "a book")
    assert cell_text(Cell(121.0, "derived", whole=run)) == "121–130*"
    assert cell_text(Cell(132.0, "derived", whole=WholeCounts("sm_count", 131.99, 131.3, 132.4, 132, 132))) == "132*"
    assert cell_text(Cell(97.66, "inconsistent", whole=none)) == "97.66*!"
    assert cell_text(Cell(2.0123, "derived", above=above)) == "2.012*!"
    assert status_text(Cell(121.0, "derived", whole=run)) == "derived (whole counts 121 to 130)"
    assert status_text(Cell(2.0123, "derived", above=above)) == "derived (above clock_boost)"


def test_a_sheet_says_what_solve_says_of_a_clock_above_its_boost(real_kb):
    sheet = real_kb.sheet("h100-sxm")
    lines = str(sheet).splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.strip().startswith("clock_fp64 ")]
    assert lines[at].split()[1:3] == ["1.983*!", "GHz"]
    said = real_kb.solve("clock_fp64", "h100-sxm").render("text").splitlines()[1].strip()
    assert lines[at + 1].strip() == f"! {said}"
    assert said == ("clock_fp64 = 1.983 GHz is above the stated clock_boost 1.98 GHz, within the rounding of the "
                    "figures it comes from (1.964 GHz to 1.996 GHz)")
    row = {r["variable"]: r for r in json.loads(sheet.render("json"))["rows"]}["clock_fp64"]
    assert row["status"] == "derived" and row["above_ceiling"]["ceiling"] == "clock_boost"
    csv_line = [l for l in sheet.render("csv").splitlines() if l.startswith("clock_fp64,")][0]
    assert "derived (above clock_boost)" in csv_line and "is above the stated clock_boost" in csv_line


def test_a_comparison_says_beside_the_table_what_solve_says_of_each_flagged_cell(real_kb):
    text = str(real_kb.compare(["mi250", "mi210"], ["clock_tc"]))
    assert text.splitlines()[1].split() == ["clock_tc", "GHz", "1.7*!", "1.7*"]
    assert ("! mi250: clock_tc = 1.70006 GHz is above the stated clock_boost 1.7 GHz, within the rounding of the "
            "figures it comes from (1.698 GHz to 1.701 GHz)") in text.splitlines()
    assert "mi210:" not in text


def test_a_sheet_sends_the_reader_to_explain_for_a_clock_whose_routes_disagree(real_kb):
    lines = str(real_kb.sheet("mi350x")).splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.strip().startswith("clock_tc ")]
    assert lines[at].split()[1] == "2.203*!"
    assert lines[at + 1].strip() == "! clock_tc is inconsistent: hwkb explain clock_tc --gpu mi350x says why"


def test_a_comparison_words_a_run_of_whole_counts_and_a_count_none_fits(real_kb):
    text = str(real_kb.compare(["b200"], ["sms_per_die"], facts=["sm_count=149"]))
    assert text.splitlines()[2].split() == ["sms_per_die", "74.5*!"]
    assert "! b200: no whole sms_per_die lies within the rounding of the figures it comes from (74.5 to 74.5; " \
           "74.5 as computed): they contradict one another" in text.splitlines()


def test_a_sheet_shows_a_run_of_whole_counts_as_solve_does(tmp_path):
    from conftest import build_kb
    root = build_kb(tmp_path / "kb", base=TINY)
    (root / "gpus" / "counted.yaml").write_text("run-chip:\n  kind: product\n  facts:\n"
                                               "    peak[fp16]: 204.8 TFLOPS\n    fma_rate[fp16]: 1024 FMA/cycle\n"
                                               "    clock: 1.9 GHz\n")
    sheet = KnowledgeBase.load([root], default=False).sheet("run-chip")
    lines = str(sheet).splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.strip().startswith("sm_count ")]
    assert lines[at].split()[1] == "50–54*"
    assert lines[at + 1].strip() == ("- any whole sm_count from 50 to 54 lies within the rounding of the figures it "
                                     "comes from (49.94 to 54.11; 52.6316 as computed)")
    assert "derived (whole counts 50 to 54)" in sheet.render("csv")
