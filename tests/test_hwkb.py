"""hwkb, the package's door: its names, and answers that print and serialise exactly as the CLI does.

Each question is asked twice, through :class:`hwkb.KnowledgeBase` and through the ``hwkb`` command on the
same tiny KB: ``str(answer)`` is what the command prints, ``answer.to_dict()`` its ``--json`` document.
"""
from __future__ import annotations

import json

import pytest

import hwkb
from conftest import TINY, run_cli
from hwkb import KnowledgeBase

KB = ("--kb", str(TINY), "--no-default-kb")


def test_the_public_names_are_pinned():
    assert hwkb.__all__ == [
        "KnowledgeBase",
        "Solution", "Status", "Value", "Explanation", "Derived", "WhatIf", "SymbolicSolution", "SweepResult",
        "AuditReport", "Verdict", "SimulationRuns", "QueryResult", "CheckReport", "Comparison", "Sheet", "Rooflines",
        "Listing", "Export", "PeerAudit", "Result",
        "KBError", "KBErrors", "UnknownNameError", "NotDetermined",
    ]
    for name in hwkb.__all__:
        assert getattr(hwkb, name) is not None
    assert isinstance(hwkb.__version__, str)


def test_one_method_per_question_and_none_named_after_a_builtin():
    import inspect
    questions = ("solve", "explain", "derive", "what_if", "closed_form", "sweep", "audit", "simulate", "run", "check",
                 "compare", "sheet", "roofline", "listing", "export", "audit_targets", "audit_database",
                 "audit_peer_files")
    for name in questions:
        parameters = inspect.signature(getattr(KnowledgeBase, name)).parameters
        assert not {"set", "with_", "list", "type", "input"} & set(parameters), name


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load([TINY], default=False)


def same_as_cli(capsys, answer, *argv, exit_code: int = 0):
    code, out, _ = run_cli(capsys, *argv, *KB)
    assert code == exit_code
    assert str(answer) + "\n" == out
    assert repr(answer) == str(answer)
    code, out, _ = run_cli(capsys, *argv, *KB, "--json")
    assert json.loads(out) == json.loads(json.dumps(answer.to_dict()))


def test_solve(kb, capsys):
    same_as_cli(capsys, kb.solve("clock", gpu="chip"), "solve", "clock", "--gpu", "chip")
    same_as_cli(capsys, kb.solve("clock", gpu="arch"), "solve", "clock", "--gpu", "arch", exit_code=1)


def test_explain(kb, capsys):
    same_as_cli(capsys, kb.explain("clock", gpu="chip"), "explain", "clock", "--gpu", "chip")


def test_derive(kb, capsys):
    same_as_cli(capsys, kb.derive(gpu="chip"), "derive", "--gpu", "chip")


def test_what_if(kb, capsys):
    answer = kb.what_if(["peak[fp16]"], gpu="chip", changes=["sm_count=120"])
    same_as_cli(capsys, answer, "whatif", "peak[fp16]", "--gpu", "chip", "--set", "sm_count=120")
    assert answer.rows[0].change == pytest.approx(0.2)


def test_closed_form(kb, capsys):
    answer = kb.closed_form("peak[fp16]", gpu="chip", free="clock")
    same_as_cli(capsys, answer, "solve", "peak[fp16]", "--gpu", "chip", "--symbolic", "--free", "clock")
    assert answer.expression == answer.to_dict()["expression"]


def test_sweep(kb, capsys):
    answer = kb.sweep("peak[fp16]", ["clock=1,2"], gpu="chip")
    same_as_cli(capsys, answer, "solve", "peak[fp16]", "--gpu", "chip", "--sweep", "clock=1,2")


def test_audit(kb, capsys):
    answer = kb.audit(["chip"])
    same_as_cli(capsys, answer, "audit", "--gpu", "chip")


def test_simulate(kb, capsys):
    answer = kb.simulate([4, 8], [1], [16], [500])
    code, out, _ = run_cli(capsys, "simulate", "--warps", "4,8", "--ilp", "1", "--compute", "16", "--latency", "500")
    assert (code, str(answer) + "\n") == (0, out)
    code, out, _ = run_cli(capsys, "simulate", "--warps", "4,8", "--ilp", "1", "--compute", "16", "--latency", "500",
                           "--json")
    assert json.loads(out) == answer.to_dict()


def test_check(capsys):
    answer = KnowledgeBase.check([TINY], default=False)
    same_as_cli(capsys, answer, "check")
    assert answer.ok and answer.counts["entities"] == 2


def test_run():
    kb = KnowledgeBase.load()
    result = kb.run("peaks")
    assert str(result).startswith(result.title) and result.to_dict()["columns"] == result.columns


def test_loading_twice_gives_two_independent_knowledge_bases():
    a, b = KnowledgeBase.load([TINY], default=False), KnowledgeBase.load([TINY], default=False)
    assert a is not b and a.model == b.model and a.relations is not b.relations


def test_no_disk_cache_unless_given(tmp_path, monkeypatch):
    monkeypatch.setenv("HWKB_CACHE_DIR", str(tmp_path / "env"))
    KnowledgeBase.load([TINY], default=False).solve("clock", gpu="chip")
    assert not (tmp_path / "env").exists()
    KnowledgeBase.load([TINY], default=False, cache=tmp_path / "given").solve("clock", gpu="chip")
    assert (tmp_path / "given").is_dir()
