"""The entity index: which entity is written in which file, so a question reads only the files it needs.

A load with a cache directory keeps, per set of KB directories, an index of
their entity files (``DIR/index/*.json``, a :mod:`~hwkb.formats.caches.entries`
entry): for each file that loaded without a problem, its size, modification time
and hash, and each entity's id, place and ``extends``. The index is valid for one
*fingerprint*: the hash of the rule files, the units and the loader's own code,
everything an entity's build depends on besides its own text. The next load
stats each file: one whose size and time match is taken from the index without
being read; one whose text hash still matches is too; any other is read and built
afresh. Duplicate ids and ``extends`` are checked on the whole index at every load,
so those errors never depend on what was read.

:class:`LazyEntities` is the table of a load's entities: every id is known from
the start, an entity is built when it is first asked for (its whole file at
once, from the entity cache when that file's text is unchanged), and iterating
the values builds them all.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple

import hwkb.definitions
import hwkb.formats
from hwkb.definitions.model import Entity, EntityId
from hwkb.errors import KBErrors, LoadError, Location
from hwkb.formats.caches.directory import CacheDirectory
from hwkb.formats.caches.entries import digest, read_entry, write_entry

__all__ = ["Outline", "FileRecord", "EntityIndex", "LazyEntities", "fingerprint"]

_FORMAT = "1"


class Outline(NamedTuple):
    """What a load knows of an entity without building it: its file, its parents and the places of both."""
    file: str
    extends: tuple[EntityId, ...]
    where: Location
    extends_where: Location | None


class FileRecord(NamedTuple):
    """An entity file as last read: size, modification time (ns), hash of its text, and of each entity it
    declares, in order, (id, line, col, extends, line and col of the ``extends`` value or None)."""
    size: int
    mtime: int
    sha: str
    entities: tuple[tuple[EntityId, int, int, tuple[EntityId, ...], int | None, int | None], ...]

    def outlines(self, file: str) -> list[tuple[EntityId, Outline]]:
        return [(eid, Outline(file, extends, Location(file, line, col),
                              None if e_line is None else Location(file, e_line, e_col)))
                for eid, line, col, extends, e_line, e_col in self.entities]

    @classmethod
    def of(cls, text: str, size_and_time: tuple[int, int], entities: Iterable[Entity]) -> "FileRecord":
        return cls(*size_and_time, digest(text), tuple(
            (e.id, e.where.line, e.where.col, tuple(e.extends), *((e.extends_where.line, e.extends_where.col)
                                                                  if e.extends_where else (None, None)))
            for e in entities))


def size_and_time(path: Path) -> tuple[int, int] | None:
    """A regular file's size and modification time in ns (followed through links); None for anything else."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None


def fingerprint(texts: Iterable[str]) -> str:
    """The hash of ``texts`` (the rule files and the units, as read) and of the code that builds entities."""
    code = []
    for package in (hwkb.definitions, hwkb.formats):
        folder = Path(package.__file__).parent
        for path in sorted(folder.rglob("*.py")):
            try:
                code.append(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                code.append(os.urandom(16).hex())  # unreadable code: never matches, every load reads all
    return digest(_FORMAT, *code, *texts)


class EntityIndex:
    """The stored index of one set of KB directories, for one fingerprint (empty if none matches)."""

    def __init__(self, cache: CacheDirectory | None, sources: Iterable[str], fingerprint: str):
        self.cache, self.fingerprint = cache, fingerprint
        self.path = None if cache is None else cache / "index" / f"{digest(*sources)[:32]}.json"
        self.records: dict[str, FileRecord] = {}
        payload = None if self.path is None else read_entry(cache, self.path, fingerprint)
        if payload is not None:
            try:
                self.records = {file: _record(item) for file, item in json.loads(payload).items()}
            except (ValueError, TypeError, RecursionError):
                self.records = {}

    def unchanged(self, path: Path, text: Callable[[], str | None]) -> FileRecord | None:
        """The record of ``path`` if the file is as it was (same size and time, or same text); else None.

        ``text`` reads the file: it is called only when the size or the time differ.
        """
        record = self.records.get(str(path))
        now = size_and_time(path)
        if record is None or now is None:
            return None
        if now == (record.size, record.mtime):
            return record
        current = text()
        if current is not None and digest(current) == record.sha:
            return record._replace(size=now[0], mtime=now[1])
        return None

    def write(self, records: Mapping[str, FileRecord]) -> None:
        """Store ``records`` (the files that loaded cleanly) if they differ from what was read."""
        if self.path is not None and dict(records) != self.records:
            write_entry(self.cache, self.path, self.fingerprint, json.dumps(records, separators=(",", ":")))


def _record(item) -> FileRecord:
    size, mtime, sha, entities = item
    rows = []
    for eid, line, col, extends, e_line, e_col in entities:
        if not (isinstance(eid, str) and isinstance(line, int) and isinstance(col, int)
                and isinstance(extends, list) and all(isinstance(p, str) for p in extends)
                and ((e_line, e_col) == (None, None) or (isinstance(e_line, int) and isinstance(e_col, int)))):
            raise TypeError("malformed index row")
        rows.append((eid, line, col, tuple(extends), e_line, e_col))
    if not (isinstance(size, int) and isinstance(mtime, int) and isinstance(sha, str)):
        raise TypeError("malformed index record")
    return FileRecord(size, mtime, sha, tuple(rows))


class LazyEntities(Mapping[EntityId, Entity]):
    """Every entity of a load by id, each built when first asked for; ``read(file)`` builds one file's entities
    (it raises KBErrors for a file that no longer loads)."""

    def __init__(self, outlines: Mapping[EntityId, Outline], built: Mapping[EntityId, Entity],
                 read: Callable[[str], Mapping[EntityId, Entity]]):
        self._outlines, self._built, self._read = dict(outlines), dict(built), read

    def __getitem__(self, eid: EntityId) -> Entity:
        entity = self._built.get(eid)
        if entity is not None:
            return entity
        outline = self._outlines[eid]  # KeyError for an unknown id, as a dict gives
        for other, entity in self._read(outline.file).items():
            if other in self._outlines and self._outlines[other].file == outline.file:
                self._built.setdefault(other, entity)
        if eid not in self._built:
            raise KBErrors([LoadError(f"entity {eid!r} is no longer in this file", where=outline.where,
                                      hint="the file changed while hwkb read it; run the command again")])
        return self._built[eid]

    def __contains__(self, eid) -> bool:
        return eid in self._outlines

    def __iter__(self) -> Iterator[EntityId]:
        return iter(self._outlines)

    def __len__(self) -> int:
        return len(self._outlines)

    @property
    def outlines(self) -> Mapping[EntityId, Outline]:
        """Each entity's file, parents and place, without building any."""
        return self._outlines

    @property
    def built(self) -> int:
        """How many entities have been built so far."""
        return len(self._built)
