"""Hostile caches: nothing written into a cache directory can change an answer.

Each case forges cache entries as someone who can write the cache but not read the user's secret would (a
shared ``HWKB_CACHE_DIR``, a restored CI cache): the payload edited and re-hashed with SHA-256, the only
checksum such a writer can compute. The answers must equal an uncached run. Each case also re-signs the same
forgery with the user's own secret and shows that it would then change the answer: it is the HMAC, not luck,
that keeps the forgery out. A cache directory others can write is refused with one line and not used.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from conftest import TINY, build_kb, run_cli
from hwkb.formats.caches import CacheDirectory

SOLVE_TC = ("solve", "clock_tc", "--gpu", "h100-sxm")
SOLVE_FP32 = ("solve", "clock_fp32", "--gpu", "h100-sxm")
AUDIT = ("audit", "--gpu", "h100-sxm")


def sha256(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


@pytest.fixture
def answers(capsys, monkeypatch, tmp_path):
    """``answers(argv, cache)`` -> (exit code, stdout, stderr) of ``hwkb ARGV`` with the cache directory
    ``cache`` (None: uncached)."""
    def run(argv, cache: Path | None):
        monkeypatch.setenv("HWKB_CACHE_DIR", "off" if cache is None else str(cache))
        return run_cli(capsys, *argv)
    return run


def forge_entries(cache: Path, edit, sign) -> int:
    """Edit the payload of every entry under nodes/ and entities/ by ``edit``, signed by ``sign(source,
    payload)``; the number of entries changed."""
    changed = 0
    for entry in [*(cache / "nodes").iterdir(), *(cache / "entities").iterdir()]:
        header, _, payload = entry.read_text().partition("\n")
        forged = edit(payload)
        if forged != payload:
            source = json.loads(header)["source"]
            entry.write_text(json.dumps({"source": source, "hmac": sign(source, forged),
                                         "checksum": sha256(forged)}) + "\n" + forged)
            changed += 1
    return changed


def forge_solutions(cache: Path, edit, sign) -> int:
    """Replace the text of every solved direction by ``edit(text)`` (None: keep), signed by ``sign(key, text)``."""
    stored = json.loads((cache / "solutions.json").read_text())
    changed = 0
    for key, entry in stored.items():
        forged = edit(entry["text"])
        if forged is not None and forged != entry["text"]:
            stored[key] = {"text": forged, "hmac": sign(key, forged), "checksum": sha256(key, forged)}
            changed += 1
    (cache / "solutions.json").write_text(json.dumps(stored))
    return changed


def warm_cache(answers, tmp_path, *argvs) -> Path:
    cache = tmp_path / "cache"
    for argv in argvs:
        answers(argv, cache)
    return cache


def test_a_fact_edited_in_the_cache_changes_no_answer(answers, tmp_path):
    cache = warm_cache(answers, tmp_path, SOLVE_TC)
    uncached = answers(SOLVE_TC, None)
    assert uncached[:2] == (0, "clock_tc = 1.83 GHz  (derived)\n")
    assert forge_entries(cache, lambda p: p.replace("989.4", "1.0"), sha256) >= 1
    assert answers(SOLVE_TC, cache) == uncached
    secret = CacheDirectory.open(cache)
    forge_entries(cache, lambda p: p.replace("989.4", "1.0"), secret.sign)
    assert answers(SOLVE_TC, cache) != uncached  # the same edit under the user's own key would get in


def test_directions_forged_unsolvable_change_no_audit(answers, tmp_path):
    cache = warm_cache(answers, tmp_path, AUDIT)
    uncached = answers(AUDIT, None)
    assert uncached[0] == 1
    assert forge_solutions(cache, lambda text: "-", sha256) >= 1
    assert answers(AUDIT, cache) == uncached
    secret = CacheDirectory.open(cache)
    forge_solutions(cache, lambda text: "-", secret.sign)
    shutil.rmtree(cache / "checks")  # the analysed checks, kept from the honest run, would shield the audit
    assert answers(AUDIT, cache)[0] == 0  # "within rounding", had the forgery been let in


def _bent(text: str) -> str | None:
    """A formula that agrees with ``text`` at both trial points of hwkb.solving.relations and nowhere else:
    ``text * (1 + (x - p) * (x - q) / 1000)`` with p and q the two trial values of one of its parameters."""
    trials = ((1.37, 0.61, 2.3), (0.83, 1.9, 1.13))
    names = sorted({int(n) for n in re.findall(r"\bx([0-9]+)\b", text)} - {0})
    if text == "-" or not names:
        return None
    j = names[-1]
    p, q = (t[j % 3] * (1 + j) for t in trials)
    return f"({text})*(1 + (x{j} - {p!r})*(x{j} - {q!r})/1000)"


def test_a_forged_formula_that_agrees_at_the_trial_points_changes_no_answer(answers, tmp_path):
    cache = warm_cache(answers, tmp_path, SOLVE_FP32)
    uncached = answers(SOLVE_FP32, None)
    assert uncached[0] == 0
    assert forge_solutions(cache, _bent, sha256) >= 1
    assert answers(SOLVE_FP32, cache) == uncached
    secret = CacheDirectory.open(cache)
    forge_solutions(cache, _bent, secret.sign)
    assert answers(SOLVE_FP32, cache) != uncached  # it would pass the trial check: only the HMAC keeps it out


def refused(cache: Path, why: str, hint: str = "") -> str:
    return f"warning: {cache}: {why}{'; ' + hint if hint else ''} (running without a cache)\n"


def test_a_group_writable_cache_is_refused_and_not_used(answers, tmp_path):
    tiny = ("solve", "peak[bf16]", "--gpu", "chip", "--no-default-kb", "--kb", str(TINY))
    cache = tmp_path / "shared"
    cache.mkdir()
    cache.chmod(0o775)
    code, out, err = answers(tiny, cache)
    assert (code, out) == answers(tiny, None)[:2]
    assert err == refused(cache, "the cache directory is writable by group or others (mode 0775)",
                          f"chmod go-w {cache} to use it")
    assert list(cache.iterdir()) == []  # no secret, no entry
    cache.chmod(0o700)
    assert answers(tiny, cache)[2] == "" and (cache / "secret").is_file()


def test_a_cache_of_another_user_is_refused(answers, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("giving a directory to another user needs root")
    tiny = ("solve", "peak[bf16]", "--gpu", "chip", "--no-default-kb", "--kb", str(TINY))
    cache = tmp_path / "theirs"
    cache.mkdir(mode=0o700)
    os.chown(cache, 65534, -1)
    assert answers(tiny, cache)[2] == refused(cache, "the cache directory is owned by another user",
                                              "set HWKB_CACHE_DIR to a directory of your own")


def test_a_secret_others_can_read_is_refused(answers, tmp_path):
    tiny = ("solve", "peak[bf16]", "--gpu", "chip", "--no-default-kb", "--kb", str(TINY))
    cache = warm_cache(answers, tmp_path, tiny)
    (cache / "secret").chmod(0o644)
    assert answers(tiny, cache)[2] == refused(cache / "secret", "the cache's secret is not a file of the user's "
                                              "alone", f"chmod 600 {cache / 'secret'}, or delete it to make anew")
    (cache / "secret").unlink()
    (cache / "secret").symlink_to(tmp_path / "elsewhere")
    assert answers(tiny, cache)[2].startswith(f"warning: {cache / 'secret'}: cannot read the cache's secret: ")


def test_the_secret_is_made_once_and_kept(tmp_path):
    first = CacheDirectory.open(tmp_path / "c")
    assert stat.S_IMODE((tmp_path / "c").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "c" / "secret").stat().st_mode) == 0o600
    assert CacheDirectory.open(tmp_path / "c").secret == first.secret and len(first.secret) == 32
    assert first.sign("a", "b") != first.sign("ab") and first.signed(first.sign("x"), "x")


# ---------------------------------------------------------------- rule files that do not read, cache on

RULE_FILES = {
    "not UTF-8": "cannot read file: not UTF-8 text (byte 0)",
    "oversized": "file size 1048577 bytes exceeds the limit of 1048576 bytes",
    "directory": "cannot read file: a directory, not a regular file",
    "fifo": "cannot read file: a named pipe, not a regular file",
    "dangling": "cannot read file: a dangling symbolic link",
    "loop": "cannot read file: a loop of symbolic links",
}


def make_rule_file(kind: str, path: Path) -> None:
    if kind == "not UTF-8":
        path.write_bytes(b"\xff\xfe")
    elif kind == "oversized":
        path.write_bytes(b"#" * 1048577)
    elif kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere.yaml")
    else:
        path.symlink_to(path.with_suffix(".loop"))
        path.with_suffix(".loop").symlink_to(path)


@pytest.mark.parametrize("kind", sorted(RULE_FILES))
def test_a_rule_file_that_does_not_read_is_one_error_line_with_the_cache_on(kind, answers, tmp_path, monkeypatch):
    kb = build_kb(tmp_path / "kb")
    monkeypatch.chdir(kb)
    check = ("check", "--no-default-kb", "--kb", ".")
    cache = warm_cache(answers, tmp_path, check)  # a warm index: the case the traceback came from
    make_rule_file(kind, kb / "rules" / "x.yaml")
    expected = (2, "", f"error: rules/x.yaml: {RULE_FILES[kind]}\n")
    assert answers(check, None) == expected
    assert answers(check, cache) == expected
    assert answers(("solve", "peak[bf16]", "--gpu", "chip", "--no-default-kb", "--kb", "."), cache) == expected
