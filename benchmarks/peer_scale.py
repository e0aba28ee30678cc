"""How ``hwkb audit --from epoch`` grows with an Epoch CSV: 10^4 rows against 10^5, and a header of 10^6 columns.

Run by hand from a checkout: ``python benchmarks/peer_scale.py [--runs N]``.

The rows are sweep_cost.py's (Epoch's header of the test fixture, each row a GPU of its own with five figures, none
of them a KB product). Each file is audited by a whole process, ``hwkb audit --from epoch FILE --json`` to
/dev/null, the runs alternating between the files; time is the process's CPU time (user + system), the least of
``--runs``, with wall time and peak memory beside it. Issue 22's target: 10^5 rows in under 3x the time of 10^4.
A row costs the reader, the entry's facts, its internal audit and its report; the ratio falls below 3 only when
a row costs about 20 us against the ~0.5 s start-up.

The 10^6-column file (one row) is refused by the CSV reader (1,000 columns at most, kb/README.md "Limits"): its
time is that of reading the header and saying so (48 s before the limit).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
HEADER = (ROOT / "tests" / "fixtures" / "peers" / "epoch" / "ml_hardware.csv").read_text().splitlines()[0]
TARGET = 3.0
AUDIT = "import sys\nsys.path.insert(0, {engine!r})\nfrom hwkb.cli.main import console\nconsole()\n"


def epoch_rows(rows: int) -> str:
    return HEADER + "\n" + "".join(
        f"gpu-{i},Test,GPU,note {i},{204.8e12 + i * 1e9},1.024e14,,80000000000.0,2000000000000.0,400.0,inf\n"
        for i in range(rows))


def wide(columns: int) -> str:
    names = ",".join(f"c{i}" for i in range(columns - 1))
    return f"Hardware name,{names}\ngpu-x" + ",1" * (columns - 1) + "\n"


def measure(path: Path) -> tuple[float, float, float, int]:
    """(CPU seconds, wall seconds, peak MB, exit code) of ``hwkb audit --from epoch path --json``."""
    wrapper = ("import resource, subprocess, sys, time\nstart = time.perf_counter()\n"
               "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "wall = time.perf_counter() - start\nuse = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "print(use.ru_utime + use.ru_stime, wall, use.ru_maxrss / 1024, done.returncode)\n")
    argv = [sys.executable, "-c", AUDIT.format(engine=str(ENGINE)), "audit", "--from", "epoch", str(path), "--json"]
    out = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True, text=True, check=True).stdout
    cpu, wall, peak, code = out.split()
    return float(cpu), float(wall), float(peak), int(code)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        files = {rows: Path(folder) / f"epoch_{rows}.csv" for rows in (10_000, 100_000)}
        for rows, path in files.items():
            path.write_text(epoch_rows(rows))
        best: dict[int, tuple] = {}
        for _ in range(args.runs):
            for rows, path in files.items():
                got = measure(path)
                best[rows] = min(best.get(rows, got), got)
        for rows, (cpu, wall, peak, code) in best.items():
            print(f"10^{len(str(rows)) - 1} rows: {cpu:6.2f} s CPU ({wall:.2f} s wall), {peak:5.0f} MB, exit {code}")
        ratio = best[100_000][0] / best[10_000][0]
        per_row = (best[100_000][0] - best[10_000][0]) / 90_000
        print(f"10^5 / 10^4 rows: {ratio:.2f}x the time (target < {TARGET:g}x: {'met' if ratio < TARGET else 'MISSED'}); "
              f"a row {per_row * 1e6:.0f} us of CPU, start-up {best[10_000][0] - 10_000 * per_row:.2f} s")
        path = Path(folder) / "wide.csv"
        path.write_text(wide(10**6))
        cpu, wall, peak, code = measure(path)
        print(f"10^6 columns: {cpu:.2f} s CPU ({wall:.2f} s wall), {peak:.0f} MB, exit {code} (2: refused, one error line)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
