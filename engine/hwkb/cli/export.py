"""``hwkb export --to FORMAT --gpu ID``: the KB's figures for one product in a peer tool's hardware-file layout.

The file goes to stdout (or ``--output FILE``, written atomically); every
field the KB cannot settle is named on stderr with a ``note:`` line. With
``--json`` the document carries the text, each field's KB value and source,
and what is missing (and ``--output`` still gets the tool's file). Exit 0 when
the file is written, 2 on bad input.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hwkb.cli import flags
from hwkb.cli.flags import PEER_FORMATS as FORMAT_NAMES
from hwkb.render.files import write_atomic
from hwkb.render.note_words import note_text
from hwkb.errors import UsageError

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", dest="peer_format", required=True, choices=FORMAT_NAMES, metavar="FORMAT",
                   help=f"the tool's layout: {', '.join(FORMAT_NAMES)}")
    p.add_argument("--gpu", metavar="ID", help="the product to export (see 'hwkb list entities')")
    flags.add_output(p, ("text",), why_not="the file is in the peer tool's own layout (--json gives its fields "
                                           "with their values and sources)")


def run(args: argparse.Namespace) -> int:
    if not args.gpu:
        raise UsageError("export needs --gpu ID", hint="see 'hwkb list entities'")
    fmt = flags.form(args)
    kb = flags.load_kb(args)
    export = kb.export(args.peer_format, args.gpu)
    if fmt not in ("text", "json"):
        flags.render(export, fmt)  # the render stage says why the file has no such form
    if args.output:
        write_atomic(Path(args.output), flags.render(export, "text"), overwrite=args.force)
    for note in export.notes:
        print(f"note: {note_text(note)}", file=sys.stderr)
    if fmt == "json":
        sys.stdout.write(flags.render(export, "json", command=args.command))
    elif args.output:
        print(f"wrote {args.output}: {args.peer_format} layout of {args.gpu}, {len(export.written.used)} fields "
              f"from the KB, {len(export.written.missing)} it cannot settle")
    else:
        sys.stdout.write(flags.render(export, "text"))
    return 0
