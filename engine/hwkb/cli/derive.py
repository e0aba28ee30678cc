"""``hwkb derive --gpu ID``: every value the context derives but does not state; ``--write`` keeps them as an entity file.

Exit 0, or 1 when an independent route contradicts a derived value (the derivation is inconsistent).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from hwkb.cli import flags
from hwkb.errors import UsageError
from hwkb.render.files import write_atomic

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    flags.add_context(p)
    p.add_argument("--write", metavar="FILE", help="also write the values as an entity file (atomically; "
                                                   "--force replaces an existing file)")
    flags.add_output(p)


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    if not args.gpu:
        raise UsageError("derive needs --gpu ID", hint="see 'hwkb list entities'")
    values = kb.derive(**flags.context_keywords(args))
    if args.write:
        write_atomic(Path(args.write), kb.derived_entity_file(values), overwrite=args.force)
    flags.output(args, values)
    return 0 if values.consistent and values.plausible else 1
