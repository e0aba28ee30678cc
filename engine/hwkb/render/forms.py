"""The pieces every table form is made of: CSV text, a Markdown table, a page of one table, and all three
from a result's header and rows. Light on purpose (no engine): ``hwkb simulate`` renders through it.
"""
from __future__ import annotations

import csv
import io
from typing import Callable, Sequence

from hwkb.errors import markdown_text

__all__ = ["csv_text", "markdown_table", "html_table_page", "table_forms", "number_text"]


def csv_text(rows: Sequence[Sequence[object]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def html_table_page(title: str, header: Sequence[str], rows: Sequence[Sequence[str]], note: str,
                    numeric: Sequence[int] = ()) -> str:
    """A self-contained page of one sortable, filterable table (``numeric`` columns right-aligned), all escaped."""
    from hwkb.render import html_pages  # only a page needs it: a solve's text would pay ~7 ms for the html module
    return html_pages.page(title, [html_pages.table(header, rows, table_id="table", numeric=numeric, filter_box=True),
                                   f"<p>{html_pages.escape(note)}</p>"])


def number_text(x) -> str:
    """A number as data: in full (``repr`` of a float), empty for none."""
    return "" if x is None else repr(x) if isinstance(x, float) else str(x)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = ()) -> str:
    escape = lambda cell: markdown_text(str(cell))
    lines = ["| " + " | ".join(map(escape, header)) + " |",
             "|" + "|".join("---:" if i in numeric else "---" for i in range(len(header))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(map(escape, row)) + " |" for row in rows])


def table_forms(title: Callable, shown: Callable, data: Callable, numeric: Sequence[int] = ()) -> dict:
    """Markdown, HTML and CSV of a table result: ``shown(r)`` is (header, cells as printed), ``data(r)`` is
    (header, cells as data), ``title(r)`` names the page."""
    def markdown(result) -> str:
        header, rows = shown(result)
        return markdown_table(header, rows, numeric)

    def html(result) -> str:
        header, rows = shown(result)
        return html_table_page(title(result), header, rows, "", numeric=numeric)

    def csv(result) -> str:
        header, rows = data(result)
        return csv_text([header, *([number_text(x) for x in row] for row in rows)])

    return {"markdown": markdown, "html": html, "csv": csv}


