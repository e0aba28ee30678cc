"""hwkb.formats.yaml_nodes: YAML files as node trees, and the reader that reports every problem at file:line:col."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import hwkb
from hwkb.errors import LoadError, Location, UnitError
from hwkb.formats import yaml_nodes
from hwkb.formats.yaml_nodes import Declaration, NodeReader, read_yaml


@pytest.fixture
def node_of(tmp_path):
    """``node_of(text)`` -> (the root node of a file holding ``text``, its reader, the shared error list)."""
    def make(text: str):
        path = tmp_path / "f.yaml"
        path.write_text(text)
        errors = []
        return read_yaml(path, errors), NodeReader(path, errors), errors
    return make


def test_read_yaml_appends_instead_of_raising(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("a: [1\n")
    errors = []
    assert read_yaml(path, errors) is None
    assert len(errors) == 1 and errors[0].where.line == 2
    path.write_text("a: 1\n")
    assert read_yaml(path, errors).value[0][0].value == "a"
    assert len(errors) == 1


def test_an_unreadable_file_is_a_load_error(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_bytes(b"a: \xff\n")
    errors = []
    assert read_yaml(path, errors) is None
    (error,) = errors
    assert isinstance(error, LoadError) and error.message.startswith("cannot read file: ")
    assert read_yaml(tmp_path / "missing.yaml", errors) is None and len(errors) == 2


def test_mapping_reports_duplicates_unknown_and_missing_keys(node_of):
    root, reader, errors = node_of("a: 1\nb: 2\na: 3\nc: 4\n")
    fields = reader.mapping(root, "a thing", allowed=("a", "b", "d"), required=("d",))
    assert list(fields) == ["a", "b"] and fields["a"][1].value == "1"
    assert [(e.where.line, e.message, e.hint) for e in errors] == [
        (3, "duplicate key 'a' in a thing", "it is already given at line 1; keep one"),
        (4, "unknown field 'c' in a thing", "allowed: a, b, d"),
        (1, "a thing lacks 'd'", None)]


def test_scalars_lists_and_flags(node_of):
    root, reader, errors = node_of("t: text\nn: [a, b]\ni: 3\nf: 1.5\nyes: true\nno: maybe\nnull: \n"
                                   "q: 'quoted'\nlist: [1]\n")
    f = {k: v for k, (_, v) in reader.mapping(root, "x").items()}
    assert reader.text(f["t"], "t") == "text" and reader.names(f["t"], "t") == ["text"]
    assert reader.names(f["n"], "n") == ["a", "b"] and len(reader.items(f["n"], "n")) == 2
    assert [reader.plain_value(f[k]) for k in ("i", "f", "t", "n")] == [3, 1.5, "text", None]
    assert reader.flag(f["yes"], "yes") is True and errors == []
    assert reader.flag(f["no"], "no") is False
    assert reader.scalar(f["null"]) == "" and reader.scalar(f["null"], null=False) is None
    assert reader.scalar(f["n"]) is None and reader.text(f["null"], "null") is None
    assert reader.items(f["t"], "t") == []
    assert reader.is_mapping(root) and not reader.is_mapping(f["n"])
    assert reader.text_start(f["q"]).col == reader.at(f["q"]).col + 1
    assert [e.message for e in errors] == ["no must be true or false", "null must be a single line of text",
                                           "t must be a list"]


def test_error_and_declare(node_of):
    root, reader, errors = node_of("a: 1\nb: 2\n")
    (a_key, a), (b_key, _) = root.value
    reader.error(a, "a unit problem", "a hint", cls=UnitError)
    table = {}
    first = Declaration(reader, "x", a_key, {})
    reader.declare(table, "x", a_key, first)
    reader.declare(table, "x", b_key, Declaration(reader, "x", b_key, {}))
    assert table == {"x": first} and first.where == Location(str(reader.path), 1, 1)
    assert [type(e) for e in errors] == [UnitError, LoadError]
    assert errors[1].message == "'x' is declared twice" and errors[1].where.line == 2


def test_only_yaml_nodes_imports_ruamel():
    package = Path(hwkb.__file__).resolve().parent
    importers = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == "ruamel" or n.startswith("ruamel.") for n in names):
                importers.add(path.relative_to(package).as_posix())
    assert importers == {"formats/yaml_nodes.py"}


def test_module_surface():
    assert sorted(yaml_nodes.__all__) == ["Declaration", "Node", "NodeReader", "cached_tree", "dump_yaml", "read_yaml",
                                          "store_tree", "tree_entry"]


def test_the_control_characters_refused_are_unicodes_category_cc_exactly():
    import unicodedata
    from hwkb.formats import yaml_nodes
    control = yaml_nodes._CONTROL
    assert all((unicodedata.category(c) == "Cc") == bool(control.fullmatch(c)) for c in map(chr, range(0x110000)))
