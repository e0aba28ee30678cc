"""Signed cache entries on disk: how the node cache, the entity index and the entity cache are written and
read back, and the one atomic write every cache file goes through.

An entry is one file: a first line ``{"source": ..., "hmac": ...}`` and then
its payload (JSON text). ``source`` names what the entry was made from (a hash
of its inputs); ``hmac`` signs source and payload with the cache's secret
(:class:`~hwkb.formats.caches.directory.CacheDirectory`). An entry is used only
if both match: a truncated, edited, re-hashed or foreign entry is a miss, never
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
from hwkb.formats.caches.directory import CacheDirectory

__all__ = ["digest", "read_entry", "write_entry", "write_cache_file"]

log = logging.getLogger("hwkb.cache")


def digest(*parts: str) -> str:
    """The SHA-256 of ``parts`` (joined by a separator no part can forge), in hex: what names an entry and
    what it was made from, never what vouches for it (that is the HMAC)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(f"{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


def read_entry(cache: CacheDirectory, path: Path, source: str) -> str | None:
    """The payload of the entry at ``path`` if it was made from ``source`` and signed by ``cache``; else None."""
    try:
        if not path.is_file():
            return None
        header, _, payload = read_regular_file(path).partition("\n")
        fields = json.loads(header)
        if fields.get("source") == source and cache.signed(fields.get("hmac"), source, payload):
            return payload
        log.info("ignoring cache entry %s: it does not match its source or its HMAC", path)
    except (KBError, OSError, ValueError, AttributeError, RecursionError) as exc:
        log.info("ignoring unreadable cache entry %s: %s", path, exc)
    return None


def write_entry(cache: CacheDirectory, path: Path, source: str, payload: str) -> None:
    """Store ``payload`` made from ``source`` at ``path``, signed by ``cache`` (atomically); skipped if the cache
    cannot be written."""
    header = json.dumps({"source": source, "hmac": cache.sign(source, payload)})
    write_cache_file(path, header + "\n" + payload)


def write_cache_file(path: Path, text: str) -> None:
    """Replace the cache file at ``path`` by ``text`` atomically (a temporary file renamed into place), so a
    reader never sees half of it; skipped, with a log line, if the cache cannot be written."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:8]}-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        log.info("cannot write cache file %s: %s", path, exc)
