"""Writing an entity file: the KB's own format, written beside the reader that reads it back.

``hwkb derive --write`` keeps derived values as an entity that extends the product they were derived for;
:func:`entity_file_text` writes such a document as the entity files (:mod:`hwkb.formats.entity_files`) read
it, through :func:`~hwkb.formats.yaml_nodes.dump_yaml` (every name and text reads back as it was, a newline
or a ``#`` included). A file of the KB's format is this stage's: the reader and the writer change together
when the format does, and a written file is a KB file like any other. The render stage writes a result's
forms for a reader; this is not one of them.

>>> print(entity_file_text("x-derived", "product", "x", {}, "a comment"), end="")
# a comment
x-derived:
  kind: product
  extends: x
  facts: {}
"""
from __future__ import annotations

from typing import Mapping

from hwkb.formats.yaml_nodes import dump_yaml

__all__ = ["entity_file_text", "DERIVED_SOURCE"]

#: how the source of every fact ``hwkb derive --write`` writes begins: the audit sets such facts aside, since
#: checking a derived value against the facts it came from is circular
DERIVED_SOURCE = "derived by hwkb"


def entity_file_text(entity: str, kind: str, extends: str, facts: Mapping[str, Mapping[str, str]],
                     comment: str = "") -> str:
    """A gpus/*.yaml document of one entity: ``facts`` maps each key to its ``value`` and ``source`` texts;
    ``comment`` opens the file on one line (a line break or other control character in it is escaped)."""
    shown = comment.encode("unicode_escape").decode("ascii")
    return ((f"# {shown}\n" if comment else "")
            + dump_yaml({entity: {"kind": kind, "extends": extends, "facts": {k: dict(v) for k, v in facts.items()}}}))
