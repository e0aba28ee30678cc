"""Where the default KB and the saved queries live, in a checkout or installed."""
from __future__ import annotations

from pathlib import Path

__all__ = ["default_kb_dirs", "queries_dir"]

_HERE = Path(__file__).resolve().parent


def _data_root() -> Path:
    installed = _HERE / "data"
    return installed if (installed / "kb").is_dir() else _HERE.parent


def default_kb_dirs() -> list[Path]:
    return [_data_root() / "kb"]


def queries_dir() -> Path:
    return _data_root() / "queries"
