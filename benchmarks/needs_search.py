"""How long the search for what would settle an undetermined key takes, and what each of its two devices buys.

The search (:func:`hwkb.solving.need_search.search_needs`) tries every set of up to 3 of the 40 nearest keys; before
these devices, ``hwkb solve clock_fp64 --gpu gb300`` spent 26 s of CPU in it. The devices:

- **coverage**: a trial whose target some maximum matching leaves free is not planned
  (:mod:`hwkb.solving.coverage`);
- **onward**: trials whose propagation stops at the same keys, first or after a block, share the steps after it
  (``make_plan(onward=)``); it is what speeds a search whose target the knowns' own plan gives only through a
  singular block (A100 PCIe's FP32 clock), where every trial plans from the knowns and coverage skips none;

A third device, the planner's matching and condensation rewritten over plain lists, won 1.7-1.8x on two of these
searches; it went, because issue 20 asks for NetworkX's algorithms in the planner rather than hand-written ones.

For each question of the trust sweep's slow list given here, the search alone (its solver built beforehand, the
KB's memo of searches cleared) is timed as shipped, with each device left out in turn, and with both left out
(the search as it was: the baseline). Each figure is the CPU time of this process (the machine is shared, so wall
time says more about the neighbours), least over ``--runs``; the ratios are taken in this one process. Every
variant must find the same sets, which is checked. A device that does not win 1.5x somewhere is left out.

Run: ``python benchmarks/needs_search.py [--runs N] [--heavy]``; ``--heavy`` adds GB300's FP64 clock, whose
baseline alone takes about 30 s of CPU.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

from hwkb import KnowledgeBase  # noqa: E402
from hwkb.solving import coverage, need_search  # noqa: E402
from hwkb.solving.needs import needs_of  # noqa: E402

QUESTIONS = [("clock_fp32", "h100-nvl"), ("clock_fp64", "t4"), ("fp16_peak", "mi350x"), ("clock_fp64", "gaudi"),
             ("clock_fp32", "a100-80gb-pcie")]
HEAVY = [("clock_fp64", "gb300")]


@contextlib.contextmanager
def without(devices: set[str]):
    """The search with ``devices`` left out, put back afterwards."""
    saved = (coverage.Coverage.covered, need_search.make_plan)
    make_plan = need_search.make_plan
    if "coverage" in devices:
        coverage.Coverage.covered = lambda self, key, known: True
    if "onward" in devices:
        need_search.make_plan = lambda *args, onward=None, **kwargs: make_plan(*args, **kwargs)
    try:
        yield
    finally:
        coverage.Coverage.covered, need_search.make_plan = saved


def search_seconds(kb, variable: str, gpu: str, runs: int):
    """The least CPU time of the search over ``runs``, and the sets it found."""
    solver = kb.solver(kb.context(gpu))
    best, sets = float("inf"), None
    for _ in range(runs):
        kb.needs.clear()
        start = time.process_time()
        sets = needs_of(solver, variable).sets
        best = min(best, time.process_time() - start)
    return best, sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--heavy", action="store_true")
    args = parser.parse_args()
    kb = KnowledgeBase.load()
    variants = {"shipped": set(), "no coverage": {"coverage"}, "no onward": {"onward"},
                "baseline": {"coverage", "onward"}}
    print(f"{'question':32} " + " ".join(f"{name:>12}" for name in variants) + "   CPU s, least of "
          f"{args.runs}; then each variant / shipped")
    for variable, gpu in QUESTIONS + (HEAVY if args.heavy else []):
        seconds, found = {}, {}
        for name, devices in variants.items():
            with without(devices):
                seconds[name], found[name] = search_seconds(kb, variable, gpu, args.runs if name != "baseline"
                                                            or not args.heavy else 1)
        same = "" if len({repr(f) for f in found.values()}) == 1 else "   DIFFERENT SETS"
        label = f"{variable} --gpu {gpu}"
        print(f"{label:32} " + " ".join(f"{seconds[name]:12.3f}" for name in variants) + same)
        print(f"{'':32} " + " ".join(f"{seconds[name] / seconds['shipped']:11.1f}x" for name in variants))


if __name__ == "__main__":
    main()
