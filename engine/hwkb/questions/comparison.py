"""GPUs side by side (``KnowledgeBase.compare``): a row per variable, a column per GPU, each cell stated or derived.

Each cell is in the variable's display unit. By default the rows are a headline set in four sections
(:data:`HEADLINE`: memory and bandwidth, peaks by precision, power, clocks), each row one of them has a
figure for; ``every=True`` gives every variable some GPU states or derives (a KB default alone makes no row),
in the order the KB declares them, in sections named for the rule file that declares the variable
(``compute``, ``memory``, ``power``), as it is too when a KB declares none of the headline's variables;
``names`` picks rows instead (a name without an index takes all its index
values). A row an index-free name brings in that no GPU compared states, derives or marks ``n/a``
(``tc_peak[fp6]`` when comparing Hopper parts) is left out and counted in ``left_out``; an exact key
(``'tc_peak[fp6]'``) is always kept. How a comparison prints is the render stage's
(:mod:`hwkb.render.tables`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from hwkb.definitions.display import display_scale, format_number
from hwkb.definitions.model import split_key
from hwkb.definitions.quantities import jedec_label
from hwkb.results import Result

__all__ = ["Cell", "Row", "Comparison", "compare", "stated_cell", "gpu_cells", "declared_keys", "picked_keys",
           "HEADLINE", "DERIVED_MARK"]

#: the rows ``compare`` shows by default: each section's variables (an index-free name takes every index value)
HEADLINE = (
    ("memory and bandwidth", ("memory_size", "memory_bandwidth", "memory_bus_bits", "memory_data_rate", "l2_size",
                              "interconnect_bandwidth")),
    ("peaks by precision", ("fp64_peak", "fp32_peak", "tc_peak")),
    ("power", ("tdp",)),
    ("clocks", ("clock_base", "clock_boost", "clock_tc")),
)
DERIVED_MARK = "*"


@dataclass(frozen=True)
class Cell:
    """One GPU's figure for one variable: ``value`` in the row's unit (None when not applicable)."""
    value: float | None
    status: str  # stated | derived | not_applicable
    printed: str = ""  # a stated figure's digits as its file prints them, when in the row's unit

    def text(self, factor: float = 1) -> str:
        """The figure as a table cell, times the ``factor`` of its row's display unit (:func:`display_scale`):
        its printed digits, ``n/a``, or the number with ``*`` when derived."""
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
    section: str = ""  # a headline section, or the rule file that declares the variable (``compute``)
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


@dataclass(frozen=True, repr=False)
class Comparison(Result):
    """What ``compare`` answers: ``gpus`` (ids) and their ``names`` (the products' names, the columns' headers)."""
    gpus: tuple[str, ...]
    rows: tuple[Row, ...]
    left_out: tuple[str, ...] = ()  # keys an index-free name picked that no GPU compared has a figure for
    names: tuple[str, ...] = ()
    headline: bool = False  # the default headline set, not every row (--all) or the rows named (--vars)

    @property
    def headers(self) -> tuple[str, ...]:
        """The columns' headers: each product's name, or its id when it has none or two share one."""
        names = tuple(n or g for n, g in zip(self.names or self.gpus, self.gpus))
        return names if len(set(names)) == len(names) else self.gpus

    def to_dict(self) -> dict:
        """DESIGN's ``{"columns", "rows"}``: a column per GPU (its id and the name that heads it), each row's
        ``values`` in the columns' order, each row in its section."""
        columns = [{"id": gpu, "name": header} for gpu, header in zip(self.gpus, self.headers)]
        return {"command": "compare", "status": "ok", "columns": columns, "headline": self.headline,
                "rows": [r.to_dict() for r in self.rows], "left_out": list(self.left_out)}


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


def compare(kb, gpus: Sequence[str], names: Sequence[str] = (), every: bool = False) -> Comparison:
    """The table of ``gpus``: the rows ``names`` pick, every variable one of them states or derives (``every``),
    or else the headline set; a row every GPU lacks is left out (and counted) unless it was named exactly."""
    gpus = list(dict.fromkeys(gpus))
    columns = [gpu_cells(kb, gpu) for gpu in gpus]  # an unknown id fails here, as --gpu, with suggestions
    entities = [kb.model.entity(gpu) for gpu in gpus]
    headline = not names and not every
    if names:
        picked = [(key, exact, "") for key, exact in picked_keys(kb, names)]
    elif every:
        picked = [(k, False, "") for k in declared_keys(kb) if any(k in c for c in columns)]
    else:
        picked = [(key, False, section) for section, section_names in HEADLINE
                  for key, _ in picked_keys(kb, [n for n in section_names if kb.model.variables.get(n)])]
    rows, left_out = [], []
    for key, exact, section in picked:
        cells = tuple(c.get(key) for c in columns)
        if exact or any(cell is not None for cell in cells):
            variable = kb.model.variables[split_key(key)[0]]
            file_section = Path(variable.where.file).stem if variable.where.file else ""
            rows.append(Row(key, kb.model.unit_of(key), cells, section or file_section,
                            jedec_label(variable.unit) if variable.capacity else ""))
        elif not headline:
            left_out.append(key)
    if headline and not rows:  # a KB of its own, without the headline's variables: every figure instead
        return compare(kb, gpus, every=True)
    return Comparison(tuple(gpus), tuple(rows), tuple(left_out), tuple(e.name or e.id for e in entities), headline)
