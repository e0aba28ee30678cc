"""The forms of an audit: the report as a terminal table, Markdown and a self-contained HTML page (a peer tool's
files' audit: :mod:`hwkb.render.peer_audit`).

Entities come most severe first, each with its checks most severe first; an
inconsistent check is followed by the routes that gave its values, its likely
culprit and its hint. The summary (counts per status, and for a database the
systematic and isolated failures of :mod:`hwkb.audit.population`) opens the
Markdown and HTML forms and closes the terminal table. A database's audit is
written a piece at a time (:func:`report_text` around :func:`entity_text`).

>>> from hwkb import KnowledgeBase
>>> text = KnowledgeBase.load().audit(["a100"]).render("markdown")
>>> text.splitlines()[0], "## a100" in text
('# hwkb audit', True)
"""
from __future__ import annotations

from typing import Iterable, Iterator, Mapping

from hwkb.audit.findings import EXPECTATION_CAVEAT, Check, CheckKind, EntityAudit, Verdict
from hwkb.audit.report import FINDINGS, AuditReport
from hwkb.errors import markdown_text
from hwkb.render.audit_page import audit_page
from hwkb.render.finding_words import (cited, detail, explanation_sentence, figure_text, hint_text,
                                       not_applicable_sentence, routes,
                                       suspect_sentence, suspects_lead)
from hwkb.render.tables import csv_text

__all__ = ["FORMS", "render", "render_table", "render_markdown", "render_html", "render_csv",
           "report_text", "entity_text", "markdown_table", "FORMATS"]

FORMATS = ("table", "markdown", "html")
_COLUMNS = ("status", "kind", "rule", "target", "value", "implied", "deviation")
_MAX_LISTED = 20  # systematic groups / isolated rows listed in a summary


def render(report: AuditReport, fmt: str = "table", failed_only: bool = False) -> str:
    """The report as ``fmt``: table (the text), markdown or html."""
    return {"table": render_table, "text": render_table, "markdown": render_markdown,
            "html": render_html}[fmt](report, failed_only)


# ---------------------------------------------------------------- shared pieces

def _cells(c: Check) -> list[str]:
    dev = "-" if c.deviation is None else f"{c.deviation:+.3g}%"
    if c.status == Verdict.CONSISTENT:
        dev = "0%"
    return [c.status.label, c.kind.label, c.rule, c.target, figure_text(c.value), figure_text(c.implied), dev]


def _notes(c: Check) -> list[str]:
    """What a reader needs under a failed check: where the numbers came from, the culprit, the hint; under a
    check within rounding only as a figure cut short or read to two figures, that reading."""
    if c.status not in FINDINGS:
        return [f"reading: {c.reading}"] if c.reading else []
    if c.kind == CheckKind.PLAUSIBILITY:
        return [detail(c).removeprefix("plausibility: ")]
    if c.kind == CheckKind.DOCUMENTS:
        return [f"{cited(c.value)} (used); {cited(c.implied)}"]
    out = routes(c)
    if c.kind == CheckKind.EXPECTATION:
        out.append(f"expectation: {c.doc}. {EXPECTATION_CAVEAT}")
    if c.suspects:
        out.append(f"{suspects_lead(c)}: " + "; ".join(map(suspect_sentence, c.suspects[:3])))
    if c.hint:
        out.append(f"hint: {hint_text(c.hint)}")
    return out


def _heading(e: EntityAudit) -> str:
    parts = [f"{n} {v.label}" for v, n in e.counts().items() if n]
    title = e.entity if e.name in ("", e.entity) else f"{e.entity} ({e.name})"
    return f"{title}: {e.status.label if e.status else 'no check applies'}" + (
        f" — {', '.join(parts)}" if parts else "")


def _shown(report: AuditReport, failed_only: bool) -> list[tuple[EntityAudit, list[Check]]]:
    return [(e, checks) for e in report.entities if (checks := _shown_checks(e, failed_only)) is not None]


def _shown_checks(e: EntityAudit, failed_only: bool) -> list[Check] | None:
    """The checks a report shows of ``e``; None when ``failed_only`` leaves nothing of it."""
    checks = [c for c in e.checks if c.status in FINDINGS or not failed_only]
    return checks if checks or not failed_only else None


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _summary_lines(s: Mapping[str, object]) -> list[str]:
    counts = ", ".join(f"{n} {Verdict(k).label}" for k, n in s["counts"].items()
                       if n or k != Verdict.IMPLAUSIBLE)  # plausibility findings are named when there are some
    lines = [f"{_count(s['entities'], 'entity', 'entities')}, {_count(s['checks'], 'check')}: {counts}",
             f"{_count(s['entities_inconsistent'], 'entity', 'entities')} inconsistent "
             f"({s['entities_expectations_only']} through expectations only), "
             f"{s['entities_unchecked']} with no applicable check"
             + (f", {s['entities_implausible']} with a value outside the range real hardware spans"
                if s.get("entities_implausible") else "")]
    if "systematic" in s:
        lines.append(f"systematic failures (a rule failing for most of a group): {len(s['systematic'])}")
        lines += _listed(s["systematic"], lambda g: f"{g['rule']} fails for {g['failed']} of {g['checked']} rows "
                                                    f"with {g['group_by']} = {g['group']}: " + (
                             f"likely {explanation_sentence(g['explanation'])}" if g.get("explanation")
                             else "no explanation in the KB, for a person to judge"))
        lines.append(f"isolated failures (one row against a consistent group): {len(s['isolated'])}")
        lines += _listed(s["isolated"], lambda i: f"{i['entity']}: {i['rule']}{_percent(i.get('deviation'))}, "
                                                  f"among {i['group_by']} = {i['group']}")
        mixed = list(s.get("mixed", []))
        if mixed:
            lines.append(f"mixed failures (a group where the rule holds for some rows and not others): {len(mixed)}")
            lines += _listed(mixed, lambda i: f"{i['entity']}: {i['rule']}, {i['failed']} of {i['checked']} failing "
                                              f"among {i['group_by']} = {i['group']}")
        withheld = list(s.get("not_applicable", []))
        if withheld:
            lines.append(f"not applicable (an expectation an n/a fact takes out, or a check failed only through a figure observed in the database audited, with its reason): "
                         f"{sum(n['entities'] for n in withheld)}")
            lines += _listed(withheld, lambda n: f"{n['rule']} for {_count(n['entities'], 'row')}: {n['reason']}")
    return lines


def _listed(items, line) -> list[str]:
    """The first :data:`_MAX_LISTED` items, one indented line each, and how many more there are."""
    items = list(items)
    shown = [f"  {line(item)}" for item in items[:_MAX_LISTED]]
    return shown + ([f"  ... and {len(items) - _MAX_LISTED} more (--json lists every one)"]
                    if len(items) > _MAX_LISTED else [])


def _percent(fraction: float | None) -> str:
    """A JSON deviation (a fraction) as the text shows it: `` (+26.4%)``."""
    return "" if fraction is None else f" ({100 * fraction:+.3g}%)"


# ---------------------------------------------------------------- terminal

def render_table(report: AuditReport, failed_only: bool = False) -> str:
    return "".join(report_text(report.summary, "table", (entity_text(e, "table", failed_only) for e in report.entities)))


def render_markdown(report: AuditReport, failed_only: bool = False) -> str:
    return "".join(report_text(report.summary, "markdown",
                               (entity_text(e, "markdown", failed_only) for e in report.entities)))


def report_text(summary: Mapping[str, object], fmt: str, entities: Iterable[str | None]) -> Iterator[str]:
    """The table, Markdown or CSV report, a piece at a time, around its entities' parts (:func:`entity_text`)."""
    if fmt == "csv":  # data only: the header, then a row per check
        yield csv_text([_CSV_COLUMNS])
        yield from (text for text in entities if text is not None)
        return
    lines = _summary_lines(summary)
    if fmt == "markdown":
        yield "\n".join(["# hwkb audit", "", "## Summary", "",
                          *(f"- {_md(l.strip())}" if not l.startswith("  ") else f"  - {_md(l.strip())}"
                            for l in lines)])
    yield from (text for text in entities if text is not None)
    if fmt == "markdown":
        yield "\n"
    else:
        yield "\n".join(["summary: " + lines[0], *("  " + l for l in lines[1:])]) + "\n"


def entity_text(e: EntityAudit, fmt: str, failed_only: bool = False) -> str | None:
    """One entity's part of the table, Markdown or CSV report; None when ``failed_only`` leaves nothing of it."""
    checks = _shown_checks(e, failed_only)
    if checks is None:
        return None
    if fmt == "csv":
        return csv_text([_csv_row(e, c) for c in checks])
    return ("\n".join(_table_lines(e, checks)) + "\n" if fmt in ("table", "text")
            else "\n" + "\n".join(_markdown_lines(e, checks)))


def _table_lines(e: EntityAudit, checks: list[Check]) -> list[str]:
    lines = [_heading(e)]
    rows = [_cells(c) for c in checks]
    if rows:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(_COLUMNS)]
        fmt = lambda cells: "  " + "  ".join(c.ljust(w) if i < 4 else c.rjust(w)
                                             for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
        lines.append(fmt(list(_COLUMNS)))
        for c, cells in zip(checks, rows):
            lines.append(fmt(cells))
            lines += [f"      {n}" for n in _notes(c)]
    for note in e.notes:
        lines.append(f"  note: {note}")
    lines += [f"  {not_applicable_sentence(n)}" for n in e.not_applicable]
    lines.append("")
    return lines


# ---------------------------------------------------------------- markdown

def _md(text: str) -> str:
    return markdown_text(text)


def markdown_table(columns, numeric_from: int, rows, notes) -> list[str]:
    """A Markdown table (columns from ``numeric_from`` on right-aligned), then a bullet per row that has notes:
    ``notes`` holds (name, what it is about, lines) for each row."""
    lines = ["| " + " | ".join(columns) + " |",
             "|" + "|".join("---" if i < numeric_from else "---:" for i in range(len(columns))) + "|"]
    lines += ["| " + " | ".join(_md(x) for x in row) + " |" for row in rows]
    noted = [(name, about, ns) for name, about, ns in notes if ns]
    if noted:
        lines.append("")
    for name, about, ns in noted:
        lines.append(f"- **{_md(name)}** ({_md(about)}):")
        lines += [f"  - {_md(n)}" for n in ns]
    return lines


def _markdown_lines(e: EntityAudit, checks: list[Check]) -> list[str]:
    lines = ["", f"## {e.entity}", "", _md(_heading(e)), ""]
    if checks:
        lines += markdown_table(_COLUMNS, 4, [_cells(c) for c in checks],
                                 [(c.rule, c.target, _notes(c)) for c in checks])
    for note in e.notes:
        lines.append(f"_note: {_md(note)}_")
    lines += [f"_{_md(not_applicable_sentence(n))}_" for n in e.not_applicable]
    return lines


# ---------------------------------------------------------------- html

def render_html(report: AuditReport, failed_only: bool = False) -> str:
    """The page of :mod:`hwkb.render.audit_page`: findings, groups with plots, entities; sortable, escaped."""
    shown = [(e, _heading(e), [(c, _cells(c), _notes(c)) for c in checks]) for e, checks in _shown(report, failed_only)]
    notes = {e.entity: [*e.notes, *map(not_applicable_sentence, e.not_applicable)] for e, _ in _shown(report, failed_only)}
    return audit_page(report, _summary_lines(report.summary), shown, notes)


# ---------------------------------------------------------------- csv

_CSV_COLUMNS = ("entity", "status", "kind", "rule", "target", "value", "implied", "deviation")


def _csv_row(e: EntityAudit, c: Check) -> list[str]:
    return [e.entity, str(c.status), str(c.kind), c.rule, c.target, figure_text(c.value), figure_text(c.implied),
            "" if c.deviation is None else repr(c.deviation / 100)]


def render_csv(report: AuditReport, failed_only: bool = False) -> str:
    """A row per check shown: the entity, the verdict, the rule, the figures as printed, the deviation (fraction)."""
    return "".join(report_text(report.summary, "csv", (entity_text(e, "csv", failed_only) for e in report.entities)))


FORMS = {
    "AuditReport": {"text": render_table, "markdown": render_markdown, "html": render_html, "csv": render_csv},
}

