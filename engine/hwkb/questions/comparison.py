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

``layers`` (``--with``: a workload, a serving precision) and ``facts`` (``--set``) are layered on every GPU,
as a solve layers them: each column is that GPU running the workload. When a layer is a workload, the
headline begins with its section (:data:`WORKLOAD_HEADLINE`: the decode rate bound, the prefill time bound,
the GPUs needed to hold it), each derived cell carrying the limits of the min/max law that binds it
(``bound_by``, from its derivation); a workload row no GPU settles is named with what it needs (``unsettled``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from hwkb.definitions.expressions import references
from hwkb.definitions.model import split_key
from hwkb.definitions.quantities import jedec_label
from hwkb.results import Result
from hwkb.solving.need_search import search_needs
from hwkb.solving.needs import same_figure
from hwkb.solving.solution import AboveCeiling, Solution, WholeCounts
from hwkb.solving.solver import Solver
from hwkb.solving.unsettled import absent_but_settled, defined_by_absent

__all__ = ["Cell", "Row", "Comparison", "compare", "stated_cell", "answer_cell", "gpu_cells",
           "declared_keys", "picked_keys", "HEADLINE", "WORKLOAD_HEADLINE", "input_needs"]

#: the rows ``compare`` shows by default: each section's variables (an index-free name takes every index value)
HEADLINE = (
    ("memory and bandwidth", ("memory_size", "memory_bandwidth", "memory_bus_bits", "memory_data_rate", "l2_size",
                              "interconnect_bandwidth")),
    ("peaks by precision", ("fp64_peak", "fp32_peak", "tc_peak")),
    ("power", ("tdp",)),
    ("clocks", ("clock_base", "clock_boost", "clock_tc")),
)
#: the section a workload layered with ``--with`` puts first in the headline: its bounds on each GPU
WORKLOAD_HEADLINE = ("workload", ("decode_tokens_per_s", "prefill_time", "gpus_needed", "gemm_time",
                                  "gemm_compute_share", "attention_compute_time", "attention_exp_time"))


@dataclass(frozen=True)
class Cell:
    """One GPU's figure for one variable: ``value`` in the row's unit (None when not applicable). The render stage
    shows it (:func:`hwkb.render.tables.cell_text`: its printed digits, ``n/a``, or the number marked derived).

    A derived figure is ``solve``'s answer for it (:func:`answer_cell`): its status (``inconsistent`` where no
    whole count fits a count's figures, ``implausible`` where a value lies beyond its range or ceiling), the
    whole counts a count computed fractional stands for (``value`` the least of them, as solve answers), and
    its ceiling's stated figure when it lies above it."""
    value: float | None
    status: str  # stated | derived | inconsistent | implausible | not_applicable
    printed: str = ""  # a stated figure's digits as its file prints them, when in the row's unit
    bound_by: tuple[str, ...] = ()  # a derived figure's binding limits: the min/max law's nearest in its derivation
    whole: WholeCounts | None = None  # a count computed fractional: the whole counts its figures' rounding allows
    above: AboveCeiling | None = None  # a derived value above the stated figure of its variable's ceiling

    @property
    def derived(self) -> bool:
        return self.status not in ("stated", "not_applicable")

    @property
    def flagged(self) -> bool:
        """Whether solve would flag the figure: its figures contradict one another, or it lies above its ceiling."""
        return self.status in ("inconsistent", "implausible") or self.above is not None

    def to_dict(self) -> dict:
        return {"value": self.value, "status": self.status,
                **({"bound_by": list(self.bound_by)} if self.bound_by else {}),
                **({"whole_counts": self.whole.to_dict()} if self.whole is not None else {}),
                **({"above_ceiling": self.above.to_dict()} if self.above is not None else {})}


@dataclass(frozen=True)
class Row:
    variable: str
    unit: str
    cells: tuple[Cell | None, ...]
    section: str = ""  # a headline section, or the rule file that declares the variable (``compute``)
    label: str = ""    # the unit as the text shows it: a capacity's GiB as vendors print it, GB (JEDEC)

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
    layers: tuple[str, ...] = ()  # the entities layered on every GPU (--with)
    facts: tuple[str, ...] = ()   # the facts given on every GPU (--set)
    unsettled: tuple[tuple[str, tuple[str, ...]], ...] = ()  # workload rows no GPU settles, with what would

    @property
    def headers(self) -> tuple[str, ...]:
        """The columns' headers: each product's name, or its id when it has none or two share one."""
        names = tuple(n or g for n, g in zip(self.names or self.gpus, self.gpus))
        return names if len(set(names)) == len(names) else self.gpus

    def to_dict(self) -> dict:
        """DESIGN's ``{"columns", "rows"}``: a column per GPU (its id and the name that heads it), each row's
        ``values`` in the columns' order, each row in its section; with layers or facts, what they were."""
        columns = [{"id": gpu, "name": header} for gpu, header in zip(self.gpus, self.headers)]
        out = {"command": "compare", "status": "ok", "columns": columns, "headline": self.headline,
               "rows": [r.to_dict() for r in self.rows], "left_out": list(self.left_out)}
        if self.layers or self.facts:
            out.update({"with": list(self.layers), "given": list(self.facts),
                        "unsettled": [{"variable": v, "needs": list(n)} for v, n in self.unsettled]})
        return out


def stated_cell(kb, fact) -> Cell:
    """A stated fact in its variable's display unit, keeping the printed digits when the file uses that unit."""
    if not fact.applicable:
        return Cell(None, "not_applicable")
    unit = kb.model.unit_of(fact.key)
    value = kb.units.from_canonical(kb.units.to_canonical(fact.value, fact.unit), unit)
    same_size = fact.unit == unit or kb.units.from_canonical(kb.units.to_canonical(1.0, fact.unit), unit) == 1.0
    printed = fact.text.split()[0] if same_size and fact.text.split() else ""
    return Cell(value, "stated", printed)


def answer_cell(solution: Solution) -> Cell:
    """A derived figure as ``solve`` answers it, with the limits that bind it."""
    binding = solution.value.binding_limit()
    return Cell(solution.magnitude, str(solution.status), bound_by=tuple(binding.origin.bound_by) if binding else (),
                whole=solution.whole, above=solution.above)


def gpu_cells(kb, gpu: str, layers: Sequence[str] = (), facts: Sequence[str] = ()
              ) -> tuple[dict[str, Cell], frozenset[str]]:
    """Every key ``gpu``'s entities (and the ``layers`` on it) state, not the KB's defaults or the ``facts``
    given, or that they derive (as solve answers it: :meth:`~hwkb.solving.solver.Solver.derived_answers`), in
    display units; a derived cell names the limits that bind it. Beside them, the keys that rest on an n/a as
    ``solve`` finds them (the A100's ``tc_peak[fp6]``, through its FP8 n/a): n/a in a row shown, though they
    bring in no row of their own, bar a workload's bound only the n/a keeps from a value (an FP8 decode rate on
    an A100)."""
    context = kb.context(gpu, layers, facts)
    cells = {key: stated_cell(kb, fact) for key, fact in context.facts.items()
             if fact.entity is not None and key not in context.overrides}
    for solution in kb.solver(context).derived_answers():
        cells.setdefault(solution.variable, answer_cell(solution))
    solver = Solver(kb, context, lazy=True)
    absent = frozenset(defined_by_absent(solver)) - cells.keys()
    if layers:
        known = {k for k, f in context.facts.items() if f.applicable} | cells.keys()
        for key in absent_but_settled(solver, known) & set(WORKLOAD_HEADLINE[1]):
            cells.setdefault(key, Cell(None, "not_applicable"))
    return cells, absent


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


def compare(kb, gpus: Sequence[str], names: Sequence[str] = (), every: bool = False, layers: Sequence[str] = (),
            facts: Sequence[str] = ()) -> Comparison:
    """The table of ``gpus``, each with ``layers`` and ``facts`` on it: the rows ``names`` pick, every variable
    one of them states or derives (``every``), or else the headline set (a workload's section first); a row
    every GPU lacks is left out (and counted) unless it was named exactly."""
    gpus, layers, facts = list(dict.fromkeys(gpus)), tuple(layers), tuple(facts)
    columns, absent = zip(*(gpu_cells(kb, gpu, layers, facts) for gpu in gpus))  # an unknown id fails here
    entities = [kb.model.entity(gpu) for gpu in gpus]
    headline = not names and not every
    workload = any(kb.model.entity(layer).kind == "workload" for layer in layers)
    sections = ((WORKLOAD_HEADLINE,) if workload else ()) + HEADLINE
    if names:
        picked = [(key, exact, "") for key, exact in picked_keys(kb, names)]
    elif every:
        picked = [(k, False, "") for k in declared_keys(kb) if any(k in c for c in columns)]
    else:
        picked = [(key, False, section) for section, section_names in sections
                  for key, _ in picked_keys(kb, [n for n in section_names if kb.model.variables.get(n)])]
    rows, left_out = [], []
    for key, exact, section in picked:
        cells = tuple(c.get(key) for c in columns)
        if exact or any(cell is not None for cell in cells):
            cells = tuple(Cell(None, "not_applicable") if cell is None and key in gone else cell
                          for cell, gone in zip(cells, absent))
            variable = kb.model.variables[split_key(key)[0]]
            file_section = Path(variable.where.file).stem if variable.where.file else ""
            rows.append(Row(key, kb.model.unit_of(key), cells, section or file_section,
                            jedec_label(variable.unit) if variable.capacity else ""))
        elif not headline:
            left_out.append(key)
    if headline and not rows:  # a KB of its own, without the headline's variables: every figure instead
        return compare(kb, gpus, every=True, layers=layers, facts=facts)
    unsettled = _unsettled(kb, gpus[0], layers, facts, rows, headline) if workload else ()
    return Comparison(tuple(gpus), tuple(rows), tuple(left_out), tuple(e.name or e.id for e in entities), headline,
                      layers, facts, unsettled)


#: the workload rows a model's bounds are in (a kernel's are settled by its shape alone)
_MODEL_BOUNDS = ("decode_tokens_per_s", "prefill_time", "gpus_needed")


def _unsettled(kb, gpu, layers, facts, rows, headline) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The rows no GPU settles (in the headline, a model's bounds left out), each with the first set of figures
    that would settle it on ``gpu`` (:func:`input_needs`)."""
    empty = [r.variable for r in rows if all(c is None for c in r.cells)]
    if headline and kb.solve("params", None, layers).determined:  # a model, not a kernel
        shown = {r.variable for r in rows}
        empty += [key for key in _MODEL_BOUNDS if key not in shown]
    return tuple((key, input_needs(kb, key, gpu, layers, facts)) for key in empty)


def input_needs(kb, key: str, gpu: str | None, layers: Sequence[str], facts: Sequence[str]) -> tuple[str, ...]:
    """The first set of figures that would settle ``key`` in the context, among those no law gives (``batch``
    and ``prompt_tokens``, not ``prefill_flop``) when there is one; () when nothing would. As solve's needs,
    never a key a law makes equal to ``key`` (:func:`~hwkb.solving.needs.same_figure`: ``tc_peak[fp8]`` for
    ``workload_peak`` in FP8): to give it would be to give the answer."""
    solver = kb.solver(kb.context(gpu, layers, facts))
    outputs = {ref.name for rule in kb.model.rules.values() if rule.relation is not None
               for ref in references(rule.relation.lhs)}
    not_applicable, same = solver.context.not_applicable, same_figure(solver, key)
    for excluded in (not_applicable | outputs, not_applicable):
        needs = search_needs(solver.keysets, solver.values, key, solver.can_solve, solver.usable,
                             accept=lambda plan: solver.blocks_regular(plan, key), excluded=excluded, same=same).sets
        if needs:
            return tuple(needs[0])
    return ()
