"""Writing derived values back as a KB entity file, atomically.

``hwkb derive --gpu b200 --write my_kb/gpus/b200_derived.yaml`` writes an
entity ``b200-derived`` that extends ``b200`` and states every derived value
with the rule it came from as its source. The file is written to a temporary
name beside the target and renamed into place, so a crash leaves either the
old file or the new one, never half of one.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

from hwkb.errors import Location, QueryError
from hwkb.solving.values import Value

__all__ = ["derived_entity_text", "write_atomic"]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def derived_entity_text(entity: str, kind: str, values: Iterable[Value]) -> str:
    """A gpus/*.yaml document: one entity extending ``entity`` with the values as facts.

    >>> print(derived_entity_text("x", "product", []), end="")
    # derived by hwkb from x; every fact names the rule that gave it
    x-derived:
      kind: product
      extends: x
      facts: {}
    """
    lines = [f"# derived by hwkb from {entity}; every fact names the rule that gave it",
             f"{entity}-derived:", f"  kind: {kind}", f"  extends: {entity}"]
    facts = [f"    {v.key}: {{value: {_quote(f'{v.magnitude:.12g} {v.unit}'.strip())}, "
             f"source: {_quote(f'derived by hwkb, rule {v.origin.rule}')}}}" for v in values]
    lines += ["  facts:", *facts] if facts else ["  facts: {}"]
    return "\n".join(lines) + "\n"


def write_atomic(path: Path, text: str, overwrite: bool = False) -> None:
    """Write ``text`` to ``path`` all at once; refuse to replace a file unless asked."""
    path = Path(path)
    if path.exists() and not overwrite:
        raise QueryError("the file exists", where=Location(str(path)), hint="give --force to replace it")
    if path.is_dir():
        raise QueryError("is a directory", where=Location(str(path)), hint="give a file name")
    if not path.parent.is_dir():
        raise QueryError("no such directory", where=Location(str(path.parent)))
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise QueryError(f"cannot write here: {exc.strerror}", where=Location(str(path))) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise QueryError(f"cannot write: {exc.strerror}", where=Location(str(path))) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
