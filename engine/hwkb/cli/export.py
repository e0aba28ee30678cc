"""``hwkb export --to FORMAT --gpu ID``: the KB's figures for one product in a peer tool's hardware-file layout.

The file goes to stdout (or ``--output FILE``, written atomically); every
field the KB cannot settle is named on stderr with a ``note:`` line. With
``--json`` the document carries the text, each field's KB value and source,
and what is missing. Exit 0 when the file is written, 2 on bad input.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hwkb.cli import flags
from hwkb.cli.writeback import write_atomic
from hwkb.errors import UsageError
from hwkb.formats.peers.registry import FORMAT_NAMES

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", dest="peer_format", required=True, choices=FORMAT_NAMES, metavar="FORMAT",
                   help=f"the tool's layout: {', '.join(FORMAT_NAMES)}")
    p.add_argument("--gpu", metavar="ID", help="the product to export (see 'hwkb list entities')")
    p.add_argument("--output", metavar="FILE", help="write the file there (atomically) instead of to stdout")
    p.add_argument("--force", action="store_true", help="with --output: replace an existing file")


def run(args: argparse.Namespace) -> int:
    if not args.gpu:
        raise UsageError("export needs --gpu ID", hint="see 'hwkb list entities'")
    kb = flags.load_kb(args)
    export = kb.export(args.peer_format, args.gpu)
    if args.output:
        write_atomic(Path(args.output), export.text, overwrite=args.force)
    for note in export.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        flags.emit_json(flags.document(args.command, export.to_dict()))
    elif args.output:
        print(f"wrote {args.output}: {args.peer_format} layout of {args.gpu}, {len(export.written.used)} fields "
              f"from the KB, {len(export.written.missing)} it cannot settle")
    else:
        sys.stdout.write(export.text)
    return 0
