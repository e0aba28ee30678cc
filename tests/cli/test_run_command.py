"""hwkb.cli.run: a saved query by name or by path."""
from __future__ import annotations

import os

import hwkb
from conftest import run_cli, run_cli_json


run = run_cli
run_json = run_cli_json


def test_run_by_name_and_by_path(capsys):
    code, doc, _ = run_json(capsys, "run", "peaks")
    assert code == 0 and {"title", "columns", "rows"} <= set(doc)
    path = os.path.join(os.path.dirname(hwkb.__file__), "..", "..", "queries", "peaks.yaml")
    if os.path.exists(path):
        code, again, _ = run_json(capsys, "run", path)
        assert again["rows"] == doc["rows"]


def test_run_with_no_name_lists_the_saved_queries_with_their_titles(capsys):
    """Issue 24: 'hwkb run' alone errored; it lists the queries, as KnowledgeBase.saved_queries() gives them."""
    code, out, _ = run(capsys, "run")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "saved queries (hwkb run NAME):"
    assert any(line.split()[:1] == ["hp_gpus"] and line.endswith("The textbook's GPU section, figure by figure")
               for line in lines)
    code, doc, _ = run_json(capsys, "run")
    assert doc["columns"] == ["query", "title"]
    assert ["peaks", "Peak compute worked back to the clock, FP32 and Tensor Cores"] in doc["rows"]
    assert [list(q) for q in hwkb.KnowledgeBase.saved_queries().queries] == doc["rows"]
