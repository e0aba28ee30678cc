"""Where the default KB and the saved queries live: beside the installed package, or in a checkout.

An installed hwkb carries them as package data (``hwkb/kb``, ``hwkb/queries``);
in a checkout they are the repository's own ``kb/`` and ``queries/``, two
folders above the package (``engine/hwkb``).
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["default_kb_dirs", "queries_dir"]

_PACKAGE = Path(__file__).resolve().parent.parent


def _data_root() -> Path:
    return _PACKAGE if (_PACKAGE / "kb").is_dir() else _PACKAGE.parent.parent


def default_kb_dirs() -> list[Path]:
    return [_data_root() / "kb"]


def queries_dir() -> Path:
    return _data_root() / "queries"
