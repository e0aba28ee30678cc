"""``hwkb whatif [VAR ...] --gpu ID [--with ID] [--given VAR=VALUE] [--scenario ID] [--set VAR=VALUE]``.

The baseline is the entities plus ``--given``; the scenario is the baseline
plus the scenario entities (``--scenario``, repeatable: their facts that differ
from the baseline) plus ``--set``. ``--with`` layers belong to both. Without a
VAR every value that changes is shown. JSON: ``{"rows": [{"variable",
"baseline", "scenario", "unit", "change", ...}]}`` with ``change`` relative
((scenario - baseline) / baseline, e.g. 1.0 for +100 %). Exit 1 when a
variable is settled on neither side or is inconsistent on one.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("Compare a baseline (the entities + --given) with a scenario (the baseline + --scenario "
                    "entities + --set). Without VAR, every value that changes.")
    p.add_argument("variables", nargs="*", metavar="VAR", help="the variables to compare (default: all that change)")
    flags.add_context(p)
    p.add_argument("--given", action="append", default=[], metavar="VAR=VALUE",
                   help="a fact of the baseline (and so of the scenario)")
    p.add_argument("--scenario", action="append", default=[], metavar="ID",
                   help="a scenario entity whose facts the scenario takes, e.g. sfu-doubled (repeatable)")
    flags.add_output(p)


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    result = kb.what_if(args.variables, gpu=args.gpu, layers=args.with_, given=args.given, changes=args.set,
                        scenarios=args.scenario, where=args.where)
    flags.output(args, result)
    return 1 if result.unsettled() else 0
