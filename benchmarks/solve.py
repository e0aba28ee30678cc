"""How fast the engine answers, as ratios measured in this one run (absolute times drift here).

1. A warm compiled solve on the relation ``tensor_peak[bf16]`` solved for
   ``clock_tc`` at the H100's facts, called as the engine calls it (one mapping of
   canonical values in, a float out), against three baselines: ``sympy.solve``
   on every query (what a throwaway script does), what a SymPy user who knows
   better does (solve once, lambdify, call), and the formula written by hand
   (``peak / (sms * rate)`` in canonical units). Each side is one call per
   iteration, best of several repeats. Target: the compiled direction within
   1.5x of the hand-written formula.
2. The whole warm ``kb.solve`` (context, plan, provenance, every independent
   route). Target: <= 1 ms.
3. Whole processes, CPU time (user + system) of the process, median of 7:
   ``hwkb solve clock_tc --gpu h100-sxm`` warm (its caches filled by a first
   run) against ``python -c "import sympy, pint, networkx"`` (target <= 1.0x),
   and ``hwkb --help`` against ``python -c "import sympy"`` (target <= 0.5x).
   Which of SymPy, Pint, NumPy and NetworkX each one imports is printed too.

Run: ``python benchmarks/solve.py`` from the checkout.
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

import sympy  # noqa: E402

from hwkb import KnowledgeBase  # noqa: E402
from hwkb.solving.relations import symbol_of  # noqa: E402

HEAVY = ("sympy", "pint", "numpy", "networkx")


def per_call(fn, *args, seconds: float = 0.2, repeats: int = 7) -> float:
    """Seconds per call of ``fn(*args)``: the best of ``repeats`` timings of about ``seconds`` each."""
    timer = timeit.Timer("fn(*args)", globals={"fn": fn, "args": args})
    number, _ = timer.autorange()
    number = max(1, int(number * seconds / 0.2))
    return min(timer.repeat(repeat=repeats, number=number)) / number


def process_cpu(cmd: list[str], env: dict, runs: int = 7) -> float:
    """Median CPU seconds (user + system) of a whole process."""
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env, cwd="/")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times)


def hwkb_command(arguments: list[str], report_imports: bool = False) -> list[str]:
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'engine')!r}); from hwkb.cli.main import main\n"
            f"try:\n    code = main({arguments!r})\nexcept SystemExit as stop:\n    code = stop.code\n")
    if report_imports:
        code += f"print(','.join(m for m in {HEAVY!r} if m in sys.modules) or 'none', file=sys.stderr); "
    return [sys.executable, "-c", code + "sys.exit(code)"]


def imported(cmd: list[str], env: dict) -> str:
    return subprocess.run(cmd, env=env, cwd="/", capture_output=True, text=True).stderr.strip().splitlines()[-1]


def main() -> None:
    kb = KnowledgeBase.load()
    relation = kb.relation_index["tensor_peak[bf16]"]
    solver = kb.solver(kb.context(gpu="h100-sxm"))
    values = {k: solver.values[k].canonical for k in relation.keys if k != "clock_tc"}
    compiled = relation.solver("clock_tc")
    residual = relation.residual
    subs = {symbol_of(k): v for k, v in values.items()}
    target = symbol_of("clock_tc")

    def plain_sympy():
        return sympy.solve(residual.xreplace(subs), target, dict=True)

    expected = float(plain_sympy()[0][target])
    assert abs(compiled(values) - expected) <= 1e-12 * expected
    others = [symbol_of(k) for k in values]
    once = sympy.lambdify(others, sympy.solve(residual, target)[0])  # a SymPy user's solve-once-and-lambdify
    arguments = [values[k] for k in values]
    assert abs(once(*arguments) - expected) <= 1e-12 * expected
    peak, sms, rate = values["tc_peak[bf16]"], values["sm_count"], values["tc_fma_per_sm_cycle[bf16]"]
    by_hand = lambda: peak / (sms * rate)  # noqa: E731 - the formula as a person writes it (canonical units)
    assert abs(by_hand() - expected) <= 1e-12 * expected
    t_sympy = per_call(plain_sympy, repeats=3)
    t_once = per_call(once, *arguments)
    t_hand = per_call(by_hand)
    t_compiled = per_call(compiled, values)
    t_query = per_call(kb.solve, "clock_tc", "h100-sxm", repeats=5)
    print(f"sympy.solve per query        {t_sympy * 1e3:9.3f} ms")
    print(f"sympy solve once + lambdify  {t_once * 1e6:9.3f} us")
    print(f"the formula by hand          {t_hand * 1e6:9.3f} us")
    print(f"compiled direction           {t_compiled * 1e6:9.3f} us   {t_compiled / t_hand:5.2f}x the hand formula "
          f"(target <= 1.5x), {t_compiled / t_once:5.2f}x solve-once, 1/{t_sympy / t_compiled:.0f} of sympy.solve")
    print(f"kb.solve, whole query        {t_query * 1e3:9.3f} ms   (target <= 1 ms), "
          f"{t_query / t_hand:,.0f}x the hand formula, {t_sympy / t_query:5.1f}x faster than sympy.solve")

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, HWKB_CACHE_DIR=cache)
        solve = ["solve", "clock_tc", "--gpu", "h100-sxm"]
        subprocess.run(hwkb_command(solve), check=True, stdout=subprocess.DEVNULL, env=env, cwd="/")  # fills caches
        t_imports = process_cpu([sys.executable, "-c", "import sympy, pint, networkx"], env)
        t_warm = process_cpu(hwkb_command(solve), env)
        t_sympy_import = process_cpu([sys.executable, "-c", "import sympy"], env)
        t_help = process_cpu(hwkb_command(["--help"]), env)
        solve_imports = imported(hwkb_command(solve, report_imports=True), env)
        help_imports = imported(hwkb_command(["--help"], report_imports=True), env)
    print(f"python -c 'import sympy, pint, networkx'  {t_imports:6.3f} s CPU")
    print(f"hwkb solve clock_tc --gpu h100-sxm, warm  {t_warm:6.3f} s CPU   ratio {t_warm / t_imports:5.2f}x  "
          f"(target <= 1.0x); imports of {', '.join(HEAVY)}: {solve_imports}")
    print(f"python -c 'import sympy'                  {t_sympy_import:6.3f} s CPU")
    print(f"hwkb --help                               {t_help:6.3f} s CPU   ratio {t_help / t_sympy_import:5.2f}x  "
          f"(target <= 0.5x); imports: {help_imports}")


if __name__ == "__main__":
    main()
