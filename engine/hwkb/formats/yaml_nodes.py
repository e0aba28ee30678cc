"""YAML as node trees: reading a file, walking its nodes, and a disk cache of composed trees.

The only module that imports ruamel.yaml. The formats work on ruamel's node
tree (``compose``), not on constructed Python objects: nodes keep the text as
written (the audit needs the printed digits), their line and column, and every
duplicate key. A :class:`NodeReader` walks one file's nodes and appends every
problem, at ``file:line:col``, to a list shared by a whole load, so all of them
are reported together.

Scanning YAML in pure Python is most of what loading the KB costs, so the tree
a file composes to (tags, scalar text, styles, line and column of every node)
can be kept in a cache directory, as plain JSON under the hash of the file's
text and the ruamel.yaml version. The rebuilt nodes are walked exactly as fresh
ones, so every check and message stays the same. JSON holds only strings and
numbers: a tampered entry can at worst give a wrong tree of data, never run
code, and an unreadable one is a miss. An edited file has a new hash.
"""
from __future__ import annotations

import functools
import io
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ruamel.yaml import YAML
from ruamel.yaml import __version__ as _RUAMEL_VERSION
from ruamel.yaml.composer import MaxDepthExceededError
from ruamel.yaml.error import MarkedYAMLError, StreamMark, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.tag import Tag

from hwkb.definitions.limits import MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES, read_regular_file
from hwkb.errors import KBError, LimitError, LoadError, Location, suggest
from hwkb.formats.caches.directory import CacheDirectory, trusted
from hwkb.formats.caches.entries import digest, read_entry, write_entry

__all__ = ["Node", "NodeReader", "Declaration", "read_yaml", "dump_yaml", "cached_tree", "store_tree", "tree_entry"]

log = logging.getLogger("hwkb.cache")
_INT_TAG, _FLOAT_TAG, _NULL_TAG = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:null"
_CACHE_FORMAT = 3
#: Unicode's control characters (category Cc) exactly: one regular-expression search per text is 12x the
#: per-character category lookup over the KB's 1,200 texts (0.25 vs 3.2 ms a load)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def read_yaml(path: Path, errors: list[KBError], cache: Path | CacheDirectory | None = None, *, text: str | None = None) -> Node | None:
    """The node tree of one file, or None with the problem appended; ``cache``: the cache directory, if any;
    ``text``: the file's text if the caller has read it already.

    Only a regular file of at most MAX_YAML_BYTES is read; its tree may nest at most MAX_YAML_DEPTH deep and
    hold at most MAX_YAML_NODES nodes with every alias counted where it is used (an alias bomb is refused,
    not expanded).
    """
    try:
        text = read_regular_file(path, MAX_YAML_BYTES) if text is None else text
    except KBError as exc:
        errors.append(exc)
        return None
    cache = trusted(cache)
    root = cached_tree(text, str(path), cache)
    if root is not None:
        return root
    yaml = YAML(typ="safe", pure=True)
    yaml.max_depth = MAX_YAML_DEPTH
    try:
        root = yaml.compose(text)
    except MaxDepthExceededError as exc:
        mark = exc.problem_mark
        errors.append(LimitError("YAML nesting depth", MAX_YAML_DEPTH + 1, MAX_YAML_DEPTH,
                                 where=Location(str(path), mark.line + 1, mark.column + 1) if mark else Location(str(path))))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Location(str(path), mark.line + 1, mark.column + 1) if mark else Location(str(path))
        problem = " ".join(p for p in (exc.problem, exc.context) if p)
        errors.append(LoadError(f"malformed YAML: {problem}", where=where,
                                hint="check the indentation and the brackets around this place"))
    except YAMLError as exc:
        errors.append(LoadError(f"malformed YAML: {exc}", where=Location(str(path))))
    else:
        if root is None:
            return None
        count = _expanded_size(root)
        if count is None:
            errors.append(LoadError("an alias refers to a node that holds it", where=Location(str(path)),
                                    hint="a KB file is a tree: an alias may repeat a node, never hold itself"))
            return None
        if count > MAX_YAML_NODES:
            errors.append(LimitError("YAML nodes", count, MAX_YAML_NODES, where=Location(str(path)),
                                     hint="an alias counts once for every place it is used"))
            return None
        store_tree(text, root, cache)
        return root
    return None


def _expanded_size(root: Node) -> int | None:
    """The nodes of ``root`` with every alias counted where it is used; None if a node holds itself.

    Iterative, and each distinct node is sized once: an alias bomb costs its text, not its expansion.
    """
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children = _children(node)
        if children_done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            continue
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                return None
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def dump_yaml(data: dict) -> str:
    """``data`` (mappings, lists and text) as YAML that reads back to it: every scalar quoted as it needs
    (a newline, a '#', a leading '*'), mappings of plain values in flow style, keys in their order."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = None
    yaml.width = 4096
    yaml.sort_base_mapping_type_on_output = False
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


class NodeReader:
    """Walks one file's nodes, appending every problem to a shared list."""

    def __init__(self, path: Path, errors: list[KBError]):
        self.path, self.errors = path, errors

    def at(self, node: Node) -> Location:
        return Location(str(self.path), node.start_mark.line + 1, node.start_mark.column + 1)

    def text_start(self, node: Node) -> Location:
        """Where a scalar's text begins: one past the opening quote of a quoted scalar."""
        where = self.at(node)
        if isinstance(node, ScalarNode) and node.style in ("'", '"') and where.col is not None:
            return Location(where.file, where.line, where.col + 1)
        return where

    def error(self, node: Node, message: str, hint: str | None = None, cls=LoadError):
        self.errors.append(cls(message, where=self.at(node), hint=hint))

    def declare(self, table: dict, name: str, key_node: Node, item) -> None:
        """Put ``item`` into ``table`` under ``name``, or report that the name is declared already."""
        if name in table:
            self.error(key_node, f"{name!r} is declared twice", f"the first is at {table[name].where}")
        else:
            table[name] = item

    def mapping(self, node: Node, what: str, allowed: Iterable[str] | None = None,
                required: Iterable[str] = ()) -> dict[str, tuple[Node, Node]] | None:
        """Keys to (key node, value node); reports duplicates, unknown and missing keys."""
        if not isinstance(node, MappingNode):
            self.error(node, f"{what} must be a mapping of 'key: value' lines")
            return None
        out: dict[str, tuple[Node, Node]] = {}
        allowed = list(allowed) if allowed is not None else None
        suggested: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.error(key_node, f"a key in {what} must be a plain name")
                continue
            key = key_node.value
            if key in out:
                first = self.at(out[key][0])
                self.error(key_node, f"duplicate key {key!r} in {what}",
                           f"it is already given at line {first.line}; keep one")
                continue
            if allowed is not None and key not in allowed:
                close = suggest(key, allowed)
                self.error(key_node, f"unknown field {key!r} in {what}",
                           f"did you mean {close[0]!r}?" if close else f"allowed: {', '.join(allowed)}")
                suggested.update(close[:1])
                continue
            out[key] = (key_node, value_node)
        for key in required:
            if key not in out and key not in suggested:  # a typo of it is reported already
                self.error(node, f"{what} lacks '{key}'")
        return out

    def text(self, node: Node, what: str) -> str | None:
        """A scalar's text; a list, a mapping, null or a control character (a terminal escape, a newline) is
        reported: KB text is shown on terminals as it is."""
        if not isinstance(node, ScalarNode) or node.tag == _NULL_TAG:
            self.error(node, f"{what} must be a single line of text")
            return None
        found = _CONTROL.search(str(node.value))
        control = found and found.group()
        if found is not None:
            self.error(node, f"{what} holds the control character {control!r}", "write it as one line of plain text")
            return None
        return str(node.value)

    def names(self, node: Node, what: str) -> list[str] | None:
        if isinstance(node, ScalarNode):
            return [node.value]
        if isinstance(node, SequenceNode) and all(isinstance(n, ScalarNode) for n in node.value):
            return [n.value for n in node.value]
        self.error(node, f"{what} must be a name or a list of names")
        return None

    def items(self, node: Node, what: str) -> list[Node]:
        if not isinstance(node, SequenceNode):
            self.error(node, f"{what} must be a list")
            return []
        return list(node.value)

    def flag(self, node: Node, what: str) -> bool:
        """``true`` or ``false``; anything else is reported and read as false."""
        if not (isinstance(node, ScalarNode) and node.value in ("true", "false")):
            self.error(node, f"{what} must be true or false")
        return isinstance(node, ScalarNode) and node.value == "true"

    @staticmethod
    def is_mapping(node: Node) -> bool:
        return isinstance(node, MappingNode)

    @staticmethod
    def scalar(node: Node, null: bool = True) -> str | None:
        """The text of a scalar (a null one only if ``null``); None for a list or a mapping."""
        if not isinstance(node, ScalarNode) or (node.tag == _NULL_TAG and not null):
            return None
        return str(node.value)

    @staticmethod
    def plain_value(node: Node) -> int | float | str | None:
        """A scalar as the number or text YAML reads it as; None for a list or a mapping."""
        if not isinstance(node, ScalarNode):
            return None
        try:
            if node.tag == _INT_TAG:
                return int(node.value)
            if node.tag == _FLOAT_TAG:
                return float(node.value)
        except ValueError:  # YAML's other spellings (0x10, 0o17, .inf): kept as text
            pass
        return node.value


@dataclass(frozen=True)
class Declaration:
    """A named item of a file, as written: built once every file is read, so it may refer to any of them."""
    reader: NodeReader
    name: str
    key_node: Node
    fields: dict[str, tuple[Node, Node]]

    @property
    def where(self) -> Location:
        return self.reader.at(self.key_node)


# ---------------------------------------------------------------- the cache of composed trees

def tree_entry(text: str, cache: CacheDirectory | None) -> Path | None:
    """The cache file of the tree ``text`` composes to, or None without a cache directory."""
    if cache is None:
        return None
    return cache / "nodes" / f"{digest(str(_CACHE_FORMAT), _RUAMEL_VERSION, text)[:32]}.json"


def cached_tree(text: str, name: str, cache: CacheDirectory | None) -> Node | None:
    """The node tree of ``text`` if an earlier load stored it in ``cache``, else None.

    An entry (:mod:`hwkb.formats.caches.entries`) is used only if it names the hash of ``text`` as its source and
    the cache's HMAC vouches for it: a corrupted or edited entry is a miss, never a wrong tree.
    """
    path = tree_entry(text, cache)
    payload = None if path is None else read_entry(cache, path, digest(text))
    if payload is None:
        return None
    try:
        return _build(json.loads(payload), name)
    except (ValueError, TypeError, IndexError, KeyError, RecursionError) as exc:
        log.info("ignoring unreadable node cache %s: %s", path, exc)
        return None


def store_tree(text: str, root: Node, cache: CacheDirectory | None) -> None:
    """Remember the tree ``text`` composed to, with the hash of ``text``; a cache that cannot be written is
    skipped."""
    path = tree_entry(text, cache)
    if path is None:
        return
    try:
        tree = _dumps(_flat(root))
    except RecursionError as exc:
        log.info("cannot write node cache %s: %s", path, exc)
        return
    write_entry(cache, path, digest(text), tree)


def _dumps(tree: list) -> str:
    return json.dumps(tree, separators=(",", ":"))


def _flat(node: Node) -> list:
    mark = node.start_mark
    if isinstance(node, ScalarNode):
        return ["s", node.tag, node.value, node.style, mark.line, mark.column]
    if isinstance(node, SequenceNode):
        return ["q", node.tag, [_flat(n) for n in node.value], node.flow_style, mark.line, mark.column]
    return ["m", node.tag, [[_flat(k), _flat(v)] for k, v in node.value], node.flow_style, mark.line, mark.column]


@functools.lru_cache(maxsize=256)
def _shared_tag(tag: str) -> Tag:
    """One Tag per tag text, its text worked out once: ruamel decodes a Tag's text character by character on
    every node's first ``.tag``, most of what rebuilding a cached tree cost."""
    shared = Tag(suffix=tag)
    str(shared)
    return shared


def _build(item: list, name: str) -> Node:
    kind, tag, value, style, line, column = item
    if not (isinstance(tag, str) and isinstance(line, int) and isinstance(column, int)):
        raise TypeError("malformed node entry")
    mark = StreamMark(name, 0, line, column)
    tag = _shared_tag(tag)
    if kind == "s":
        if not isinstance(value, str):
            raise TypeError("malformed scalar entry")
        return ScalarNode(tag, value, mark, mark, style=style)
    if kind == "q":
        return SequenceNode(tag, [_build(n, name) for n in value], mark, mark, flow_style=style)
    if kind == "m":
        return MappingNode(tag, [(_build(k, name), _build(v, name)) for k, v in value], mark, mark, flow_style=style)
    raise TypeError(f"unknown node kind {kind!r}")
