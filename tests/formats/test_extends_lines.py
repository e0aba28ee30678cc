"""``extends`` problems are reported at the ``extends:`` line, not at the entity's first line."""
from __future__ import annotations

from pathlib import Path

from conftest import load_errors, run_cli, write_kb


def test_an_unknown_parent_is_reported_at_its_extends_line(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"gpus/mine.yaml": """
        mine:
          kind: product
          doc: a chip of an architecture the KB does not hold
          extends: ada
          facts:
            sm_count: 128
        """})
    assert load_errors(kb) == ["gpus/mine.yaml:4:12: unknown entity 'ada'; one of arch, chip, mine"]


def test_a_cycle_is_reported_at_the_extends_line_that_closes_it(tmp_path, monkeypatch):
    kb = write_kb(tmp_path, monkeypatch, {"gpus/loop.yaml": """
        first:
          kind: product
          extends: [second]
        second:
          kind: product
          doc: closes the loop
          extends: first
        """})
    (error,) = load_errors(kb)
    assert error.startswith("gpus/loop.yaml:7:12: 'extends' forms a cycle: first -> second -> first")


def test_a_users_sheet_with_an_unknown_parent(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("sheet.yaml").write_text("mine:\n  doc: my RTX card\n  extends: ada\n  facts:\n    sm_count: 128\n")
    code, out, err = run_cli(capsys, "audit", "--file", "sheet.yaml")
    assert code == 2 and out == ""
    assert err.startswith("error: sheet.yaml:3:12: unknown entity 'ada'")
