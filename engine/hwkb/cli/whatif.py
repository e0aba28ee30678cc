"""``hwkb whatif``, and ``hwkb solve`` with ``--symbolic`` or ``--sweep``.

``hwkb whatif [VAR ...] --gpu ID [--with ID] [--given VAR=VALUE] [--scenario ID] [--set VAR=VALUE]``:
the baseline is the entities plus ``--given``; the scenario is the baseline
plus the scenario entities (``--scenario``, repeatable: their facts that differ
from the baseline) plus ``--set``. ``--with`` layers belong to both. Without a
VAR every value that changes is shown. JSON: ``{"rows": [{"variable",
"baseline", "scenario", "unit", "change", ...}]}`` with ``change`` relative
((scenario - baseline) / baseline, e.g. 1.0 for +100 %).

``run_symbolic`` and ``run_sweep`` are called by :mod:`hwkb.cli.main`'s ``solve``.
"""
from __future__ import annotations

import re
import sys

from hwkb.cli.main import add_common, add_context, context_args, emit_json, format_number, load_kb
from hwkb.errors import QueryError
from hwkb.errors import NotDetermined

__all__ = ["register", "run", "run_symbolic", "run_sweep", "render_whatif", "render_symbolic"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "whatif", help="baseline and scenario side by side, every downstream value recomputed",
        description="Compare a baseline (the entities + --given) with a scenario (the baseline + --scenario "
                    "entities + --set). Without VAR, every value that changes.")
    p.add_argument("variables", nargs="*", metavar="VAR", help="the variables to compare (default: all that change)")
    add_context(p)
    p.add_argument("--given", action="append", default=[], metavar="VAR=VALUE",
                   help="a fact of the baseline (and so of the scenario)")
    p.add_argument("--scenario", action="append", default=[], metavar="ID",
                   help="a scenario entity whose facts the scenario takes, e.g. sfu-doubled (repeatable)")
    add_common(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from hwkb.questions.whatif import what_if
    kb = load_kb(args)
    result = what_if(kb, args.variables, gpu=args.gpu, layers=args.with_, given=args.given, changes=args.set,
                     scenarios=args.scenario, where=args.where)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(render_whatif(result, args))
    unsettled = [r.variable for r in result.rows if (r.baseline is None and r.scenario is None)
                 or "inconsistent" in (r.baseline_status, r.scenario_status)]
    return 1 if unsettled else 0


def render_whatif(result, args=None) -> str:
    def describe(context, via):
        facts = [f"{k} = {format_number(context.facts[k].value)} {context.facts[k].unit}".rstrip()
                 for k, v in context.overrides.items() if v == via]
        return ", ".join(facts)
    named = ([args.gpu] if args is not None and args.gpu else []) + (list(args.with_) if args is not None else [])
    entities = " + ".join(named or result.baseline.entities[-1:] or ["(no entity)"])
    given = describe(result.baseline, "given")
    lines = [f"baseline: {entities}" + (f", given {given}" if given else ""),
             f"scenario: {describe(result.scenario, 'scenario') or 'no change'}"
             + (f" (from {', '.join(args.scenario)})" if args is not None and args.scenario else "")]
    if not result.rows:
        lines.append("nothing changes")
        return "\n".join(lines)
    header = ["variable", "baseline", "scenario", "unit", "change"]
    table = []
    for row in result.rows:
        change = "-" if row.change is None else f"{row.change:+.0%}" if abs(row.change) >= 0.01 or row.change == 0 \
            else f"{row.change:+.2%}"
        marks = ["scenario"] if row.overridden else []
        marks += [f"{side} {status}" for side, status in (("baseline", row.baseline_status),
                                                          ("scenario", row.scenario_status))
                  if status in ("inconsistent", "underdetermined", "not_applicable")]
        table.append([row.variable, format_number(row.baseline.magnitude if row.baseline else None),
                      format_number(row.scenario.magnitude if row.scenario else None), row.unit, change,
                      ", ".join(marks)])
    widths = [max([len(h), *(len(r[i]) for r in table)]) for i, h in enumerate(header)]
    align = [str.ljust, str.rjust, str.rjust, str.ljust, str.rjust]
    lines.append("  ".join(a(h, w) for a, h, w in zip(align, header, widths)))
    for r in table:
        text = "  ".join(a(c, w) for a, c, w in zip(align, r, widths))
        lines.append(text + (f"  [{r[5]}]" if r[5] else ""))
    lines += [f"note: {n}" for n in result.notes]
    return "\n".join(lines)


# ---------------------------------------------------------------- solve --symbolic

def run_symbolic(args, kb) -> int:
    from hwkb.questions.closed_forms import parse_free, solve_symbolic
    _equalities_only(kb, args.where, "--symbolic")
    context = kb.context(**context_args(args))
    free = parse_free(kb, args.free) if args.free.strip() else None
    try:
        solution = solve_symbolic(kb, args.variable, context, free, args.where, args.sensitivity)
    except NotDetermined as exc:
        return _not_determined(args, kb, exc)
    if args.json:
        emit_json(solution.to_dict())
    else:
        print(render_symbolic(solution))
    return 0 if solution.determined or "expression" in solution.extra else 1


def _not_determined(args, kb, exc) -> int:
    """The contract's answer to a question the context cannot settle: underdetermined, its needs, exit 1."""
    from hwkb.cli.main import render_solution
    from hwkb.solving.solver import Solution
    solution = Solution(args.variable, "underdetermined", kb.model.unit_of(args.variable), needs=tuple(exc.needs),
                        notes=(exc.message,))
    if args.json:
        emit_json(solution.to_dict())
    else:
        print(render_solution(solution, explain=False))
    return 1


def render_symbolic(solution) -> str:
    extra = solution.extra
    unit = f" [{solution.unit}]" if solution.unit else ""
    lines = [f"{solution.variable}{unit} = {extra['expression']}"]
    if extra.get("approximate") and re.sub(r"(\d)\.0\b", r"\1", extra["approximate"]) != extra["expression"]:
        lines.append(f"  ≈ {extra['approximate']}")
    units = ", ".join(f"{k} [{u}]" if u else k for k, u in extra["free_units"].items())
    lines.append(f"  free: {units or '(none: a constant here)'}")
    lines.append("")
    lines += ["  " + line for line in extra["pretty"].splitlines()]
    lines.append("")
    lines.append(f"  latex: {extra['latex']}")
    if solution.value is not None:
        at = ", ".join(f"{k}={format_number(v)}" for k, v in extra["point"].items())
        lines.append(f"  value{' at ' + at if at else ''}: {format_number(solution.magnitude)} {solution.unit}".rstrip())
    if "sensitivity" in extra:
        lines.append(f"  elasticity ∂ln {solution.variable} / ∂ln x:")
        for item in extra["sensitivity"]:
            number = "" if item["elasticity"] is None or item["expression"] == format(item["elasticity"], "g") \
                else f" = {item['elasticity']:.4g}"
            lines.append(f"    {item['variable']}: {item['expression']}{number}")
    lines += [f"  note: {n}" for n in solution.notes]
    return "\n".join(lines)


# ---------------------------------------------------------------- solve --sweep

def run_sweep(args, kb) -> int:
    from hwkb.questions.sweeps import parse_axis, sweep
    _equalities_only(kb, args.where, "--sweep")
    if args.symbolic:
        raise QueryError("--symbolic and --sweep are separate questions", hint="give one of them")
    if args.plot:
        from hwkb.cli.plots import check_plot_path
        check_plot_path(args.plot)
    axes = [parse_axis(kb, text) for text in args.sweep]
    try:
        result = sweep(kb, args.variable, kb.context(**context_args(args)), axes, args.where)
    except NotDetermined as exc:
        return _not_determined(args, kb, exc)
    if args.plot:
        from hwkb.cli.plots import plot_sweep
        plot_sweep(result, args.plot)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        emit_json(result.to_dict())
    elif fmt == "csv":
        sys.stdout.write(result.to_csv())
    else:
        print(result.render())
    return 0


def _equalities_only(kb, where, flag: str) -> None:
    for i, text in enumerate(where):
        if kb.parse_where(text, i).op != "=":
            raise QueryError(f"{flag} takes only equalities in --where, not {text!r}",
                             hint="an inequality asks for a threshold: drop " + flag)
