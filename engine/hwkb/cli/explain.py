"""``hwkb explain VAR``: the derivation of a variable as a readable tree, each fact with its entity and source.

The JSON is solve's. A display: exit 0 whatever the answer (``hwkb solve`` is the question that exits 1
when the context cannot settle the variable).
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("The derivation of VAR as a tree: every rule it went through and every fact it rests on, "
                     "with the fact's entity and source, and the independent routes that agree or disagree. "
                     "The JSON is solve's.")
    p.epilog = "example: hwkb explain clock_tc --gpu h100-sxm"
    p.add_argument("variable", metavar="VAR", help="a variable of the KB, e.g. clock_tc (hwkb list variables)")
    flags.add_context(p)
    flags.add_output(p, ("text",), why_not="a derivation is a tree, not a table or a page "
                                           "(--json gives it as data; hwkb solve --format csv gives the value)")


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    flags.output(args, kb.explain(args.variable, where=args.where, **flags.context_keywords(args)))
    return 0
