"""hwkb.questions.saved_queries: a saved query's cells answered as KnowledgeBase.solve answers them (tiny KB)."""
from __future__ import annotations

import pytest

from conftest import build_kb
from hwkb import KnowledgeBase
from hwkb.errors import QueryError
from hwkb.formats.query_files import load_query
from hwkb.questions import saved_queries
from hwkb.questions.saved_queries import QueryResult, run_query

QUERY = """\
title: Tiny peaks
columns:
  - {header: GPU}
  - {header: SMs, variable: sm_count, format: .0f}
  - {header: clock, variable: clock, unit: MHz, format: .0f, suffix: " MHz"}
  - {header: peak, variable: "peak[{precision}]", format: .1f}
  - {header: at 90 SMs, variable: "peak[{precision}]", set: {sm_count: 90}}
rows:
  - {label: Chip, gpu: chip, params: {precision: fp16}}
  - {label: Chip BF16, gpu: chip, params: {precision: bf16}}
  - {label: Arch, gpu: arch, params: {precision: fp16}}
  - label: least SMs for 100 TFLOPS
    gpu: arch
    set: {clock: 1 GHz, budget: 100 TFLOPS}
    where: ["peak[fp16] >= budget"]
    params: {precision: fp16}
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory) -> KnowledgeBase:
    """The tiny KB and a budget to compare a peak with."""
    root = build_kb(tmp_path_factory.mktemp("queries") / "kb")
    (root / "rules" / "budget.yaml").write_text(
        "variables:\n  budget: {unit: TFLOPS, doc: the peak a design must reach}\n")
    return KnowledgeBase.load([root], default=False)


def run(kb, tmp_path, text: str) -> QueryResult:
    path = tmp_path / "q.yaml"
    path.write_text(text)
    return run_query(load_query(str(path)), kb)


def test_every_cell_is_answered(kb, tmp_path):
    result = run(kb, tmp_path, QUERY)
    assert result.columns == ["GPU", "SMs", "clock", "peak", "at 90 SMs"]
    assert result.rows == [
        ["Chip", 100.0, 1000.0, 204.8, 204.8],
        ["Chip BF16", 100.0, 1000.0, 204.8, 204.8],
        ["Arch", 128.0, None, None, None],                        # undetermined: None, shown as '-'
        ["least SMs for 100 TFLOPS", 49.0, 1000.0, pytest.approx(262.144), pytest.approx(184.32)],
    ]
    assert result.notes == []


def test_a_result_prints_as_the_cli_prints_it(kb, tmp_path):
    result = run(kb, tmp_path, QUERY)
    assert str(result) == (
        "Tiny peaks\n"
        "\n"
        "GPU                       SMs     clock   peak  at 90 SMs\n"
        "Chip                      100  1000 MHz  204.8      204.8\n"
        "Chip BF16                 100  1000 MHz  204.8      204.8\n"
        "Arch                      128         -      -          -\n"
        "least SMs for 100 TFLOPS   49  1000 MHz  262.1      184.3")
    assert result.to_dict() == {"command": "run", "status": "ok", "title": "Tiny peaks", "columns": result.columns,
                                "units": [None, "", "MHz", "TFLOPS", "TFLOPS"], "rows": result.rows}


def test_an_inequality_is_answered_as_solve_answers_it(kb, tmp_path):
    result = run(kb, tmp_path, QUERY)
    solution = kb.solve("sm_count", gpu="arch", facts=["clock=1 GHz", "budget=100 TFLOPS"],
                        where=["peak[fp16] >= budget"])
    assert result.rows[3][1] == solution.magnitude == 49


def test_disagreeing_routes_are_noted(kb, tmp_path):
    result = run(kb, tmp_path, "title: t\ncolumns:\n  - {header: GPU}\n  - {header: peak, variable: 'peak[fp16]'}\n"
                               "rows:\n  - {label: fast chip, gpu: chip, set: {clock: 2 GHz}}\n")
    assert result.notes == ["fast chip / peak: routes disagree (inconsistent)"]
    assert str(result).endswith("\nnote: fast chip / peak: routes disagree (inconsistent)")


def test_a_query_without_rows_renders_its_header(kb, tmp_path):
    result = run(kb, tmp_path, "title: t\ncolumns:\n  - {header: GPU}\n  - {header: SMs, variable: sm_count}\n"
                               "rows: []\n")
    assert str(result) == "t\n\nGPU  SMs"


def test_a_column_in_a_unit_of_another_dimension_is_an_error(kb, tmp_path):
    with pytest.raises(QueryError) as info:
        run(kb, tmp_path, "title: t\ncolumns:\n  - {header: GPU}\n  - {header: clock, variable: clock, unit: TFLOPS}\n"
                          "rows:\n  - {label: Chip, gpu: chip}\n")
    assert str(info.value) == (f"{tmp_path / 'q.yaml'}:4:5: column 'clock' shows clock in 'TFLOPS', but clock is in "
                               "GHz; give a unit of the same dimension as GHz")


def test_a_placeholder_the_row_does_not_give_is_an_error(kb, tmp_path):
    with pytest.raises(QueryError) as info:
        run(kb, tmp_path, "title: t\ncolumns:\n  - {header: peak, variable: 'peak[{precision}]'}\n"
                          "rows:\n  - {label: Chip, gpu: chip}\n")
    assert str(info.value) == (f"{tmp_path / 'q.yaml'}:3:5: column 'peak' uses {{precision}}, which the row's params "
                               "do not give")


def test_a_bad_cell_names_its_row_and_column(kb, tmp_path):
    with pytest.raises(QueryError) as info:
        run(kb, tmp_path, "title: t\ncolumns:\n  - {header: SMs, variable: sm_count}\n"
                          "rows:\n  - {label: Chip, gpu: chipp}\n")
    assert str(info.value) == (f"{tmp_path / 'q.yaml'}:5:5: q: row 'Chip', column 'SMs': "
                               "--gpu: unknown entity 'chipp'; did you mean 'chip'?")


def test_module_surface():
    assert sorted(saved_queries.__all__) == ["QueryResult", "run_query"]
