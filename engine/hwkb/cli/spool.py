"""Texts set aside on an anonymous temporary file and given back in sorted order.

A database's audit report lists its entities most severe first, which is known
only when the last one is audited. Rather than keep 28,000 entity audits in
memory, the CLI renders each as it comes, sets the text aside here with its
sort key, and writes them out in order at the end: memory holds one small
index entry per entity. The file has no name on disk (``tempfile.TemporaryFile``),
so no other process can put anything in it, and it goes when it is closed.

>>> with Spool() as spool:
...     spool.add((1, "b"), "second")
...     spool.add((0, "z"), "first")
...     list(spool), list(spool)
(['first', 'second'], ['first', 'second'])
"""
from __future__ import annotations

import tempfile
from typing import Any, Iterator

from hwkb.errors import QueryError

__all__ = ["Spool"]

WRITE_BUFFER = 1 << 20


class Spool:
    """Texts with sort keys; iterating gives them by key, equal keys in the order they were added."""

    def __init__(self):
        # written through a large buffer (an entity's text is a few KB), read back unbuffered: a buffer would read a
        # whole megabyte at every jump of the sorted order
        self._file = tempfile.TemporaryFile(buffering=WRITE_BUFFER)
        self._index: list[tuple[Any, int, int, int]] = []  # (key, order added, offset, length in bytes)
        self._end = 0

    def add(self, key: Any, text: str) -> None:
        data = text.encode("utf-8")
        try:
            self._file.write(data)
        except OSError as exc:
            raise QueryError(f"cannot set the report aside in a temporary file: {exc.strerror}",
                             hint="free space in the temporary directory (TMPDIR), or audit fewer rows") from None
        self._index.append((key, len(self._index), self._end, len(data)))
        self._end += len(data)

    def __len__(self) -> int:
        return len(self._index)

    def __iter__(self) -> Iterator[str]:
        self._file.flush()
        raw = self._file.raw
        for _, _, offset, length in sorted(self._index):
            raw.seek(offset)
            data = raw.read(length)
            if len(data) != length:
                raise QueryError("the report set aside on a temporary file came back short",
                                 hint="something truncated the temporary directory's files (TMPDIR); run again")
            yield data.decode("utf-8")
        self._file.seek(self._end)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
