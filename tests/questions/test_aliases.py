"""Vendor aliases wherever a variable's name goes: solve, --set, --where, sweeps, closed forms, what-ifs, compare,
saved queries; and the other documents' figures a fact keeps, in explain and sheet."""
from __future__ import annotations

import pytest

from conftest import FIXTURES, run_cli, run_cli_json, share_kb_with_cli
from hwkb import KnowledgeBase
from hwkb.errors import UnknownNameError

ALIASED = FIXTURES / "tiny_alias"


@pytest.fixture(scope="module")
def alias_kb() -> KnowledgeBase:
    return KnowledgeBase.load([ALIASED], default=False)


def test_a_question_by_an_alias_answers_for_the_variable(alias_kb):
    answer = alias_kb.solve("cu_count", gpu="amd-chip")
    assert (answer.variable, answer.alias, answer.magnitude) == ("sm_count", "cu_count", 100)
    assert str(answer) == "sm_count (cu_count) = 100   (stated)"
    assert answer.to_dict()["alias"] == "cu_count" and "alias" not in alias_kb.solve("sm_count", gpu="amd-chip").to_dict()
    indexed = alias_kb.solve("matrix_peak[bf16]", gpu="amd-chip")      # an indexed variable's alias takes its index
    assert (indexed.variable, indexed.magnitude) == ("peak[bf16]", pytest.approx(204.8))


def test_set_and_where_take_aliases(alias_kb):
    answer = alias_kb.solve("clock", facts=["cu_count=100", "matrix_peak[fp16]=204.8", "fma_rate[fp16]=1024"])
    assert answer.magnitude == pytest.approx(1.0)
    answer = alias_kb.solve("clock", gpu="arch", facts=["peak[fp16]=204.8"], where=["tensorcore_count = 100"])
    assert answer.magnitude == pytest.approx(1.0)
    bound = alias_kb.solve("matrix_peak[fp16]", gpu="arch", facts=["clock=1"], where=["cu_count <= 100"])
    assert bound.variable == "peak[fp16]" and bound.intervals[0].upper == pytest.approx(204.8)


def test_sweeps_closed_forms_and_what_ifs_take_aliases(alias_kb):
    table = alias_kb.sweep("matrix_peak[fp16]", ["cu_count=50,100"], gpu="arch", facts=["clock=1"])
    assert [row[-1] for row in table.rows()] == pytest.approx([102.4, 204.8])
    form = alias_kb.closed_form("matrix_peak[fp16]", gpu="arch", facts=["clock=1"], free="cu_count")
    assert form.to_dict()["free"] == ["sm_count"]
    change = alias_kb.what_if(["matrix_peak[fp16]"], gpu="amd-chip", changes=["cu_count=50"])
    assert change.to_dict()["rows"][0]["variable"] == "peak[fp16]"
    assert change.to_dict()["rows"][0]["scenario"] == pytest.approx(102.4)


def test_a_saved_query_takes_aliases(alias_kb, tmp_path):
    path = tmp_path / "q.yaml"
    path.write_text("title: by vendor words\ncolumns:\n  - {header: CUs, variable: cu_count}\n"
                    "rows:\n  - {label: AMD, gpu: amd-chip}\n")
    result = alias_kb.run(str(path))
    assert result.rows[0][-1] == 100


def test_compare_vars_take_aliases(alias_kb, monkeypatch, capsys):
    share_kb_with_cli(monkeypatch, alias_kb)
    code, doc, _ = run_cli_json(capsys, "compare", "amd-chip", "two-documents", "--vars", "cu_count,matrix_peak")
    assert code == 0 and [r["variable"] for r in doc["rows"]] == ["sm_count", "peak[fp16]", "peak[bf16]"]


def test_cli_solve_by_an_alias(alias_kb, monkeypatch, capsys):
    share_kb_with_cli(monkeypatch, alias_kb)
    code, out, _ = run_cli(capsys, "solve", "cu_count", "--gpu", "amd-chip")
    assert code == 0 and out.startswith("sm_count (cu_count) = 100")
    code, doc, _ = run_cli_json(capsys, "solve", "cu_count", "--gpu", "arch", "--symbolic")
    assert code == 0 and doc["variable"] == "sm_count" and doc["alias"] == "cu_count"


def test_an_unknown_name_suggests_the_aliases(alias_kb):
    with pytest.raises(UnknownNameError, match="did you mean 'cu_count'"):
        alias_kb.solve("cu_cont", gpu="amd-chip")


def test_explain_and_sheet_show_the_other_documents(alias_kb, monkeypatch, capsys):
    text = str(alias_kb.explain("sm_count", gpu="two-documents"))
    assert "another document: 96   [preliminary whitepaper]" in text
    share_kb_with_cli(monkeypatch, alias_kb)
    code, doc, _ = run_cli_json(capsys, "explain", "sm_count", "--gpu", "two-documents")
    assert doc["derivation"]["also"] == [{"value": 96, "unit": "", "source": "preliminary whitepaper"},
                                         {"value": 100, "unit": "", "source": "product page"}]
    code, out, _ = run_cli(capsys, "sheet", "--gpu", "two-documents")
    line = next(line for line in out.splitlines() if line.strip().startswith("sm_count"))
    assert "final whitepaper; also 96 per preliminary whitepaper; also 100 per product page" in line
    assert "! inconsistent documents" in out
