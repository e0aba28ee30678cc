"""The ``hwkb`` command: a thin layer over :class:`hwkb.KnowledgeBase`.

Exit codes: 0 answered, 1 answered negatively (not determined, inconsistent),
2 bad input, with one ``error:`` line on stderr and never a traceback.
Each command module (``cli_simulate``, ``cli_audit``, ``cli_whatif``) adds its
subcommand through ``register(subparsers)`` and runs it through ``run(args)``.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Sequence

from hwkb.errors import KBError, KBErrors, UsageError
from hwkb.definitions.quantities import format_number

__all__ = ["main", "build_parser", "load_kb", "context_args", "emit_json", "add_common", "add_context",
           "format_number"]

log = logging.getLogger("hwkb")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage and exit 2 itself; we want one line
        raise UsageError(message, hint=f"see '{self.prog} --help'")


# ---------------------------------------------------------------- shared flags and helpers

def add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--kb", action="append", default=[], metavar="DIR",
                        help="a further KB directory on top of the default (repeatable)")
    parser.add_argument("--no-default-kb", action="store_true", help="leave the built-in KB out")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the engine does to stderr")


def add_context(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gpu", metavar="ID", help="the product or architecture")
    parser.add_argument("--with", dest="with_", action="append", default=[], metavar="ID",
                        help="a further entity layered on top (workload, instruction shape, scenario); later wins")
    parser.add_argument("--set", dest="set", action="append", default=[], metavar="VAR=VALUE",
                        help="a fact for this query, e.g. clock_tc=1.755GHz (a bare number is in the variable's unit)")
    parser.add_argument("--where", action="append", default=[], metavar="'LHS OP RHS'",
                        help="a relation or constraint for this query, e.g. 'd_v = d_qk' or 'exp_utilization[fp8] <= 1'")


def load_kb(args):
    from hwkb.kb import KnowledgeBase
    return KnowledgeBase.load(args.kb, default=not args.no_default_kb)


def context_args(args) -> dict:
    return {"gpu": args.gpu, "layers": args.with_, "facts": args.set}


def json_text(document, compact: bool = False) -> str:
    """The one JSON form of every command; ``compact`` for documents too large to indent quickly."""
    if compact:
        return json.dumps(document, separators=(",", ":"), default=_json_default) + "\n"
    return json.dumps(document, indent=2, default=_json_default) + "\n"


def emit_json(document) -> None:
    sys.stdout.write(json_text(document))


def _json_default(obj):
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)


# ---------------------------------------------------------------- solve / explain / derive

def _solve(args) -> int:
    kb = load_kb(args)
    _check_modes(args)
    if args.sweep:
        from hwkb.cli.whatif import run_sweep
        return run_sweep(args, kb)
    if args.symbolic:
        from hwkb.cli.whatif import run_symbolic
        return run_symbolic(args, kb)
    solution = kb.solve(args.variable, where=args.where, **context_args(args))
    if args.json:
        emit_json(solution.to_dict())
    else:
        print(render_solution(solution, explain=False))
    return 0 if solution.status in ("stated", "derived") else 1


def _check_modes(args) -> None:
    """A flag that belongs to another mode of solve is an error, not silently ignored."""
    misplaced = [flag for flag, given, mode in (("--free", args.free.strip(), args.symbolic),
                                                ("--sensitivity", args.sensitivity, args.symbolic),
                                                ("--format", args.format != "table", args.sweep),
                                                ("--plot", args.plot, args.sweep)) if given and not mode]
    if misplaced:
        needs = {"--free": "--symbolic", "--sensitivity": "--symbolic", "--format": "--sweep", "--plot": "--sweep"}
        raise UsageError(f"{misplaced[0]} goes with {needs[misplaced[0]]}",
                         hint=f"add {needs[misplaced[0]]}, or drop {misplaced[0]}")


def _explain(args) -> int:
    kb = load_kb(args)
    solution = kb.solve(args.variable, where=args.where, **context_args(args))
    if args.json:
        emit_json(solution.to_dict())
    else:
        print(render_solution(solution, explain=True))
    return 0 if solution.status in ("stated", "derived") else 1


MAX_NEEDS_SHOWN = 6


def render_solution(solution, explain: bool) -> str:
    from hwkb.solving.text import render_tree
    lines = []
    if solution.value is not None:
        lines.append(f"{solution.variable} = {format_number(solution.magnitude)} {solution.unit}  ({solution.status})")
    else:
        lines.append(f"{solution.variable}: {solution.status.replace('_', ' ')}")
    if solution.status == "underdetermined":
        if solution.needs:
            shown = solution.needs[:MAX_NEEDS_SHOWN]
            options = " or ".join("{" + ", ".join(n) + "}" for n in shown)
            more = len(solution.needs) - len(shown)
            lines.append(f"  give one of {options}" + (f" (or one of {more} more sets: --json lists all)" if more else ""))
        else:
            lines.append("  no further fact of the KB's variables settles it")
    if solution.intervals:
        from hwkb.solving.text import format_intervals
        lines.append(f"  admissible: {format_intervals(solution.intervals)}")
    if solution.status == "inconsistent" and solution.alternatives:
        lines.append("  independent routes disagree beyond rounding:")
        for alt in (solution.value, *solution.alternatives):
            lines.append(f"    {format_number(alt.magnitude)} {alt.unit} via {alt.origin.rule if not alt.stated else 'the stated fact'}")
    if explain and solution.value is not None:
        lines.append(render_tree(solution.value))
        for alt in solution.alternatives:
            lines.append("also, by an independent route:")
            lines.append(render_tree(alt))
    for note in solution.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def _derive(args) -> int:
    kb = load_kb(args)
    if not args.gpu:
        raise UsageError("derive needs --gpu ID", hint="see 'hwkb list entities'")
    values = kb.derive(**context_args(args))
    if args.write:
        from hwkb.cli.writeback import derived_entity_text, write_atomic
        write_atomic(Path(args.write), derived_entity_text(args.gpu, kb.model.entity(args.gpu).kind, values),
                     overwrite=args.force)
    if args.json:
        emit_json({"entity": args.gpu, "derived": [
            {"variable": v.key, "value": v.magnitude, "unit": v.unit, "derivation": v.derivation_dict()}
            for v in values]})
    else:
        width = max((len(v.key) for v in values), default=0)
        for v in values:
            print(f"{v.key:<{width}}  {format_number(v.magnitude):>10} {v.unit:<10}  via {v.origin.rule}")
    return 0


# ---------------------------------------------------------------- check / list / run

def _check(args) -> int:
    from hwkb.kb import KnowledgeBase
    try:
        kb = KnowledgeBase.load(args.kb, default=not args.no_default_kb)
    except KBErrors as exc:
        if args.json:
            emit_json({"ok": False, "errors": [e.to_dict() for e in exc.errors]})
        else:
            for e in exc.errors:
                print(f"error: {e}", file=sys.stderr)
        return 2
    except KBError as exc:
        if args.json:
            emit_json({"ok": False, "errors": [exc.to_dict()]})
        else:
            print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        emit_json({"ok": True, "errors": []})
    else:
        m = kb.model
        print(f"ok: {len(m.variables)} variables, {len(m.rules)} rules ({len(kb.relations)} relations), "
              f"{len(m.entities)} entities in {len(m.files)} files")
    return 0


def _list(args) -> int:
    kb = load_kb(args)
    m = kb.model
    if args.what == "entities":
        items = [{"id": e.id, "doc": e.doc, "kind": e.kind, "name": e.name, "extends": list(e.extends)}
                 for e in m.entities.values()]
    elif args.what == "variables":
        items = [{"id": v.name, "doc": v.doc, "unit": v.unit, "index": v.index} for v in m.variables.values()]
    else:
        items = [{"id": r.name, "doc": r.doc, "kind": r.kind, "eq": r.text, "source": r.source}
                 for r in m.rules.values()]
    if args.json:
        emit_json(items)
    else:
        width = max((len(i["id"]) for i in items), default=0)
        for i in items:
            extra = i.get("kind") or i.get("unit") or ""
            print(f"{i['id']:<{width}}  {extra:<12}  {i['doc']}")
    return 0


def _run(args) -> int:
    from hwkb.formats.query_files import load_query, run_query
    kb = load_kb(args)
    query = load_query(args.query, kb)
    result = run_query(query, kb)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(result.render())
    return 0


# ---------------------------------------------------------------- the parser

def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hwkb", description="GPU hardware facts and the laws that tie them, solved for any unknown.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("solve", help="the value of a variable in a context")
    p.add_argument("variable", metavar="VAR")
    add_context(p)
    p.add_argument("--symbolic", action="store_true", help="the closed form in the free variables")
    p.add_argument("--free", default="", metavar="A,B", help="with --symbolic: the variables to keep symbolic")
    p.add_argument("--sensitivity", action="store_true", help="with --symbolic: elasticities at the given point")
    p.add_argument("--sweep", action="append", default=[], metavar="X=START:STOP:STEP|X=v1,v2",
                   help="evaluate over a grid (repeatable)")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table", help="output format of a sweep")
    p.add_argument("--plot", metavar="FILE", help="with --sweep: draw the result (needs the plot extra)")
    add_common(p)
    p.set_defaults(handler=_solve)

    p = sub.add_parser("explain", help="the derivation of a variable as a readable tree")
    p.add_argument("variable", metavar="VAR")
    add_context(p)
    add_common(p)
    p.set_defaults(handler=_explain)

    p = sub.add_parser("derive", help="every value derivable but not stated")
    add_context(p)
    p.add_argument("--write", metavar="FILE", help="also write the values as an entity file (atomically)")
    p.add_argument("--force", action="store_true", help="with --write: replace an existing file")
    add_common(p)
    p.set_defaults(handler=_derive)

    p = sub.add_parser("check", help="validate the KB")
    add_common(p)
    p.set_defaults(handler=_check)

    p = sub.add_parser("list", help="what the KB holds")
    p.add_argument("what", nargs="?", choices=["entities", "variables", "rules"], default="entities")
    add_common(p)
    p.set_defaults(handler=_list)

    p = sub.add_parser("run", help="a saved query, by name or path")
    p.add_argument("query", metavar="QUERY")
    add_common(p)
    p.set_defaults(handler=_run)

    from hwkb.cli import audit as cli_audit

    from hwkb.cli import simulate as cli_simulate

    from hwkb.cli import whatif as cli_whatif
    for mod in (cli_simulate, cli_audit, cli_whatif):
        before = set(sub.choices)
        mod.register(sub)
        for name in set(sub.choices) - before:
            if sub.choices[name].get_default("handler") is None:
                sub.choices[name].set_defaults(handler=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "verbose", False):
            logging.basicConfig(level=logging.INFO, format="hwkb: %(message)s", stream=sys.stderr)
        return args.handler(args)
    except KBErrors as exc:
        for e in exc.errors:
            print(f"error: {e}", file=sys.stderr)
        return 2
    except KBError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader (head, less) went away: nothing more to say
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
