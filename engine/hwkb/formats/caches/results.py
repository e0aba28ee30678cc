"""Results of a costly computation kept on disk, keyed by a digest of everything it read.

Two computations need SymPy where their result does not: the audit's analysis of a
pattern of stated keys (:mod:`hwkb.audit.analysis`, folder ``checks``) and the roots
of a joint block of laws at given numbers (:mod:`hwkb.solving.solver`, folder
``blocks``). Each result is JSON text, one file an entry in its folder, signed like
every entry (:mod:`hwkb.formats.caches.entries`): named by the digest of the inputs
the caller states, and used only if its HMAC matches, so a forged or foreign entry
is a miss and the computation runs again. Without a directory nothing touches the
disk.
"""
from __future__ import annotations

from hwkb.formats.caches.directory import CacheDirectory
from hwkb.formats.caches.entries import digest, read_entry, write_entry

__all__ = ["ResultCache"]


class ResultCache:
    """Source (a digest of what a computation read) -> its result as JSON text, in ``directory / folder``."""

    def __init__(self, directory: CacheDirectory | None, folder: str):
        self.directory = directory
        self.folder = folder

    def source(self, *parts: str) -> str:
        return digest(self.folder, *parts)

    def get(self, source: str) -> str | None:
        if self.directory is None:
            return None
        return read_entry(self.directory, self._path(source), source)

    def put(self, source: str, payload: str) -> None:
        if self.directory is not None:
            write_entry(self.directory, self._path(source), source, payload)

    def _path(self, source: str):
        return self.directory / self.folder / f"{source[:40]}.json"
