"""A validator for the part of JSON Schema (draft 2020-12) that ``hwkb/cli/schema.json`` uses.

Keywords: ``type``, ``enum``, ``const``, ``required``, ``properties``, ``items``, ``minItems``, ``anyOf``,
``allOf``, ``if``/``then``/``else`` and local ``$ref`` (``#/$defs/...``); the rest are annotations. Written
here rather than adding ``jsonschema`` to the test extra: that would bring attrs, referencing and a compiled
rpds-py for a dozen keywords. A keyword the schema starts using and this file does not know fails the test
(:data:`KNOWN`), so the two cannot drift apart silently.
"""
from __future__ import annotations

KNOWN = {"type", "enum", "const", "required", "properties", "items", "minItems", "anyOf", "allOf", "if", "then",
         "else", "$ref", "$defs", "$schema", "$id", "title", "description"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(value, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def resolve(root: dict, ref: str) -> dict:
    assert ref.startswith("#/"), f"only local references: {ref}"
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def errors(value, schema: dict, root: dict | None = None, path: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema``, as ``path: what``; empty when it validates."""
    root = schema if root is None else root
    unknown = set(schema) - KNOWN
    if unknown:
        return [f"{path}: the validator does not know {sorted(unknown)}"]
    out: list[str] = []
    if "$ref" in schema:
        out += errors(value, resolve(root, schema["$ref"]), root, path)
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(is_type(value, n) for n in names):
            return out + [f"{path}: {value!r:.60} is not {' or '.join(names)}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: {value!r} is not {schema['const']!r}")
    if isinstance(value, dict):
        out += [f"{path}: {key!r} is missing" for key in schema.get("required", ()) if key not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                out += errors(value[key], sub, root, f"{path}.{key}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += errors(item, schema["items"], root, f"{path}[{i}]")
    if "anyOf" in schema and all(errors(value, sub, root, path) for sub in schema["anyOf"]):
        out.append(f"{path}: matches none of anyOf")
    for sub in schema.get("allOf", ()):
        out += errors(value, sub, root, path)
    if "if" in schema:
        branch = "then" if not errors(value, schema["if"], root, path) else "else"
        if branch in schema:
            out += errors(value, schema[branch], root, path)
    return out
