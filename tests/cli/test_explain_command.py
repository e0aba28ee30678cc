"""hwkb.cli.explain: the derivation tree with its sources."""
from __future__ import annotations

import json

from conftest import run_cli


run = run_cli


def test_explain_prints_the_tree_with_sources(capsys):
    code, out, _ = run(capsys, "explain", "clock_tc", "--gpu", "h100-sxm")
    assert code == 0
    assert "tensor_peak[bf16]" in out and "also, by an independent route" in out
    assert "sm_count = 132   [h100-sxm, nvidia-blog-hopper-in-depth, section 'NVIDIA H100 GPU architecture in-depth'" in out


def test_explain_json_is_solves_with_the_documents_it_cites(capsys):
    _, explained, _ = run(capsys, "explain", "clock_tc", "--gpu", "h100-sxm", "--json")
    _, solved, _ = run(capsys, "solve", "clock_tc", "--gpu", "h100-sxm", "--json")
    explained = json.loads(explained)
    assert explained.pop("documents") and {**explained, "command": "solve"} == json.loads(solved)
