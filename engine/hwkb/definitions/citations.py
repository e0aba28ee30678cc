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

from hwkb.errors import Location

__all__ = ["Document", "READINGS", "split_citation", "CITATION_ID"]

READINGS = ("first-hand", "copy", "unrecorded")

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

    @property
    def link(self) -> str | None:
        """The URL if it is an http(s) one, the only kind a page may turn into a link."""
        return self.url if self.url and self.url.lower().startswith(("https://", "http://")) else None


def split_citation(source: str) -> tuple[str, str]:
    """``"nvidia-h100-datasheet, table 'Technical Specifications'"`` -> the id and the location ('' if none)."""
    ident, _, location = source.partition(",")
    return ident.strip(), location.strip()
