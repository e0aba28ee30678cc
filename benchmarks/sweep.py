"""How fast a sweep runs, as ratios measured in this one run (absolute times drift on shared machines).

1. A 10^6-point grid of the H100's FP8 exp utilization over d_qk x d_v (1000 x 1000)
   through ``hwkb.questions.sweeps.sweep``: the closed form found once, lambdified with NumPy.
   Target: <= 1 s wall for the whole call, closed form included.
2. The same target point by point (``PointEvaluator``: one plan, only the steps
   between the swept variables and the target re-run, no SymPy per point) on
   a sample of the grid; the ratio per point is the speed-up vectorising buys.
3. A 10^6-point sweep whose closed form is already known (the evaluation alone),
   to show what of (1) is finding the form.
4. The same 10^6 points through the CLI, printed as a table, CSV and JSON: each
   whole process's CPU time (median of 3) against
   ``python -c "import sympy, pint, numpy"``. Target: <= 3x.
5. 10^7 points (d_qk 1..10000 x d_v 1..1000) through the CLI in each format, to
   /dev/null: the process's peak memory. Target: <= 300 MB.

Run: ``python benchmarks/sweep.py`` from the checkout.
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

import numpy as np  # noqa: E402

from hwkb import KnowledgeBase  # noqa: E402
from hwkb.questions.sweeps import parse_axis, sweep
from hwkb.solving.points import PointEvaluator  # noqa: E402

TARGET = "exp_utilization[fp8]"
SAMPLE = 5_000


def best_of(fn, runs: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


FORMATS = {"table": [], "csv": ["--format", "csv"], "json": ["--json"]}


def cli(sweeps: list[str], extra: list[str]) -> list[str]:
    """A whole ``hwkb solve`` process that reports its peak memory (kB) on stderr."""
    arguments = ["solve", TARGET, "--gpu", "h100-sxm", *(f"--sweep={s}" for s in sweeps), *extra]
    return [sys.executable, "-c", f"import sys, resource; sys.path.insert(0, {str(ROOT / 'engine')!r}); "
            f"import gc; from hwkb.cli.main import GC_THRESHOLDS, main; gc.set_threshold(*GC_THRESHOLDS); "
            f"code = main({arguments!r}); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(code)"]


def process(cmd: list[str], env: dict) -> tuple[float, int]:
    """CPU seconds (user + system) of a whole process, and its peak memory in kB when it reports it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = done.stderr.split()
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
            int(lines[-1]) if lines and lines[-1].isdigit() else 0)


def whole_processes() -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, HWKB_CACHE_DIR=cache)
        million = ["d_qk=1:1000:1", "d_v=1:1000:1"]
        process(cli(million, []), env)  # fills the caches
        imports = statistics.median(process([sys.executable, "-c", "import sympy, pint, numpy"], env)[0]
                                    for _ in range(3))
        print(f"whole processes (CPU): python -c 'import sympy, pint, numpy' {imports:.3f} s")
        for name, extra in FORMATS.items():
            cpu = statistics.median(process(cli(million, extra), env)[0] for _ in range(3))
            print(f"  10^6 points as {name:5}  {cpu:6.3f} s   ratio {cpu / imports:5.2f}x  (target <= 3x)")
        for name, extra in FORMATS.items():
            cpu, peak = process(cli(["d_qk=1:10000:1", "d_v=1:1000:1"], extra), env)
            print(f"  10^7 points as {name:5}  {cpu:6.3f} s   peak memory {peak / 1024:5.0f} MB  (target <= 300 MB)")


def main() -> None:
    kb = KnowledgeBase.load()
    context = kb.context("h100-sxm")
    axes = [parse_axis(kb, "d_qk=1:1000:1"), parse_axis(kb, "d_v=1:1000:1")]

    first, _ = best_of(lambda: sweep(kb, TARGET, context, axes), runs=1)
    whole, result = best_of(lambda: sweep(kb, TARGET, context, axes))
    points = result.values.size
    assert result.method == "closed form" and points == 1_000_000

    form = result.form
    grid = result.grid
    evaluation, values = best_of(lambda: np.asarray(form.function(*grid), dtype=float))

    evaluator = PointEvaluator(kb, context, ["d_qk", "d_v"], [TARGET])
    rng = np.random.default_rng(2026)
    sample = rng.integers(0, points, SAMPLE)

    def point_by_point():
        return [evaluator({"d_qk": float(grid[0][i]), "d_v": float(grid[1][i])})[TARGET].magnitude for i in sample]

    pointwise, slow = best_of(point_by_point, runs=1)
    assert np.allclose(slow, result.values[sample], rtol=1e-12)

    per_point_fast = whole / points
    per_point_slow = pointwise / SAMPLE
    print(f"sweep of {TARGET} on h100-sxm over d_qk x d_v = 1000 x 1000 ({points:,} points)")
    print(f"  first sweep in this process (closed form derived):  {first:.3f} s   (target <= 1 s)")
    print(f"  whole sweep again (closed form + vectorised eval):  {whole:.3f} s")
    print(f"  vectorised evaluation alone:                        {evaluation:.3f} s")
    print(f"  point by point (PointEvaluator, {SAMPLE:,} sampled points): {per_point_slow * 1e6:.1f} us/point")
    print(f"  ratio point-by-point / vectorised, per point: {per_point_slow / per_point_fast:,.0f}x")
    print(f"  the closed form: {TARGET} = {form.text}")
    whole_processes()


if __name__ == "__main__":
    main()
