"""``hwkb compare GPU GPU ...``: the GPUs' figures side by side, a row per variable and a column per GPU.

Each cell is in the variable's display unit; a stated figure prints plain, a derived one with a trailing
``*``, one the entity marks not applicable as ``n/a`` and one that neither states nor follows as ``-``.
Rows are every variable some GPU states or derives (a KB default alone makes no row), in the order the
KB declares them; ``--vars`` picks rows instead (a name without an index takes all its index values). A row a
name without an index brings in that no GPU compared states, derives or marks ``n/a`` (``tc_peak[fp6]`` when
comparing Hopper parts) is left out, and a line says how many; an exact key (``--vars 'tc_peak[fp6]'``) is always
shown. The JSON lists the keys left out (``left_out``); CSV, being data only, leaves them out silently.
Rows from several rule files, each file's together, come in sections named for the file that declares the
variable (``[compute]``, ``[memory]``, ``[power]``): a line in the text, a bold row in Markdown, a column of the
page, a ``section`` field in the JSON.
"""
from __future__ import annotations

import argparse
import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from hwkb.cli import flags
from hwkb.definitions.display import display_scale, format_number
from hwkb.errors import markdown_text
from hwkb.definitions.model import split_key
from hwkb.definitions.quantities import JEDEC_NOTE, jedec_label
from hwkb.formats import html_pages

__all__ = ["add_arguments", "run", "Cell", "Row", "Comparison", "compare", "stated_cell", "html_page", "emit", "FORMATS"]

FORMATS = ("text", "markdown", "html", "csv")
DERIVED_MARK = "*"


def html_page(title: str, header: Sequence[str], rows: Sequence[Sequence[str]], note: str,
              numeric: Sequence[int] = ()) -> str:
    """A self-contained page of one sortable, filterable table (``numeric`` columns right-aligned), all escaped."""
    return html_pages.page(title, [html_pages.table(header, rows, table_id="table", numeric=numeric, filter_box=True),
                                   f"<p>{html_pages.escape(note)}</p>"])


@dataclass(frozen=True)
class Cell:
    """One GPU's figure for one variable: ``value`` in the row's unit (None when not applicable)."""
    value: float | None
    status: str  # stated | derived | not_applicable
    printed: str = ""  # a stated figure's digits as its file prints them, when in the row's unit

    def text(self, factor: float = 1) -> str:
        """The figure as text shows it, times the ``factor`` of its row's display unit (:func:`display_scale`)."""
        if self.value is None:
            return "n/a"
        if self.printed and factor == 1:
            return self.printed
        return format_number(self.value * factor) + (DERIVED_MARK if self.status == "derived" else "")

    def to_dict(self) -> dict:
        return {"value": self.value, "status": self.status}


@dataclass(frozen=True)
class Row:
    variable: str
    unit: str
    cells: tuple[Cell | None, ...]
    section: str = ""  # the rule file that declares the variable (``compute`` for kb/rules/compute.yaml)
    label: str = ""    # the unit as the text shows it: a capacity's GiB as vendors print it, GB (JEDEC)

    def shown(self) -> tuple[float, str]:
        """The factor and unit text shows the row's figures in: one for the row, from its largest figure; a
        capacity as vendors print it (GiB as GB)."""
        if self.label:
            return 1, self.label
        return display_scale(self.unit, [c.value for c in self.cells if c is not None])

    def to_dict(self) -> dict:
        return {"variable": self.variable, "unit": self.unit, "section": self.section,
                "values": [c.to_dict() if c else None for c in self.cells]}


@dataclass(frozen=True)
class Comparison:
    """What ``hwkb compare`` prints: ``str()`` is the text table, :meth:`markdown` and :meth:`csv` its other forms."""
    gpus: tuple[str, ...]
    rows: tuple[Row, ...]
    left_out: tuple[str, ...] = ()  # keys an index-free name picked that no GPU compared has a figure for

    def left_out_line(self) -> list[str]:
        """The line saying how many rows every GPU lacks were left out, and how to show one (none if none were)."""
        if not self.left_out:
            return []
        count = len(self.left_out)
        return [f"{count} row{'s' if count > 1 else ''} left out: no GPU compared has a figure for "
                f"{'them' if count > 1 else 'it'} (name one exactly to show it, e.g. --vars '{self.left_out[0]}')"]

    def cells_text(self) -> list[list[str]]:
        header = ["variable", "unit", *self.gpus]
        return [header] + [[r.variable, unit, *(c.text(factor) if c else "-" for c in r.cells)]
                           for r in self.rows for factor, unit in (r.shown(),)]

    def jedec_line(self) -> list[str]:
        """The line that says capacities are shown as vendors print them (none if no row is one)."""
        return [JEDEC_NOTE] if any(r.label and r.label != r.unit for r in self.rows) else []

    def _section_starts(self) -> dict[int, str]:
        """Row index -> the section that begins there. None when one rule file gives every row, or when a file's
        rows are apart (``--vars`` in an order of the user's own is left as given)."""
        starts = {i: r.section for i, r in enumerate(self.rows) if i == 0 or r.section != self.rows[i - 1].section}
        sections = list(starts.values())
        return starts if len(sections) > 1 and len(sections) == len(set(sections)) else {}

    def __str__(self) -> str:
        table = self.cells_text()
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        starts = self._section_starts()
        lines = []
        for i, row in enumerate(table):
            if i - 1 in starts:
                lines.append(f"[{starts[i - 1]}]")
            lines.append("  ".join(cell.ljust(w) if j < 2 else cell.rjust(w)
                                   for j, (cell, w) in enumerate(zip(row, widths))).rstrip())
        return "\n".join(lines + self.left_out_line() + self.jedec_line()
                         + [f"{DERIVED_MARK} derived from the stated figures (hwkb explain VAR --gpu ID)"])

    def markdown(self) -> str:
        table = self.cells_text()
        starts = self._section_starts()
        lines = ["| " + " | ".join(markdown_text(h) for h in table[0]) + " |", "|" + "---|" * len(table[0])]
        for i, row in enumerate(table[1:]):
            if i in starts:
                lines.append(f"| **{starts[i]}** |" + " |" * (len(row) - 1))
            lines.append("| " + " | ".join(markdown_text(cell) for cell in row) + " |")
        return "\n".join(lines + ["", *self.left_out_line(), *self.jedec_line(),
                                   f"{DERIVED_MARK} derived from the stated figures"])

    def html(self) -> str:
        """The page's table has a section column to filter and sort by, in place of the text's section lines."""
        table = self.cells_text()
        sectioned = bool(self._section_starts())
        header = ["section", *table[0]] if sectioned else table[0]
        rows = [[r.section, *cells] for r, cells in zip(self.rows, table[1:])] if sectioned else table[1:]
        first_number = len(header) - len(self.gpus)
        return html_page("hwkb compare " + " ".join(self.gpus), header, rows,
                         " ".join([*self.left_out_line(), *self.jedec_line(),
                                   f"{DERIVED_MARK} derived from the stated figures"]),
                         numeric=range(first_number, len(header)))

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["variable", "unit", *self.gpus])
        for row in self.rows:
            writer.writerow([row.variable, row.unit, *("" if c is None else "n/a" if c.value is None
                                                       else repr(c.value) for c in row.cells)])
        return out.getvalue()

    def to_dict(self) -> dict:
        return {"status": "ok", "gpus": list(self.gpus), "rows": [r.to_dict() for r in self.rows],
                "left_out": list(self.left_out)}


def stated_cell(kb, fact) -> Cell:
    """A stated fact in its variable's display unit, keeping the printed digits when the file uses that unit."""
    if not fact.applicable:
        return Cell(None, "not_applicable")
    unit = kb.model.unit_of(fact.key)
    value = kb.units.from_canonical(kb.units.to_canonical(fact.value, fact.unit), unit)
    same_size = fact.unit == unit or kb.units.from_canonical(kb.units.to_canonical(1.0, fact.unit), unit) == 1.0
    printed = fact.text.split()[0] if same_size and fact.text.split() else ""
    return Cell(value, "stated", printed)


def gpu_cells(kb, gpu: str) -> dict[str, Cell]:
    """Every key ``gpu``'s entities state (not the KB's defaults) or its facts derive, in display units."""
    cells = {key: stated_cell(kb, fact) for key, fact in kb.context(gpu).facts.items() if fact.entity is not None}
    for value in kb.derive(gpu):
        cells.setdefault(value.key, Cell(value.magnitude, "derived"))
    return cells


def declared_keys(kb) -> list[str]:
    return [key for variable in kb.model.variables.values() for key in variable.keys(kb.model.indices)]


def picked_keys(kb, names: Sequence[str]) -> list[tuple[str, bool]]:
    """Each key ``names`` pick, once and in order, with whether it was named exactly (a name without an index
    takes every value; a name and its alias are one variable)."""
    exact: dict[str, bool] = {}
    for name in map(kb.model.resolve_key, names):
        variable = kb.model.variables.get(name)
        if variable is not None and variable.index is not None:
            for key in variable.keys(kb.model.indices):
                exact.setdefault(key, False)
        else:
            kb.model.check_key(name)
            exact[name] = True
    return list(exact.items())


def compare(kb, gpus: Sequence[str], names: Sequence[str] = ()) -> Comparison:
    """The table of ``gpus``: the rows ``names`` pick, or every variable one of them states or derives; a row
    an index-free name brings in that every GPU lacks is left out (and counted), one named exactly is kept."""
    columns = [gpu_cells(kb, gpu) for gpu in gpus]
    picked = picked_keys(kb, names) if names else [(k, False) for k in declared_keys(kb) if any(k in c for c in columns)]
    rows, left_out = [], []
    for key, exact in picked:
        cells = tuple(c.get(key) for c in columns)
        if exact or any(cell is not None for cell in cells):
            variable = kb.model.variables[split_key(key)[0]]
            rows.append(Row(key, kb.model.unit_of(key), cells,
                            Path(variable.where.file).stem if variable.where.file else "",
                            jedec_label(variable.unit) if variable.capacity else ""))
        else:
            left_out.append(key)
    return Comparison(tuple(gpus), tuple(rows), tuple(left_out))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("gpus", nargs="+", metavar="GPU", help="the products or architectures to compare")
    p.add_argument("--vars", metavar="A,B,...", default="",
                   help="the rows, comma-separated (a variable name without an index takes every index value)")
    p.add_argument("--format", choices=FORMATS, default="text", help="the table's form (--json gives the document)")


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    names = [n.strip() for n in args.vars.split(",") if n.strip()]
    emit(args, compare(kb, args.gpus, names))
    return 0


def emit(args: argparse.Namespace, result) -> None:
    """A table result in the form the flags ask for: the JSON document, or its text, markdown, html or csv."""
    if args.json:
        flags.emit_json(flags.document(args.command, result.to_dict()))
    elif args.format in ("html", "csv"):
        print(getattr(result, args.format)(), end="")
    elif args.format == "markdown":
        print(result.markdown())
    else:
        print(result)
