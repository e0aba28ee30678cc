"""The check cache: the audit's analysis of each pattern of stated keys, kept on disk so a warm audit needs no SymPy.

The analysis (:mod:`hwkb.audit.analysis`) plans the laws for a pattern of stated
keys and cancels their expressions with SymPy; what it finds is plain data (the
checks as expression trees, :mod:`hwkb.audit.check_records`). An entry is that
data as JSON, one file a pattern under ``checks/``, signed like every entry
(:mod:`hwkb.formats.caches.entries`): named by the hash of what it was made from (the
analysis' inputs, which the caller states) and used only if its HMAC matches, so a
forged or foreign entry is a miss and the analysis runs again. Without a directory
nothing touches the disk.
"""
from __future__ import annotations

from hwkb.formats.caches.directory import CacheDirectory
from hwkb.formats.caches.entries import digest, read_entry, write_entry

__all__ = ["CheckCache"]


class CheckCache:
    """Source (a digest of what the analysis read) -> the analysis' payload (JSON text)."""

    def __init__(self, directory: CacheDirectory | None = None):
        self.directory = directory

    @staticmethod
    def source(*parts: str) -> str:
        return digest("audit-checks", *parts)

    def get(self, source: str) -> str | None:
        if self.directory is None:
            return None
        return read_entry(self.directory, self.directory / "checks" / f"{source[:40]}.json", source)

    def put(self, source: str, payload: str) -> None:
        if self.directory is not None:
            write_entry(self.directory, self.directory / "checks" / f"{source[:40]}.json", source, payload)
