"""Stage 6, render: every result in the form a reader asks for (text, markdown, html, csv, json), and plots.

It stands above the stages that make results and the door that returns them
(``... -> questions | audit -> kb -> render -> cli``), and nothing below imports
it: a result's ``render(fmt)`` (:class:`hwkb.results.Result`) reaches
:func:`render` here by name. :func:`render` dispatches on the result's type to
the module that holds its forms (:data:`FORMS_OF`), imported when first asked
for, so rendering a solution never loads the audit's page or matplotlib. JSON is
one form for every result: its ``to_dict()`` as the command's document, with the words this stage adds to a
result that carries findings as data (an audit's sentences, :func:`json_data`).

* :mod:`~hwkb.render.tables`: comparisons, spec sheets; :mod:`~hwkb.render.rooflines`: rooflines;
* :mod:`~hwkb.render.answers`: solutions, explanations, derived values, what-ifs, closed forms, sweeps, saved
  queries, exports, checks, listings; :mod:`~hwkb.render.sweep_tables`: sweeps, in chunks; :mod:`~hwkb.render.runs`: simulation runs;
* :mod:`~hwkb.render.note_words`: a question's notes that are data (a figure outside its range, a search's edge,
  what a backward question set aside, an export's capacities) in words, with ranges and intervals as text;
* :mod:`~hwkb.render.forms`: the pieces of every table form (CSV, a Markdown table, a page of one table);
* :mod:`~hwkb.render.bibliography`: the bibliography (``hwkb sources``);
* :mod:`~hwkb.render.audit`: the audit report (:mod:`~hwkb.render.audit_page` its HTML,
  :mod:`~hwkb.render.finding_words` its findings in words); :mod:`~hwkb.render.peer_audit`: the peer files' audit;
* :mod:`~hwkb.render.html_pages`: the self-contained HTML pieces every page is made of;
* :mod:`~hwkb.render.json_form`: the one JSON form; :mod:`~hwkb.render.plots`: figures (matplotlib, an extra).
"""
from __future__ import annotations

from importlib import import_module

from hwkb.errors import UsageError
from hwkb.render.json_form import document, json_text
from hwkb.results import FORMATS

__all__ = ["render", "forms_of", "json_data", "FORMATS", "FORMS_OF", "WORDED"]

#: each result type (by class name: a result keeps its name wherever its module moves) -> the module of this
#: stage that holds its forms, in its ``FORMS`` (and why a form is missing, in its ``WHY_NOT``)
FORMS_OF = {
    "Comparison": "hwkb.render.tables", "Sheet": "hwkb.render.tables", "Rooflines": "hwkb.render.rooflines",
    "Solution": "hwkb.render.answers", "Explanation": "hwkb.render.answers", "Derived": "hwkb.render.answers",
    "WhatIf": "hwkb.render.answers", "SymbolicSolution": "hwkb.render.answers", "SweepResult": "hwkb.render.sweep_tables",
    "QueryResult": "hwkb.render.answers", "Export": "hwkb.render.answers", "Listing": "hwkb.render.answers",
    "CheckReport": "hwkb.render.answers", "SavedQueryList": "hwkb.render.answers", "SimulationRuns": "hwkb.render.runs",
    "AuditReport": "hwkb.render.audit", "PeerAudit": "hwkb.render.peer_audit",
    "PeerAuditStream": "hwkb.render.peer_audit",
    "Bibliography": "hwkb.render.bibliography",
}


#: the result types whose JSON carries words the render stage adds to their ``to_dict()`` (an audit's sentences,
#: a sheet's origins),
#: and the module whose ``JSON_DATA`` adds them
WORDED = {"AuditReport": "hwkb.render.finding_words", "PeerAudit": "hwkb.render.finding_words",
          "PeerAuditStream": "hwkb.render.finding_words",
          "Sheet": "hwkb.render.tables"}


def json_data(result) -> dict:
    """The data of ``result``'s JSON: its ``to_dict()``, with the words this stage adds (an audit's ``detail`` and
    ``sentence`` fields: a finding is data, and this stage words it)."""
    for cls in type(result).__mro__:
        if cls.__name__ in WORDED:
            return import_module(WORDED[cls.__name__]).JSON_DATA[cls.__name__](result)
    return result.to_dict()


def _forms_module(result):
    for cls in type(result).__mro__:
        module = FORMS_OF.get(cls.__name__)
        if module is not None:
            return import_module(module), cls.__name__
    raise UsageError(f"{type(result).__name__} is not a result the render stage knows",
                     hint="render what a KnowledgeBase method returns")


def forms_of(result) -> dict[str, str | None]:
    """Each of :data:`FORMATS` -> None when ``result`` has that form, else why it has not."""
    module, name = _forms_module(result)
    have, why_not = module.FORMS[name], getattr(module, "WHY_NOT", {}).get(name, {})
    return {fmt: None if fmt == "json" or fmt in have else why_not.get(fmt, "no such form") for fmt in FORMATS}


def render(result, fmt: str = "text", *, command: str | None = None, **options) -> str:
    """``result`` as ``fmt``: one of :data:`FORMATS`. The JSON is the document a command prints (``command``
    names it, else the result's own ``to_dict()`` does); ``options`` are a form's own (``failed_only``)."""
    if fmt not in FORMATS:
        raise UsageError(f"no form {fmt!r}", hint=f"one of {', '.join(FORMATS)}")
    if fmt == "json":
        data = json_data(result)
        return json_text(document(command or data.get("command"), data))
    module, name = _forms_module(result)
    form = module.FORMS[name].get(fmt)
    if form is None:
        why = getattr(module, "WHY_NOT", {}).get(name, {}).get(fmt, "")
        raise UsageError(f"{name} has no {fmt} form" + (f": {why}" if why else ""),
                         hint="give --format " + " or ".join(f for f in FORMATS if f in module.FORMS[name] or f == "json"))
    return form(result, **options)
