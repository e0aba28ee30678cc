"""The forms of the answers: solutions, explanations, derived values, what-ifs, closed forms, saved
queries, exports, checks and listings.

A result that is a table (derived values, a what-if, a saved query, a listing) has every form, all from one
header and one list of rows (:func:`~hwkb.render.forms.table_forms`): the text is its own, Markdown and the
page are the shown cells, the CSV the numbers in full. A result that is not a table says why it has no CSV.
"""
from __future__ import annotations

from typing import Callable, Sequence

from hwkb.definitions.citations import documents_text
from hwkb.definitions.quantities import format_number
from hwkb.render.question_text import render_symbolic, render_whatif
from hwkb.render.forms import csv_text, number_text, table_forms
from hwkb.render.note_words import note_text
from hwkb.render.solution_text import render_derived, render_solution

__all__ = ["FORMS", "WHY_NOT", "listing_text", "check_text", "query_text", "query_cells", "saved_queries_text"]


# ---------------------------------------------------------------- one value

def _solution_csv(s) -> str:
    return csv_text([["variable", "value", "unit", "status"], [s.variable, number_text(s.magnitude), s.unit, str(s.status)]])


# ---------------------------------------------------------------- tables

_DERIVED = ("variable", "value", "unit", "status", "rule")


def _derived_data(d):
    return list(_DERIVED), [[v.key, v.magnitude, v.unit, str(d.status_of(v.key)), v.origin.rule] for v in d.values]


def _derived_shown(d):
    return list(_DERIVED), [[v.key, format_number(v.magnitude), v.unit, str(d.status_of(v.key)), v.origin.rule]
                            for v in d.values]


_WHATIF = ("variable", "baseline", "scenario", "unit", "change", "baseline_status", "scenario_status")


def _whatif_data(w):
    return list(_WHATIF), [[r["variable"], r["baseline"], r["scenario"], r["unit"], r["change"], r["baseline_status"],
                            r["scenario_status"]] for r in (row.to_dict() for row in w.rows)]


def _whatif_shown(w):
    def change(c):
        return "-" if c is None else f"{c:+.0%}" if abs(c) >= 0.01 or c == 0 else f"{c:+.2%}"
    return list(_WHATIF), [[r.variable, format_number(r.baseline.magnitude if r.baseline else None),
                            format_number(r.scenario.magnitude if r.scenario else None), r.unit, change(r.change),
                            str(r.baseline_status), str(r.scenario_status)] for r in w.rows]


def _query_shown(q):
    return list(q.columns), query_cells(q)


def _query_data(q):
    header = [f"{c} [{u}]" if u else c for c, u in zip(q.columns, q.units or [None] * len(q.columns))]
    return header, q.rows


def _listing_columns(listing) -> list[str]:
    return ["id", *(k for k in listing.items[0] if k != "id")] if listing.items else ["id", "doc"]


def _listing_data(listing):
    header = _listing_columns(listing)
    return header, [[", ".join(v) if isinstance(v := item.get(k), list) else v for k in header]
                    for item in listing.items]


def saved_queries_text(saved) -> str:
    """``hwkb run`` with no name: each saved query's name and title, aligned."""
    width = max((len(name) for name, _ in saved.queries), default=0)
    return "\n".join(["saved queries (hwkb run NAME):"] + [f"  {name:<{width}}  {title}" for name, title in saved.queries])


def listing_text(listing, names_only: bool = False) -> str:
    """``hwkb list``: an aligned line per item, its id, kind or unit, doc and aliases; ``names_only``: only the
    names, one a line (``--names``, what completion reads)."""
    if names_only:
        return "".join(f"{name}\n" for name in listing.names)
    width = max((len(i["id"]) for i in listing.items), default=0)
    lines = []
    for i in listing.items:
        extra = i.get("kind") or i.get("unit") or ""
        aliases = f"  (aliases: {', '.join(i['aliases'])})" if i.get("aliases") else ""
        lines.append(f"{i['id']:<{width}}  {extra:<12}  {i['doc']}{aliases}")
    return "\n".join(lines)


def query_cells(q) -> list[list[str]]:
    """Each cell as the query file shows it: a label or a limiter's name as it is, ``-`` for none, a number by
    the column's ``format()`` spec (else the display rule's digits) and its suffix."""
    return [[_query_cell(v, *spec) for v, spec in zip(row, q.shown)] for row in q.rows]


def _query_cell(value, spec: str, suffix: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return (format(value, spec) if spec else format_number(value)) + suffix


def query_text(q) -> str:
    """``hwkb run``: the title, then the table, the label column left and the numbers right."""
    cells = query_cells(q)
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(q.columns)]
    aligned = lambda cells: "  ".join(t.ljust(w) if i == 0 else t.rjust(w) for i, (t, w) in enumerate(zip(cells, widths)))
    return "\n".join([q.title, "", aligned(q.columns), *map(aligned, cells), *(f"note: {note_text(n)}" for n in q.notes)])


def check_text(report) -> str:
    if not report.ok:
        return "\n".join(f"error: {e}" for e in report.errors)
    c = report.counts
    return (f"ok: {c['variables']} variables, {c['rules']} rules ({c['relations']} relations), "
            f"{c['entities']} entities in {c['files']} files")


FORMS = {
    "Solution": {"text": render_solution, "csv": _solution_csv},
    "Explanation": {"text": lambda e: "\n".join([render_solution(e.solution, explain=True), *documents_text(e.documents)])},
    "Derived": {"text": lambda d: render_derived(d.values, d.conflicts, d.implausible, d.whole, d.above),
                **table_forms(lambda d: f"hwkb derive --gpu {d.entity}", _derived_shown, _derived_data, (1,))},
    "WhatIf": {"text": render_whatif, **table_forms(lambda w: "hwkb whatif", _whatif_shown, _whatif_data, (1, 2, 4))},
    "SymbolicSolution": {"text": lambda s: render_symbolic(s.solution)},
    "QueryResult": {"text": query_text, **table_forms(lambda q: q.title, _query_shown, _query_data)},
    "Export": {"text": lambda e: e.text},
    "Listing": {"text": listing_text, **table_forms(lambda l: f"hwkb list {l.what}",
                                                    lambda l: _listing_data(l), _listing_data)},
    "CheckReport": {"text": check_text},
    "SavedQueryList": {"text": saved_queries_text},
}

WHY_NOT = {
    "Solution": {"markdown": "one value: the text is its form (--format csv or --json for data)",
                 "html": "one value: the text is its form (--format csv or --json for data)"},
    "Explanation": {fmt: "a derivation is a tree, not a table: --json gives it as data (solve --format csv its value)"
                    for fmt in ("markdown", "html", "csv")},
    "SymbolicSolution": {fmt: "a closed form is an expression, not a table: --json gives it with its LaTeX"
                         for fmt in ("markdown", "html", "csv")},
    "Export": {fmt: "the file is in the peer tool's own layout: --json gives its fields and sources"
               for fmt in ("markdown", "html", "csv")},
    "CheckReport": {fmt: "a verdict and counts, not a table: --json gives them" for fmt in ("markdown", "html", "csv")},
}
