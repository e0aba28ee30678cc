"""``hwkb roofline --gpu A --gpu B ... [--point NAME=INTENSITY] [--with WORKLOAD --set VAR=VALUE] [--plot FILE]``:
rooflines side by side (:meth:`hwkb.KnowledgeBase.roofline`), a workload's kernels placed by law, optionally drawn
on log-log axes."""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.errors import UsageError

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gpu", action="append", default=[], metavar="ID", help="a product (repeat for several)")
    p.add_argument("--point", action="append", default=[], metavar="NAME=INTENSITY",
                   help="a kernel at an arithmetic intensity in flop/B, placed on every roof")
    flags.add_layers(p, "a workload whose kernels are placed at the intensities its laws give (llama-3-70b: decode "
                        "and prefill; a GEMM or attention workload), and the precision it runs in (fp8)",
                     "a fact for the workload, e.g. batch=1 or prompt_tokens=2048")
    p.add_argument("--precision", action="append", default=[], metavar="P",
                   help="the roofs to draw: fp32 or a Tensor-Core precision (default: all the GPU has)")
    p.add_argument("--plot", metavar="FILE", help="also draw the rooflines on log-log axes (.png or .svg); "
                                                  "--force replaces an existing file")
    flags.add_output(p)


def run(args: argparse.Namespace) -> int:
    if not args.gpu:
        raise UsageError("roofline needs --gpu ID", hint="repeat it for several, e.g. --gpu h100-sxm --gpu b200")
    if args.plot:
        from hwkb.render.plots import check_plot_path  # NumPy and matplotlib: only a plot needs them
        check_plot_path(args.plot, overwrite=args.force)
    kb = flags.load_kb(args)
    result = kb.roofline(args.gpu, args.point, args.precision, layers=args.with_, facts=args.set)
    if args.plot:
        from hwkb.render.plots import plot_roofline
        plot_roofline(result, args.plot, overwrite=args.force)
    flags.output(args, result)
    return 0
