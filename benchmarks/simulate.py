"""How much faster the event-driven simulator is than the cycle-by-cycle reference.

Run by hand from a checkout: ``python benchmarks/simulate.py [--sample N] [--seed S]``.
Both simulators are timed in this one process, every pair of results is
checked to be identical, and the speed is printed as a ratio of mean times
per configuration (reference / fast), so it means the same on any machine.

(a) the chapter's ten configurations (latency 500, 100 rounds, GTO);
(b) a grid of 252 configurations, warps {1..64} x ilp {1..8} x compute
    {8..128} x latency {100..1000}, for each policy: the fast simulator runs
    all of it, the reference a random sample (``--sample 252`` runs the whole
    grid: over a minute, mostly LRR's reference).
"""
from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))

from hwkb.simulation.scheduler import simulate, simulate_reference  # noqa: E402

CHAPTER = [(w, ilp, compute, 500) for ilp, compute in ((1, 16), (4, 64)) for w in (1, 2, 4, 8, 16)]
TARGET = 100  # the fast simulator should be at least this many times faster on the mean
GRID = list(itertools.product((1, 2, 4, 8, 16, 32, 64), (1, 2, 4, 8), (8, 32, 128), (100, 500, 1000)))


def _time(function, config, policy: str, repeat: int):
    """The best of ``repeat`` runs, in seconds, and the result."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*config, policy=policy)
        best = min(best, time.perf_counter() - start)
    return best, result


def compare(title: str, configs, policy: str, sample: list | None = None) -> float:
    """Time the fast simulator on ``configs`` and the reference on ``sample`` (default: all); print the ratio."""
    sample = configs if sample is None else sample
    fast = {}
    for config in configs:
        fast[config] = _time(simulate, config, policy, repeat=5)
    reference_total = fast_on_sample = 0.0
    worst = (float("inf"), None)
    for config in sample:
        seconds, result = _time(simulate_reference, config, policy, repeat=1)
        fast_seconds, fast_result = fast[config]
        if result != fast_result:
            raise SystemExit(f"MISMATCH for {config} {policy}: {fast_result} != {result}")
        reference_total += seconds
        fast_on_sample += fast_seconds
        worst = min(worst, (seconds / fast_seconds, config))
    fast_mean = sum(seconds for seconds, _ in fast.values()) / len(configs)
    reference_mean = reference_total / len(sample)
    ratio = reference_mean / fast_mean
    print(f"{title} [{policy}]: {len(configs)} configs, reference on {len(sample)}, all identical")
    print(f"  mean per config: fast {fast_mean * 1e6:9.1f} us   reference {reference_mean * 1e3:9.2f} ms"
          f"   ratio {ratio:8.0f}x")
    print(f"  on the sampled configs alone: ratio {reference_total / fast_on_sample:8.0f}x;"
          f" slowest-relative config {worst[1]}: {worst[0]:.0f}x")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=30, help="grid configurations to run the reference on")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sample = random.Random(args.seed).sample(GRID, min(args.sample, len(GRID)))
    ratios = [compare("(a) chapter", CHAPTER, policy) for policy in ("gto", "lrr")]
    ratios += [compare("(b) grid", GRID, policy, sample) for policy in ("gto", "lrr")]
    verdict = "meets" if min(ratios) >= TARGET else "MISSES"
    print(f"smallest mean-time ratio {min(ratios):.0f}x: {verdict} the target of {TARGET}x")


if __name__ == "__main__":
    main()
