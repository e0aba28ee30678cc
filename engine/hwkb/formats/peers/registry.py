"""The peer formats by name: what ``hwkb audit --from FORMAT`` and ``hwkb export --to FORMAT`` accept."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from hwkb.definitions.model import Model
from hwkb.definitions.units import Units
from hwkb.errors import LoadError, Location, UnknownNameError
from hwkb.formats.peers import aiconfigurator, epoch, genz, llm_analysis, llmcompass
from hwkb.formats.peers.documents import NotHardwareFile
from hwkb.formats.peers.entries import PeerEntry, PeerFormat

__all__ = ["FORMATS", "FORMAT_NAMES", "PeerFiles", "peer_format", "read_peer_files", "iter_peer_files"]

FORMATS: Mapping[str, PeerFormat] = MappingProxyType({f.name: f for f in (
    llm_analysis.FORMAT, genz.FORMAT, llmcompass.FORMAT, aiconfigurator.FORMAT, epoch.FORMAT)})
#: the names, for argparse's choices and shell completion (no import of the modules needed there)
FORMAT_NAMES = tuple(FORMATS)


def peer_format(name: str, flag: str = "--from") -> PeerFormat:
    """The format named ``name``, or an error that names the nearest."""
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownNameError("format", name, FORMATS, where=Location(flag)) from None


@dataclass(frozen=True)
class PeerFiles:
    """What a format read from files: its entries, and the files it passed over as no hardware description."""
    entries: tuple[PeerEntry, ...]
    skipped: tuple[NotHardwareFile, ...] = ()


def read_peer_files(fmt: PeerFormat, paths: Iterable[str | Path], model: Model, units: Units) -> PeerFiles:
    """Every entry of every file, in order; a file that describes no hardware (a tool's folder holds manifests
    beside its systems) is skipped, unless no file describes any; the first bad file raises its one error."""
    skipped: list[NotHardwareFile] = []
    entries = tuple(iter_peer_files(fmt, paths, model, units, skipped))
    return PeerFiles(entries, tuple(skipped))


def iter_peer_files(fmt: PeerFormat, paths: Iterable[str | Path], model: Model, units: Units,
                    skipped: list[NotHardwareFile]) -> Iterator[PeerEntry]:
    """:func:`read_peer_files`' entries as they are read (a format's :attr:`~PeerFormat.entries` reads a row at a
    time), each skipped file added to ``skipped``; the errors come as the entries reach them."""
    paths = list(dict.fromkeys(str(p) for p in paths))
    found = False
    for path in paths:
        if not Path(path).exists() and not Path(path).is_symlink():
            raise LoadError("no such file", where=Location(path), hint=f"--from {fmt.name} takes {fmt.files}")
        try:
            read = fmt.iter_entries(Path(path), model, units)
        except NotHardwareFile as exc:
            skipped.append(exc)
            continue
        for entry in read:
            found = True
            yield entry
    if not found:
        if len(skipped) == 1:
            raise skipped[0]
        raise LoadError("no GPU entry in the files", where=Location(str(next(iter(paths), "--from"))),
                        hint=f"--from {fmt.name} takes {fmt.files}")
