"""``hwkb solve VAR``: the value of a variable in a context; with ``--symbolic`` its closed form, with ``--sweep`` a grid.

Exit 0 when the value is stated or derived, 1 when the context cannot settle
it (underdetermined, inconsistent), 2 on bad input. A closed form or a sweep
the context cannot settle is answered as an underdetermined solution, with
what it needs, as the contract says.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.errors import NotDetermined, QueryError, UsageError

__all__ = ["add_arguments", "run", "run_symbolic", "run_sweep", "answer_exit_code"]

#: a flag of one mode of solve -> the flag that asks for that mode
MODE_OF_FLAG = {"--free": "--symbolic", "--sensitivity": "--symbolic", "--plot": "--sweep"}
ANSWERED = ("stated", "derived")


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
    p.add_argument("--plot", metavar="FILE", help="with --sweep: draw the result (needs the plot extra); "
                                                  "--force replaces an existing file")
    flags.add_output(p, ("text", "csv"), why_not="a value, a closed form or a grid is not a page "
                                                 "(a closed form has no CSV either: --json gives its LaTeX)")


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    check_modes(args)
    if args.sweep:
        return run_sweep(args, kb)
    if args.symbolic:
        return run_symbolic(args, kb)
    solution = kb.solve(args.variable, where=args.where, **flags.context_keywords(args))
    flags.output(args, solution)
    return answer_exit_code(solution)


def answer_exit_code(solution) -> int:
    """0 for a value the KB states or derives, 1 for one it cannot settle (underdetermined, inconsistent, n/a)."""
    return 0 if solution.status in ANSWERED else 1


def check_modes(args: argparse.Namespace) -> None:
    """A flag that belongs to another mode of solve is an error, not silently ignored."""
    given = {"--free": bool(args.free.strip()), "--sensitivity": args.sensitivity, "--plot": bool(args.plot)}
    asked = {"--symbolic": args.symbolic, "--sweep": bool(args.sweep)}
    misplaced = [flag for flag, mode in MODE_OF_FLAG.items() if given[flag] and not asked[mode]]
    if misplaced:
        flag = misplaced[0]
        raise UsageError(f"{flag} goes with {MODE_OF_FLAG[flag]}", hint=f"add {MODE_OF_FLAG[flag]}, or drop {flag}")


def run_symbolic(args: argparse.Namespace, kb) -> int:
    equalities_only(kb, args.where, "--symbolic")
    try:
        result = kb.closed_form(args.variable, free=args.free if args.free.strip() else None, where=args.where,
                                sensitivity=args.sensitivity, **flags.context_keywords(args))
    except NotDetermined as exc:
        return not_determined(args, kb, exc)
    flags.output(args, result)
    solution = result.solution
    return 0 if solution.determined or "expression" in solution.extra else 1


def run_sweep(args: argparse.Namespace, kb) -> int:
    equalities_only(kb, args.where, "--sweep")
    if args.symbolic:
        raise QueryError("--symbolic and --sweep are separate questions", hint="give one of them")
    fmt = flags.form(args)
    if args.plot:
        from hwkb.render.plots import check_plot_path  # matplotlib: only a plot needs it
        check_plot_path(args.plot, overwrite=args.force)
    try:
        result = kb.sweep(args.variable, args.sweep, where=args.where, **flags.context_keywords(args))
    except NotDetermined as exc:
        return not_determined(args, kb, exc)
    if args.plot:
        from hwkb.render.plots import context_title, plot_sweep
        plot_sweep(result, args.plot, context_title(args.gpu, args.with_, args.set, args.where), overwrite=args.force)
    if fmt in ("json", "text", "csv"):
        from hwkb.render.sweep_tables import sweep_chunks, sweep_json_chunks  # NumPy: only a sweep needs it
        pieces = sweep_json_chunks(result, args.command) if fmt == "json" else sweep_chunks(result, fmt)
        flags.write(args, [*pieces, "\n"] if fmt == "text" else pieces, f"wrote {args.output}: {fmt}")
    else:
        flags.output(args, result)  # the render stage says why a grid has no such form
    return 0


def not_determined(args: argparse.Namespace, kb, exc: NotDetermined) -> int:
    """The contract's answer to a question the context cannot settle: underdetermined, its needs, exit 1."""
    flags.output(args, kb.not_determined(args.variable, exc))
    return 1


def equalities_only(kb, where: list[str], flag: str) -> None:
    for i, text in enumerate(where):
        if kb.parse_where(text, i).op != "=":
            raise QueryError(f"{flag} takes only equalities in --where, not {text!r}",
                             hint="an inequality asks for a threshold: drop " + flag)
