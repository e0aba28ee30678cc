"""The forms of the table results: a comparison, a spec sheet (text, Markdown, HTML, CSV).

A comparison's cell prints as its stated digits, ``n/a`` when the entity marks the figure not applicable,
``-`` when it neither states nor derives one, and a derived figure with a trailing ``*``; CSV keeps that
mark as data, a ``GPU status`` column beside each GPU's values. A derived figure is solve's answer: a count
computed fractional shows the whole counts its figures allow (``121–130*``), and a figure solve flags (no whole
count fits, or above its ceiling) a trailing ``!``, with solve's words for it beside the table. Rows from
several sections (a headline section, or the rule file that declares the variable) print under a ``[section]``
line in the text, a bold row in Markdown, a column of the page and of the CSV.
"""
from __future__ import annotations

import shlex
from typing import Sequence

from hwkb.definitions.citations import Document, documents_text, split_citation
from hwkb.definitions.display import display_scale, format_number
from hwkb.definitions.quantities import JEDEC_NOTE
from hwkb.errors import markdown_text
from hwkb.questions.comparison import Cell, Comparison, Row
from hwkb.questions.sheet import Finding, Sheet, SheetRow
from hwkb.render.capacities import vendor_capacity_scale
from hwkb.render import html_pages
from hwkb.render.forms import csv_text, html_table_page
from hwkb.render.solution_text import render_above_ceiling, render_whole_counts

__all__ = ["FORMS", "JSON_DATA", "DERIVED_MARK", "FLAG_MARK", "cell_text", "verdict_lines", "status_text", "aligned",
           "context_flags", "row_scale", "origin_text", "finding_text", "sheet_data", "comparison_text",
           "comparison_markdown", "comparison_html", "comparison_csv", "sheet_text", "sheet_markdown", "sheet_html",
           "sheet_csv"]


DERIVED_MARK = "*"
FLAG_MARK = "!"


def _run(cell: Cell) -> tuple[int, int] | None:
    """The first and last of the several whole counts a derived count stands for (None: one, none, or no count)."""
    whole = cell.whole
    return (whole.first, whole.last) if whole is not None and whole.any and not whole.single else None


def cell_text(cell: Cell, factor: float = 1) -> str:
    """The figure as a table cell, times the ``factor`` of its row's display unit (:func:`display_scale`): its
    printed digits, ``n/a``, or the number (a run of whole counts, ``121–130``) with ``*`` when derived and ``!``
    when solve flags it."""
    if cell.value is None:
        return "n/a"
    if cell.printed and factor == 1:
        return cell.printed
    run = _run(cell)
    shown = "–".join(format_number(x * factor) for x in run) if run else format_number(cell.value * factor)
    return shown + (DERIVED_MARK if cell.derived else "") + (FLAG_MARK if cell.flagged else "")


def verdict_lines(cell: Cell, unit: str, key: str, explain: str) -> list[str]:
    """Solve's words for a derived figure beyond its value: the whole counts a count computed fractional stands
    for, its ceiling's figure when above it; for a figure flagged otherwise, the ``explain`` command that says
    why."""
    lines = [render_above_ceiling(cell.above, unit).strip()] if cell.above is not None else []
    lines += [render_whole_counts(cell.whole, unit).strip()] if cell.whole is not None else []
    if cell.flagged and not lines:
        lines.append(f"{key} is {cell.status}: {explain} says why")
    return lines


def status_text(cell: Cell) -> str:
    """A CSV's status column: the status, with the run of whole counts or the ceiling exceeded when there is one."""
    run = _run(cell)
    return (cell.status + (f" (whole counts {run[0]} to {run[1]})" if run else "")
            + (f" (above {cell.above.ceiling})" if cell.above is not None else ""))


def row_scale(unit: str, label: str, cells) -> tuple[float, str]:
    """The factor and unit text shows a row's figures in: one for the row, from its largest figure; a capacity
    as vendors print it (its ``label``, GiB as GB; a system's TiB as the GB multiplied, 13,392 GB as 13.39 TB)."""
    values = [c.value for c in cells if c is not None]
    vendor = vendor_capacity_scale(unit, values)
    if vendor is not None:
        return vendor
    if label:
        return 1, label
    return display_scale(unit, values)


def aligned(table: Sequence[Sequence[str]], left: Sequence[int]) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return ["  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
            for row in table]


# ---------------------------------------------------------------- compare

def _left_out_line(result: Comparison) -> list[str]:
    """The line saying how many rows every GPU lacks were left out, and how to show one (none if none were)."""
    if not result.left_out:
        return []
    count = len(result.left_out)
    return [f"{count} row{'s' if count > 1 else ''} left out: no GPU compared has a figure for "
            f"{'them' if count > 1 else 'it'} (name one exactly to show it, e.g. --vars '{result.left_out[0]}')"]


def _jedec_line(rows) -> list[str]:
    """The line that says capacities are shown as vendors print them (none if no row is one)."""
    return [JEDEC_NOTE] if any(r.label and r.label != r.unit for r in rows) else []


def _headline_line(result: Comparison) -> list[str]:
    return ["a headline set: --all shows every figure, --vars picks rows"] if result.headline else []


def context_flags(layers, facts) -> str:
    """The ``--with`` and ``--set`` flags that ask explain about the same context (quoted where a shell needs it)."""
    return "".join(f" --with {layer}" for layer in layers) + "".join(f" --set {shlex.quote(f)}" for f in facts)


def _with_line(result: Comparison) -> list[str]:
    """The line naming what every column runs (``--with``) and is given (``--set``), none without either."""
    if not result.layers and not result.facts:
        return []
    given = f"; given {', '.join(result.facts)}" if result.facts else ""
    return [f"each GPU with {' + '.join(result.layers) or 'nothing layered'}{given}"]


def _unsettled_line(result: Comparison) -> list[str]:
    if not result.unsettled:
        return []
    each = "; ".join(f"{v} needs {' and '.join(n) or 'more figures'}" for v, n in result.unsettled)
    several = len({k for _, n in result.unsettled for k in n}) > 1
    return [f"not settled on these GPUs: {each} (give {'them' if several else 'it'} with --set)"]


def _verdict_lines(result: Comparison) -> list[str]:
    """Solve's words for each derived figure that needs more than its value (``!`` before a flagged one's)."""
    lines = []
    for row in result.rows:
        for gpu, cell in zip(result.gpus, row.cells):
            if cell is not None and cell.derived:
                explain = f"hwkb explain {row.variable} --gpu {gpu}{context_flags(result.layers, result.facts)}"
                lines += [f"{FLAG_MARK if cell.flagged else '-'} {gpu}: {text}"
                          for text in verdict_lines(cell, row.unit, row.variable, explain)]
    return lines


def _notes(result: Comparison) -> list[str]:
    return [*_verdict_lines(result), *_left_out_line(result), *_unsettled_line(result), *_jedec_line(result.rows),
            *_headline_line(result)]


BOUND_BY = "  bound by"


def _bound_by_cells(row) -> list[str] | None:
    """The cells of the line under a workload's row that names what binds each GPU's figure (None: nothing does)."""
    if not any(c is not None and c.bound_by for c in row.cells):
        return None
    return [", ".join(c.bound_by) if c is not None else "" for c in row.cells]


def _table_rows(result: Comparison) -> list[tuple[int, list[str]]]:
    """Each line of the table under its header with the index of the row it shows; with ``--with``, a row whose
    figures a min/max law binds is followed by a ``bound by`` line naming the limits."""
    lines = []
    for i, r in enumerate(result.rows):
        factor, unit = row_scale(r.unit, r.label, r.cells)
        lines.append((i, [r.variable, unit, *(cell_text(c, factor) if c else "-" for c in r.cells)]))
        bound_by = _bound_by_cells(r) if result.layers else None
        if bound_by is not None:
            lines.append((i, [BOUND_BY, "", *bound_by]))
    return lines


def _cells_text(result: Comparison) -> list[list[str]]:
    return [["variable", "unit", *result.headers]] + [cells for _, cells in _table_rows(result)]


def _section_starts(result: Comparison) -> dict[int, str]:
    """Row index -> the section that begins there. None when one section holds every row, or when a section's
    rows are apart (``--vars`` in an order of the user's own is left as given)."""
    rows = result.rows
    starts = {i: r.section for i, r in enumerate(rows) if i == 0 or r.section != rows[i - 1].section}
    sections = list(starts.values())
    return starts if len(sections) > 1 and len(sections) == len(set(sections)) else {}


def _line_starts(result: Comparison) -> dict[int, str]:
    """Table line index (under the header) -> the section that begins there."""
    starts, out, seen = _section_starts(result), {}, set()
    for line, (row, _) in enumerate(_table_rows(result)):
        if row in starts and row not in seen:
            out[line] = starts[row]
        seen.add(row)
    return out


def comparison_text(result: Comparison) -> str:
    table = _cells_text(result)
    starts = _line_starts(result)
    lines = _with_line(result)
    for i, line in enumerate(aligned(table, left=(0, 1))):
        if i - 1 in starts:
            lines.append(f"[{starts[i - 1]}]")
        lines.append(line)
    return "\n".join(lines + _notes(result)
                     + [f"{DERIVED_MARK} derived from the stated figures "
                        f"(hwkb explain VAR --gpu ID{context_flags(result.layers, result.facts)})"])


def comparison_markdown(result: Comparison) -> str:
    table = _cells_text(result)
    starts = _line_starts(result)
    lines = [*_with_line(result), *([""] if result.layers or result.facts else []),
             "| " + " | ".join(markdown_text(h) for h in table[0]) + " |", "|" + "---|" * len(table[0])]
    for i, row in enumerate(table[1:]):
        if i in starts:
            lines.append(f"| **{starts[i]}** |" + " |" * (len(row) - 1))
        lines.append("| " + " | ".join(markdown_text(cell) for cell in row) + " |")
    return "\n".join(lines + ["", *_notes(result), f"{DERIVED_MARK} derived from the stated figures"])


def comparison_html(result: Comparison) -> str:
    """The page's table has a section column to filter and sort by, in place of the text's section lines."""
    lines = _table_rows(result)
    sectioned = bool(_section_starts(result))
    header = ["variable", "unit", *result.headers]
    header = ["section", *header] if sectioned else header
    rows = [[result.rows[i].section, *cells] if sectioned else cells for i, cells in lines]
    first_number = len(header) - len(result.gpus)
    return html_table_page("hwkb compare " + " ".join(result.gpus), header, rows,
                           " ".join([*_with_line(result), *_notes(result),
                                     f"{DERIVED_MARK} derived from the stated figures"]),
                           numeric=range(first_number, len(header)))


def comparison_csv(result: Comparison) -> str:
    """Data: the GPUs' ids as headers, each value in full, and beside it its status (stated, derived, n/a); with
    ``--with``, a ``VAR bound_by`` row names the limits that bind each GPU's figure, in its status column."""
    sectioned = bool(_section_starts(result))
    header = ["variable", "unit", *(["section"] if sectioned else []),
              *(h for gpu in result.gpus for h in (gpu, f"{gpu} status"))]
    rows = [header]
    for row in result.rows:
        cells = [("", "") if c is None else ("", "not_applicable") if c.value is None
                 else (repr(c.value), status_text(c)) for c in row.cells]
        rows.append([row.variable, row.unit, *([row.section] if sectioned else []), *(x for c in cells for x in c)])
        bound_by = _bound_by_cells(row) if result.layers else None
        if bound_by is not None:
            rows.append([f"{row.variable} bound_by", "", *([row.section] if sectioned else []),
                         *(x for names in bound_by for x in ("", names))])
    return csv_text(rows)


# ---------------------------------------------------------------- sheet

def _shown(row: SheetRow, cell: Cell) -> tuple[str, str]:
    """A figure of ``row`` and its unit as text shows them (:func:`display_scale`: a fraction in percent ...; a
    capacity as vendors print it)."""
    factor, unit = row_scale(row.unit, row.label, (cell,))
    return cell_text(cell, factor), unit


def _value_text(row: SheetRow, cell: Cell) -> str:
    """The figure and its unit; ``n/a`` alone, as a figure that does not exist has no unit."""
    return " ".join(_shown(row, cell)).strip() if cell.value is not None else cell_text(cell)


def origin_text(row: SheetRow) -> str:
    """Where a figure comes from: a stated one's source, ``[entity]`` when inherited, then ``also FIGURE per
    SOURCE`` for each other document's; a derived one's ``rule (inputs)``."""
    if row.rule:
        return f"{row.rule} ({', '.join(row.inputs)})"
    inherited = f" [{row.inherited}]" if row.inherited else ""
    return row.source + inherited + "".join(f"; also {_value_text(row, cell)} per {source}" for cell, source in row.also)


def finding_text(finding: Finding) -> str:
    """``inconsistent law memory_bandwidth_law (+8.35%)``."""
    deviation = f" ({finding.deviation:+.3g}%)" if finding.deviation is not None else ""
    return f"{finding.status} {finding.kind} {finding.rule}{deviation}"


def _findings_text(row: SheetRow) -> list[str]:
    return [finding_text(f) for f in row.findings]


def _verdicts(result: Sheet, row: SheetRow) -> list[str]:
    """Solve's words for a derived row beyond its value (:func:`verdict_lines`)."""
    if not row.cell.derived:
        return []
    return verdict_lines(row.cell, row.unit, row.variable, f"hwkb explain {row.variable} --gpu {result.entity}")


def _audit_column(result: Sheet, row: SheetRow) -> str:
    return "; ".join([*_verdicts(result, row), *_findings_text(row)])


def _document_of(result: Sheet, row: SheetRow) -> Document | None:
    """The document a stated row's origin cites first, if the KB's bibliography lists it."""
    return {d.id: d for d in result.documents}.get(split_citation(origin_text(row))[0]) \
        if not row.rule else None


def sheet_data(result: Sheet) -> dict:
    """The sheet's JSON data: its ``to_dict()`` with each row's ``origin`` and ``findings`` in words."""
    data = result.to_dict()
    for row, row_data in zip(result.rows, data["rows"]):
        row_data.update(origin=origin_text(row), findings=_findings_text(row))
    return data



def _findings_note(result: Sheet) -> list[str]:
    if not result.findings:
        return []
    n = len(result.findings)
    return [f"note: {n} failed audit check{'s' if n > 1 else ''} (marked !): "
            f"hwkb audit --gpu {result.entity} explains {'them' if n > 1 else 'it'}"]


def sheet_text(result: Sheet) -> str:
    width = max(len(r.variable) for r in result.rows) if result.rows else 0
    lines = [f"{result.name} ({result.entity})"]
    for r in result.rows:
        lines.append(f"  {r.variable.ljust(width)}  {_value_text(r, r.cell):<18}  {origin_text(r)}".rstrip())
        lines += [f"  {'':{width}}  {FLAG_MARK if r.cell.flagged else '-'} {text}" for text in _verdicts(result, r)]
        lines += [f"  {'':{width}}  ! {finding}" for finding in _findings_text(r)]
    return "\n".join(lines + _jedec_line(result.rows) + ["* derived from the stated figures", *_findings_note(result)]
                     + documents_text(result.documents))


def sheet_markdown(result: Sheet) -> str:
    lines = [f"# {markdown_text(result.name)} (`{result.entity}`)", "", "| variable | value | unit | from | audit |",
             "|---|---|---|---|---|"]
    for r in result.rows:
        cells = [r.variable, *_shown(r, r.cell), origin_text(r), _audit_column(result, r)]
        lines.append("| " + " | ".join(markdown_text(c) for c in cells) + " |")
    return "\n".join(lines + ["", *_jedec_line(result.rows), "\\* derived from the stated figures",
                              *_findings_note(result), *_documents_markdown(result.documents)])


def _documents_markdown(documents) -> list[str]:
    """The reference list of a Markdown page: each title, linked where it has an http(s) URL."""
    def title(d) -> str:
        return f"[{markdown_text(d.title)}](<{d.link}>)" if d.link else markdown_text(d.title)
    rest = lambda d: markdown_text(", ".join(x for x in (d.publisher, d.date) if x))
    return ["", "## Documents", "", *(f"- `{d.id}`: {title(d)} ({rest(d)})" for d in documents)] if documents else []


def sheet_html(result: Sheet) -> str:
    """The sheet as a page: a stated figure's source links to its document's URL (its title shown on hover), or to
    the first web address its text holds; the cited documents follow the table, each title a link."""
    def origin(r):
        document, text = _document_of(result, r), origin_text(r)
        if document is not None and document.link:
            return html_pages.link(text, document.link, title=document.about)
        return html_pages.link(text, html_pages.first_url(text))
    rows = [[r.variable, *_shown(r, r.cell), origin(r), _audit_column(result, r)] for r in result.rows]
    note = " ".join([*_jedec_line(result.rows), "* derived from the stated figures; the audit column names every "
                     "failed check.", *_findings_note(result)])
    table = html_pages.table(["variable", "value", "unit", "from", "audit"], rows, table_id="table", numeric=(1,),
                             filter_box=True)
    return html_pages.page(f"{result.name} ({result.entity})",
                           [table, f"<p>{html_pages.escape(note)}</p>", *_documents_html(result.documents)])


def _documents_html(documents) -> list[str]:
    if not documents:
        return []
    items = "".join(f"<li><code>{html_pages.escape(d.id)}</code>: {html_pages.link(d.title, d.link)} "
                    f"({html_pages.escape(', '.join(x for x in (d.publisher, d.date) if x))})</li>" for d in documents)
    return [f"<h2>Documents</h2><ul>{items}</ul>"]


def sheet_csv(result: Sheet) -> str:
    return csv_text([["variable", "value", "unit", "status", "from", "audit"]]
                    + [[r.variable, "" if r.cell.value is None else repr(r.cell.value), r.unit, status_text(r.cell),
                        origin_text(r), _audit_column(result, r)] for r in result.rows])


#: each result type whose JSON carries words this stage adds -> its JSON data (:func:`hwkb.render.json_data`)
JSON_DATA = {"Sheet": sheet_data}

#: each result type -> its forms
FORMS = {
    "Comparison": {"text": comparison_text, "markdown": comparison_markdown, "html": comparison_html,
                   "csv": comparison_csv},
    "Sheet": {"text": sheet_text, "markdown": sheet_markdown, "html": sheet_html, "csv": sheet_csv},
}
