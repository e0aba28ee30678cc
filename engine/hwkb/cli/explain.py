"""``hwkb explain VAR``: the derivation of a variable as a readable tree, each fact with its entity and source.

The JSON is solve's; the exit codes too.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.cli.solve import answer_exit_code
from hwkb.solving.text import render_solution

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser("explain", help="the derivation of a variable as a readable tree")
    p.add_argument("variable", metavar="VAR")
    flags.add_context(p)
    flags.add_common(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    solution = kb.solve(args.variable, where=args.where, **flags.context_keywords(args))
    flags.emit(args, solution, render_solution(solution, explain=True))
    return answer_exit_code(solution)
