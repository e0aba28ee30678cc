"""Checksummed cache entries on disk: how the entity index and the entity cache are written and read back.

An entry is one file: a first line ``{"source": ..., "checksum": ...}`` and then
its payload (JSON text). ``source`` names what the entry was made from (a hash
of its inputs); ``checksum`` is the hash of the payload as written. An entry is
used only if both match: a truncated, edited or foreign entry is a miss, never
wrong data. Writes are atomic (a temporary file renamed into place); a cache that
cannot be read or written is skipped, never an error.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

from hwkb.definitions.limits import read_regular_file
from hwkb.errors import KBError

__all__ = ["digest", "read_entry", "write_entry"]

log = logging.getLogger("hwkb.cache")


def digest(*parts: str) -> str:
    """The SHA-256 of ``parts`` (joined by a separator no part can forge), in hex."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(f"{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


def read_entry(path: Path, source: str) -> str | None:
    """The payload of the entry at ``path`` if it was made from ``source`` and is whole; else None."""
    try:
        if not path.is_file():
            return None
        header, _, payload = read_regular_file(path).partition("\n")
        fields = json.loads(header)
        if fields.get("source") == source and fields.get("checksum") == digest(payload):
            return payload
        log.info("ignoring cache entry %s: it does not match its source or its checksum", path)
    except (KBError, OSError, ValueError, AttributeError) as exc:
        log.info("ignoring unreadable cache entry %s: %s", path, exc)
    return None


def write_entry(path: Path, source: str, payload: str) -> None:
    """Store ``payload`` made from ``source`` at ``path`` (atomically); skipped if the cache cannot be written."""
    header = json.dumps({"source": source, "checksum": digest(payload)})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:8]}-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(header + "\n" + payload)
        os.replace(tmp, path)
    except OSError as exc:
        log.info("cannot write cache entry %s: %s", path, exc)
