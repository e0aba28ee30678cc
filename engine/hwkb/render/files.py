"""The one writer of every file hwkb writes (a result's form, a plot, an entity file): atomically, and in place of
nothing but a regular file.

A file is written to a temporary name beside the target and renamed into place, so a crash leaves either the
old file or the new one, never half of one. The new file keeps the mode of the one it replaces (a new one
gets the mode the umask gives); a symbolic link, a device, a pipe or a directory is never replaced. It lives
in the render stage so that the plots, drawn here, are written by it too.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable

from hwkb.errors import Location, QueryError

__all__ = ["check_target", "write_atomic"]

_NOT_REGULAR = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"),
                (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def check_target(path: Path, overwrite: bool = False) -> int | None:
    """Whether ``path`` may be written: its parent a directory, itself absent or (with ``overwrite``) a regular
    file, never followed through a link. Returns the mode of the file it would replace, None for a new one;
    raises :class:`QueryError` otherwise. A command calls it before its work, so a bad path fails at once."""
    path = Path(path)
    where = Location(str(path))
    try:
        existing = path.lstat()
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise QueryError(f"cannot write here: {exc.strerror}", where=where) from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise QueryError("is a directory", where=where, hint="give a file name")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        kind = next((name for test, name in _NOT_REGULAR if test(existing.st_mode)), "not a file")
        raise QueryError(f"is {kind}, not a regular file", where=where, hint="hwkb replaces only regular files")
    if existing is not None and not overwrite:
        raise QueryError("the file exists", where=where, hint="give --force to replace it")
    if not path.parent.is_dir():
        raise QueryError("no such directory", where=Location(str(path.parent)))
    return None if existing is None else stat.S_IMODE(existing.st_mode)


def write_atomic(path: Path, text: str | bytes | Iterable[str], overwrite: bool = False) -> None:
    """Write ``text`` (bytes, or text or its pieces) to ``path`` all at once: the one writer of every file hwkb
    writes. Refuses to replace a file unless asked, and anything but a regular file ever (a link is not
    followed); every failure is a :class:`QueryError`."""
    path = Path(path)
    where = Location(str(path))
    existing_mode = check_target(path, overwrite)
    mode = existing_mode if existing_mode is not None else 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise QueryError(f"cannot write here: {exc.strerror}", where=where) from None
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as handle:
                handle.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text) if isinstance(text, str) else handle.writelines(text)
        os.chmod(tmp, mode)
        if not overwrite and os.path.lexists(path):  # made meanwhile: not ours to replace
            raise QueryError("the file exists", where=where, hint="give --force to replace it")
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise QueryError(f"cannot write: {exc.strerror or exc}", where=where) from None
    except BaseException:  # the pieces failed to come: the old file stays, the partial one goes
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
