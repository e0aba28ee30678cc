"""``hwkb explain VAR``: the derivation of a variable as a readable tree, each fact with its entity and source.

The JSON is solve's; the exit codes too.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.cli.solve import answer_exit_code
from hwkb.solving.text import render_solution

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("The derivation of VAR as a tree: every rule it went through and every fact it rests on, "
                     "with the fact's entity and source, and the independent routes that agree or disagree. "
                     "The JSON is solve's.")
    p.epilog = "example: hwkb explain clock_tc --gpu h100-sxm"
    p.add_argument("variable", metavar="VAR", help="a variable of the KB, e.g. clock_tc (hwkb list variables)")
    flags.add_context(p)


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    solution = kb.solve(args.variable, where=args.where, **flags.context_keywords(args))
    flags.emit(args, solution, render_solution(solution, explain=True))
    return answer_exit_code(solution)
