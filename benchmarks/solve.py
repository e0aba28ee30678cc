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
   route), with its plan cached and with the plan cache cleared before each call. Target: <= 1 ms.
3. Whole processes, CPU time (user + system) of the process, least of 7, each against the imports its
   path needs and against ``python -c pass`` (the interpreter alone): ``hwkb solve clock_tc --gpu
   h100-sxm`` warm (its caches filled by a first run) against ``python -c "import pint"`` (a warm solve
   needs Pint and nothing heavier); ``hwkb audit --gpu h100-sxm`` against ``python -c "import sympy,
   pint, numpy"`` (the audit's analysis is symbolic); ``hwkb --help`` against ``python -c pass`` alone.
   Which of SymPy, Pint, NumPy and NetworkX each one imports is printed too. Every process runs with its
   modules' bytecode cached (in the run's own directory), as an installed package's is.

Run: ``python benchmarks/solve.py`` from the checkout.
"""
from __future__ import annotations

import os
import resource
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
    """The least CPU seconds (user + system) of a whole process over ``runs``."""
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, env=env, cwd="/")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):  # 1: an audit that finds a problem
            raise SystemExit(f"{cmd} failed")
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times)


def hwkb_command(arguments: list[str], report_imports: bool = False) -> list[str]:
    code = (f"import gc, sys; sys.path.insert(0, {str(ROOT / 'engine')!r})\n"
            f"from hwkb.cli.main import GC_THRESHOLDS, main; gc.set_threshold(*GC_THRESHOLDS)  # as console() does\n"
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

    def replanned():
        kb.plans.clear()
        return kb.solve("clock_tc", "h100-sxm")
    t_replanned = per_call(replanned, repeats=5)
    print(f"sympy.solve per query        {t_sympy * 1e3:9.3f} ms")
    print(f"sympy solve once + lambdify  {t_once * 1e6:9.3f} us")
    print(f"the formula by hand          {t_hand * 1e6:9.3f} us")
    print(f"compiled direction           {t_compiled * 1e6:9.3f} us   {t_compiled / t_hand:5.2f}x the hand formula "
          f"(target <= 1.5x), {t_compiled / t_once:5.2f}x solve-once, 1/{t_sympy / t_compiled:.0f} of sympy.solve")
    print(f"kb.solve, whole query        {t_query * 1e3:9.3f} ms   (target <= 1 ms), "
          f"{t_query / t_hand:,.0f}x the hand formula, {t_sympy / t_query:5.1f}x faster than sympy.solve")
    print(f"kb.solve, plan cache cleared {t_replanned * 1e3:9.3f} ms")

    with tempfile.TemporaryDirectory() as cache:
        # bytecode as an installed package has it, for every side alike: with PYTHONDONTWRITEBYTECODE set, hwkb's
        # modules were compiled on every run while Pint's came compiled from its wheel
        env = dict(os.environ, HWKB_CACHE_DIR=cache, PYTHONPYCACHEPREFIX=str(Path(cache) / "bytecode"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        solve = ["solve", "clock_tc", "--gpu", "h100-sxm"]
        audit = ["audit", "--gpu", "h100-sxm"]
        for warm_up in (solve, audit):  # fills the caches
            subprocess.run(hwkb_command(warm_up), stdout=subprocess.DEVNULL, env=env, cwd="/")
        bare = process_cpu([sys.executable, "-c", "pass"], env)
        rows = [(" ".join(args), process_cpu(hwkb_command(args), env), floor,
                 process_cpu([sys.executable, "-c", floor], env) if floor != "pass" else bare,
                 imported(hwkb_command(args, report_imports=True), env))
                for args, floor in ((solve, "import pint"), (audit, "import pint, numpy"), (["--help"], "pass"))]
    print(f"python -c pass                                 {bare:6.3f} s CPU")
    for command, seconds, floor, floor_seconds, imports in rows:
        print(f"hwkb {command:<42} {seconds:6.3f} s CPU   {seconds / floor_seconds:5.2f}x python -c {floor!r} "
              f"({floor_seconds:.3f} s), {seconds / bare:5.2f}x python -c pass; imports of {', '.join(HEAVY)}: {imports}")


if __name__ == "__main__":
    main()
