"""How fast the engine answers, as ratios measured in this one run (absolute times drift here).

1. A warm compiled solve on the relation ``tensor_peak[bf16]`` solved for
   ``clock_tc`` at the H100's facts, against three baselines: ``sympy.solve``
   on every query (what a throwaway script does), what a SymPy user who knows
   better does (solve once, lambdify, call), and the formula written by hand
   (``peak / (sms * rate)`` in canonical units). The fair targets: the compiled
   direction within 1.5x of the hand-written formula; the whole ``kb.solve``
   (context, plan, provenance, every independent route) reported beside them.
2. ``hwkb solve clock_tc --gpu h100-sxm`` cold (a new process; the solution
   cache warm, as after the first use) against
   ``python -c "import sympy, pint, networkx"``. Target: <= 1.5x.

Run: ``python benchmarks/solve.py`` from the checkout.
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

import sympy  # noqa: E402

from hwkb import KnowledgeBase  # noqa: E402
from hwkb.solving.relations import symbol_of  # noqa: E402


def per_call(fn, seconds: float = 0.5) -> float:
    """Mean seconds per call over at least ``seconds`` of calls."""
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and calls >= 3:
            return elapsed / calls


def median_run(cmd: list[str], runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd="/")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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
    t_sympy = per_call(plain_sympy)
    t_once = per_call(lambda: once(*arguments))
    t_hand = per_call(by_hand)
    t_compiled = per_call(lambda: compiled(values))
    t_query = per_call(lambda: kb.solve("clock_tc", gpu="h100-sxm"))
    print(f"sympy.solve per query        {t_sympy * 1e3:9.3f} ms")
    print(f"sympy solve once + lambdify  {t_once * 1e6:9.3f} us")
    print(f"the formula by hand          {t_hand * 1e6:9.3f} us")
    print(f"compiled direction           {t_compiled * 1e6:9.3f} us   {t_compiled / t_hand:5.2f}x the hand formula "
          f"(target <= 1.5x), {t_compiled / t_once:5.2f}x solve-once, 1/{t_sympy / t_compiled:.0f} of sympy.solve")
    print(f"kb.solve, whole query        {t_query * 1e3:9.3f} ms   {t_sympy / t_query:5.1f}x faster than sympy.solve")

    hwkb = [sys.executable, "-m", "hwkb.cli.main", "solve", "clock_tc", "--gpu", "h100-sxm"]
    env_cmd = [sys.executable, "-c", "import sympy, pint, networkx"]
    subprocess.run(hwkb, check=True, stdout=subprocess.DEVNULL, cwd=ROOT / "engine")  # fills the solution cache
    hwkb_cmd = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'engine')!r}); "
                "from hwkb.cli.main import main; sys.exit(main(['solve', 'clock_tc', '--gpu', 'h100-sxm']))"]
    t_imports = median_run(env_cmd)
    t_cold = median_run(hwkb_cmd)
    print(f"python -c 'import sympy, pint, networkx'  {t_imports:6.3f} s")
    print(f"hwkb solve clock_tc --gpu h100-sxm        {t_cold:6.3f} s   ratio {t_cold / t_imports:5.2f}x  (target <= 1.5x)")


if __name__ == "__main__":
    main()
