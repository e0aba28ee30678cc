"""Shared test fixtures: the tiny KBs, the adversarial KBs built on them, the real KB loaded once.

``tests/fixtures/tiny`` is the unit tests' knowledge base (four variables, two
rules, two entities); ``tests/fixtures/tiny_block`` holds a system that only
solves jointly; ``tests/fixtures/tiny_scheduler`` a simulated rule beside a law.
Each directory of ``tests/fixtures/bad`` holds only the files that make one
problem; :func:`build_kb` lays it over a copy of the tiny KB in a
temporary directory, so every adversarial KB is complete and small.
"""
from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

# The same examples on every run and no per-example deadline on a loaded CI machine.
settings.register_profile("hwkb", deadline=None, derandomize=True)
settings.load_profile("hwkb")

from hwkb import KnowledgeBase  # pytest puts engine/ first on the path: the checkout is what is tested
from hwkb.errors import KBErrors

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TINY = FIXTURES / "tiny"
TINY_BLOCK = FIXTURES / "tiny_block"
TINY_SCHEDULER = FIXTURES / "tiny_scheduler"
BAD = FIXTURES / "bad"


@pytest.fixture(scope="session", autouse=True)
def _private_solution_cache(tmp_path_factory):
    """Solved directions go to a cache of this session, never to the user's ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HWKB_CACHE_DIR", str(tmp_path_factory.mktemp("hwkb-cache")))
        yield


def build_kb(destination: Path, overlay: Path | None = None, base: Path = TINY) -> Path:
    """A copy of ``base`` with the files of ``overlay`` added (or replacing base's of the same name)."""
    shutil.copytree(base, destination)
    if overlay is not None:
        shutil.copytree(overlay, destination, dirs_exist_ok=True)
    return destination


@pytest.fixture
def bad_kb(tmp_path, monkeypatch):
    """``bad_kb(name)`` -> the directory of tiny + bad/name; the working directory is that directory,
    so messages name files as ``rules/bad.yaml``."""
    def make(name: str) -> Path:
        kb = build_kb(tmp_path / "kb", BAD / name)
        monkeypatch.chdir(kb)
        return kb
    return make


def write_kb(tmp_path: Path, monkeypatch, files: dict[str, str], base: Path | None = TINY) -> Path:
    """A copy of ``base`` (nothing when None) with ``files`` (path -> dedented text) written into it; the
    working directory is the copy, so messages name files as ``rules/bad.yaml``."""
    kb = tmp_path / "kb"
    if base is not None:
        build_kb(kb, base=base)
    for name, text in files.items():
        path = kb / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    monkeypatch.chdir(kb)
    return kb


def load_errors(kb_dir: Path) -> list[str]:
    """The one-line messages of a KB that must not load."""
    with pytest.raises(KBErrors) as info:
        KnowledgeBase.load([kb_dir], default=False)
    return [str(e) for e in info.value.errors]


@pytest.fixture(scope="session")
def tiny_kb() -> KnowledgeBase:
    return KnowledgeBase.load([TINY], default=False)


@pytest.fixture(scope="session")
def block_kb() -> KnowledgeBase:
    return KnowledgeBase.load([TINY_BLOCK], default=False)


@pytest.fixture(scope="session")
def scheduler_kb() -> KnowledgeBase:
    return KnowledgeBase.load([TINY_SCHEDULER], default=False)


@pytest.fixture(scope="session")
def real_kb() -> KnowledgeBase:
    return KnowledgeBase.load()


@pytest.fixture
def no_env_payload(monkeypatch):
    """The environment variable an injection payload would set; asserted absent afterwards."""
    monkeypatch.delenv("HWKB_PWNED", raising=False)
    yield "HWKB_PWNED"
    assert "HWKB_PWNED" not in os.environ


def kb_from_text(root: Path, rules: str, gpus: str) -> KnowledgeBase:
    """A KB of the project's units and one rules file and one entities file given as text."""
    from hwkb.formats.resources import default_kb_dirs
    (root / "rules").mkdir()
    (root / "gpus").mkdir()
    shutil.copy(default_kb_dirs()[0] / "units.txt", root / "units.txt")
    (root / "rules" / "tiny.yaml").write_text(rules)
    (root / "gpus" / "tiny.yaml").write_text(gpus)
    return KnowledgeBase.load([root], default=False)


def imports_cold_then_warm(tmp_path: Path, argv: list[str], modules: tuple[str, ...]) -> list[tuple[str, str]]:
    """Two runs of ``hwkb ARGV`` as processes sharing a fresh cache: each run's stdout, and its last stderr line,
    ``[loaded modules of MODULES] exit-code``, so a test can say what a cold and a warm run import."""
    import subprocess
    import sys
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    env = dict(os.environ, HWKB_CACHE_DIR=str(cache))
    probe = (f"import sys; from hwkb.cli.main import main; code = main({argv!r}); "
             f"print(sorted(m for m in {modules!r} if m in sys.modules), code, file=sys.stderr)")
    runs = [subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True) for _ in range(2)]
    return [(r.stdout, r.stderr.splitlines()[-1]) for r in runs]


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """``hwkb ARGV`` in this process: the exit code, stdout and stderr."""
    from hwkb.cli.main import main
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_cli_json(capsys, *argv) -> tuple[int, object, str]:
    """``hwkb ARGV --json`` in this process: the exit code, the JSON document and stderr."""
    code, out, err = run_cli(capsys, *argv, "--json")
    return code, json.loads(out), err


def share_kb_with_cli(monkeypatch, kb: KnowledgeBase) -> None:
    """Commands load the KB per call, through :func:`hwkb.cli.flags.load_kb`; hand them ``kb`` instead
    (a second saved per command)."""
    from hwkb.cli import flags
    monkeypatch.setattr(flags, "load_kb", lambda args: kb)
