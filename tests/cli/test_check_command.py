"""hwkb.cli.check: the KB validated, every problem at once."""
from __future__ import annotations

from conftest import BAD, build_kb, run_cli, run_cli_json


run = run_cli
run_json = run_cli_json


def test_check_ok_and_broken(capsys, tmp_path):
    code, doc, _ = run_json(capsys, "check")
    assert (code, doc) == (0, {"command": "check", "status": "ok", "ok": True, "errors": []})
    kb = build_kb(tmp_path / "kb", BAD / "several_errors")
    code, doc, _ = run_json(capsys, "check", "--kb", str(kb), "--no-default-kb")
    assert code == 2 and doc["ok"] is False and doc["status"] == "error" and len(doc["errors"]) >= 2
    assert all({"file", "line", "column", "message", "hint"} <= set(e) for e in doc["errors"])


def test_check_text_lists_every_problem(capsys, tmp_path):
    kb = build_kb(tmp_path / "kb", BAD / "several_errors")
    code, out, err = run(capsys, "check", "--kb", str(kb), "--no-default-kb")
    assert code == 2 and out == "" and err.count("error: ") == err.count("\n") >= 2
