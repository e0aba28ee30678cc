"""The forms of the bibliography (``hwkb sources``): a line per document, the most-cited first, and the table forms.

Text: the facts and rules each document backs, its id, how it was read and its
title with publisher and date. Markdown, HTML and CSV are one table of every
field; the HTML page links a document's title to its URL (http and https only).
"""
from __future__ import annotations

from hwkb.render import html_pages
from hwkb.render.forms import csv_text, markdown_table, number_text

__all__ = ["FORMS", "bibliography_text"]

_SHOWN = ("facts", "rules", "id", "title", "publisher", "date", "read", "url")
_NUMERIC = (0, 1)


def bibliography_text(result) -> str:
    if not result.rows:
        return "the KB cites no document"
    width = max(len(r["id"]) for r in result.rows)
    lines = [f"{'facts':>5} {'rules':>5}  {'id':<{width}}  {'read':<10}  title" if result.cited
             else f"{'facts':>5} {'rules':>5}  source (free text: the KB has no SOURCES.yaml)"]
    for r in result.rows:
        if result.cited:
            about = ", ".join(x for x in (r["publisher"], r["date"]) if x)
            lines.append(f"{r['facts']:>5} {r['rules']:>5}  {r['id']:<{width}}  {r['read']:<10}  {r['title']} ({about})")
        else:
            lines.append(f"{r['facts']:>5} {r['rules']:>5}  {r['id']}")
    return "\n".join(lines)


def _cells(r) -> list[str]:
    return ["" if r[c] is None else str(r[c]) for c in _SHOWN]


def _markdown(result) -> str:
    return markdown_table(list(_SHOWN), [_cells(r) for r in result.rows], _NUMERIC)


def _csv(result) -> str:
    columns = (*_SHOWN, "via", "doc")
    return csv_text([list(columns), *([number_text(r[c]) if r[c] is not None else "" for c in columns]
                                      for r in result.rows)])


def _html(result) -> str:
    def title(r) -> str:
        return html_pages.link(r["title"], r["url"])
    rows = [[(str(r["facts"]), r["facts"]), (str(r["rules"]), r["rules"]), r["id"], title(r),
             *(r[c] or "" for c in ("publisher", "date", "read"))] for r in result.rows]
    header = [c for c in _SHOWN if c != "url"]
    return html_pages.page("hwkb sources", [html_pages.table(header, rows, table_id="table", numeric=_NUMERIC,
                                                             filter_box=True)])


FORMS = {"Bibliography": {"text": bibliography_text, "markdown": _markdown, "csv": _csv, "html": _html}}
