"""The forms of ``hwkb audit --from``, a peer tool's files' audit: text, Markdown, JSON and an HTML page.

Per entry its internal verdict and its figures beside the KB's; the summary
line closes the text and opens the Markdown and the page. :func:`peer_pieces`
writes the text, Markdown and JSON an entry at a time for a streamed audit
(:class:`~hwkb.audit.peer_findings.PeerAuditStream`): each entry is set aside on
a temporary file until the totals that open the form are known, so an Epoch CSV
of 10^5 rows is never all in memory; the pieces joined are the form
:func:`hwkb.render.render` gives of the whole audit, byte for byte.
"""
from __future__ import annotations

import tempfile
from json.encoder import encode_basestring_ascii as _string
from typing import Iterator

from hwkb.audit.findings import UNCHECKED, Check, Verdict
from hwkb.audit.peer_findings import Comparison, PeerAudit, PeerAuditStream, PeerEntryAudit
from hwkb.definitions.display import format_quantity
from hwkb.errors import QueryError, escaped, markdown_text
from hwkb.formats.peers.entries import display
from hwkb.render.audit import markdown_table
from hwkb.render.audit_json import json_number
from hwkb.render.finding_words import (detail, peer_data, peer_entry_data, peer_hint_text, provenance_text,
                                       written_text)
from hwkb.render.html_pages import escape, page, table
from hwkb.render.json_form import document, json_text

__all__ = ["peer_text", "peer_markdown", "peer_html", "peer_pieces", "peer_files_text", "peer_summary_line", "FORMS",
           "WHY_NOT"]

def peer_text(audit: PeerAudit, failed_only: bool = False) -> str:
    """The text ``hwkb audit --from`` prints: per entry its internal verdict and its figures beside the KB's."""
    return "".join(peer_pieces(audit, "text", failed_only))


def peer_pieces(audit: PeerAudit | PeerAuditStream, fmt: str, failed_only: bool = False) -> Iterator[str]:
    """``audit`` as text, Markdown or JSON, a piece at a time: each entry is written as it comes and set aside on
    a temporary file until the totals that open the form (its status, its summary line) are known, so a streamed
    audit's entries are never all in memory. Nothing comes before the last entry has: a bad row's error leaves no
    partial report. The pieces joined are the whole form, as :func:`hwkb.render.render` gives it."""
    if fmt == "json":
        return _peer_json_pieces(audit)
    if fmt not in ("text", "markdown"):
        raise ValueError(f"no streamed {fmt} form")
    return _peer_report_pieces(audit, fmt, failed_only)


def _peer_report_pieces(audit, fmt: str, failed_only: bool) -> Iterator[str]:
    with _SetAside() as entries:
        for e in audit.entries:
            if fmt == "text":
                block = _entry_text(e, failed_only)
                if block:
                    entries.add(("\n\n" if entries else "") + block)
            else:
                lines = _entry_markdown(e, failed_only)
                if lines is not None:
                    entries.add("\n" + "\n".join(lines))
        if fmt == "text":
            yield from entries
            yield ("\n\n" if entries else "") + peer_files_text(audit) + peer_summary_line(audit)
            return
        yield f"# hwkb audit --from {markdown_text(audit.format.name)}\n\n{markdown_text(peer_summary_line(audit))}"
        yield from entries
        files = peer_files_text(audit)
        yield ("\n\n" + "\n".join(f"- {markdown_text(line)}" for line in files.splitlines()) if files else "") + "\n"


def _peer_json_pieces(audit) -> Iterator[str]:
    """The JSON document of :func:`~hwkb.render.finding_words.peer_data`, its two lists written an entry at a
    time, each entry's two items as ``json.dumps(indent=2)`` writes them at their depth. Each list has an item per
    entry, so one separator serves both, kept rather than asked of each list (``bool`` of a set-aside, twice an
    entry): 0.01 us an entry against 0.1 (8x, least of 7, ``benchmarks/peer_scale.py --pieces``, load 2)."""
    forms: dict[tuple, _BareForm | None] = {}
    with _SetAside() as entities, _SetAside() as catalogue:
        separator = _ITEM_SEPARATOR[False]
        for e in audit.entries:
            key = _bare_key(e)
            form = forms.get(key) if key is not None else None
            if form is None and key is not None and key not in forms:
                form = forms[key] = _BareForm.of(e)
            if form is None:
                entity, item = peer_entry_data(e)
                entity, item = indented(entity, _DEPTH), indented(item, _DEPTH)
            else:
                entity, item = form.fill(e)
            entities.add(separator + entity)
            catalogue.add(separator + item)
            separator = _ITEM_SEPARATOR[True]
        shell = json_text(document("audit", {**peer_data(audit, entries=False)}))
        before, rest = shell.split('"entities": []', 1)
        middle, after = rest.split('"catalogue": []', 1)
        yield before + '"entities": ['
        yield from entities
        yield _list_end(entities) + middle + '"catalogue": ['
        yield from catalogue
        yield _list_end(catalogue) + after


def _bare_key(e: PeerEntryAudit) -> tuple | None:
    """What a bare entry's two JSON items (no check, no comparison: most rows of a large table) hold besides its
    names and place; None for an entry with more."""
    internal = e.internal
    if (e.comparisons or e.unsettled or e.skipped or internal.checks or internal.suspects or internal.conflicts
            or internal.groups or internal.not_applicable):
        return None
    return internal.notes, e.notes, e.product


class _BareForm:
    """A bare entry's two JSON items as text with the holes its names and place fill: written once per
    :func:`_bare_key` and filled per entry (the items as :func:`indented` writes them, checked on the first).
    A real Epoch row's items in 1.5 us instead of 14.9 (9.8x, least of 7, ``benchmarks/peer_scale.py --pieces``,
    load 6; 5.8x to 20x over three runs at load 6 to 10)."""

    _HOLES = ("\0entity\0", "\0name\0", "\0id\0", "\0entry\0", "\0where\0")

    def __init__(self, entity: list[str], item: list[str]):
        self.entity, self.item = entity, item

    @classmethod
    def of(cls, e: PeerEntryAudit) -> "_BareForm | None":
        entity, item = peer_entry_data(e)
        whole = indented(entity, _DEPTH), indented(item, _DEPTH)
        holes = dict(zip(("entity", "name"), cls._HOLES)), dict(zip(("entity", "name", "where"), cls._HOLES[2:]))
        if any(list(data)[:len(h)] != list(h) for data, h in zip((entity, item), holes)):
            return None
        entity.update(holes[0])
        item.update(holes[1])
        split = [_string(h) for h in cls._HOLES]
        form = cls(_cut(indented(entity, _DEPTH), split[:2]), _cut(indented(item, _DEPTH), split[2:]))
        return form if None not in (form.entity, form.item) and form.fill(e) == whole else None

    def fill(self, e: PeerEntryAudit) -> tuple[str, str]:
        entry, internal = e.entry, e.internal
        a, b, c = self.entity
        d, f, g, h = self.item
        return (a + _string(internal.entity) + b + _string(internal.name) + c,
                d + _string(entry.id) + f + _string(entry.name) + g + _string(entry.where.written()) + h)


def _cut(text: str, holes: list[str]) -> list[str] | None:
    """``text`` cut at each of ``holes``, in order, each found once."""
    pieces = []
    for hole in holes:
        before, found, text = text.partition(hole)
        if not found or hole in text:
            return None
        pieces.append(before)
    return pieces + [text]


_DEPTH = "    "  # an item of a list of the document: two levels in
_ITEM_SEPARATOR = {False: "\n    ", True: ",\n    "}


def _list_end(items: "_SetAside") -> str:
    return "\n  ]" if items else "]"


def indented(data, pad: str = "") -> str:
    """``data`` as ``json.dumps(data, indent=2, default=plain)`` writes it at ``pad``'s depth (each line after the
    first indented by ``pad``), made by joining strings rather than through the pure-Python encoder's generators
    (``indent`` rules out the C one): a real Epoch row's two items in 23 us instead of 74 (3.2x, least of 7,
    ``benchmarks/peer_scale.py --pieces``, load 15 on 2 cores)."""
    kind = type(data)
    if kind is str:
        return _string(data)
    if kind is dict:
        if not data:
            return "{}"
        inner = pad + "  "
        return ("{\n" + ",\n".join([f"{inner}{_key(k)}: {indented(v, inner)}" for k, v in data.items()])
                + "\n" + pad + "}")
    if kind is list or kind is tuple:
        if not data:
            return "[]"
        inner = pad + "  "
        return "[\n" + ",\n".join([inner + indented(v, inner) for v in data]) + "\n" + pad + "]"
    if kind is float or kind is int or data is None or data is True or data is False:
        return json_number(data)
    return json_text(data).removesuffix("\n").replace("\n", "\n" + pad)  # anything else, as the encoder would



def _key(key) -> str:
    if type(key) is str:
        return _string(key)
    return json_text({key: 0}, compact=True)[1:-4]  # json.dumps' way with a key that is not text


class _SetAside:
    """Texts set aside in order on an anonymous temporary file (gone when closed), given back in that order."""

    def __init__(self):
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")
        self._count = 0

    def add(self, text: str) -> None:
        try:
            self._file.write(text)
        except OSError as exc:
            raise QueryError(f"cannot set the report aside in a temporary file: {exc.strerror}",
                             hint="free space in the temporary directory (TMPDIR), or audit fewer rows") from None
        self._count += 1

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[str]:
        self._file.seek(0)
        while block := self._file.read(_BLOCK):
            yield block

    def __enter__(self) -> "_SetAside":
        return self

    def __exit__(self, *exc) -> None:
        self._file.close()


_BLOCK = 1 << 20  # characters read back at a time


def peer_files_text(audit: PeerAudit) -> str:
    """The lines about the files as a whole: skipped ones, keys not read (files with the same keys on one line),
    products not in the KB."""
    lines = []
    if audit.skipped_files:
        lines.append("skipped, no hardware description: " + "; ".join(escaped(f) for f in audit.skipped_files))
    by_keys: dict[tuple[str, ...], list[str]] = {}
    for file, keys in audit.unread.items():
        by_keys.setdefault(keys, []).append(escaped(display(file)))
    lines += [f"not read in {', '.join(files)}: {', '.join(keys)}" for keys, files in by_keys.items()]
    if audit.not_in_kb:
        lines.append(f"not in the KB: {', '.join(escaped(n) for n in audit.not_in_kb)}")
    return "".join(line + "\n" for line in lines)


def peer_summary_line(audit: PeerAudit | PeerAuditStream) -> str:
    totals = audit.totals
    c = totals.counts
    files, entries = len(totals.files), totals.entries
    return (f"{audit.format.name}: {entries} {'entry' if entries == 1 else 'entries'} in "
            f"{files} {'file' if files == 1 else 'files'}, {totals.in_doubt} with a figure in doubt; beside the KB: "
            f"{c['inconsistent']} inconsistent, {c['within_rounding']} within rounding, {c['consistent']} "
            f"consistent, {c['unsettled']} not in the KB; internal: "
            + ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in totals.internal.to_dict()["counts"].items()))


_PEER_COLUMNS = ("status", "field", "variable", "file", "KB", "deviation")


def _peer_shown(e: PeerEntryAudit, failed_only: bool) -> tuple[list[Comparison], list[Check]] | None:
    """The comparisons and failed internal checks an entry shows; None when ``failed_only`` leaves it out."""
    shown = [c for c in e.comparisons if not failed_only or c.status == Verdict.INCONSISTENT]
    internal_failed = [c for c in e.internal.checks if c.status == Verdict.INCONSISTENT]
    if failed_only and not shown and not internal_failed:
        return None
    return shown, internal_failed


def _peer_heading(e: PeerEntryAudit) -> str:
    target = f"KB {e.product}" if e.product else "no KB entity"
    status = e.status.label if e.status else UNCHECKED
    return f"{e.entry.format}: {e.entry.name} ({e.entry.where}) vs {target}: {status}"


def _peer_internal(e: PeerEntryAudit) -> str:
    if not e.internal.checks:
        return "internal: no law ties these figures together"
    return "internal: " + ", ".join(f"{n} {v.label}" for v, n in e.internal.counts().items() if n)


def _peer_cells(c: Comparison) -> tuple[str, ...]:
    return (c.status.label, c.field, c.key, format_quantity(c.value, c.unit), format_quantity(c.kb_value, c.unit),
            "-" if c.deviation is None else f"{c.deviation:+.3g}%")


def _peer_notes(c: Comparison) -> list[tuple[str, str]]:
    """(label, text) lines under a comparison: where each side comes from for a disagreement, else the reading."""
    if c.status == Verdict.INCONSISTENT:
        return [("file", f"{c.where}: {written_text(c)}, read by {c.consumed}"), ("KB", provenance_text(c.kb_source)),
                *([("hint", peer_hint_text(c.hint))] if c.hint else [])]
    return [("reading", c.reading)] if c.reading else []


def _peer_tail(e: PeerEntryAudit) -> list[str]:
    lines = [f"not in the KB for {e.product}: {', '.join(e.unsettled)}"] if e.unsettled else []
    return lines + [f"note: {n}" for n in e.notes]


def _entry_text(e: PeerEntryAudit, failed_only: bool) -> str:
    picked = _peer_shown(e, failed_only)
    if picked is None:
        return ""
    shown, internal_failed = picked
    lines = [_peer_heading(e), f"  {_peer_internal(e)}"]
    lines += [f"    {detail(c)}" for c in internal_failed]
    if shown:
        rows = [_PEER_COLUMNS, *(_peer_cells(c) for c in shown)]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines.append("  beside the KB:")
        lines.append("    " + "  ".join(cell.ljust(w) for cell, w in zip(rows[0], widths)).rstrip())
        for c, row in zip(shown, rows[1:]):
            lines.append("    " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
            lines += [f"        {label + ':':<5} {text}" for label, text in _peer_notes(c)]
    lines += [f"  {line}" for line in _peer_tail(e)]
    return "\n".join(lines)


def peer_markdown(audit: PeerAudit, failed_only: bool = False) -> str:
    """``hwkb audit --from ... --format markdown``: per entry a section, its figures beside the KB's as a table."""
    return "".join(peer_pieces(audit, "markdown", failed_only))


def _entry_markdown(e: PeerEntryAudit, failed_only: bool) -> list[str] | None:
    picked = _peer_shown(e, failed_only)
    if picked is None:
        return None
    shown, internal_failed = picked
    lines = ["", f"## {markdown_text(e.entry.name)}", "", markdown_text(_peer_heading(e)), "", markdown_text(_peer_internal(e))]
    lines += [f"- {markdown_text(detail(c))}" for c in internal_failed]
    if shown:
        lines += ["", *markdown_table(_PEER_COLUMNS, 3, [_peer_cells(c) for c in shown],
                                       [(c.field, c.key, [f"{label}: {text}" for label, text in _peer_notes(c)])
                                        for c in shown])]
    lines += [f"_{markdown_text(line)}_" for line in _peer_tail(e)]
    return lines


def peer_html(audit: PeerAudit, failed_only: bool = False) -> str:
    """``hwkb audit --from ... --format html``: a self-contained page, each entry's figures in a sortable table."""
    body = [f"<p>{escape(line)}</p>" for line in peer_files_text(audit).splitlines()]
    for i, e in enumerate(audit.entries):
        picked = _peer_shown(e, failed_only)
        if picked is None:
            continue
        shown, internal_failed = picked
        body.append(f"<h2>{escape(e.entry.name)}</h2><p>{escape(_peer_heading(e))}</p>"
                    f"<p>{escape(_peer_internal(e))}</p>")
        body += [f"<p>{escape(detail(c))}</p>" for c in internal_failed]
        if shown:
            body.append(table(_PEER_COLUMNS, [_peer_cells(c) for c in shown], table_id=f"entry-{i}",
                              notes=[[f"{label}: {text}" for label, text in _peer_notes(c)] for c in shown]))
        body += [f"<p><em>{escape(line)}</em></p>" for line in _peer_tail(e)]
    return page(f"hwkb audit --from {audit.format.name}", body, lead=peer_summary_line(audit))


FORMS = {
    "PeerAudit": {"text": peer_text, "markdown": peer_markdown, "html": peer_html},
    "PeerAuditStream": {"text": peer_text, "markdown": peer_markdown,
                        "html": lambda audit, failed_only=False: peer_html(audit.collect(), failed_only)},
}
_WHY_NOT_CSV = {"csv": "each entry is its own file's figures beside the KB's, not one table: --json gives them as data"}
WHY_NOT = {"PeerAudit": _WHY_NOT_CSV, "PeerAuditStream": _WHY_NOT_CSV}
