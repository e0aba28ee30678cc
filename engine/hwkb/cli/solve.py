"""``hwkb solve VAR``: the value of a variable in a context; with ``--symbolic`` its closed form, with ``--sweep`` a grid.

Exit 0 when the value is stated or derived, 1 when the context cannot settle
it (underdetermined, inconsistent), 2 on bad input. A closed form or a sweep
the context cannot settle is answered as an underdetermined solution, with
what it needs, as the contract says.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys

from hwkb.cli import flags
from hwkb.errors import NotDetermined, QueryError, UsageError
from hwkb.kb import KnowledgeBase
from hwkb.questions.text import render_symbolic
from hwkb.solving.solution import Solution, Status
from hwkb.solving.text import render_solution

__all__ = ["add_arguments", "run", "run_symbolic", "run_sweep", "emit_sweep_json", "answer_exit_code"]

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
    from hwkb.questions.closed_forms import parse_free, solve_symbolic  # SymPy: only this mode needs it
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
    from hwkb.cli.plots import check_plot_path, context_title, plot_sweep  # NumPy: only this mode needs it
    from hwkb.questions.sweeps import parse_axis, sweep
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
        plot_sweep(result, args.plot, context_title(args.gpu, args.with_, args.set, args.where), overwrite=args.force)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        emit_sweep_json(args, result)
    else:
        sys.stdout.writelines(result.csv_chunks() if fmt == "csv" else itertools.chain(result.table_chunks(), "\n"))
    return 0


def emit_sweep_json(args: argparse.Namespace, result) -> None:
    """The sweep's JSON document, its rows written in pieces as they are formatted (10^7 rows never as one list)."""
    mark = "rows of the sweep"
    head, tail = flags.json_text(flags.document(args.command, result.to_dict(rows=mark))).split(json.dumps(mark), 1)
    sys.stdout.write(head)
    sys.stdout.writelines(result.json_rows(depth=1))
    sys.stdout.write(tail)


def not_determined(args: argparse.Namespace, kb: KnowledgeBase, exc: NotDetermined) -> int:
    """The contract's answer to a question the context cannot settle: underdetermined, its needs, exit 1."""
    key = kb.check_key(args.variable)
    solution = Solution(key, Status.UNDERDETERMINED, kb.model.unit_of(key), needs=tuple(exc.needs),
                        notes=(exc.message,))
    solution = solution if key == args.variable else solution.asked_as(args.variable)
    flags.emit(args, solution, render_solution(solution))
    return 1


def equalities_only(kb: KnowledgeBase, where: list[str], flag: str) -> None:
    for i, text in enumerate(where):
        if kb.parse_where(text, i).op != "=":
            raise QueryError(f"{flag} takes only equalities in --where, not {text!r}",
                             hint="an inequality asks for a threshold: drop " + flag)
