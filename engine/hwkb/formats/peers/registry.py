"""The peer formats by name: what ``hwkb audit --from FORMAT`` and ``hwkb export --to FORMAT`` accept."""
from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping

from hwkb.definitions.model import Model
from hwkb.definitions.units import Units
from hwkb.errors import LoadError, Location, UnknownNameError
from hwkb.formats.peers import aiconfigurator, epoch, genz, llm_analysis, llmcompass
from hwkb.formats.peers.entries import PeerEntry, PeerFormat

__all__ = ["FORMATS", "FORMAT_NAMES", "peer_format", "read_peer_files"]

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


def read_peer_files(fmt: PeerFormat, paths: Iterable[str | Path], model: Model, units: Units) -> list[PeerEntry]:
    """Every entry of every file, in order; the first bad file raises its one error."""
    entries: list[PeerEntry] = []
    for path in dict.fromkeys(str(p) for p in paths):
        if not Path(path).exists() and not Path(path).is_symlink():
            raise LoadError("no such file", where=Location(path), hint=f"--from {fmt.name} takes {fmt.files}")
        entries += fmt.read(Path(path), model, units)
    if not entries:
        raise LoadError("no GPU entry in the files", where=Location(str(next(iter(paths), "--from"))))
    return entries
