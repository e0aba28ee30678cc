"""What hostile sizes cost (issue 22, "Cost"), as ratios measured in this one run.

1. A sweep through the simulation (``scheduler_utilization``, point by point) of N and 4N listed points: the
   ratio of their times, linear if about 4 (16 if quadratic). The same with the old ``grid_chunk``, which
   rebuilt the whole axis at every point, patched in for comparison (at a quarter of N: it is quadratic).
2. 10^7 points of one axis (``d_qk=1:10000000:1``) against the same number as a 2-D grid
   (``d_qk=1:10000:1 x d_v=1:1000:1``), each a whole ``hwkb solve`` process to /dev/null in each format:
   CPU time ratio (target <= 2) and peak memory (target <= 300 MB).
3. Epoch CSVs of 10^4 and 10^5 rows through ``hwkb audit --from epoch``, whole processes: the time ratio
   (target < 3).

Run: ``python benchmarks/sweep_cost.py [--quick]`` from the checkout (--quick: parts 1 and 3 only).
"""
from __future__ import annotations

import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

import numpy as np  # noqa: E402

from hwkb import KnowledgeBase  # noqa: E402
from hwkb.questions import sweep_grid, sweeps  # noqa: E402
from hwkb.questions.sweeps import parse_axis, sweep  # noqa: E402

SIMULATED = "scheduler_utilization"
N = 40_000


def least(fn, runs: int = 3) -> float:
    best = math.inf
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def old_grid_chunk(axes, start, stop):
    """grid_chunk as it was: every axis made an array again at every call (every point of a sweep)."""
    return tuple(np.asarray(axis.values, dtype=float)[index]
                 for axis, index in zip(axes, sweep_grid.grid_indices(axes, start, stop)))


def simulation_sweeps() -> None:
    kb = KnowledgeBase.load()
    context = kb.context(facts=["loads_per_round=4", "compute_per_round=64", "warps_per_scheduler=8"])

    def run(n: int) -> float:  # the same work per point: latencies cycling over 100..499
        axis = parse_axis(kb, "latency_cycles=" + ",".join(str(100 + i % 400) for i in range(n)))
        return least(lambda: sweep(kb, SIMULATED, context, [axis]))

    run(100)
    now = run(N), run(4 * N)
    sweeps.grid_chunk = old_grid_chunk
    try:
        before = run(N // 4), run(N)
    finally:
        sweeps.grid_chunk = sweep_grid.grid_chunk
    print("1. sweep through the simulation, listed points (least of 3 runs):")
    print(f"   now:             {N:>6} {now[0]:6.2f} s, {4 * N:>6} {now[1]:6.2f} s   ratio {now[1] / now[0]:.2f} "
          "(linear: 4)")
    print(f"   old grid_chunk:  {N // 4:>6} {before[0]:6.2f} s, {N:>6} {before[1]:6.2f} s   ratio "
          f"{before[1] / before[0]:.2f}; at {N} points {before[1] / now[0]:.1f}x the time now")


def process(argv: list[str], env: dict) -> tuple[float, float]:
    """CPU seconds of a whole ``hwkb`` process and its peak memory in MB."""
    code = (f"import sys, resource; sys.path.insert(0, {str(ROOT / 'engine')!r}); from hwkb.cli.main import main; "
            f"code = main({argv!r}); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
            "sys.exit(code)")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=env, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"hwkb {' '.join(argv)} failed: {done.stderr[-500:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, int(done.stderr.split()[-1]) / 1024


def ten_million_points(env: dict) -> None:
    target = ["solve", "exp_utilization[fp8]", "--gpu", "h100-sxm"]
    one = [*target, "--sweep=d_qk=1:10000000:1", "--set", "d_v=128"]
    two = [*target, "--sweep=d_qk=1:10000:1", "--sweep=d_v=1:1000:1"]
    print("2. 10^7 points, whole processes: one axis against a 2-D grid (CPU s, peak MB)")
    for name, extra in (("csv", ["--format", "csv"]), ("table", []), ("json", ["--json"])):
        (t1, m1), (t2, m2) = process(one + extra, env), process(two + extra, env)
        print(f"   {name:5}  one axis {t1:6.1f} s {m1:5.0f} MB   grid {t2:6.1f} s {m2:5.0f} MB   "
              f"time ratio {t1 / t2:.2f} (target <= 2)")


def epoch_csvs(env: dict) -> None:
    header = (ROOT / "tests" / "fixtures" / "peers" / "epoch" / "ml_hardware.csv").read_text().splitlines()[0]
    times = {}
    with tempfile.TemporaryDirectory() as folder:
        for rows in (10_000, 100_000):
            path = Path(folder) / f"epoch_{rows}.csv"
            path.write_text(header + "\n" + "".join(
                f"gpu-{i},Test,GPU,note {i},{204.8e12 + i * 1e9},1.024e14,,80000000000.0,2000000000000.0,400.0,inf\n"
                for i in range(rows)))
            times[rows] = min(process(["audit", "--from", "epoch", str(path)], env)[0] for _ in range(2))
    print(f"3. Epoch CSV audit, whole processes: 10^4 rows {times[10_000]:.1f} s, 10^5 rows {times[100_000]:.1f} s, "
          f"ratio {times[100_000] / times[10_000]:.2f} (target < 3)")


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        os.chmod(cache, 0o700)
        env = dict(os.environ, HWKB_CACHE_DIR=cache)
        process(["solve", "clock_tc", "--gpu", "h100-sxm"], env)  # fills the caches
        simulation_sweeps()
        if "--quick" not in sys.argv:
            ten_million_points(env)
        epoch_csvs(env)


if __name__ == "__main__":
    main()
