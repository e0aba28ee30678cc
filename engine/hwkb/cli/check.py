"""``hwkb check``: validate the KB, every problem at once.

Exit 0 and a one-line count when the KB loads; 2 and every problem (one
``error:`` line each on stderr; with ``--json`` also the error document, with ``"ok": false``) when it does not.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.errors import KBError

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "Load the KB and report every problem at once (file:line:col: message; hint)."
    flags.add_output(p, ("text",), why_not="a verdict and counts are not a table (--json gives them)")


def run(args: argparse.Namespace) -> int:
    try:
        kb = flags.load_kb(args).read_all()  # every entity, not only those a question needs
    except KBError as exc:
        if args.json:
            flags.emit_json({**flags.error_document(args.command, exc), "ok": False})
        flags.print_errors(exc)
        return 2
    flags.output(args, kb.check_report())
    return 0
