"""hwkb.render.peer_audit: the peer audit written an entry at a time is the form of the whole audit, byte for byte,
and its JSON items are what ``json.dumps(indent=2)`` writes."""
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
    data = {1: (math.inf, -math.inf, math.nan), 2.5: [], True: {}, None: ("x\n\u00e9", 10**20, -0.0)}
    assert indented(data) == json.dumps(data, indent=2, default=plain)
