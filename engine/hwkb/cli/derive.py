"""``hwkb derive --gpu ID``: every value the context derives but does not state; ``--write`` keeps them as an entity file."""
from __future__ import annotations

import argparse
from pathlib import Path

from hwkb.cli import flags
from hwkb.cli.writeback import derived_entity_text, write_atomic
from hwkb.errors import UsageError

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser("derive", help="every value derivable but not stated")
    flags.add_context(p)
    p.add_argument("--write", metavar="FILE", help="also write the values as an entity file (atomically)")
    p.add_argument("--force", action="store_true", help="with --write: replace an existing file")
    flags.add_common(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    if not args.gpu:
        raise UsageError("derive needs --gpu ID", hint="see 'hwkb list entities'")
    values = kb.derive(**flags.context_keywords(args))
    if args.write:
        write_atomic(Path(args.write), derived_entity_text(args.gpu, kb.model.entity(args.gpu).kind, values),
                     overwrite=args.force)
    if args.json:
        flags.emit_json(values.to_dict())
    elif values:
        print(values)
    return 0 if values.consistent else 1
