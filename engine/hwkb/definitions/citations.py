"""A citation and the document it names: how a fact says where its figure was read.

A citation is ``ID, LOCATION``: the id of a document of the KB's bibliography
(``kb/SOURCES.yaml``), a comma, and where in that document (a table, a page, a
section, the line quoted). The id alone is allowed where the document as a whole
is meant. The bibliography holds each document once, with how it was read:
``first-hand`` (the document itself), ``copy`` (a third-party copy, named in
``via``) or ``unrecorded`` (the figure was entered naming the document but not
how it was read).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from hwkb.errors import Location

__all__ = ["Document", "READINGS", "split_citation", "linkable", "cited_documents", "documents_text", "CITATION_ID"]

READINGS = ("first-hand", "copy", "unrecorded")

#: a web address a page may link to: http(s), nothing that could close the attribute or the Markdown link around it
_LINKABLE = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)

#: what a document id looks like: lowercase words joined by ``-`` or ``.`` (``cuda-programming-guide-13``)
CITATION_ID = re.compile(r"[a-z0-9]+(?:[.-][a-z0-9]+)*")


@dataclass(frozen=True)
class Document:
    """One document of the bibliography: what a reader needs to find and open it."""
    id: str
    title: str
    publisher: str
    read: str
    doc: str
    where: Location
    date: str | None = None
    url: str | None = None
    via: str | None = None

    def fields(self) -> dict:
        """The entry as written, for comparing two directories' entries of one id."""
        return {"title": self.title, "publisher": self.publisher, "read": self.read, "doc": self.doc,
                "date": self.date, "url": self.url, "via": self.via}

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "publisher": self.publisher, "date": self.date,
                "read": self.read, "url": self.url, "via": self.via}

    @property
    def about(self) -> str:
        """The title with its publisher and date, as a reference list prints it."""
        return f"{self.title} ({', '.join(x for x in (self.publisher, self.date) if x)})"

    @property
    def link(self) -> str | None:
        """The URL if it is an http(s) one, the only kind a page may turn into a link."""
        return self.url if linkable(self.url) else None


def linkable(url: str | None) -> bool:
    """Whether a page may link to ``url``: an http(s) address with nothing that could end the link around it."""
    return bool(url) and _LINKABLE.fullmatch(url) is not None


def split_citation(source: str) -> tuple[str, str]:
    """``"nvidia-h100-datasheet, table 'Technical Specifications'"`` -> the id and the location ('' if none)."""
    ident, _, location = source.partition(",")
    return ident.strip(), location.strip()


def cited_documents(sources: Mapping[str, Document] | None, citations: Iterable[str | None]) -> tuple[Document, ...]:
    """The documents ``citations`` name, each once, in the order first cited; free text and unknown ids left out."""
    if not sources:
        return ()
    found: dict[str, Document] = {}
    for citation in citations:
        ident = split_citation(citation)[0] if citation else ""
        if ident in sources:
            found.setdefault(ident, sources[ident])
    return tuple(found.values())


def documents_text(documents: Iterable[Document]) -> list[str]:
    """A reference list for the terminal: ``documents:`` then one line per document, its URL after it."""
    lines = [f"  {d.id}: {d.about}" + (f" <{d.url}>" if d.url else "") for d in documents]
    return ["documents:", *lines] if lines else []
