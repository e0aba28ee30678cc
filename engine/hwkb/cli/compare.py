"""``hwkb compare GPU ... | --gpu ID ...``: GPUs side by side (:meth:`hwkb.KnowledgeBase.compare`).

By default a headline set in sections (memory and bandwidth, peaks by precision, power, clocks), the
products' names as the columns' headers; ``--all`` every figure one of them states or derives, in sections
named for the rule files; ``--vars`` the rows named. ``--with`` and ``--set`` layer a workload (and its
precision, its batch) on every GPU: its bounds head the headline set. A display: exit 0 whatever the figures say.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.errors import UsageError

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = ("examples: hwkb compare h100-sxm mi300x;  hwkb compare --gpu h100-sxm --gpu b200 --all --format csv;  "
                "hwkb compare h100-sxm mi300x b200 --with llama-3-70b --with fp8 --set batch=1")
    p.add_argument("gpus", nargs="*", metavar="GPU", help="the products or architectures to compare")
    p.add_argument("--gpu", action="append", default=[], metavar="ID",
                   help="a product to compare (repeatable; after the GPUs given as arguments)")
    p.add_argument("--vars", metavar="A,B,...", default="",
                   help="the rows, comma-separated (a variable name without an index takes every index value)")
    p.add_argument("--all", action="store_true", dest="every",
                   help="every figure some GPU states or derives, in sections by rule file (default: the headline set)")
    flags.add_layers(p, "an entity layered on every GPU (a workload such as llama-3-70b, a precision such as fp8); "
                        "a workload's bounds head the headline set",
                     "a fact given on every GPU, e.g. batch=1 (a bare number is in the variable's unit)")
    flags.add_output(p)


def run(args: argparse.Namespace) -> int:
    gpus = [*args.gpus, *args.gpu]
    if not gpus:
        raise UsageError("compare needs the GPUs to compare", hint="e.g. hwkb compare h100-sxm mi300x")
    names = [n.strip() for n in args.vars.split(",") if n.strip()]
    if names and args.every:
        raise UsageError("--vars and --all pick the rows two ways", hint="give one of them")
    kb = flags.load_kb(args)
    flags.output(args, kb.compare(gpus, names, every=args.every, layers=args.with_, facts=args.set))
    return 0
