"""Where hwkb keeps its disk caches, and whether it may trust them.

What a cache holds decides answers when it is read back (a fact's value, a solved
direction), so a cache is used only if no one else can write it: its directory must
be owned by the user and writable by neither group nor others, as ssh asks of
``~/.ssh``. Otherwise hwkb says so in one line and runs uncached
(:exc:`~hwkb.errors.CacheRefused`). Every entry is signed with an HMAC under a secret of the
user's, kept in the directory (``secret``, readable by the user alone, made on first
use): an entry copied in from elsewhere (a shared ``HWKB_CACHE_DIR``, a restored CI
cache) or edited and re-hashed fails its HMAC and is a miss.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hwkb.errors import CacheRefused, Location

__all__ = ["CacheDirectory", "CacheRefused", "cache_directory", "trusted", "SECRET_NAME"]

SECRET_NAME = "secret"
_SECRET_BYTES = 32
_reported: set[str] = set()


@dataclass(frozen=True)
class CacheDirectory:
    """A trusted cache directory and its secret; ``cache / "nodes"`` is a path inside it."""
    path: Path
    secret: bytes = field(repr=False)

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    def __str__(self) -> str:
        return str(self.path)

    def sign(self, *parts: str) -> str:
        """The HMAC-SHA-256 of ``parts`` (each prefixed by its length, so none can forge a boundary), in hex."""
        mac = hmac.new(self.secret, digestmod=hashlib.sha256)
        for part in parts:
            data = part.encode("utf-8", "surrogatepass")
            mac.update(f"{len(data)}:".encode())
            mac.update(data)
        return mac.hexdigest()

    def signed(self, signature: object, *parts: str) -> bool:
        return isinstance(signature, str) and hmac.compare_digest(signature, self.sign(*parts))

    @classmethod
    def open(cls, path: Path | str) -> "CacheDirectory":
        """The cache in ``path`` (made, mode 0700, if absent); :exc:`CacheRefused` if another user or a group
        could write it, or its secret is not the user's alone."""
        path = Path(path)
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = os.stat(path)
        except OSError as exc:
            raise CacheRefused(f"cannot use it as a cache directory: {exc.strerror or exc}",
                               where=Location(str(path))) from None
        if not stat.S_ISDIR(info.st_mode):
            raise CacheRefused("the cache directory is not a directory", where=Location(str(path)))
        if info.st_uid != os.geteuid():
            raise CacheRefused("the cache directory is owned by another user", where=Location(str(path)),
                               hint="set HWKB_CACHE_DIR to a directory of your own")
        if info.st_mode & 0o022:
            raise CacheRefused(f"the cache directory is writable by group or others (mode "
                               f"{stat.S_IMODE(info.st_mode):04o})", where=Location(str(path)),
                               hint=f"chmod go-w {path} to use it")
        return cls(path, _secret(path))


def _secret(folder: Path) -> bytes:
    """The secret kept in ``folder``, made on first use; it must be a regular file, the user's, mode 0600."""
    where = folder / SECRET_NAME
    for _ in range(2):
        try:
            fd = os.open(where, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            _make_secret(folder, where)
            continue
        except OSError as exc:
            raise CacheRefused(f"cannot read the cache's secret: {exc.strerror or exc}",
                               where=Location(str(where))) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
                raise CacheRefused("the cache's secret is not a file of the user's alone", where=Location(str(where)),
                                   hint=f"chmod 600 {where}, or delete it to make anew")
            secret = os.read(fd, _SECRET_BYTES + 1)
        finally:
            os.close(fd)
        if len(secret) != _SECRET_BYTES:
            raise CacheRefused(f"the cache's secret is not {_SECRET_BYTES} bytes", where=Location(str(where)),
                               hint="delete it to make anew")
        return secret
    raise CacheRefused("cannot make the cache's secret", where=Location(str(where)))


def _make_secret(folder: Path, where: Path) -> None:
    """Write a new secret whole under a temporary name, then link it into place: of two processes making one
    at once, the first link wins and both read it."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".secret-")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(os.urandom(_SECRET_BYTES))
            os.link(tmp, where)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    except OSError as exc:
        raise CacheRefused(f"cannot make the cache's secret: {exc.strerror or exc}", where=Location(str(where))) from None


def trusted(path: Path | str | CacheDirectory | None) -> CacheDirectory | None:
    """``path`` as a cache hwkb may use, or None (with one line on stderr, once per process and reason) if it
    is not."""
    if path is None or isinstance(path, CacheDirectory):
        return path
    try:
        return CacheDirectory.open(path)
    except CacheRefused as exc:
        if str(exc) not in _reported:  # a command may ask more than once: one line says it
            _reported.add(str(exc))
            print(f"warning: {exc} (running without a cache)", file=sys.stderr)
        return None


def cache_directory() -> CacheDirectory | None:
    """Where the CLI keeps hwkb's caches: ``$HWKB_CACHE_DIR``, else ``$XDG_CACHE_HOME/hwkb``, else
    ``~/.cache/hwkb``; None when ``HWKB_CACHE_DIR=off`` or the directory is refused (:func:`trusted`)."""
    setting = os.environ.get("HWKB_CACHE_DIR")
    if setting == "off":
        return None
    if setting:
        return trusted(Path(setting))
    return trusted(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hwkb")
