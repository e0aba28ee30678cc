"""``hwkb sheet --gpu ID``: one product's spec sheet (:meth:`hwkb.KnowledgeBase.sheet`).

Every stated and derivable value with its source or derivation; a failed audit check is noted beside each
figure it concerns and counted in a closing note. A display: exit 0 whatever the audit finds
(``hwkb audit --gpu ID`` is the question that exits 1).
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.errors import UsageError

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", metavar="ID", help="the product (or architecture) whose sheet to print")
    flags.add_output(p)


def run(args: argparse.Namespace) -> int:
    if not args.gpu:
        raise UsageError("sheet needs --gpu ID", hint="see 'hwkb list entities'")
    kb = flags.load_kb(args)
    flags.output(args, kb.sheet(args.gpu))
    return 0
