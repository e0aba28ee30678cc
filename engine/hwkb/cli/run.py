"""``hwkb run QUERY``: a saved query (``queries/*.yaml``), by name or path (:meth:`hwkb.KnowledgeBase.run`); with
no QUERY, the saved queries and their titles (:meth:`hwkb.KnowledgeBase.saved_queries`)."""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.kb import KnowledgeBase

__all__ = ["add_arguments", "run", "saved_queries"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "Run a saved query: a table of rows (entities or parameter sets) by columns (variables)."
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = "saved queries:\n" + "\n".join(f"  {name:<20} {title}" for name, title in saved_queries())
    p.add_argument("query", metavar="QUERY", nargs="?",
                   help="a saved query's name (below) or the path of a query file; none lists them")
    flags.add_output(p)


def saved_queries() -> list[tuple[str, str]]:
    """The saved queries' names and titles (read without the YAML parser: ``--help`` stays light)."""
    return list(KnowledgeBase.saved_queries().queries)


def run(args: argparse.Namespace) -> int:
    if args.query is None:
        flags.output(args, KnowledgeBase.saved_queries())
        return 0
    flags.output(args, flags.load_kb(args).run(args.query))
    return 0
