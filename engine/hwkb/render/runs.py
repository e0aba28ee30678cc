"""The forms of simulation runs (``hwkb simulate``): the aligned table, Markdown, a page, CSV.

Light on purpose: the simulator's command renders its table without loading the engine.
"""
from __future__ import annotations

from hwkb.definitions.display import FRACTION_UNIT, format_quantity
from hwkb.render.forms import table_forms

__all__ = ["FORMS", "runs_text"]


def _runs_data(runs):
    return list(runs.COLUMNS), [[getattr(r, c) for c in runs.COLUMNS] for r in runs.runs]


def _runs_shown(runs):
    return list(runs.COLUMNS), [[str(r.warps), str(r.ilp), str(r.compute), str(r.latency), str(r.iters), r.policy,
                                 format_quantity(r.utilization, FRACTION_UNIT), str(r.issued), str(r.cycles)] for r in runs.runs]


def runs_text(runs) -> str:
    """``hwkb simulate``: an aligned table, numbers right-justified, utilization in percent (the one display rule)."""
    _, rows = _runs_shown(runs)
    widths = [max(len(column), *(len(row[i]) for row in rows)) for i, column in enumerate(runs.COLUMNS)]

    def line(cells):
        return "  ".join(cell.ljust(w) if column == "policy" else cell.rjust(w)
                         for cell, w, column in zip(cells, widths, runs.COLUMNS)).rstrip()

    return "\n".join([line(runs.COLUMNS), *(line(row) for row in rows)])


FORMS = {"SimulationRuns": {"text": runs_text, **table_forms(lambda r: "hwkb simulate", _runs_shown, _runs_data,
                                                             (0, 1, 2, 3, 4, 6, 7, 8))}}
