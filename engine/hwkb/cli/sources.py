"""``hwkb sources``: the documents the KB cites (:meth:`hwkb.KnowledgeBase.sources`), each with its title,
publisher, date, whether it was read first-hand or through a copy, and how many facts and rules it backs, the
most-cited first. The JSON is ``{"command": "sources", "status": "ok", "cited", "documents": [...]}``.
"""
from __future__ import annotations

import argparse

from hwkb.cli import flags

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = ("The KB's bibliography (kb/SOURCES.yaml): every document with how many facts it backs, "
                     "the most first.")
    flags.add_output(p)


def run(args: argparse.Namespace) -> int:
    flags.output(args, flags.load_kb(args).sources())
    return 0
