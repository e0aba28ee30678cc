"""What every command shares: the common and context flags, loading the KB, and the one output form.

A command's result goes to stdout either as one JSON document (``--json``)
or as the text its renderer gives; bad input goes to stderr as ``error:``
lines. Commands call :func:`load_kb` through this module, so a test can hand
every command one loaded KB by replacing it here.
"""
from __future__ import annotations

import argparse
import json
import sys

from hwkb.errors import KBError, KBErrors
from hwkb.formats.caches import cache_directory
from hwkb.kb import KnowledgeBase

__all__ = ["add_common", "add_context", "context_keywords", "load_kb", "json_text", "emit_json", "emit",
           "print_errors"]


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


def context_keywords(args: argparse.Namespace) -> dict:
    """The context flags as the keyword arguments of :meth:`KnowledgeBase.context` and the questions."""
    return {"gpu": args.gpu, "layers": args.with_, "facts": args.set}


def load_kb(args: argparse.Namespace) -> KnowledgeBase:
    """The KB the flags name, with the disk caches on: the command line is where they pay off."""
    return KnowledgeBase.load(args.kb, default=not args.no_default_kb, cache=cache_directory())


def json_text(document, compact: bool = False) -> str:
    """The one JSON form of every command; ``compact`` for documents too large to indent quickly."""
    if compact:
        return json.dumps(document, separators=(",", ":"), default=_plain) + "\n"
    return json.dumps(document, indent=2, default=_plain) + "\n"


def emit_json(document) -> None:
    sys.stdout.write(json_text(document))


def emit(args: argparse.Namespace, result, text: str) -> None:
    """``result.to_dict()`` as the JSON document with ``--json``, else ``text``."""
    if args.json:
        emit_json(result.to_dict())
    else:
        print(text)


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
