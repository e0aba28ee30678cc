"""``hwkb list [entities|variables|rules]``: what the KB holds, each item with its id and doc."""
from __future__ import annotations

import argparse

from hwkb.cli import flags
from hwkb.definitions.model import Model

__all__ = ["register", "run", "items"]

KINDS = ("entities", "variables", "rules")


def register(subparsers) -> None:
    p = subparsers.add_parser("list", help="what the KB holds")
    p.add_argument("what", nargs="?", choices=KINDS, default="entities")
    flags.add_common(p)
    p.set_defaults(handler=run)


def items(model: Model, what: str) -> list[dict]:
    """The JSON objects of one kind of item, in the KB's order."""
    if what == "entities":
        return [{"id": e.id, "doc": e.doc, "kind": e.kind, "name": e.name, "extends": list(e.extends)}
                for e in model.entities.values()]
    if what == "variables":
        return [{"id": v.name, "doc": v.doc, "unit": v.unit, "index": v.index} for v in model.variables.values()]
    return [{"id": r.name, "doc": r.doc, "kind": r.kind, "eq": r.text, "source": r.source}
            for r in model.rules.values()]


def run(args: argparse.Namespace) -> int:
    listed = items(flags.load_kb(args).model, args.what)
    if args.json:
        flags.emit_json(listed)
    else:
        width = max((len(i["id"]) for i in listed), default=0)
        for i in listed:
            extra = i.get("kind") or i.get("unit") or ""
            print(f"{i['id']:<{width}}  {extra:<12}  {i['doc']}")
    return 0
