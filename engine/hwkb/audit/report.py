"""What ``audit`` returns, :class:`AuditReport`, and its forms: a terminal table, Markdown, a self-contained HTML page.

Entities come most severe first, each with its checks most severe first; an
inconsistent check is followed by the routes that gave its values, its likely
culprit and its hint. The summary (counts per status, and for a database the
systematic and isolated failures of :mod:`hwkb.audit.population`) opens the
Markdown and HTML forms and closes the terminal table, which is what
``str(report)`` gives.

>>> from hwkb import KnowledgeBase
>>> from hwkb.audit.auditor import audit
>>> text = render(audit(KnowledgeBase.load(), ["a100"]), "markdown")
>>> text.splitlines()[0], "## a100" in text
('# hwkb audit', True)
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping

from hwkb.audit.findings import EXPECTATION_CAVEAT, UNCHECKED, Check, CheckKind, EntityAudit, Verdict
from hwkb.audit.population import Outcome, Population
from hwkb.audit.report_page import audit_page
from hwkb.errors import markdown_text

__all__ = ["AuditReport", "Tally", "summarise", "render", "render_table", "render_markdown", "render_html",
           "report_text", "entity_text", "FORMATS"]

FORMATS = ("table", "markdown", "html")
_COLUMNS = ("status", "kind", "rule", "target", "value", "implied", "deviation")
_NOT_LAWS = (CheckKind.EXPECTATION, CheckKind.DOCUMENTS, CheckKind.PLAUSIBILITY)  # what --fail-on laws lets pass
_FINDINGS = (Verdict.INCONSISTENT, Verdict.IMPLAUSIBLE)  # the verdicts a report shows with their notes
_MAX_LISTED = 20  # systematic groups / isolated rows listed in a summary
_POPULATION_LISTS = ("systematic", "isolated", "mixed")


@dataclass(frozen=True, repr=False)
class AuditReport:
    """What ``audit`` always returns: the entities' checks, most severe first, and a summary."""
    entities: tuple[EntityAudit, ...]
    summary: Mapping[str, object]
    sources: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # entity -> key -> a failed fact's source

    def failed(self, laws_only: bool = False) -> bool:
        by_kind = self.summary.get("by_kind", {})
        if not laws_only:
            return any(self.summary["counts"].get(str(v)) for v in _FINDINGS)
        return any(by_kind.get(str(k), {}).get(str(Verdict.INCONSISTENT)) for k in CheckKind if k not in _NOT_LAWS)

    def exit_code(self, fail_on: str = "any") -> int:
        """1 when anything is inconsistent or implausible (``fail_on="laws"``: only a broken law counts)."""
        return 1 if self.failed(laws_only=fail_on == "laws") else 0

    @property
    def status(self) -> str:
        """The most severe verdict of any check (``inconsistent`` first), or ``unchecked`` when nothing was checked."""
        verdicts = [v for v in Verdict if self.summary["counts"].get(str(v))]
        return str(min(verdicts, key=lambda v: v.rank)) if verdicts else UNCHECKED

    def to_dict(self, entities: bool = True) -> dict:
        """The JSON document; ``entities=False`` leaves the list empty (the CLI writes them one at a time)."""
        return {"command": "audit", "status": self.status,
                "entities": [e.to_dict() for e in self.entities] if entities else [], "summary": dict(self.summary)}

    def __str__(self) -> str:
        """The terminal table ``hwkb audit`` prints (which ends the table with a newline of its own)."""
        return render_table(self).removesuffix("\n")

    __repr__ = __str__


def summarise(audits: Iterable[EntityAudit], groups: Mapping[str, Mapping[str, str]] | None) -> dict:
    """Counts per status and kind; with ``groups`` (a database), the population's systematic and isolated failures."""
    tally = Tally(population=groups is not None)
    for a in audits:
        tally.add(a)
    return tally.to_dict()


class Tally:
    """The summary of an audit, filled one entity at a time: a database's audits need not all be kept."""

    def __init__(self, population: bool = False):
        self.checks: Counter = Counter()  # (kind, status) -> checks
        self.entities = self.inconsistent = self.expectations_only = self.unchecked = self.implausible = 0
        self.population = Population() if population else None
        self.withheld: Counter = Counter()  # (rule, reason) -> entities

    def add(self, a: EntityAudit) -> None:
        checks = a.checks
        self.checks.update([(c.kind, c.status) for c in checks])
        self.entities += 1
        self.unchecked += not checks
        failed = a.status == Verdict.INCONSISTENT
        self.implausible += any(c.status == Verdict.IMPLAUSIBLE for c in checks)
        if failed:
            self.inconsistent += 1
            self.expectations_only += all(c.kind == CheckKind.EXPECTATION
                                          for c in checks if c.status == Verdict.INCONSISTENT)
        if self.population is None:
            return
        if failed:
            self.population.add(Outcome(a.entity, c.rule, c.status, c.deviation, a.groups, c.variables, str(c.kind),
                                        c.doc, c.source) for c in checks)
        else:  # nothing failed: counts are all the population needs
            self.population.count_passed([(c.rule, c.status) for c in checks], self.population.groups(a.groups))
        if a.not_applicable:
            self.withheld.update([(n.rule, n.reason) for n in a.not_applicable])

    def to_dict(self) -> dict:
        tally = self.checks
        out: dict = {
            "entities": self.entities,
            "checks": sum(tally.values()),
            "counts": {str(v): sum(tally[k, v] for k in CheckKind) for v in Verdict},
            "by_kind": {str(k): {str(v): tally[k, v] for v in Verdict} for k in CheckKind},
            "entities_inconsistent": self.inconsistent,
            "entities_expectations_only": self.expectations_only,
            "entities_unchecked": self.unchecked,
            "entities_implausible": self.implausible,
        }
        if self.population is not None:
            population = self.population.summary().to_dict()
            for name in _POPULATION_LISTS:
                out[name] = population.get(name, [])
            out["population"] = {k: v for k, v in population.items() if k not in _POPULATION_LISTS}
            out["not_applicable"] = [{"rule": rule, "reason": reason, "entities": n} for (rule, reason), n
                                     in sorted(self.withheld.items(), key=lambda i: (-i[1], i[0]))]
        return out


def render(report: AuditReport, fmt: str = "table", failed_only: bool = False) -> str:
    return {"table": render_table, "markdown": render_markdown, "html": render_html}[fmt](report, failed_only)


# ---------------------------------------------------------------- shared pieces

def _cells(c: Check) -> list[str]:
    dev = "-" if c.deviation is None else f"{c.deviation:+.3g}%"
    if c.status == Verdict.CONSISTENT:
        dev = "0%"
    return [c.status.label, c.kind.label, c.rule, c.target, c.value.text, c.implied.text, dev]


def _notes(c: Check) -> list[str]:
    """What a reader needs under a failed check: where the numbers came from, the culprit, the hint; under a
    check within rounding only as a figure cut short or read to two figures, that reading."""
    if c.status not in _FINDINGS:
        return [f"reading: {c.reading}"] if c.reading else []
    if c.kind == CheckKind.PLAUSIBILITY:
        return [c.detail.removeprefix("plausibility: ")]
    if c.kind == CheckKind.DOCUMENTS:
        return [f"{c.value.cited} (used); {c.implied.cited}"]
    out = c.routes
    if c.kind == CheckKind.EXPECTATION:
        out.append(f"expectation: {c.doc}. {EXPECTATION_CAVEAT}")
    if c.suspects:
        out.append(f"{c.suspects_lead}: " + "; ".join(s.sentence for s in c.suspects[:3]))
    if c.hint:
        out.append(f"hint: {c.hint}")
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
    checks = [c for c in e.checks if c.status in _FINDINGS or not failed_only]
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
                             f"likely {g['explanation']['sentence']}" if g.get("explanation")
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
            lines.append(f"not applicable (an expectation an n/a fact takes out, with its reason): "
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
    """The table or Markdown report, a piece at a time, around its entities' parts (:func:`entity_text`)."""
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
    """One entity's part of the table or Markdown report; None when ``failed_only`` leaves nothing of it."""
    checks = _shown_checks(e, failed_only)
    if checks is None:
        return None
    return ("\n".join(_table_lines(e, checks)) + "\n" if fmt == "table"
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
    lines += [f"  {n.sentence}" for n in e.not_applicable]
    lines.append("")
    return lines


# ---------------------------------------------------------------- markdown

def _md(text: str) -> str:
    return markdown_text(text)


def _markdown_lines(e: EntityAudit, checks: list[Check]) -> list[str]:
    lines = ["", f"## {e.entity}", "", _md(_heading(e)), ""]
    if checks:
        lines.append("| " + " | ".join(_COLUMNS) + " |")
        lines.append("|" + "|".join("---" if i < 4 else "---:" for i in range(len(_COLUMNS))) + "|")
        lines += ["| " + " | ".join(_md(x) for x in _cells(c)) + " |" for c in checks]
        notes = [(c, _notes(c)) for c in checks if _notes(c)]
        if notes:
            lines.append("")
        for c, ns in notes:
            lines.append(f"- **{_md(c.rule)}** ({_md(c.target)}):")
            lines += [f"  - {_md(n)}" for n in ns]
    for note in e.notes:
        lines.append(f"_note: {_md(note)}_")
    lines += [f"_{_md(n.sentence)}_" for n in e.not_applicable]
    return lines


# ---------------------------------------------------------------- html

def render_html(report: AuditReport, failed_only: bool = False) -> str:
    """The page of :mod:`hwkb.audit.report_page`: findings, groups with plots, entities; sortable, escaped."""
    shown = [(e, _heading(e), [(c, _cells(c), _notes(c)) for c in checks]) for e, checks in _shown(report, failed_only)]
    notes = {e.entity: [*e.notes, *(n.sentence for n in e.not_applicable)] for e, _ in _shown(report, failed_only)}
    return audit_page(report, _summary_lines(report.summary), shown, notes)
