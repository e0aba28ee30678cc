"""``hwkb check``: validate the KB, every problem at once.

Exit 0 and a one-line count when the KB loads; 2 and every problem (one
``error:`` line each, or the JSON ``{"ok": false, "errors": [...]}``) when it does not.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.errors import KBError, KBErrors

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="validate the KB")
    flags.add_common(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        kb = flags.load_kb(args)
    except KBError as exc:
        if args.json:
            problems = exc.errors if isinstance(exc, KBErrors) else [exc]
            flags.emit_json({"ok": False, "errors": [e.to_dict() for e in problems]})
        else:
            flags.print_errors(exc)
        return 2
    if args.json:
        flags.emit_json({"ok": True, "errors": []})
    else:
        m = kb.model
        print(f"ok: {len(m.variables)} variables, {len(m.rules)} rules ({len(kb.relations)} relations), "
              f"{len(m.entities)} entities in {len(m.files)} files")
    return 0
