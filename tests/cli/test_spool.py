"""The spool gives its texts back by key, whatever their size and however adding and reading interleave."""
from __future__ import annotations

from hwkb.cli.spool import WRITE_BUFFER, Spool


def test_texts_larger_than_the_buffer_and_adds_after_a_read():
    big = "é" * WRITE_BUFFER  # two bytes a character: twice the write buffer
    with Spool() as spool:
        spool.add((2,), big)
        spool.add((0,), "first")
        assert list(spool) == ["first", big]
        spool.add((1,), "added after a read")
        assert list(spool) == ["first", "added after a read", big]
        assert len(spool) == 3
