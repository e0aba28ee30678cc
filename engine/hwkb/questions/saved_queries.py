"""Running a saved query (:mod:`hwkb.formats.query_files`): every cell a question to the solver.

Each cell is asked as ``KnowledgeBase.solve`` asks: the row's layer, then the
column's, make the context; a ``where`` with an inequality goes to
:func:`~hwkb.questions.thresholds.solve_constrained`, anything else to a
:class:`~hwkb.solving.solver.Solver`. An undetermined cell is None (shown as ``-``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from hwkb.errors import KBError, QueryError, UnitError
from hwkb.formats.query_files import Column, Layer, Query
from hwkb.questions.thresholds import solve_constrained
from hwkb.solving.solution import Solution, Status
from hwkb.solving.solver import Solver
from hwkb.results import Result
from hwkb.solving.system import System

__all__ = ["QueryResult", "run_query"]

_PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, repr=False)
class QueryResult(Result):
    """A query's table: ``rows`` of numbers (None where undetermined), labels and limiters' names.

    ``units`` gives each column's unit (None for a column of labels); ``shown`` each column's format as the
    query file gives it (a ``format()`` spec, empty for the display rule's, and a suffix): the render stage
    shows the cells with it (:func:`hwkb.render.answers.query_cells`).
    """
    title: str
    columns: list[str]
    rows: list[list]
    notes: list[str] = field(default_factory=list)
    units: list[str | None] = field(default_factory=list)
    shown: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"command": "run", "status": "ok", "title": self.title, "columns": self.columns, "units": self.units, "rows": self.rows}

    def __repr__(self) -> str:
        return str(self)


def run_query(query: Query, system: System) -> QueryResult:
    """Every cell computed by the engine; an undetermined cell is None (shown as '-')."""
    rows, notes = [], []
    units: list[str | None] = [c.unit or None for c in query.columns]
    solvers: dict[tuple, Solver] = {}  # cells that share a context share its solver
    for row in query.rows:
        cells = []
        params = dict(row.layer.params)
        for column in query.columns:
            if column.variable is None:
                cells.append(row.label)
                continue
            variable = _fill(column.variable, params, column)
            try:
                solution = _answer(system, variable, row.layer, column, params, solvers)
            except KBError as exc:
                raise QueryError(f"{query.name}: row {row.label!r}, column {column.header!r}: {exc}",
                                 where=row.where) from exc
            if column.limiter is not None:
                named = _limiter(solution, column)
                cells.append(named)
                continue
            value = solution.magnitude if solution.determined else None
            units[len(cells)] = units[len(cells)] or solution.unit
            if column.unit and column.unit != solution.unit:
                _check_column_unit(system, column, variable, solution.unit)
                if value is not None:
                    value = system.units.from_canonical(system.units.to_canonical(value, solution.unit), column.unit)
            if solution.status == Status.INCONSISTENT:
                notes.append(f"{row.label} / {column.header}: routes disagree ({solution.status})")
            cells.append(value)
        rows.append(cells)
    return QueryResult(query.title, [c.header for c in query.columns], rows, notes, units,
                       [(c.format or "", c.suffix) for c in query.columns])


def _answer(system: System, variable: str, row_layer: Layer, column: Column, params: dict,
            solvers: dict[tuple, Solver]) -> Solution:
    """One cell: the row's context with the column's layer on top, asked as ``KnowledgeBase.solve`` asks
    (a table shows values: what would settle an empty cell is not searched for)."""
    parts = [row_layer, column.layer]
    variable = system.check_key(variable)
    gpu = column.layer.gpu or row_layer.gpu
    layers = tuple(w for part in parts for w in part.layers)
    facts = tuple(_fill(s, params, column) for part in parts for s in part.facts)
    where = tuple(_fill(w, params, column) for part in parts for w in part.where)
    context_key = (gpu, layers, facts, where)
    if system.has_inequalities(where):
        return solve_constrained(system, variable, system.context(gpu, layers, facts), list(where))
    if context_key not in solvers:
        solvers[context_key] = Solver(system, system.context(gpu, layers, facts), where)
    return solvers[context_key].solution(variable, needs=False)


def _limiter(solution: Solution, column: Column) -> str | None:
    """The limits that bind ``solution`` (all that tie, joined by ' & '), in the column's words; None if none."""
    limiter = solution.limiter if solution.determined else None
    if limiter is None:
        return None
    words = dict(column.limiter)
    return " & ".join(words.get(name, name) for name in limiter.origin.bound_by)


def _check_column_unit(system: System, column: Column, variable: str, unit: str) -> None:
    """A column shown in a unit of another dimension than its variable's is a mistake of the query file."""
    try:
        fits = system.units.dimensions(column.unit) == system.units.dimensions(unit)
    except UnitError as exc:
        raise QueryError(f"column {column.header!r}: {exc.message}", where=column.where, hint=exc.hint) from None
    if not fits:
        raise QueryError(f"column {column.header!r} shows {variable} in {column.unit!r}, but {variable} is in {unit}",
                         where=column.where, hint=f"give a unit of the same dimension as {unit}")


def _fill(template: str, params: dict, column: Column) -> str:
    def sub(m):
        if m.group(1) not in params:
            raise QueryError(f"column {column.header!r} uses {{{m.group(1)}}}, which the row's params do not give",
                             where=column.where)
        return params[m.group(1)]
    return _PLACEHOLDER.sub(sub, template)

