"""How long the search for what would settle an undetermined key takes, and what each of its three devices buys.

The search (:func:`hwkb.solving.need_search.search_needs`) tries every set of up to 3 of the 40 nearest keys; before
these devices, ``hwkb solve clock_fp64 --gpu gb300`` spent 26 s of CPU in it. The devices:

- **coverage**: a trial whose target some maximum matching leaves free is not planned
  (:mod:`hwkb.solving.coverage`);
- **onward**: trials whose propagation stops at the same keys, first or after a block, share the steps after it
  (``make_plan(onward=)``);
- **absent**: where the knowns' own plan gives the target only through a block the solver rejects (two peaks that
  fix only ``clock_tc x sm_count``), trials plan from that plan with the block absent, and only those that touch
  the core it lies in are planned from the knowns (``need_search._without_rejected``); before it, every trial of
  such a search was planned whole (L40's Tensor clock: 820 whole plans, the slowest ``solve`` of the trust sweep).

A fourth device, the planner's matching and condensation rewritten over plain lists, won 1.7-1.8x on two of these
searches; it went, because issue 20 asks for NetworkX's algorithms in the planner rather than hand-written ones.

For each question of the trust sweep's slow lists given here, the search alone (its solver built beforehand, the
KB's memo of searches cleared) is timed as shipped, with each device left out in turn, and with all left out
(the search as it was: the baseline). Each figure is the CPU time of this process (the machine is shared, so wall
time says more about the neighbours), least over ``--runs``; the ratios are taken in this one process. Every
variant must find the same sets, which is checked. A device that does not win 1.5x somewhere is left out.

Measured 5 Dec 2026, load average about 10 on 2 cores, least of 2 (CPU s; the ratio is the variant / shipped):

    question                     shipped   no coverage     no onward     no absent      baseline
    clock_fp32 --gpu h100-nvl      0.567   0.605  1.1x   1.149  2.0x   0.571  1.0x   1.153   2.0x
    clock_fp64 --gpu t4            0.142   2.743 19.3x   0.135  0.9x   0.145  1.0x   5.705  40.2x
    fp16_peak --gpu mi350x         0.041   1.206 29.3x   0.051  1.2x   0.045  1.1x   1.722  41.9x
    clock_fp64 --gpu gaudi         0.179   4.233 23.7x   0.173  1.0x   0.173  1.0x   7.289  40.7x
    clock_fp32 --gpu a100-80gb-pcie 0.597 0.510  0.9x   1.339  2.2x   2.943  4.9x   8.458  14.2x
    clock_tc --gpu l40             2.125   1.941  0.9x   2.353  1.1x   9.068  4.3x   9.774   4.6x
    clock_fp32 --gpu gb200         0.401   0.399  1.0x   0.882  2.2x   2.187  5.5x   5.967  14.9x

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
             ("clock_fp32", "a100-80gb-pcie"), ("clock_tc", "l40"), ("clock_fp32", "gb200")]
HEAVY = [("clock_fp64", "gb300")]


@contextlib.contextmanager
def without(devices: set[str]):
    """The search with ``devices`` left out, put back afterwards."""
    saved = (coverage.Coverage.covered, need_search.make_plan, need_search._without_rejected)
    make_plan = need_search.make_plan
    if "coverage" in devices:
        coverage.Coverage.covered = lambda self, key, known: True
    if "onward" in devices:
        need_search.make_plan = lambda *args, onward=None, **kwargs: make_plan(*args, **kwargs)
    if "absent" in devices:
        need_search._without_rejected = lambda *args: None
    try:
        yield
    finally:
        coverage.Coverage.covered, need_search.make_plan, need_search._without_rejected = saved


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
    variants = {"shipped": set(), "no coverage": {"coverage"}, "no onward": {"onward"}, "no absent": {"absent"},
                "baseline": {"coverage", "onward", "absent"}}
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
