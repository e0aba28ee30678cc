"""The one JSON form of every result: an object with ``"command"`` and ``"status"`` first, then the result's fields.

The authoritative schema is ``hwkb/cli/schema.json``; every command's ``--json`` validates against it.
"""
from __future__ import annotations

import json

from hwkb.errors import KBError, KBErrors
from hwkb.render.note_words import is_note_data, note_text

__all__ = ["json_text", "document", "error_document", "plain"]


def json_text(document, compact: bool = False) -> str:
    """The one JSON text of every document; ``compact`` for documents too large to indent quickly."""
    if compact:
        return json.dumps(document, separators=(",", ":"), default=plain) + "\n"
    return json.dumps(document, indent=2, default=plain) + "\n"


def document(command: str | None, result: dict) -> dict:
    """A command's JSON document: ``{"command", "status", ...}``, the command first, then the result's fields.

    A result's ``to_dict()`` names the question it answers (``"command": "solve"`` for a solution); the
    command that printed it wins (``explain`` prints a solution too).
    """
    return {"command": command, "status": result.get("status"), **{k: v for k, v in result.items() if k != "command"}}


def error_document(command: str | None, error: KBError) -> dict:
    """Bad input as JSON: ``{"command", "status": "error", "errors": [{"file", "line", "column", "message", "hint"}]}``."""
    problems = error.errors if isinstance(error, KBErrors) else [error]
    return {"command": command, "status": "error", "errors": [e.to_dict() for e in problems]}


def plain(obj):
    """What ``json`` cannot write itself: a note that is data in words, a result's dict, a set or tuple as a list,
    anything else as its text."""
    if is_note_data(obj):
        return note_text(obj)
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)
