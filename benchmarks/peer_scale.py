"""How ``hwkb audit --from epoch`` grows with an Epoch CSV: 10^4 rows against 10^5, and a header of 10^6 columns.

Run by hand from a checkout: ``python benchmarks/peer_scale.py [--runs N] [--baseline ENGINE_DIR]``, or
``--pieces`` for two pieces of a row's cost timed in this process against the plain way (:func:`pieces`).

Two kinds of rows, each file's rows all distinct:

- ``synthetic``: sweep_cost.py's (Epoch's header of the test fixture, each row a GPU of its own with five
  figures, none of them a KB product, the first perturbed per row); no law ties the five, so no check runs;
- ``real``: the rows of Epoch's own CSV (tests/peers/real/epoch/ml_hardware.csv, 170 rows, 38 columns) over
  and over, each copy after the first renamed ("... #2") and its figures other than counts scaled by
  1 + copy/10^4, so no two rows are alike; the first copy's names are the KB products', the others' none.

Each file is audited by a whole process, ``hwkb audit --from epoch FILE --json`` to /dev/null, the runs
alternating between the files (and, with ``--baseline``, between this checkout's engine and another's, e.g.
``git archive BASE engine kb | tar -x -C /tmp/base`` and ``--baseline /tmp/base``, its engine folder or the
folder holding it, so before and after are measured in one run); time is the process's CPU time (user +
system), the least of ``--runs``, with wall time and peak memory (the process's maximum RSS) beside it: the audit
is streamed (2,000 entries at first, then 250 at a time, each written as it comes and set aside on a temporary
file), so the peak is the engine's, not the file's. Issue 22's target: 10^5 rows in under 3x
the time of 10^4, which needs a row under 2 x start-up / 70,000 (about 15 us against a 0.5 s start-up). A row
naming no KB product, of a shape (its set of non-empty mapped columns) whose pattern has no check, is read into
canonical numbers and audited from its shape; the first chunk's rows, a product's, and any with a figure out of
range or a note, take the full way (its facts, its row, the checks, its report).

The 10^6-column file (one row) is refused by the CSV reader (1,000 columns at most, kb/README.md "Limits"): its
time is that of reading the header and saying so (48 s before the limit).
"""
from __future__ import annotations

import argparse
import csv
import io
import itertools
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
HEADER = (ROOT / "tests" / "fixtures" / "peers" / "epoch" / "ml_hardware.csv").read_text().splitlines()[0]
REAL = ROOT / "tests" / "peers" / "real" / "epoch" / "ml_hardware.csv"
TARGET = 3.0
AUDIT = "import sys\nsys.path.insert(0, {engine!r})\nfrom hwkb.cli.main import console\nconsole()\n"


def epoch_rows(rows: int) -> str:
    return HEADER + "\n" + "".join(
        f"gpu-{i},Test,GPU,note {i},{204.8e12 + i * 1e9},1.024e14,,80000000000.0,2000000000000.0,400.0,inf\n"
        for i in range(rows))


def real_rows(rows: int) -> str:
    """``rows`` rows of Epoch's own CSV, copied over and over, each copy renamed and its figures scaled."""
    header, *table = list(csv.reader(io.StringIO(REAL.read_text(encoding="utf-8"), newline="")))
    counts = {header.index(c) for c in ("Memory bus (bit)", "Tensor cores") if c in header}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for i in range(rows):
        copy, row = divmod(i, len(table))
        cells = list(table[row])
        if copy:
            cells[0] = f"{cells[0]} #{copy + 1}"
            for c, text in enumerate(cells):
                if c not in counts and c > 0:
                    try:
                        number = float(text)
                    except ValueError:
                        continue
                    cells[c] = repr(number * (1 + copy / 1e4)) if number == number and abs(number) < 1e300 else text
        writer.writerow(cells)
    return out.getvalue()


def wide(columns: int) -> str:
    names = ",".join(f"c{i}" for i in range(columns - 1))
    return f"Hardware name,{names}\ngpu-x" + ",1" * (columns - 1) + "\n"


def measure(path: Path, engine: Path = ENGINE) -> tuple[float, float, float, int]:
    """(CPU seconds, wall seconds, peak MB, exit code) of ``hwkb audit --from epoch path --json`` with ``engine``."""
    wrapper = ("import resource, subprocess, sys, time\nstart = time.perf_counter()\n"
               "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "wall = time.perf_counter() - start\nuse = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "print(use.ru_utime + use.ru_stime, wall, use.ru_maxrss / 1024, done.returncode)\n")
    argv = [sys.executable, "-c", AUDIT.format(engine=str(engine)), "audit", "--from", "epoch", str(path), "--json"]
    out = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True, text=True, check=True).stdout
    cpu, wall, peak, code = out.split()
    return float(cpu), float(wall), float(peak), int(code)


def pieces(rows: int = 2000, runs: int = 7) -> None:
    """Pieces of a row's cost, in this process, over ``rows`` real rows (the copies after the first, which name no
    KB product), the least of ``runs``, each device against the plain way it replaces:

    - the CSV's lines: :func:`hwkb.formats.peers.documents._lines` against the lookbehind regular expression;
    - a row's entry: read into canonical numbers, its facts deferred (:meth:`CellLayout.entry`), against a Fact
      per cell (``CellLayout._stated``);
    - an entry's id asked three times (its occurrence, its totals, its JSON), kept in the entry
      (``PeerEntry.id``, set by ``at_once``) against made each time;
    - an entry set at once (:meth:`PeerEntry.at_once`) against the frozen dataclass's ``__init__``;
    - a row's audit from its shape (``audit.peers._plain_audit``) against the full way (record, row, checks,
      report, catalogue);
    - a bare entry's audit set at once (:meth:`PeerEntryAudit.bare`) against the frozen dataclass's ``__init__``;
    - a bare entry counted in the totals (:meth:`PeerTotals.add_bare`) against :meth:`PeerTotals.add`;
    - a row's screen with each step's function looked up once per shape (``audit.peers._ShapeScreen``) against
      the pattern's ``Screen.clear``;
    - the audit's rows from a record of numbers (``audit.peers._record``) against from each entry's Entity;
    - an entry's JSON separator kept for its two lists (``_peer_json_pieces``) against asked of each list;
    - a row's screen point: the row's figures over the defaults its shape's screen steps read
      (``_Shape.base``) against over all the defaults;
    - a bare entry's internal audit set at once (``audit.peers._bare_internal``) against ``EntityAudit``'s
      ``__init__``;
    - the 12-digit reading of a row's long figures (13 characters or more), skipped for a whole number of 12
      significant digits or fewer, against read every time: on Epoch's own rows and on the copies;
    - an entry's two JSON items through ``json.dumps(indent=2)`` against
      :func:`hwkb.render.peer_audit.indented`, and a bare entry's through its form (``_BareForm``) against
      ``indented``;
    - a row of a streamed JSON audit after the first chunk (read, audited, written), its entries held
      ``LATER_CHUNK`` at a time against ``CHUNK`` (:func:`_held_rows`)."""
    import json
    sys.path.insert(0, str(ENGINE))
    from hwkb.audit import peers
    from hwkb.audit.auditor import Auditor
    from hwkb.audit.findings import EntityAudit
    from hwkb.audit.peer_findings import PeerEntryAudit, PeerTotals
    from hwkb.formats.peers import epoch
    from hwkb.formats.peers.documents import _LINE_END, _lines, read_csv_cells
    from hwkb.formats.peers.entries import PeerEntry
    from hwkb.formats.peers.entry_facts import CellLayout
    from hwkb.kb import KnowledgeBase
    from hwkb.render.finding_words import peer_entry_data
    from hwkb.render.json_form import plain
    from hwkb.render.peer_audit import _ITEM_SEPARATOR, _BareForm, _SetAside, indented
    kb = KnowledgeBase.load([], cache=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "real.csv"
        path.write_text(real_rows(rows + 170))
        text = path.read_text(encoding="utf-8")
        header, cells = read_csv_cells(path)
        cells = list(cells)[170:]
    layout = CellLayout("epoch", "Epoch AI", header, epoch.FIELDS, epoch.NAMES, kb.model, kb.units,
                        also_read=("Hardware name",), known=epoch.COLUMNS)
    named = header.index("Hardware name")
    entries = [layout.entry(row[named], row, where) for where, row in cells]
    full = [layout._stated(row[named], row, where).entry(layout.names, layout.unread) for where, row in cells]
    auditor = Auditor(kb)
    shapes: dict = {}
    learnt = auditor.rows([peers._record(kb, e, e.id) for e in entries])
    reports = {a.entity: a for a in auditor.report(learnt, auditor.evaluate(auditor.prepare(learnt)))}
    for e, row in zip(entries, learnt):
        if e.canonical is not None and e.canonical.keys not in shapes:
            peers._learn(shapes, auditor, e, row, reports[row.entity])
    quick = [e for e in entries if peers._plain_audit(shapes, e, e.id) is not None]
    bare = [peers._plain_audit(shapes, e, e.id) for e in quick]
    print(f"{len(quick)} of {len(entries)} rows audited from their shape ({len(shapes)} shapes)")

    def full_audits():
        records = auditor.rows([peers._record(kb, e, e.id) for e in quick])
        by_id = {a.entity: a for a in auditor.report(records, auditor.evaluate(auditor.prepare(records)))}
        return [peers._entry_audit(kb, {}, e, by_id[e.id]) for e in quick]

    form = _BareForm.of(bare[0])  # the rows' one kind of bare entry (the assertion below checks each)
    items = [item for a in bare for item in peer_entry_data(a)]
    args = [(e.format, e.name, e.where, e.facts, e.fields, e.match, e.written, e.unread, e.canonical) for e in quick]
    def totals(add):
        counted = PeerTotals()
        for a in bare:
            add(counted, a)
        return counted

    screens = {e.canonical.keys: auditor._shared.screens.get(row.pattern) for e, row in zip(entries, learnt)
               if e.canonical is not None and e.canonical.keys in shapes}
    screened = [(shapes[e.canonical.keys], screens[e.canonical.keys], e.canonical.mid) for e in quick
                if shapes[e.canonical.keys].screen is not None]
    defaults = {e.canonical.keys: {k: v for k, v in row.mid.items() if k not in e.canonical.mid}
                for e, row in zip(entries, learnt) if e.canonical is not None}
    pointed = [(defaults[e.canonical.keys], shapes[e.canonical.keys].base, e.canonical.mid) for e in quick
               if shapes[e.canonical.keys].screen is not None]

    made_each_time = PeerEntry.id.func
    kept = _SetAside()
    kept.add("")

    def long_figures(rows_cells):
        return [float(row[i]) for row in rows_cells for _, i in layout.cells if len(row[i]) >= 13]
    own = long_figures(cells for _, cells in read_csv_cells(REAL)[1])
    copies = long_figures(row for _, row in cells)
    print(f"long figures a row: {len(own) / 170:.1f} of Epoch's own, {len(copies) / rows:.1f} of the copies")

    compared = {
        "an entry's id, three times": {
            "made each time": lambda: [(made_each_time(e), made_each_time(e), made_each_time(e)) for e in entries],
            "kept": lambda: [(e.id, e.id, e.id) for e in entries]},
        "the CSV's lines (a MB)": {
            "regular expression": lambda: _LINE_END.split(text[:2**20]),
            "split at \\n": lambda: _lines(text[:2**20])},
        "a row's entry": {
            "a Fact per cell": lambda: [layout._stated(row[named], row, where).entry(layout.names, layout.unread)
                                        for where, row in cells],
            "canonical, facts deferred": lambda: [layout.entry(row[named], row, where) for where, row in cells]},
        "a PeerEntry": {
            "frozen __init__": lambda: [PeerEntry(f, n, w, fa, fi, m, (), wr, u, canonical=c)
                                        for f, n, w, fa, fi, m, wr, u, c in args],
            "at once": lambda: [PeerEntry.at_once(*a) for a in args]},
        "a row's audit": {
            "the full way": full_audits,
            "from its shape": lambda: [peers._plain_audit(shapes, e, e.id) for e in quick]},
        "a bare entry's audit": {
            "frozen __init__": lambda: [PeerEntryAudit(a.entry, a.internal, (), (), (), ()) for a in bare],
            "at once": lambda: [PeerEntryAudit.bare(a.entry, a.internal) for a in bare]},
        "a bare entry's totals": {
            "add": lambda: totals(PeerTotals.add),
            "add_bare": lambda: totals(PeerTotals.add_bare)},
        "a row's screen": {
            "Screen.clear": lambda: [screen.clear({**shape.base, **mid}) for shape, screen, mid in screened],
            "per shape": lambda: [shape.screen.clear({**shape.base, **mid}) for shape, _, mid in screened]},
        "an entry's JSON separators": {
            "asked of each list": lambda: [(_ITEM_SEPARATOR[bool(kept)], _ITEM_SEPARATOR[bool(kept)]) for _ in bare],
            "one kept": lambda: [_ITEM_SEPARATOR[True] for _ in bare]},
        "a row's screen point": {
            "all the defaults": lambda: [{**every, **mid} for every, _, mid in pointed],
            "those its steps read": lambda: [{**read, **mid} for _, read, mid in pointed]},
        "a bare entry's internal audit": {
            "EntityAudit": lambda: [EntityAudit(a.internal.entity, a.internal.name, (), groups=peers._NO_GROUPS,
                                                notes=a.internal.notes) for a in bare],
            "at once": lambda: [peers._bare_internal(a.internal.entity, a.internal.name, a.internal.notes)
                                for a in bare]},
        "the 12-digit reading, Epoch's own rows": {
            "every long figure": lambda: [float(f"{v:.12g}") for v in own],
            "skipped for 12 digits": lambda: [v if v < 1e18 and v % 1e6 == 0.0 else float(f"{v:.12g}") for v in own]},
        "the 12-digit reading, the copies": {
            "every long figure": lambda: [float(f"{v:.12g}") for v in copies],
            "skipped for 12 digits": lambda: [v if v < 1e18 and v % 1e6 == 0.0 else float(f"{v:.12g}")
                                              for v in copies]},
        "the audit's rows": {
            "from Entity": lambda: auditor.rows([e.entity() for e in full]),
            "from a record": lambda: auditor.rows([peers._record(kb, e, e.id) for e in full])},
        "an entry's JSON items": {
            "json.dumps(indent=2)": lambda: [json.dumps(i, indent=2, default=plain).replace("\n", "\n    ")
                                             for i in items],
            "indented": lambda: [indented(i, "    ") for i in items]},
        "a bare entry's JSON items": {
            "indented": lambda: [indented(i, "    ") for a in bare for i in peer_entry_data(a)],
            "its form": lambda: [form.fill(a) for a in bare]}}
    assert compared["an entry's JSON items"]["indented"]() == compared["an entry's JSON items"]["json.dumps(indent=2)"]()
    assert [x for pair in compared["a bare entry's JSON items"]["its form"]() for x in pair] == \
        compared["a bare entry's JSON items"]["indented"]()
    assert compared["the CSV's lines (a MB)"]["split at \\n"]() == compared["the CSV's lines (a MB)"]["regular expression"]()
    assert vars(totals(PeerTotals.add).internal) == vars(totals(PeerTotals.add_bare).internal)
    assert [PeerEntryAudit.bare(a.entry, a.internal) for a in bare] == bare
    for piece in ("a bare entry's internal audit", "the 12-digit reading, Epoch's own rows",
                  "the 12-digit reading, the copies"):
        assert [*compared[piece].values()][0]() == [*compared[piece].values()][1](), piece
    assert compared["a row's screen"]["Screen.clear"]() == compared["a row's screen"]["per shape"]()
    assert [(a.internal, a.comparisons) for a in full_audits()] == [(a.internal, a.comparisons) for a in bare]
    for piece, ways in compared.items():
        best: dict[str, float] = {}
        for _ in range(runs):
            for name, way in ways.items():
                best[name] = min(best.get(name, math.inf), _seconds(way))
        (base, baseline), (ours, mine) = best.items()
        count = 1 if "MB" in piece else len(quick) if piece in ("a row's audit", "a PeerEntry") else \
            len(bare) if "bare" in piece else len(screened) if "screen" in piece else \
            170 if "Epoch's own" in piece else rows
        unit, scale = ("ms", 1e3) if count == 1 else ("us a row", 1e6)
        print(f"{piece}: {base} {baseline / count * scale:.1f} {unit}, {ours} {mine / count * scale:.1f} {unit}: "
              f"{baseline / mine:.2f}x")
    _held_rows(kb, runs=3)


def _held_rows(kb, runs: int, small: int = 4000, large: int = 24000) -> None:
    """The cost of a real row of a streamed JSON audit after the first chunk, in this process: the ``large``-row
    file's time less the ``small``-row one's over their difference, least of ``runs``, the entries held
    ``LATER_CHUNK`` at a time after the first chunk against ``CHUNK`` (as before it); the collector set as the
    ``hwkb`` process sets it."""
    import gc
    import time
    from hwkb.cli.main import GC_THRESHOLDS
    from hwkb.audit import peers
    from hwkb.formats.peers.registry import FORMATS
    from hwkb.render.peer_audit import peer_pieces
    later = peers.LATER_CHUNK
    with tempfile.TemporaryDirectory() as folder:
        paths = {n: Path(folder) / f"real_{n}.csv" for n in (small, large)}
        for n, path in paths.items():
            path.write_text(real_rows(n))

        def cost(path: Path) -> float:
            start = time.process_time()
            entries = FORMATS["epoch"].iter_entries(path, kb.model, kb.units)
            for _ in peer_pieces(peers.stream_peer_entries(kb, FORMATS["epoch"], entries), "json"):
                pass
            return time.process_time() - start

        def reading(path: Path, held: int) -> float:
            start = time.process_time()
            entries = FORMATS["epoch"].iter_entries(path, kb.model, kb.units)
            while list(itertools.islice(entries, held)):
                pass
            return time.process_time() - start
        best: dict[object, float] = {}
        thresholds = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            for _ in range(runs):
                for held in (peers.CHUNK, later):
                    peers.LATER_CHUNK = held
                    row = (cost(paths[large]) - cost(paths[small])) / (large - small)
                    best[held] = min(best.get(held, math.inf), row)
                for held in (1, peers.CHUNK, later):
                    row = (reading(paths[large], held) - reading(paths[small], held)) / (large - small)
                    best["read", held] = min(best.get(("read", held), math.inf), row)
        finally:
            peers.LATER_CHUNK = later
            gc.set_threshold(*thresholds)
    print(f"a row of a streamed JSON audit after the first chunk: held {peers.CHUNK} at a time "
          f"{best[peers.CHUNK] * 1e6:.1f} us a row, {later} at a time {best[later] * 1e6:.1f} us a row: "
          f"{best[peers.CHUNK] / best[later]:.2f}x")
    held = {n: max(best["read", n] - best["read", 1], 1e-8) for n in (peers.CHUNK, later)}
    print(f"holding a chunk of read entries, beyond reading them one at a time ({best['read', 1] * 1e6:.1f} us a "
          f"row): {peers.CHUNK} at a time {held[peers.CHUNK] * 1e6:.1f} us a row, {later} at a time "
          f"{held[later] * 1e6:.1f} us a row" + (f": {held[peers.CHUNK] / held[later]:.1f}x" if held[later] > 5e-8
                                                 else ""))


def _seconds(work) -> float:
    import time
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _engine_folder(given: Path) -> Path:
    """The folder holding package ``hwkb`` of ``given``: an engine folder, or a checkout (or ``git archive``) with
    one in ``engine/``. Anything else is refused: the child process would import this checkout's installed hwkb
    instead and time it twice."""
    given = given.resolve()
    for folder in (given, given / "engine"):
        if (folder / "hwkb" / "__init__.py").is_file():
            return folder
    raise SystemExit(f"--baseline {given}: no hwkb package there or in its engine/ folder")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--baseline", type=Path, help="another checkout's engine folder, measured in the same run")
    parser.add_argument("--kinds", default="synthetic,real", help="which rows, comma-separated: synthetic, real (both by default)")
    parser.add_argument("--pieces", action="store_true",
                        help="time two pieces of a row's cost in this process (rows, JSON items), not whole runs")
    args = parser.parse_args(argv)
    if args.pieces:
        pieces(runs=max(args.runs, 7))
        return 0
    engines = {"this": ENGINE, **({"baseline": _engine_folder(args.baseline)} if args.baseline else {})}
    makers = {"synthetic": epoch_rows, "real": real_rows}
    with tempfile.TemporaryDirectory() as folder:
        files = {(kind, rows): Path(folder) / f"{kind}_{rows}.csv" for kind in args.kinds.split(",")
                 for rows in (10_000, 100_000)}
        for (kind, rows), path in files.items():
            path.write_text(makers[kind](rows))
        best: dict[tuple, tuple] = {}
        for _ in range(args.runs):
            for (kind, rows), path in files.items():
                for name, engine in engines.items():
                    got = measure(path, engine)
                    best[name, kind, rows] = min(best.get((name, kind, rows), got), got)
        for name in engines:
            for kind in args.kinds.split(","):
                print(f"{name} engine, {kind} rows:")
                for rows in (10_000, 100_000):
                    cpu, wall, peak, code = best[name, kind, rows]
                    print(f"  10^{len(str(rows)) - 1} rows: {cpu:6.2f} s CPU ({wall:.2f} s wall), {peak:5.0f} MB, "
                          f"exit {code}")
                small, large = best[name, kind, 10_000][0], best[name, kind, 100_000][0]
                ratio, per_row = large / small, (large - small) / 90_000
                print(f"  10^5 / 10^4 rows: {ratio:.2f}x the time (target < {TARGET:g}x: "
                      f"{'met' if ratio < TARGET else 'MISSED'}); a row {per_row * 1e6:.0f} us of CPU, "
                      f"start-up {small - 10_000 * per_row:.2f} s")
        path = Path(folder) / "wide.csv"
        path.write_text(wide(10**6))
        cpu, wall, peak, code = measure(path)
        print(f"10^6 columns: {cpu:.2f} s CPU ({wall:.2f} s wall), {peak:.0f} MB, exit {code} (2: refused, one error line)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
