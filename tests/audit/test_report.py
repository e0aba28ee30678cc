"""hwkb.audit.report: the report's exit codes, summary and its three forms; str(report) is the terminal table."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from hwkb.audit.auditor import audit
from hwkb.audit.findings import CheckKind, Verdict
from hwkb.audit.report import AuditReport, summarise
from hwkb.render.audit import render, render_html, render_markdown, render_table

from audit_kbs import FAMILY, FAMILY_GPUS, GRID, exact_facts, make_kb, sheet


@pytest.fixture(scope="module")
def family_kb(tmp_path_factory):
    return make_kb(tmp_path_factory.mktemp("kb") / "family", FAMILY, FAMILY_GPUS)


@pytest.fixture(scope="module")
def report(family_kb) -> AuditReport:
    return audit(family_kb, ["chip", "slow"])


def test_str_is_the_terminal_table(report):
    assert str(report) + "\n" == render_table(report) == render(report)
    assert str(report).startswith("slow (Slow chip): inconsistent — 1 inconsistent\n"
                                  "  status        kind  rule      target       value     implied  deviation\n"
                                  "  inconsistent  law   peak_law  peak    0.9 TFLOPS  0.6 TFLOPS       +50%\n"
                                  "      likely: peak would be 0.6 TFLOPS if the others are right;")
    assert render(report).endswith("summary: 2 entities, 4 checks: 1 inconsistent, 0 within rounding, 3 consistent\n"
                                   "  1 entity inconsistent (0 through expectations only), 0 with no applicable check\n")


def test_entities_most_severe_first_and_exit_codes(report, family_kb):
    assert [e.entity for e in report.entities] == ["slow", "chip"]
    assert report.failed() and report.failed(laws_only=True) and report.exit_code() == 1
    clean = audit(family_kb, ["chip"])
    assert not clean.failed() and clean.exit_code() == 0 and clean.exit_code("laws") == 0


def test_a_broken_expectation_alone_fails_only_with_fail_on_any(tmp_path):
    kb = make_kb(tmp_path / "grid", GRID)
    broken = audit(kb, [sheet(kb, tmp_path, {**exact_facts(100, 1500, 1000), "boost": "1.5"})])
    assert broken.exit_code("any") == 1 and broken.exit_code("laws") == 0
    assert broken.summary["entities_expectations_only"] == 1


def test_summary_counts_by_status_and_kind(report):
    s = report.summary
    assert (s["entities"], s["checks"]) == (2, 4)
    assert s["counts"] == {"inconsistent": 1, "implausible": 0, "within_rounding": 0, "consistent": 3}
    assert s["by_kind"]["law"] == {"inconsistent": 1, "implausible": 0, "within_rounding": 0, "consistent": 2}
    assert s["by_kind"]["expectation"]["consistent"] == 1 and set(s["by_kind"]) == {"law", "stated_vs_derived",
                                                                                     "expectation", "documents",
                                                                                     "plausibility"}
    assert s["by_kind"]["documents"] == {"inconsistent": 0, "implausible": 0, "within_rounding": 0, "consistent": 0}
    assert (s["entities_inconsistent"], s["entities_unchecked"], s["entities_implausible"]) == (1, 0, 0)
    assert "systematic" not in s
    assert all(type(k) is str for k in s["counts"])
    assert json.loads(json.dumps(report.to_dict()))["summary"] == s


def test_summary_with_groups_adds_the_population(report):
    groups = {"chip": {"architecture": "test"}, "slow": {"architecture": "test"}}
    s = summarise(report.entities, groups)
    assert {"systematic", "isolated", "mixed", "population"} <= set(s)
    assert s["population"] == {"counts": {"consistent": 3, "within_rounding": 0, "implausible": 0, "inconsistent": 1}}
    assert [(i["entity"], i["rule"]) for i in s["isolated"]] == [("slow", "peak_law")]


def test_markdown_and_html(report):
    md = render_markdown(report)
    assert md.startswith("# hwkb audit\n\n## Summary\n\n- 2 entities, 4 checks: 1 inconsistent")
    assert "## slow" in md and "| inconsistent | law | peak_law | peak | 0.9 TFLOPS | 0.6 TFLOPS | +50% |" in md
    assert "- **peak_law** (peak):" in md
    page = render_html(report)
    entity_tables = lambda text: [part.count('<table class="sortable">') for part in text.split('<section class="entity"')[1:]]
    assert page.startswith("<!DOCTYPE html>") and entity_tables(page) == [1, 1] and '<tr class="inconsistent">' in page
    assert entity_tables(render(report, "html", failed_only=True)) == [1]


def test_failed_only_keeps_the_failing_checks(report):
    text = render_table(report, failed_only=True)
    assert "chip (Test chip)" not in text and "peak_law" in text and "width_law" not in text


def test_html_escapes_every_text_and_links_only_web_addresses(report):
    from dataclasses import replace
    hostile = "<script>alert(1)</script>"
    entity = report.entities[0]
    checks = tuple(replace(c, doc=hostile, rule=f"{c.rule}{hostile}") for c in entity.checks)
    bad = replace(report, entities=(replace(entity, name=hostile, checks=checks, notes=(hostile,)),),
                  sources={entity.entity: {c.target: f"{hostile} javascript:alert(1)" for c in checks}})
    page = render_html(bad)
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script>") == 1 and 'href="javascript' not in page


def test_html_links_a_finding_to_its_source(report):
    from dataclasses import replace
    entity = report.entities[0]
    failed = next(c for c in entity.checks if str(c.status) == "inconsistent")
    page = render_html(replace(report, sources={entity.entity: {failed.target: "Vendor sheet, https://example.com/a.pdf"}}))
    findings = page.split('id="findings-table"', 1)[1].split("</table>", 1)[0]
    assert '<a href="https://example.com/a.pdf" title="Vendor sheet, https://example.com/a.pdf" ' \
           'rel="noreferrer">example.com</a>' in findings


def test_the_report_keeps_the_sources_of_the_facts_a_failed_check_concerns(tmp_path):
    kb = make_kb(tmp_path / "grid", GRID)
    facts = {**exact_facts(100, 1500, 1000), "boost": "1.5"}
    facts["clock"] = f'{{value: {facts["clock"]}, source: "Vendor sheet p. 2, https://example.com/s.pdf"}}'
    facts["n"] = '{value: 100, source: "a fact no failed check holds"}'
    broken = audit(kb, [sheet(kb, tmp_path, facts)])
    assert [c.rule for c in broken.entities[0].checks if str(c.status) == "inconsistent"] == ["boost_is_clock"]
    assert broken.sources == {"sheet": {"clock": "Vendor sheet p. 2, https://example.com/s.pdf"}}
    assert '>example.com</a>' in render_html(broken).split('id="findings-table"', 1)[1].split("</table>", 1)[0]
    assert "sources" not in broken.to_dict()


def _each_counted(audits) -> dict:
    """The summary as every check counted one at a time, a passing entity's too: the plain tally."""
    from collections import Counter
    from hwkb.audit.findings import CheckKind, Verdict
    from hwkb.audit.population import Outcome, Population
    checks, population, withheld = Counter(), Population(), Counter()
    for a in audits:
        checks.update((c.kind, c.status) for c in a.checks)
        population.add(Outcome(a.entity, c.rule, c.status, c.deviation, a.groups, c.variables, str(c.kind), c.doc,
                               c.source) for c in a.checks)
        withheld.update((n.rule, n.reason) for n in a.not_applicable)
    statuses = [a.status for a in audits]
    summary = population.summary().to_dict()
    return {"checks": dict(checks), "entities": len(audits), "unchecked": statuses.count(None),
            "inconsistent": statuses.count(Verdict.INCONSISTENT),
            "implausible": sum(any(c.status == Verdict.IMPLAUSIBLE for c in a.checks) for a in audits),
            "expectations_only": sum(a.status == Verdict.INCONSISTENT and all(
                c.kind == CheckKind.EXPECTATION for c in a.checks if c.status == Verdict.INCONSISTENT) for a in audits),
            "population": summary, "withheld": dict(withheld)}


def _check(rule, kind, status, deviation):
    from hwkb.audit.findings import Check, Figure
    figure = Figure("x", 1.0, "", 1.0, 1.0)
    return Check(rule, kind, status, deviation, ("x", "y"), "x", figure, figure, (), "doc", "src")


@given(st.lists(st.tuples(
    st.lists(st.tuples(st.sampled_from(["law_a", "law_b", "exp_c", "range"]), st.sampled_from(list(CheckKind)),
                       st.sampled_from(list(Verdict)), st.sampled_from([None, -3.0, 0.0, 12.5])), max_size=5),
    st.fixed_dictionaries({}, optional={"architecture": st.sampled_from(["Ada", "Tesla", "", " "]),
                                        "generation": st.sampled_from(["G1", "G2"]),
                                        "memory_type": st.sampled_from(["GDDR6", "HBM3"])}),
    st.lists(st.sampled_from([("exp_c", "n/a here")]), max_size=1)), max_size=25))
def test_a_tally_counting_passing_checks_together_summarises_as_each_counted(entities):
    """Passing entities' checks counted together until the summary, failing ones' kept whole: the same counts,
    population and n/a tallies as every check counted one at a time."""
    from hwkb.audit.findings import EntityAudit, NotApplicable
    from hwkb.audit.report import Tally
    audits = [EntityAudit(f"e{i}", f"E{i}", tuple(_check(*c) for c in checks), groups=groups,
                          not_applicable=tuple(NotApplicable(rule, "x", None, why) for rule, why in withheld))
              for i, (checks, groups, withheld) in enumerate(entities)]
    tally = Tally(population=True)
    for a in audits:
        tally.add(a)
    got = tally.to_dict()
    plain = _each_counted(audits)
    assert got["entities"] == plain["entities"] and got["checks"] == sum(plain["checks"].values())
    assert got["by_kind"] == {str(k): {str(v): plain["checks"].get((k, v), 0) for v in Verdict} for k in CheckKind}
    assert (got["entities_unchecked"], got["entities_inconsistent"], got["entities_implausible"],
            got["entities_expectations_only"]) == (plain["unchecked"], plain["inconsistent"], plain["implausible"],
                                                   plain["expectations_only"])
    population = plain["population"]
    assert [got[k] for k in ("systematic", "isolated", "mixed")] == [population[k] for k in
                                                                    ("systematic", "isolated", "mixed")]
    assert got["population"] == {"counts": population["counts"]}
    assert {(n["rule"], n["reason"]): n["entities"] for n in got["not_applicable"]} == plain["withheld"]
