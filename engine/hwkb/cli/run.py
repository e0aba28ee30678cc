"""``hwkb run QUERY``: a saved query (``queries/*.yaml``), by name or path (:meth:`hwkb.KnowledgeBase.run`)."""
from __future__ import annotations

import argparse
import re

from hwkb.cli import flags
from hwkb.formats.resources import queries_dir

__all__ = ["add_arguments", "run", "saved_queries"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "Run a saved query: a table of rows (entities or parameter sets) by columns (variables)."
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = "saved queries:\n" + "\n".join(f"  {name:<20} {title}" for name, title in saved_queries())
    p.add_argument("query", metavar="QUERY", help="a saved query's name (below) or the path of a query file")
    flags.add_output(p)


def saved_queries() -> list[tuple[str, str]]:
    """The saved queries' names and titles, read without the YAML parser (``--help`` stays light)."""
    out = []
    for path in sorted(queries_dir().glob("*.yaml")):
        title = re.search(r"^title:\s*(.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
        out.append((path.stem, title.group(1).strip().strip("'\"") if title else ""))
    return out


def run(args: argparse.Namespace) -> int:
    flags.output(args, flags.load_kb(args).run(args.query))
    return 0
