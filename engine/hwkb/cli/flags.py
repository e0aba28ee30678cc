"""What every command shares: the common and context flags, loading the KB, and the one output form.

A command's result goes to stdout either as one JSON document (``--json``)
or as the text its renderer gives; bad input goes to stderr as ``error:``
lines. Commands call :func:`load_kb` through this module, so a test can hand
every command one loaded KB by replacing it here.

Every JSON document is an object with ``"command"`` and ``"status"`` (a string),
pinned by ``schema.json`` beside this module: :func:`document` gives a
result's, :func:`error_document` the one of bad input. This module imports no
engine at the top, so the parser builds without SymPy or Pint.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hwkb.errors import KBError, KBErrors

__all__ = ["add_common", "settle_common", "add_context", "context_keywords", "load_kb", "json_text", "emit_json",
           "emit", "document", "error_document", "report_error", "print_errors", "COMMON_DEFAULTS",
           "SCHEMA"]

#: the common options' values when not given; they are accepted before the subcommand and after it
COMMON_DEFAULTS = {"json": False, "kb": (), "no_default_kb": False, "verbose": False}
KB_BEFORE_COMMAND = "kb_before_command"
#: the JSON Schema every command's document validates against (package data)
SCHEMA = Path(__file__).with_name("schema.json")


def add_common(parser: argparse.ArgumentParser, before_command: bool = False) -> None:
    """--json, --kb, --no-default-kb, -v; on main's parser too (``before_command``), merged by :func:`settle_common`.

    Their defaults are left out of the namespace (a subcommand's default would
    overwrite what was given before it); --kb before the subcommand has a dest
    of its own, so that ``hwkb --kb a solve ... --kb b`` keeps both, in order.
    """
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="one JSON document on stdout")
    parser.add_argument("--kb", action="append", dest=KB_BEFORE_COMMAND if before_command else "kb",
                        default=argparse.SUPPRESS, metavar="DIR",
                        help="a further KB directory on top of the default (repeatable)")
    parser.add_argument("--no-default-kb", action="store_true", default=argparse.SUPPRESS,
                        help="leave the built-in KB out")
    parser.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                        help="log what the engine does to stderr")


def settle_common(args: argparse.Namespace) -> argparse.Namespace:
    """The common options wherever they were given: defaults filled in, --kb from both places in order."""
    for name, default in COMMON_DEFAULTS.items():
        if not hasattr(args, name):
            setattr(args, name, list(default) if isinstance(default, tuple) else default)
    args.kb = [*vars(args).pop(KB_BEFORE_COMMAND, []), *args.kb]
    return args


def add_context(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gpu", metavar="ID", help="the product or architecture")
    parser.add_argument("--with", dest="with_", action="append", default=[], metavar="ID",
                        help="a further entity layered on top (workload, instruction shape, scenario); later wins")
    parser.add_argument("--set", dest="set", action="append", default=[], metavar="VAR=VALUE",
                        help="a fact for this query, e.g. clock_tc=1.755GHz (a bare number is in the variable's unit)")
    parser.add_argument("--where", action="append", default=[], metavar="'LHS OP RHS'",
                        help="a relation or constraint for this query, e.g. 'd_v = d_qk' or 'exp_utilization[fp8] <= 1'")


def context_keywords(args: argparse.Namespace) -> dict:
    """The context flags as the keyword arguments of :meth:`KnowledgeBase.context` and the questions."""
    return {"gpu": args.gpu, "layers": args.with_, "facts": args.set}


def load_kb(args: argparse.Namespace):
    """The KB the flags name (a :class:`hwkb.KnowledgeBase`), with the disk caches on: the command line is where
    they pay off."""
    from hwkb.formats.caches import cache_directory
    from hwkb.kb import KnowledgeBase
    return KnowledgeBase.load(args.kb, default=not args.no_default_kb, cache=cache_directory())


def json_text(document, compact: bool = False) -> str:
    """The one JSON form of every command; ``compact`` for documents too large to indent quickly."""
    if compact:
        return json.dumps(document, separators=(",", ":"), default=_plain) + "\n"
    return json.dumps(document, indent=2, default=_plain) + "\n"


def emit_json(data) -> None:
    sys.stdout.write(json_text(data))


def document(command: str, result: dict) -> dict:
    """A command's JSON document: ``{"command", "status", ...}``, the command first, then the result's fields.

    A result's ``to_dict()`` names the question it answers (``"command": "solve"`` for a solution); the
    command that printed it wins (``explain`` prints a solution too).
    """
    return {"command": command, "status": result.get("status"), **{k: v for k, v in result.items() if k != "command"}}


def error_document(command: str | None, error: KBError) -> dict:
    """Bad input as JSON: ``{"command", "status": "error", "errors": [{"file", "line", "column", "message", "hint"}]}``."""
    problems = error.errors if isinstance(error, KBErrors) else [error]
    return {"command": command, "status": "error", "errors": [e.to_dict() for e in problems]}


def emit(args: argparse.Namespace, result, text: str) -> None:
    """The command's document of ``result.to_dict()`` with ``--json``, else ``text``."""
    if args.json:
        emit_json(document(args.command, result.to_dict()))
    else:
        print(text)


def report_error(command: str | None, as_json: bool, error: KBError) -> int:
    """Bad input as the contract says: the ``error:`` lines, with ``--json`` also the error document; exit 2."""
    if as_json:
        emit_json(error_document(command, error))
    print_errors(error)
    return 2


def print_errors(error: KBError) -> None:
    """Bad input as the contract says: one ``error:`` line per problem on stderr, never a traceback."""
    for each in error.errors if isinstance(error, KBErrors) else (error,):
        print(f"error: {each}", file=sys.stderr)


def _plain(obj):
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)
