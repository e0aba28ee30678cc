"""Writing derived values back as a KB entity file, and any output file, atomically and in place of nothing
but a regular file.

``hwkb derive --gpu b200 --write my_kb/gpus/b200_derived.yaml`` writes an
entity ``b200-derived`` that extends ``b200`` and states every derived value
with the rule it came from as its source; the YAML is written by ruamel.yaml
(:func:`~hwkb.formats.yaml_nodes.dump_yaml`), so every name and text reads back
as it was, a newline or a ``#`` included. A file is written to a temporary name
beside the target and renamed into place, so a crash leaves either the old file
or the new one, never half of one. The new file keeps the mode of the one it
replaces (a new one gets the mode the umask gives); a symbolic link, a device,
a pipe or a directory is never replaced.
"""
from __future__ import annotations

import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Container, Iterable

from hwkb.audit.rows import DERIVED_SOURCE
from hwkb.definitions.model import VarKey
from hwkb.errors import Location, QueryError
from hwkb.formats.yaml_nodes import dump_yaml
from hwkb.solving.values import Value

__all__ = ["derived_entity_text", "supported_digits", "write_atomic", "check_target", "WHOLE_BELOW"]

_NOT_REGULAR = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"),
                (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


WHOLE_BELOW = 1e6


def derived_entity_text(entity: str, kind: str, values: Iterable[Value], counts: Container[VarKey] = ()) -> str:
    """A gpus/*.yaml document: one entity extending ``entity`` with the values as facts.

    >>> print(derived_entity_text("x", "product", []), end="")
    # derived by hwkb from x; every fact names the rule that gave it
    x-derived:
      kind: product
      extends: x
      facts: {}
    """
    facts = {v.key: {"value": f"{supported_digits(v, counts)} {v.unit}".strip(),
                     "source": f"{DERIVED_SOURCE}, rule {v.origin.rule}"} for v in values}
    shown = entity.encode("unicode_escape").decode("ascii")  # a comment is one line, whatever the id holds
    return (f"# derived by hwkb from {shown}; every fact names the rule that gave it\n"
            + dump_yaml({f"{entity}-derived": {"kind": kind, "extends": entity, "facts": facts}}))


def supported_digits(value: Value, counts: Container[VarKey] = (), most: int = 12) -> str:
    """The value with as many significant digits as the least precise stated figure it rests on: what the data
    supports, not ``1.41059027778``. A default or a count (a key in ``counts``: an integer variable, exact as
    the audit takes it) does not limit it; with nothing that does, up to ``most``. A whole number below
    :data:`WHOLE_BELOW` is written whole: such values are products of counts (32 banks x 4 B), whose small
    printed figures would otherwise limit them to a digit or two.

    >>> from hwkb.solving.values import FactOrigin, RuleOrigin
    >>> peak = Value("peak", 19.5, "TFLOPS", 19.5e12, FactOrigin("peak", "a100", None, None), uncertainty=0.05 / 19.5)
    >>> sms = Value("sms", 108.0, "", 108.0, FactOrigin("sms", "a100", None, None), uncertainty=0.5 / 108)
    >>> clock = Value("clock", 1.41059027778, "GHz", 1.41059027778e9, RuleOrigin("law", "law", None, (peak, sms)))
    >>> lanes = Value("lanes", 6912.000000000001, "", 6912.0, RuleOrigin("law", "law", None, (sms,)))
    >>> supported_digits(clock, counts={"sms"}), supported_digits(lanes, counts={"sms"})
    ('1.41', '6912')
    """
    magnitude = abs(value.magnitude)
    if magnitude < WHOLE_BELOW and abs(magnitude - round(magnitude)) <= 1e-9 * magnitude:
        return str(round(value.magnitude))  # 128 B/cycle from 32 banks x 4 B, not 1e+02
    digits = min((_printed_digits(fact) for fact in value.facts() if fact.uncertainty and fact.key not in counts
                  and getattr(fact.origin, "via", "fact") != "default"), default=most)
    return f"{value.magnitude:.{min(max(digits, 1), most)}g}"


def _printed_digits(fact: Value) -> int:
    """The significant digits a stated value was printed with, from its rounding (half its last digit)."""
    magnitude = abs(fact.magnitude)
    if not magnitude or not math.isfinite(magnitude):
        return 1
    return math.floor(math.log10(magnitude) + 1 - math.log10(2 * fact.uncertainty * magnitude) + 1e-9)


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
