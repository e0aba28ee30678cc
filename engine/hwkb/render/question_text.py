"""Readable renderings of the questions' results, for the terminal: what ``hwkb whatif`` and ``solve --symbolic`` print.

The render stage's text of a what-if and a closed form (:mod:`hwkb.render.answers` names them as those
results' text forms); a sweep's is :mod:`hwkb.render.sweep_tables`.
"""
from __future__ import annotations

import re

from hwkb.definitions.display import display_scale, format_number, format_quantity
from hwkb.solving.solution import Status
from hwkb.render.note_words import note_text

__all__ = ["render_whatif", "render_symbolic", "format_change", "WHATIF_COLUMNS", "MARKED_STATUSES"]

WHATIF_COLUMNS = ("variable", "baseline", "scenario", "unit", "change")
#: a row whose baseline or scenario has one of these statuses says so beside the table
MARKED_STATUSES = (Status.INCONSISTENT, Status.UNDERDETERMINED, Status.NOT_APPLICABLE)


def render_whatif(result) -> str:
    """A :class:`~hwkb.questions.whatif.WhatIf`: what the baseline and the scenario are, then one row per variable."""
    entities = " + ".join(result.named_entities or result.baseline.entities[-1:] or ["(no entity)"])
    given = _overridden_facts(result.baseline, "given")
    scenario = _overridden_facts(result.scenario, "scenario") or "no change"
    origin = f" (from {', '.join(result.scenario_entities)})" if result.scenario_entities else ""
    lines = [f"baseline: {entities}" + (f", given {given}" if given else ""), f"scenario: {scenario}{origin}"]
    if not result.rows:
        lines.append("nothing changes")
        return "\n".join(lines)
    table = [_whatif_cells(row) for row in result.rows]
    widths = [max([len(h), *(len(cells[i]) for cells, _ in table)]) for i, h in enumerate(WHATIF_COLUMNS)]
    align = [str.ljust, str.rjust, str.rjust, str.ljust, str.rjust]
    lines.append("  ".join(a(h, w) for a, h, w in zip(align, WHATIF_COLUMNS, widths)))
    for cells, marks in table:
        text = "  ".join(a(c, w) for a, c, w in zip(align, cells, widths))
        lines.append(text + (f"  [{marks}]" if marks else ""))
    lines += [f"note: {note_text(n)}" for n in result.notes]
    return "\n".join(lines)


def format_change(change: float | None) -> str:
    """A relative change in percent: whole percents, two decimals below one percent, ``-`` when there is none.

    >>> format_change(1.0), format_change(-0.004), format_change(None)
    ('+100%', '-0.40%', '-')
    """
    if change is None:
        return "-"
    return f"{change:+.0%}" if abs(change) >= 0.01 or change == 0 else f"{change:+.2%}"


def _overridden_facts(context, via: str) -> str:
    return ", ".join(f"{key} = {format_quantity(context.facts[key].value, context.facts[key].unit)}"
                     for key, given_via in context.overrides.items() if given_via == via)


def _whatif_cells(row) -> tuple[list[str], str]:
    """The row's cells under :data:`WHATIF_COLUMNS`, and its marks (scenario fact, unsettled sides)."""
    marks = ["scenario"] if row.overridden else []
    marks += [row.moved] if getattr(row, "moved", None) else []
    marks += [f"{side} {status}" for side, status in (("baseline", row.baseline_status),
                                                      ("scenario", row.scenario_status))
              if status in MARKED_STATUSES]
    sides = [side.magnitude if side else None for side in (row.baseline, row.scenario)]
    factor, unit = display_scale(row.unit, sides)
    cells = [row.variable, *(format_number(None if m is None else m * factor) for m in sides), unit,
             format_change(row.change)]
    return cells, ", ".join(marks)


def render_symbolic(solution) -> str:
    """A closed form (``solve --symbolic``): the expression, its free variables, pretty and LaTeX forms, its value."""
    extra = solution.extra
    unit = f" [{solution.unit}]" if solution.unit else ""
    lines = [f"{solution.variable}{unit} = {extra['expression']}"]
    if extra.get("approximate") and re.sub(r"(\d)\.0\b", r"\1", extra["approximate"]) != extra["expression"]:
        lines.append(f"  ≈ {extra['approximate']}")
    units = ", ".join(f"{k} [{u}]" if u else k for k, u in extra["free_units"].items())
    lines.append(f"  free: {units or '(none: a constant here)'}")
    lines.append("")
    lines += ["  " + line for line in extra["pretty"].splitlines()]
    lines.append("")
    lines.append(f"  latex: {extra['latex']}")
    if solution.value is not None:
        at = ", ".join(f"{k}={format_number(v)}" for k, v in extra["point"].items())
        lines.append(f"  value{' at ' + at if at else ''}: {format_quantity(solution.magnitude, solution.unit)}")
    if "sensitivity" in extra:
        lines.append(f"  elasticity ∂ln {solution.variable} / ∂ln x:")
        for item in extra["sensitivity"]:
            number = "" if item["elasticity"] is None or item["expression"] == format(item["elasticity"], "g") \
                else f" = {item['elasticity']:.4g}"
            lines.append(f"    {item['variable']}: {item['expression']}{number}")
    lines += [f"  note: {note_text(n)}" for n in solution.notes]
    return "\n".join(lines)
