"""Text and files: audit summaries say how many they leave out, derive --write keeps the digits the data
supports and marks its values derived (a re-audit is not circular), new files get the umask's mode, --plot
refuses to overwrite without --force."""
from __future__ import annotations

import os
import stat

import pytest

from hwkb.audit.report import AuditReport
from hwkb.render.audit import render
from conftest import TINY, run_cli


def summary_of(isolated: int) -> dict:
    failures = [{"rule": "law", "entity": f"gpu{i}", "group_by": "architecture", "group": "X", "deviation": 0.1,
                 "failed": 1, "checked": 5} for i in range(isolated)]
    return {"entities": isolated, "checks": isolated, "counts": {"inconsistent": isolated}, "by_kind": {},
            "entities_inconsistent": isolated, "entities_expectations_only": 0, "entities_unchecked": 0,
            "systematic": [], "isolated": failures, "mixed": []}


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_a_cut_summary_says_how_many_more(fmt):
    text = render(AuditReport((), summary_of(23)), fmt)
    assert "gpu19: law (+10%)" in text and "gpu20" not in text and "and 3 more" in text
    assert "more" not in render(AuditReport((), summary_of(20)), fmt)


def test_derive_write_keeps_supported_digits_and_a_reaudit_is_not_circular(capsys, tmp_path):
    kb = tmp_path / "mine"
    (kb / "gpus").mkdir(parents=True)
    target = kb / "gpus" / "a100_derived.yaml"
    code, _, _ = run_cli(capsys, "derive", "--gpu", "a100", "--write", str(target))
    text = target.read_text()
    assert code == 0 and "clock_tc: {value: 1.41 GHz," in text and "1.4105" not in text
    assert "tc_flop_per_sm_cycle[fp16]: {value: 2048 flop/cycle" in text  # a product of counts stays whole
    assert "source: 'derived by hwkb, rule tensor_peak[bf16]'" in text
    _, original, _ = run_cli(capsys, "audit", "--gpu", "a100", "--json")
    code, rewritten, _ = run_cli(capsys, "audit", "--gpu", "a100-derived", "--kb", str(kb), "--json")
    count = lambda out: out.count('"rule":') - out.count('"rule": "documents"')   # a written fact keeps no `also`
    assert code == 0 and count(rewritten) == count(original)  # the derived facts add no checks of themselves
    code, out, _ = run_cli(capsys, "solve", "clock_tc", "--gpu", "a100-derived", "--kb", str(kb))
    assert code == 0 and out.startswith("clock_tc = 1.41 GHz")  # its rounding covers the route from a100's facts


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_new_files_get_the_umasks_mode(capsys, tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        run_cli(capsys, "derive", "--gpu", "chip", "--kb", str(TINY), "--no-default-kb",
                "--write", str(tmp_path / "d.yaml"))
        run_cli(capsys, "audit", "--gpu", "chip", "--kb", str(TINY), "--no-default-kb",
                "--output", str(tmp_path / "a.txt"))
    finally:
        os.umask(previous)
    assert [stat.S_IMODE((tmp_path / name).stat().st_mode) for name in ("d.yaml", "a.txt")] == [mode, mode]


@pytest.mark.parametrize("argv", [
    ["simulate", "--warps", "4", "--ilp", "1", "--compute", "16", "--latency", "500"],
    ["solve", "peak[bf16]", "--gpu", "arch", "--kb", str(TINY), "--no-default-kb", "--sweep", "clock=1,2"],
])
def test_plot_refuses_to_overwrite_without_force(capsys, tmp_path, argv):
    target = tmp_path / "plot.png"
    target.write_bytes(b"keep me")
    code, out, err = run_cli(capsys, *argv, "--plot", str(target))
    assert (code, out) == (2, "") and err.startswith("error: ") and "the file exists; give --force" in err
    assert target.read_bytes() == b"keep me"
    pytest.importorskip("matplotlib")
    code, _, _ = run_cli(capsys, *argv, "--plot", str(target), "--force")
    assert code == 0 and target.read_bytes() != b"keep me"


def test_a_withheld_expectation_counts_its_rows_in_good_english():
    summary = {**summary_of(0), "not_applicable": [{"rule": "ratio", "reason": "the die decides", "entities": 1},
                                                   {"rule": "ratio", "reason": "no vendor figure", "entities": 2}]}
    text = render(AuditReport((), summary), "table")
    assert "ratio for 1 row: the die decides" in text and "ratio for 2 rows: no vendor figure" in text
