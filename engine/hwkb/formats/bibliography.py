"""The KB's bibliography (``SOURCES.yaml`` beside ``rules/``) and the check that every citation names one of its
documents.

Each KB directory may hold a ``SOURCES.yaml``; an overlay's entries are added
to the base's, and an id given twice must be given the same way. In a
directory that holds a bibliography, every fact, ``also`` figure, variable
default, rule and entity ``source`` must cite an id of the merged bibliography
(:func:`~hwkb.definitions.citations.split_citation`). A directory without one
(a small KB of one's own, an overlay holding a sheet to check) keeps free text,
as a user's ``--file`` datasheet does: their figures come from the user's own
documents, which the KB's bibliography cannot list. A variable's ``range``
keeps free text everywhere: it gives the reason for its bounds (often the span
of the KB's own figures), not a document.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

from hwkb.definitions.citations import CITATION_ID, READINGS, Document, linkable, split_citation
from hwkb.definitions.choices import Selection
from hwkb.definitions.model import Entity, Fact, Rule, Variable
from hwkb.errors import KBError, LoadError, Location, UnknownNameError
from hwkb.formats.yaml_nodes import NodeReader, read_yaml

__all__ = ["BIBLIOGRAPHY", "read_bibliography", "citation_errors", "variable_citation_errors", "rule_citation_errors",
           "selection_citation_errors"]

BIBLIOGRAPHY = "SOURCES.yaml"
_FIELDS = ("title", "publisher", "date", "url", "read", "via", "doc")
_REQUIRED = ("title", "publisher", "read", "doc")


def read_bibliography(directories: Iterable[Path], errors: list[KBError], cache=None) -> dict[str, Document] | None:
    """The documents of every directory's ``SOURCES.yaml``, merged; None when no directory has one."""
    documents: dict[str, Document] = {}
    found = False
    for directory in directories:
        path = Path(directory) / BIBLIOGRAPHY
        if not path.exists():
            continue
        found = True
        root = read_yaml(path, errors, cache)
        if root is None:  # its error is reported; checking citations against half a bibliography would bury it
            return None
        reader = NodeReader(path, errors)
        for ident, (key_node, node) in (reader.mapping(root, "a bibliography") or {}).items():
            document = _document(reader, ident, key_node, node)
            if document is None:
                continue
            first = documents.get(ident)
            if first is None:
                documents[ident] = document
            elif first.fields() != document.fields():
                reader.error(key_node, f"document {ident!r} is listed twice, differently",
                             f"the first is at {first.where}; give one id one entry, or choose another id")
    return documents if found else None


def _document(reader: NodeReader, ident: str, key_node, node) -> Document | None:
    if CITATION_ID.fullmatch(ident) is None:
        reader.error(key_node, f"document id {ident!r} is not lowercase words joined by '-' or '.'",
                     "write it as e.g. 'nvidia-h100-datasheet'")
        return None
    fields = reader.mapping(node, f"document {ident!r}", _FIELDS, _REQUIRED)
    if fields is None:
        return None
    text = {name: reader.text(value, name) for name, (_, value) in fields.items()}
    if any(text.get(name) is None for name in _REQUIRED):
        return None
    if text["read"] not in READINGS:
        reader.error(fields["read"][1], f"document {ident!r} says read: {text['read']!r}",
                     f"use one of {', '.join(READINGS)}")
        return None
    if text["read"] == "copy" and not text.get("via"):
        reader.error(node, f"document {ident!r} was read through a copy but does not say which",
                     "name the copy in 'via'")
        return None
    url = text.get("url")
    if url is not None and not linkable(url):
        reader.error(fields["url"][1], f"the url of {ident!r} is not an http(s) address a page can link to",
                     "write the address as https://..., with no space, quote or angle bracket")
        return None
    return Document(ident, text["title"], text["publisher"], text["read"], text["doc"], reader.at(key_node),
                    text.get("date"), url, text.get("via"))


def citation_errors(entities: Iterable[Entity], documents: Mapping[str, Document] | None,
                    bibliography: str = BIBLIOGRAPHY) -> list[KBError]:
    """The citations of these entities (their own source, each fact's, each ``also``) that name no document."""
    if documents is None:
        return []
    errors: list[KBError] = []
    for entity in entities:
        if entity.source is not None:
            _check(entity.source, entity.where, documents, bibliography, errors)
        for fact in entity.facts.values():
            _check_fact(fact, documents, bibliography, errors)
        errors += selection_citation_errors(entity.selections.values(), documents, bibliography)
    return errors


def selection_citation_errors(selections: Iterable[Selection], documents: Mapping[str, Document] | None,
                              bibliography: str = BIBLIOGRAPHY) -> list[KBError]:
    """The citations of these choices' values (an entity's, a choice's default) that name no document, or none."""
    if documents is None:
        return []
    errors: list[KBError] = []
    for selection in selections:
        _check_cited(f"the choice {selection.choice}: {selection.value}", selection.source, selection.where,
                     documents, bibliography, errors)
    return errors


def variable_citation_errors(variables: Iterable[Variable], documents: Mapping[str, Document] | None,
                             bibliography: str = BIBLIOGRAPHY) -> list[KBError]:
    """The citations of the variables' defaults that name no document."""
    if documents is None:
        return []
    errors: list[KBError] = []
    for variable in variables:
        if variable.default is not None:
            _check_fact(variable.default, documents, bibliography, errors)
    return errors


def rule_citation_errors(rules: Iterable[Rule], documents: Mapping[str, Document] | None,
                         bibliography: str = BIBLIOGRAPHY) -> list[KBError]:
    """The citations of the rules that name no document."""
    if documents is None:
        return []
    errors: list[KBError] = []
    for rule in rules:
        _check(rule.source, rule.where, documents, bibliography, errors)
    return errors


def _check_fact(fact: Fact, documents: Mapping[str, Document], bibliography: str, errors: list[KBError]) -> None:
    if fact.source is not None or fact.value is not None:  # an n/a fact says why in its doc and may cite nothing
        _check_cited(fact.key, fact.source, fact.where, documents, bibliography, errors)
    for other in fact.also:
        _check(other.source or "", other.where, documents, bibliography, errors)


def _check_cited(what: str, source: str | None, where: Location, documents: Mapping[str, Document],
                 bibliography: str, errors: list[KBError]) -> None:
    """``what`` must cite a document: no source at all is an error, as a citation of no document is."""
    if source is None:
        errors.append(LoadError(f"{what} cites no source", where=where,
                                hint=f"add source: \"ID, LOCATION\" with ID a document of {bibliography}"))
    else:
        _check(source, where, documents, bibliography, errors)


def _check(source: str, where: Location, documents: Mapping[str, Document], bibliography: str,
           errors: list[KBError]) -> None:
    ident, _ = split_citation(source)
    if ident not in documents:
        error = UnknownNameError("source", ident, documents, where=where)
        todo = f"cite a document of {bibliography} as 'ID, LOCATION', or add the document there"
        error.hint = f"{error.hint} {todo}" if error.suggestions else todo
        errors.append(error)
