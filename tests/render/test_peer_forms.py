"""The peer audit's Markdown and HTML forms (``hwkb audit --from FORMAT FILE --format markdown|html``)."""
from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, run_cli

PEERS = FIXTURES / "peers"
KB = ["--no-default-kb", "--kb", str(PEERS / "kb")]


def test_markdown_puts_each_entry_in_a_section_with_its_table_and_hint(capsys):
    code, out, err = run_cli(capsys, "audit", "--from", "genz", str(PEERS / "genz" / "planted.json"),
                             "--format", "markdown", *KB)
    assert code == 1 and out.startswith("# hwkb audit --from genz\n")
    assert "| status | field | variable | file | KB | deviation |" in out
    assert "| inconsistent |" in out and "looks like a sparse figure under a dense key" in out


def test_html_is_a_page_whose_names_are_escaped(capsys, tmp_path):
    planted = json.loads((PEERS / "genz" / "planted.json").read_text())
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps({"<script>alert(1)</script>": next(iter(planted.values()))}))
    code, out, err = run_cli(capsys, "audit", "--from", "genz", str(hostile), "--format", "html", *KB)
    assert code in (0, 1) and out.startswith("<!DOCTYPE html>")
    assert "<script>alert(1)</script>" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out


@pytest.mark.parametrize("form", ["markdown", "html"])
def test_failed_only_leaves_out_the_clean_entries(capsys, form):
    args = ["audit", "--from", "genz", str(PEERS / "genz" / "planted.json"), "--format", form, *KB]
    _, everything, _ = run_cli(capsys, *args)
    _, failed, _ = run_cli(capsys, *args, "--failed")
    assert len(failed) <= len(everything) and "inconsistent" in failed
