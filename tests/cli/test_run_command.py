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
