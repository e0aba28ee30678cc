"""``hwkb run QUERY``: a saved query (``queries/*.yaml``), by name or path, as a table or ``{"title", "columns", "rows"}``."""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.formats.caches import cache_directory
from hwkb.formats.query_files import load_query
from hwkb.questions.saved_queries import run_query

__all__ = ["register", "run"]


def register(subparsers) -> None:
    p = subparsers.add_parser("run", help="a saved query, by name or path")
    p.add_argument("query", metavar="QUERY")
    flags.add_common(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    kb = flags.load_kb(args)
    result = run_query(load_query(args.query, cache=cache_directory()), kb)
    flags.emit(args, result, str(result))
    return 0
