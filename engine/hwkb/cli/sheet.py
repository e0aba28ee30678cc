"""``hwkb sheet --gpu ID``: one product's spec sheet, every stated and derivable value with where it comes from.

A stated value shows its source (and the entity it is inherited from, and other documents' figures for it,
``also ... per ...``), a derived one the rule that gives it
and that rule's inputs; a failed audit check is printed beside each figure it concerns (its target and
the facts it depends on). Text, ``--format markdown`` or ``html`` (a self-contained page); ``--json`` gives the rows.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass

from hwkb.cli import flags
from hwkb.cli.compare import Cell, declared_keys, emit, html_page, stated_cell
from hwkb.definitions.display import display_scale
from hwkb.definitions.model import split_key
from hwkb.definitions.quantities import JEDEC_NOTE, jedec_label
from hwkb.errors import UsageError, markdown_text
from hwkb.formats import html_pages

__all__ = ["add_arguments", "run", "SheetRow", "Sheet", "sheet"]

PASSING = ("consistent", "within_rounding")


@dataclass(frozen=True)
class SheetRow:
    variable: str
    unit: str
    cell: Cell
    origin: str                        # the fact's source, or "rule (inputs)" for a derived value
    findings: tuple[str, ...] = ()     # failed audit checks that concern this figure
    label: str = ""                    # the unit as the page shows it: a capacity's GiB as vendors print it, GB

    def shown(self) -> tuple[str, str]:
        """The figure and its unit as text shows them (:func:`display_scale`: a fraction in percent ...; a capacity
        as vendors print it)."""
        factor, unit = (1, self.label) if self.label else display_scale(self.unit, (self.cell.value,))
        return self.cell.text(factor), unit

    def value_text(self) -> str:
        return " ".join(self.shown()).strip()

    def to_dict(self) -> dict:
        return {"variable": self.variable, "unit": self.unit, **self.cell.to_dict(), "origin": self.origin,
                "findings": list(self.findings)}


@dataclass(frozen=True)
class Sheet:
    """What ``hwkb sheet`` prints: ``str()`` the text, :meth:`markdown` the Markdown page."""
    entity: str
    name: str
    rows: tuple[SheetRow, ...]

    def foot(self) -> list[str]:
        """The lines under the table: capacities shown as vendors print them (if any is), derived values marked."""
        return ([JEDEC_NOTE] if any(r.label and r.label != r.unit for r in self.rows) else []) + [
            "* derived from the stated figures"]

    @property
    def status(self) -> str:
        return "inconsistent" if any(r.findings for r in self.rows) else "ok"

    def __str__(self) -> str:
        width = max(len(r.variable) for r in self.rows) if self.rows else 0
        lines = [f"{self.name} ({self.entity})"]
        for r in self.rows:
            lines.append(f"  {r.variable.ljust(width)}  {r.value_text():<18}  {r.origin}".rstrip())
            lines += [f"  {'':{width}}  ! {finding}" for finding in r.findings]
        return "\n".join(lines + self.foot())

    def markdown(self) -> str:
        lines = [f"# {markdown_text(self.name)} (`{self.entity}`)", "", "| variable | value | unit | from | audit |",
                 "|---|---|---|---|---|"]
        for r in self.rows:
            cells = [r.variable, *r.shown(), r.origin, "; ".join(r.findings)]
            lines.append("| " + " | ".join(markdown_text(c) for c in cells) + " |")
        return "\n".join(lines + ["", *self.foot()[:-1], "\\* derived from the stated figures"])

    def html(self) -> str:
        rows = [[r.variable, *r.shown(), html_pages.link(r.origin, html_pages.first_url(r.origin)),
                 "; ".join(r.findings)] for r in self.rows]  # a source with a web address links to it
        return html_page(f"{self.name} ({self.entity})", ["variable", "value", "unit", "from", "audit"], rows,
                         " ".join(self.foot()[:-1] + ["* derived from the stated figures; the audit column names every "
                                                      "failed check"]), numeric=(1,))

    def to_dict(self) -> dict:
        return {"status": self.status, "entity": self.entity, "name": self.name,
                "rows": [r.to_dict() for r in self.rows]}


def findings_by_key(kb, gpu: str) -> dict[str, list[str]]:
    """Each failed check of ``gpu``'s audit, under its target and every fact it depends on."""
    out: dict[str, list[str]] = {}
    for audit in kb.audit([gpu]).entities:
        for check in audit.checks:
            if str(check.status) in PASSING:
                continue
            deviation = f" ({check.deviation:+.3g}%)" if check.deviation is not None else ""
            text = f"{check.status} {check.kind} {check.rule}{deviation}"
            for key in dict.fromkeys((check.target, *check.variables)):
                out.setdefault(key, []).append(text)
    return out


def sheet(kb, gpu: str) -> Sheet:
    """``gpu``'s stated facts and derived values in the KB's declaration order, with origins and findings."""
    entity = kb.model.entity(gpu)
    unit_of = kb.model.unit_of

    def label_of(key: str) -> str:
        """A capacity's unit as vendors print it (GiB as GB); "" for any other."""
        return jedec_label(unit_of(key)) if kb.model.variables[split_key(key)[0]].capacity else ""

    def also_row(key: str, other) -> SheetRow:
        return SheetRow(key, unit_of(key), stated_cell(kb, other), "", (), label_of(key))
    origins: dict[str, tuple[Cell, str]] = {}
    for key, fact in kb.context(gpu).facts.items():
        if fact.entity is not None:
            inherited = f" [{fact.entity}]" if fact.entity != gpu else ""
            others = "".join(f"; also {also_row(key, other).value_text()} per {other.source}" for other in fact.also)
            origins[key] = (stated_cell(kb, fact), (fact.source or fact.doc or "") + inherited + others)
    for value in kb.derive(gpu):
        inputs = ", ".join(i.key for i in value.origin.inputs)
        origins.setdefault(value.key, (Cell(value.magnitude, "derived"), f"{value.origin.rule} ({inputs})"))
    findings = findings_by_key(kb, gpu)
    rows = tuple(SheetRow(key, unit_of(key), *origins[key], tuple(findings.get(key, ())), label_of(key))
                 for key in declared_keys(kb) if key in origins)
    return Sheet(gpu, entity.name or gpu, rows)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", metavar="ID", help="the product (or architecture) whose sheet to print")
    p.add_argument("--format", choices=("text", "markdown", "html"), default="text", help="the sheet's form")


def run(args: argparse.Namespace) -> int:
    if not args.gpu:
        raise UsageError("sheet needs --gpu ID", hint="see 'hwkb list entities'")
    kb = flags.load_kb(args)
    result = sheet(kb, args.gpu)
    emit(args, result)
    return 0 if result.status == "ok" else 1
