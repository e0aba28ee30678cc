"""The solution cache: solved relation directions, kept on disk.

A :class:`SolutionCache` keeps solved relation directions, so a warm
``hwkb solve`` neither calls ``sympy.solve`` nor imports SymPy. Entries are
stored as numeric code in the KB's own expression language (the text
``sympy.lambdify`` would run) and read back through the whitelist parser
(:mod:`hwkb.definitions.expressions`), then compiled by the project's own
compiler (:mod:`hwkb.definitions.compiled`): a tampered cache file can at worst
give a wrong formula, never run code, and every entry is checked against the
rule it claims to solve before it is trusted. Each entry carries an HMAC, under
the cache's secret (:mod:`hwkb.formats.caches.directory`), of its key (the hash
of the template it solves, its position, the entry format and the SymPy version,
read without importing SymPy) and its text; an entry that does not match it is a
miss, so a forged entry (a "-" for a direction that has a solution, a formula that
agrees at the trial points) changes no answer. Writes are atomic (a temporary
file renamed into place). A cache that cannot be read or written is ignored.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import re
from functools import lru_cache
from pathlib import Path

from hwkb.definitions.limits import read_regular_file
from hwkb.errors import KBError
from hwkb.formats.caches.directory import CacheDirectory, trusted
from hwkb.formats.caches.entries import write_cache_file

__all__ = ["SolutionCache", "UNSOLVABLE", "solver_version"]

log = logging.getLogger("hwkb.cache")
#: the entry of a direction that has no explicit solution
UNSOLVABLE = "-"
#: the form of a solution entry: the numeric code of ``sympy.lambdify`` in the KB's expression syntax
_ENTRY_FORMAT = "lambdify-code-1"


class SolutionCache:
    """Key (a hash of the template, the position and the SymPy version) -> solution text.

    With no directory the entries live in memory only.
    """

    def __init__(self, directory: CacheDirectory | None = None):
        self.directory = directory
        self.path = None if directory is None else directory / "solutions.json"
        self._entries: dict[str, str] | None = None

    @classmethod
    def in_directory(cls, directory: Path | CacheDirectory | None) -> "SolutionCache":
        """The cache kept in ``directory`` (if hwkb may trust it), or one in memory when None."""
        return cls(trusted(directory))

    def _load(self) -> dict[str, str]:
        if self._entries is None:
            self._entries = {}
            if self.path is not None and self.path.is_file():
                try:
                    data = json.loads(read_regular_file(self.path))
                except (KBError, ValueError, RecursionError) as exc:
                    log.info("ignoring unreadable cache %s: %s", self.path, exc)
                    data = None
                if isinstance(data, dict):
                    self._entries = {k: e["text"] for k, e in data.items() if _intact(self.directory, k, e)}
        return self._entries

    @staticmethod
    def key(template: str, position: int) -> str:
        source = f"{_ENTRY_FORMAT}|{solver_version()}|{template}|{position}"
        return hashlib.sha256(source.encode()).hexdigest()[:32]

    def get(self, key: str) -> str | None:
        return self._load().get(key)

    def put(self, key: str, text: str) -> None:
        entries = self._load()
        if entries.get(key) == text:
            return
        entries[key] = text
        if self.directory is not None:
            write_cache_file(self.path, json.dumps(
                {k: {"text": t, "hmac": self.directory.sign(k, t)} for k, t in entries.items()}, sort_keys=True))


@lru_cache(maxsize=None)
def solver_version() -> str:
    """The installed SymPy's version, read from its release file: importing SymPy to ask costs a third of a
    second, and a warm solve imports no SymPy at all."""
    try:
        spec = importlib.util.find_spec("sympy")
        text = Path(spec.origin).with_name("release.py").read_text(encoding="utf-8")
    except (AttributeError, TypeError, ValueError, OSError):
        return "unknown"
    found = re.search(r"""__version__\s*=\s*["']([^"']+)["']""", text)
    return found.group(1) if found else "unknown"


def _intact(directory: CacheDirectory, key: object, entry: object) -> bool:
    """Whether a stored entry is whole and ours: its text with the HMAC of its key and text."""
    return (isinstance(key, str) and isinstance(entry, dict) and isinstance(entry.get("text"), str)
            and directory.signed(entry.get("hmac"), key, entry["text"]))
