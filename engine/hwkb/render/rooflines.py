"""The forms of a roofline table (``hwkb roofline``): text, Markdown, HTML, CSV; a row per GPU and roof, a column
per kernel placed on it."""
from __future__ import annotations

from hwkb.definitions.display import format_number, format_quantity
from hwkb.errors import markdown_text
from hwkb.questions.rooflines import Rooflines
from hwkb.render.forms import csv_text, html_table_page
from hwkb.render.solution_text import unsettled_reason
from hwkb.render.tables import aligned, context_flags

__all__ = ["FORMS", "rooflines_text", "rooflines_markdown", "rooflines_html", "rooflines_csv"]


def _roofline_table(result: Rooflines) -> list[list[str]]:
    header = ["GPU", "memory GB/s", "roof", "peak", "ridge point",
              *(f"{name} @ {format_number(x)}" for name, x in result.points)]
    rows = [header]
    for g in result.gpus:
        for roof in g.roofs:
            rows.append([g.gpu, format_number(g.memory_bandwidth), roof.precision,
                         format_quantity(roof.peak, roof.peak_unit), format_quantity(roof.ridge_point, roof.ridge_unit),
                         *(format_number(a) for a in roof.attainable)])
    return rows


_KERNEL_COLUMNS = "kernel columns: what each roof allows at the kernel's intensity (flop/B), in the roof's peak unit"


def _roofline_notes(result: Rooflines) -> list[str]:
    """What the kernel columns are, which a workload's law placed, its kernels not placed, and roofs GPUs lack."""
    lines = [_KERNEL_COLUMNS] if result.points else []
    laws = [f"{name} at {law}" for (name, _), law in zip(result.points, result.laws) if law]
    if laws:
        lines.append(f"placed by law: {'; '.join(laws)} (hwkb explain VAR --gpu ID"
                     f"{context_flags(result.layers, result.facts)} shows the derivation)")
    return lines + list(result.notes) + [f"{g.gpu} has no {m.precision} roof: {unsettled_reason(m.solution)}"
                                         for g in result.gpus for m in g.missing]


def _roofline_with(result: Rooflines) -> list[str]:
    if not result.layers and not result.facts:
        return []
    given = f"; given {', '.join(result.facts)}" if result.facts else ""
    return [f"kernels of {' + '.join(result.layers)}{given}"]


def rooflines_text(result: Rooflines) -> str:
    return "\n".join(_roofline_with(result) + aligned(_roofline_table(result), left=(0, 2)) + _roofline_notes(result))


def rooflines_markdown(result: Rooflines) -> str:
    table = _roofline_table(result)
    lines = [*_roofline_with(result), *([""] if _roofline_with(result) else []),
             "| " + " | ".join(markdown_text(h) for h in table[0]) + " |",
             "|" + "|".join("---" if i in (0, 2) else "---:" for i in range(len(table[0]))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in table[1:]]
    notes = _roofline_notes(result)
    return "\n".join(lines + (["", *(markdown_text(n) for n in notes)] if notes else []))


def rooflines_html(result: Rooflines) -> str:
    table = _roofline_table(result)
    return html_table_page("hwkb roofline " + " ".join(g.gpu for g in result.gpus), table[0], table[1:],
                           " ".join(_roofline_with(result) + _roofline_notes(result)),
                           numeric=[i for i in range(len(table[0])) if i not in (0, 2)])


def rooflines_csv(result: Rooflines) -> str:
    rows = [["gpu", "memory_bandwidth", "precision", "peak", "peak_unit", "ridge_point", "ridge_unit",
             *(name for name, _ in result.points)]]
    rows += [[g.gpu, repr(g.memory_bandwidth), roof.precision, repr(roof.peak), roof.peak_unit, repr(roof.ridge_point),
              roof.ridge_unit, *("" if a is None else repr(a) for a in roof.attainable)]
             for g in result.gpus for roof in g.roofs]
    return csv_text(rows)


#: each result type -> its forms
FORMS = {
    "Rooflines": {"text": rooflines_text, "markdown": rooflines_markdown, "html": rooflines_html, "csv": rooflines_csv},
}
