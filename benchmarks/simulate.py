"""The event-driven simulator against the plain code a user would write: a per-cycle loop that skips idle stretches.

Run by hand from a checkout: ``python benchmarks/simulate.py [--repeat N] [--runs N]``.

(a) In this one process, for every configuration of the README's grid (warps {1..64} x ilp {1..8} x
    compute {8..128} x latency {100..1000}: 252 configurations) and each policy, both sides run the same
    configuration, best of ``--repeat`` each, and must give identical counts: :func:`simulate` and
    :func:`skipping_loop`, the plainest fast loop, which steps cycle by cycle while some warp can issue and
    jumps over a stretch in which every warp waits. The ratio is taken per configuration; the least over
    the grid is what the simulator can be said to gain (the median is printed beside it).
(b) Whole processes, CPU time (user + system), least of ``--runs``: ``hwkb simulate`` on that grid (GTO)
    printing its table, against a script that runs :func:`skipping_loop` over the same grid and prints the
    same table; and ``python -c pass`` for the floor under both.
"""
from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

from hwkb.simulation.scheduler import simulate  # noqa: E402

LISTS = ((1, 2, 4, 8, 16, 32, 64), (1, 2, 4, 8), (8, 32, 128), (100, 500, 1000))
GRID = list(itertools.product(*LISTS))
FLAGS = [f"--{name}={','.join(map(str, values))}" for name, values in zip(("warps", "ilp", "compute", "latency"), LISTS)]


def skipping_loop(warps: int, ilp: int, compute: int, latency: int, iters: int = 100, policy: str = "gto"):
    """(issued, cycles): the model stepped cycle by cycle while a warp is ready, idle stretches jumped over."""
    load, wait = 0, 1  # phases; 2 is compute
    phase, left, ready_at, rounds = [load] * warps, [ilp] * warps, [0] * warps, [0] * warps
    current, last, issued, cycle = 0, warps - 1, 0, 0
    order = [[(last + k) % warps for k in range(1, warps + 1)] for last in range(warps)]
    while True:
        if policy == "gto":
            w = current
            if phase[w] == wait and cycle < ready_at[w]:
                w = next((v for v in range(warps) if phase[v] != wait or cycle >= ready_at[v]), None)
        else:
            w = next((v for v in order[last] if phase[v] != wait or cycle >= ready_at[v]), None)
        if w is None:  # every warp waits: nothing changes until the first is ready
            current, cycle = 0, min(ready_at)
            continue
        issued += 1
        if phase[w] == wait:
            phase[w], left[w] = 2, compute
        left[w] -= 1
        finished = False
        if left[w] == 0:
            if phase[w] == load:
                phase[w], ready_at[w] = wait, cycle + latency
            else:
                phase[w], left[w] = load, ilp
                rounds[w] += 1
                finished = rounds[w] == iters
        current = last = w
        cycle += 1
        if finished:
            return issued, cycle


PLAIN_SCRIPT = f"""
import itertools, sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from simulate_loop import skipping_loop
print("warps  ilp  compute  latency  utilization")
for w, i, c, l in itertools.product(*{LISTS!r}):
    issued, cycles = skipping_loop(w, i, c, l)
    print(f"{{w}}  {{i}}  {{c}}  {{l}}  {{100 * issued / cycles:.1f}}%")
"""


def best_time(function, config, policy: str, repeat: int):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*config, policy=policy)
        best = min(best, time.perf_counter() - start)
    return best, result


def in_process(repeat: int) -> float:
    least = float("inf")
    for policy in ("gto", "lrr"):
        ratios = []
        for config in GRID:
            fast, result = best_time(simulate, config, policy, repeat)
            loop, counts = best_time(skipping_loop, config, policy, repeat)
            if (result.issued, result.cycles) != counts:
                raise SystemExit(f"MISMATCH for {config} {policy}: {result} != {counts}")
            ratios.append((loop / fast, config))
        worst = min(ratios)
        print(f"(a) {policy}: {len(GRID)} configurations, identical counts; skipping loop / simulate per "
              f"configuration: least {worst[0]:.1f}x at {worst[1]}, median {statistics.median(r for r, _ in ratios):.0f}x")
        least = min(least, worst[0])
    return least


def cpu_of(argv: list[str], runs: int) -> float:
    best = float("inf")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "engine")}
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env, cwd="/")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def whole_processes(runs: int) -> None:
    loop_module = Path(__file__).resolve().parent / "simulate_loop.py"
    source = Path(__file__).read_text()
    start, end = source.index("def skipping_loop("), source.index("PLAIN_SCRIPT = ")
    loop_module.write_text(f'"""Written by benchmarks/simulate.py: the plain loop, alone."""\n\n{source[start:end]}')
    try:
        hwkb = cpu_of([sys.executable, "-c", "from hwkb.cli.main import console; console()", "simulate", *FLAGS], runs)
        plain = cpu_of([sys.executable, "-c", PLAIN_SCRIPT], runs)
        bare = cpu_of([sys.executable, "-c", "pass"], runs)
    finally:
        loop_module.unlink()
    print(f"(b) whole processes, CPU, least of {runs}: hwkb simulate {hwkb:.3f} s, the plain skipping loop "
          f"{plain:.3f} s ({plain / hwkb:.2f}x hwkb's), python -c pass {bare:.3f} s "
          f"(hwkb simulate is {hwkb / bare:.1f}x it)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each configuration on each side (best taken)")
    parser.add_argument("--runs", type=int, default=7, help="runs of each whole process (least CPU taken)")
    args = parser.parse_args()
    in_process(args.repeat)
    whole_processes(args.runs)


if __name__ == "__main__":
    main()
