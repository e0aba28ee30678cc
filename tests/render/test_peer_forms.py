"""The peer audit's forms (``hwkb audit --from FORMAT FILE``, hwkb.render.peer_audit): Markdown and HTML; the text,
Markdown and JSON written an entry at a time are the whole audit's, byte for byte, and the JSON items are what
``json.dumps(indent=2)`` writes."""
from __future__ import annotations

import csv
import io
import json
import math

import pytest
from hypothesis import given, strategies as st

from conftest import FIXTURES, run_cli
from hwkb import KnowledgeBase
from hwkb.render import render
from hwkb.render.json_form import plain
from hwkb.render.peer_audit import indented, peer_pieces

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


FILES = [PEERS / "epoch" / "planted.csv", PEERS / "epoch" / "ml_hardware.csv"]


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load([PEERS / "kb"], default=False)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize("failed_only", [False, True])
def test_the_streamed_form_is_the_whole_audits(kb, fmt, failed_only):
    whole = kb.audit_peer_files("epoch", FILES)
    options = {} if fmt == "json" else {"failed_only": failed_only}
    expected = render(whole, fmt, command="audit", **options)
    streamed = kb.stream_peer_files("epoch", FILES)
    assert "".join(peer_pieces(streamed, fmt, failed_only)) == expected
    assert streamed.status == whole.status == "inconsistent" and streamed.exit_code() == 1


def test_a_stream_rendered_whole_gives_its_totals_after_its_entries(kb):
    whole = kb.audit_peer_files("epoch", FILES)
    for fmt in ("json", "markdown", "html"):
        assert render(kb.stream_peer_files("epoch", FILES), fmt, command="audit") == render(whole, fmt,
                                                                                              command="audit")


def test_a_bad_row_after_good_ones_prints_its_error_and_no_part_of_the_report(capsys, tmp_path):
    header, first = list(csv.reader(io.StringIO((PEERS / "epoch" / "ml_hardware.csv").read_text())))[:2]
    rows = [[f"gpu-{i}", *first[1:]] for i in range(5)] + [["gpu-bad", *first[1:-2], "-1", first[-1]]]
    path = tmp_path / "late.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows([header, *rows])
    for form in ([], ["--format", "markdown"]):
        code, out, err = run_cli(capsys, "audit", "--from", "epoch", str(path), *form, *KB)
        assert (code, out) == (2, "") and "TDP (W) must not be negative" in err
    code, out, err = run_cli(capsys, "audit", "--from", "epoch", str(path), "--json", *KB)
    assert code == 2 and json.loads(out)["status"] == "error" and "entities" not in json.loads(out)


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                  max_size=4), max_leaves=20)


@given(_JSON, st.sampled_from(["", "    "]))
def test_indented_is_json_dumps_with_an_indent_of_two(data, pad):
    expected = json.dumps(data, indent=2, default=plain).replace("\n", "\n" + pad)
    assert indented(data, pad) == expected


def test_indented_writes_keys_tuples_and_odd_numbers_as_json_dumps_does():
    data = {1: (math.inf, -math.inf, math.nan), 2.5: [], False: {}, None: ("x\n\u00e9", 10**20, -0.0)}
    assert indented(data) == json.dumps(data, indent=2, default=plain)
