"""A disk cache of composed YAML node trees, so a cold start does not re-scan unchanged KB files.

Scanning YAML in pure Python is most of what loading the KB costs. The tree a
file composes to (tags, scalar text, styles, line and column of every node) is
stored as plain JSON under the hash of the file's text and the ruamel.yaml
version; the loader then walks the rebuilt nodes exactly as it walks freshly
composed ones, so every check and every error message stays the same. JSON
holds only strings and numbers: a tampered entry can at worst give a wrong
tree of data, never run code. An edited file has a new hash, so it is composed
afresh. The cache sits beside the solution cache (:mod:`hwkb.formats.caches`) and is
off when that is.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from ruamel.yaml import __version__ as _RUAMEL_VERSION
from ruamel.yaml.error import StreamMark
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from hwkb.formats.caches import cache_directory

__all__ = ["cached_tree", "store_tree"]

log = logging.getLogger("hwkb.cache")
_FORMAT = 1


def _entry(text: str) -> Path | None:
    directory = cache_directory()
    if directory is None:
        return None
    digest = hashlib.sha256(f"{_FORMAT}|{_RUAMEL_VERSION}|{text}".encode()).hexdigest()[:32]
    return directory / "nodes" / f"{digest}.json"


def cached_tree(text: str, name: str) -> Node | None:
    """The node tree of ``text`` if an earlier load stored it, else None."""
    path = _entry(text)
    if path is None or not path.is_file():
        return None
    try:
        return _build(json.loads(path.read_text(encoding="utf-8")), name)
    except (OSError, ValueError, TypeError, IndexError, KeyError, RecursionError) as exc:
        log.info("ignoring unreadable node cache %s: %s", path, exc)
        return None


def store_tree(text: str, root: Node) -> None:
    """Remember the tree ``text`` composed to; a cache that cannot be written is skipped."""
    path = _entry(text)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".nodes-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(_flat(root), handle, separators=(",", ":"))
        os.replace(tmp, path)
    except (OSError, RecursionError) as exc:
        log.info("cannot write node cache %s: %s", path, exc)


def _flat(node: Node) -> list:
    mark = node.start_mark
    if isinstance(node, ScalarNode):
        return ["s", node.tag, node.value, node.style, mark.line, mark.column]
    if isinstance(node, SequenceNode):
        return ["q", node.tag, [_flat(n) for n in node.value], node.flow_style, mark.line, mark.column]
    return ["m", node.tag, [[_flat(k), _flat(v)] for k, v in node.value], node.flow_style, mark.line, mark.column]


def _build(item: list, name: str) -> Node:
    kind, tag, value, style, line, column = item
    if not (isinstance(tag, str) and isinstance(line, int) and isinstance(column, int)):
        raise TypeError("malformed node entry")
    mark = StreamMark(name, 0, line, column)
    if kind == "s":
        if not isinstance(value, str):
            raise TypeError("malformed scalar entry")
        return ScalarNode(tag, value, mark, mark, style=style)
    if kind == "q":
        return SequenceNode(tag, [_build(n, name) for n in value], mark, mark, flow_style=style)
    if kind == "m":
        return MappingNode(tag, [(_build(k, name), _build(v, name)) for k, v in value], mark, mark, flow_style=style)
    raise TypeError(f"unknown node kind {kind!r}")
