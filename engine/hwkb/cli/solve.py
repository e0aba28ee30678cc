"""``hwkb solve VAR``: the value of a variable in a context; with ``--symbolic`` its closed form, with ``--sweep`` a grid.

Exit 0 when the value is stated or derived, 1 when the context cannot settle
it (underdetermined, inconsistent), 2 on bad input. A closed form or a sweep
the context cannot settle is answered as an underdetermined solution, with
what it needs, as the contract says.
"""
from __future__ import annotations

import argparse
import sys

from hwkb.cli import flags
from hwkb.cli.plots import check_plot_path, plot_sweep
from hwkb.errors import NotDetermined, QueryError, UsageError
from hwkb.kb import KnowledgeBase
from hwkb.questions.closed_forms import parse_free, solve_symbolic
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.questions.text import render_symbolic
from hwkb.solving.solution import Solution, Status
from hwkb.solving.text import render_solution

__all__ = ["add_arguments", "run", "run_symbolic", "run_sweep", "answer_exit_code"]

#: a flag of one mode of solve -> the flag that asks for that mode
MODE_OF_FLAG = {"--free": "--symbolic", "--sensitivity": "--symbolic", "--format": "--sweep", "--plot": "--sweep"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("The value of VAR in a context (--gpu, --with, --set, --where), with its derivation: stated, "
                     "derived, underdetermined (with the facts that would settle it) or inconsistent (independent "
                     "routes disagree beyond rounding). --symbolic gives the closed form in the --free variables, "
                     "--sweep the value over a grid.")
    p.epilog = ("examples: hwkb solve clock_tc --gpu h100-sxm;  hwkb solve 'exp_utilization[bf16]' --gpu h100-sxm "
                "--symbolic --free d_qk,d_v;  hwkb solve smem_share --gpu hopper --sweep tile_n=64,128,256")
    p.add_argument("variable", metavar="VAR", help="a variable of the KB, e.g. clock_tc or 'tc_peak[bf16]' "
                   "(hwkb list variables)")
    flags.add_context(p)
    p.add_argument("--symbolic", action="store_true", help="the closed form in the free variables")
    p.add_argument("--free", default="", metavar="A,B", help="with --symbolic: the variables to keep symbolic")
    p.add_argument("--sensitivity", action="store_true", help="with --symbolic: elasticities at the given point")
    p.add_argument("--sweep", action="append", default=[], metavar="X=START:STOP:STEP|X=v1,v2",
                   help="evaluate over a grid (repeatable)")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table", help="output format of a sweep")
    p.add_argument("--plot", metavar="FILE", help="with --sweep: draw the result (needs the plot extra)")
    p.add_argument("--force", action="store_true", help="with --plot: replace an existing file")


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    check_modes(args)
    if args.sweep:
        return run_sweep(args, kb)
    if args.symbolic:
        return run_symbolic(args, kb)
    solution = kb.solve(args.variable, where=args.where, **flags.context_keywords(args))
    flags.emit(args, solution, render_solution(solution))
    return answer_exit_code(solution)


def answer_exit_code(solution: Solution) -> int:
    """0 for a value the KB states or derives, 1 for one it cannot settle (underdetermined, inconsistent, n/a)."""
    return 0 if solution.status in (Status.STATED, Status.DERIVED) else 1


def check_modes(args: argparse.Namespace) -> None:
    """A flag that belongs to another mode of solve is an error, not silently ignored."""
    given = {"--free": bool(args.free.strip()), "--sensitivity": args.sensitivity, "--format": args.format != "table",
             "--plot": bool(args.plot)}
    asked = {"--symbolic": args.symbolic, "--sweep": bool(args.sweep)}
    misplaced = [flag for flag, mode in MODE_OF_FLAG.items() if given[flag] and not asked[mode]]
    if misplaced:
        flag = misplaced[0]
        raise UsageError(f"{flag} goes with {MODE_OF_FLAG[flag]}", hint=f"add {MODE_OF_FLAG[flag]}, or drop {flag}")


def run_symbolic(args: argparse.Namespace, kb: KnowledgeBase) -> int:
    equalities_only(kb, args.where, "--symbolic")
    context = kb.context(**flags.context_keywords(args))
    free = parse_free(kb, args.free) if args.free.strip() else None
    try:
        solution = solve_symbolic(kb, args.variable, context, free, args.where, args.sensitivity)
    except NotDetermined as exc:
        return not_determined(args, kb, exc)
    flags.emit(args, solution, render_symbolic(solution))
    return 0 if solution.determined or "expression" in solution.extra else 1


def run_sweep(args: argparse.Namespace, kb: KnowledgeBase) -> int:
    equalities_only(kb, args.where, "--sweep")
    if args.symbolic:
        raise QueryError("--symbolic and --sweep are separate questions", hint="give one of them")
    if args.plot:
        check_plot_path(args.plot, overwrite=args.force)
    axes = [parse_axis(kb, text) for text in args.sweep]
    try:
        result = sweep(kb, args.variable, kb.context(**flags.context_keywords(args)), axes, args.where)
    except NotDetermined as exc:
        return not_determined(args, kb, exc)
    if args.plot:
        plot_sweep(result, args.plot)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        flags.emit_json(flags.document(args.command, result.to_dict()))
    elif fmt == "csv":
        sys.stdout.write(result.to_csv())
    else:
        print(result.render())
    return 0


def not_determined(args: argparse.Namespace, kb: KnowledgeBase, exc: NotDetermined) -> int:
    """The contract's answer to a question the context cannot settle: underdetermined, its needs, exit 1."""
    solution = Solution(args.variable, Status.UNDERDETERMINED, kb.model.unit_of(args.variable),
                        needs=tuple(exc.needs), notes=(exc.message,))
    flags.emit(args, solution, render_solution(solution))
    return 1


def equalities_only(kb: KnowledgeBase, where: list[str], flag: str) -> None:
    for i, text in enumerate(where):
        if kb.parse_where(text, i).op != "=":
            raise QueryError(f"{flag} takes only equalities in --where, not {text!r}",
                             hint="an inequality asks for a threshold: drop " + flag)
