"""``hwkb simulate``: the warp-scheduler model over a grid of configurations.

``add_arguments(parser)`` adds the subcommand's arguments and ``run(args)`` runs it and
returns the exit code: 0 on success, 2 on bad input (any :class:`KBError`)
with one ``error:`` line on stderr. The lists are taken as plain strings so
that every bad value is reported here, in the scheduler's own words, rather
than by argparse. The table and the JSON are
:class:`~hwkb.simulation.scheduler.SimulationRuns`' own.
"""
from __future__ import annotations

import argparse
import re

from hwkb.cli import flags
from hwkb.errors import KBError, SimulationInputError
from hwkb.simulation.scheduler import GRID_MAX_CONFIGS, SimulationRuns, run_grid

__all__ = ["add_arguments", "run", "parse_int_list", "parse_iters", "simulate_grid"]

_INT = re.compile(r"[+-]?\d+")
_LIST_HELP = "comma-separated integers and inclusive START:STOP[:STEP] ranges, e.g. 1,2,4 or 1:16"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``simulate`` subcommand's arguments (the common ones, --kb included, are main's: the simulator reads no KB)."""
    p.description = ("Simulate one warp scheduler for every combination of the lists and report the "
                    "fraction of cycles that issue an instruction.")
    for name, doc in (("warps", "warps per scheduler"), ("ilp", "loads per round"),
                      ("compute", "compute instructions per round"), ("latency", "load latency in cycles")):
        p.add_argument(f"--{name}", required=True, metavar="LIST", help=f"{doc}: {_LIST_HELP}")
    p.add_argument("--iters", default="100", metavar="N",
                   help="rounds the first warp to finish completes (default 100)")
    p.add_argument("--policy", default="gto", metavar="gto|lrr",
                   help="greedy-then-oldest (default) or loose round-robin")
    p.add_argument("--plot", metavar="FILE", help="also draw utilization against warps (.png or .svg; "
                   "needs the plot extra; --force replaces an existing file)")
    flags.add_output(p)


def parse_int_list(text: str, option: str) -> list[int]:
    """The integers of a LIST argument, ranges expanded inclusively.

    >>> parse_int_list("1,2,8:10,16:64:16", "--warps")
    [1, 2, 8, 9, 10, 16, 32, 48, 64]
    """
    values: list[int] = []
    for item in text.split(","):
        parts = item.strip().split(":")
        if len(parts) > 3 or not all(_INT.fullmatch(part.strip()) for part in parts):
            raise SimulationInputError(option, item, _LIST_HELP,
                                       message=f"{option}: {item.strip()!r} is not an integer or a "
                                               f"START:STOP[:STEP] range (LIST is {_LIST_HELP})")
        numbers = [int(part) for part in parts]
        if len(numbers) == 1:
            values.append(numbers[0])
            continue
        start, stop, step = numbers if len(numbers) == 3 else (*numbers, 1)
        if step < 1 or stop < start:
            raise SimulationInputError(option, item, "START <= STOP and STEP >= 1",
                                       message=f"{option}: range {item.strip()!r} needs START <= STOP and STEP >= 1")
        count = (stop - start) // step + 1
        if count > GRID_MAX_CONFIGS:
            raise SimulationInputError(option, item, f"at most {GRID_MAX_CONFIGS} values",
                                       message=f"{option}: range {item.strip()!r} has {count} values, more than the "
                                               f"{GRID_MAX_CONFIGS} one simulation may run",
                                       hint="take a larger STEP (START:STOP:STEP) or a shorter range")
        values.extend(range(start, stop + 1, step))
    return values


def parse_iters(text: str) -> int:
    if not _INT.fullmatch(text.strip()):
        raise SimulationInputError("--iters", text, "an integer",
                                   message=f"--iters: {text!r} is not an integer")
    return int(text)


def simulate_grid(args: argparse.Namespace) -> SimulationRuns:
    """The runs the flags ask for; with ``--plot`` also drawn, the file checked before anything runs."""
    lists = {name: parse_int_list(getattr(args, name), f"--{name}") for name in ("warps", "ilp", "compute", "latency")}
    iters = parse_iters(args.iters)
    if args.plot:  # a bad suffix or a missing matplotlib fails before the simulations run
        from hwkb.render.plots import check_plot_path, plot_utilization  # only here: a table needs no NumPy or Pint
        check_plot_path(args.plot, overwrite=args.force)
    runs = SimulationRuns(tuple(run_grid(**lists, iters=iters, policy=args.policy)))
    if args.plot:
        plot_utilization(runs.runs, args.plot, overwrite=args.force)
    return runs


def run(args: argparse.Namespace) -> int:
    """Run ``hwkb simulate`` for parsed arguments; print the table or JSON; return the exit code.

    Called by the test of this command without :func:`hwkb.cli.main.main` around it, so it reports bad
    input itself.
    """
    try:
        flags.output(args, simulate_grid(args))
    except KBError as exc:
        return flags.report_error(args.command, args.json, exc)
    return 0
