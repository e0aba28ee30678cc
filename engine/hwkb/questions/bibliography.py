"""The KB's bibliography as a listing (``KnowledgeBase.sources``, ``hwkb sources``): every document of
``SOURCES.yaml`` with how many facts it backs, the most first.

A fact backs its document once, whether the KB states it as its own figure, as
another document's figure beside it (``also``) or as a variable's default; the
rules that cite a document are counted apart. A KB without a bibliography
lists the free-text sources instead, each as its own row, so the command still
says what the figures rest on.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hwkb.definitions.citations import split_citation
from hwkb.definitions.model import Model
from hwkb.results import Result

__all__ = ["Bibliography", "bibliography", "COLUMNS"]

#: each row's fields, in the order the table forms print them
COLUMNS = ("id", "title", "publisher", "date", "read", "facts", "rules", "url", "via", "doc")


@dataclass(frozen=True, repr=False)
class Bibliography(Result):
    """The documents (``rows``: dicts of :data:`COLUMNS`), the most-cited first; ``to_dict()`` is the JSON."""
    rows: tuple[dict, ...]
    cited: bool  # False: the KB has no SOURCES.yaml and the rows are its free-text sources

    def to_dict(self) -> dict:
        return {"command": "sources", "status": "ok", "cited": self.cited, "documents": [dict(r) for r in self.rows]}


def bibliography(model: Model) -> Bibliography:
    """Every document of ``model``'s bibliography, with the facts and rules citing it; most facts first, then id."""
    facts, rules = Counter(), Counter()
    cited = model.sources is not None
    key = (lambda source: split_citation(source)[0]) if cited else (lambda source: source)
    for fact in _facts(model):
        if fact.source:
            facts[key(fact.source)] += 1
    for rule in model.rules.values():
        rules[key(rule.source)] += 1
    if cited:
        rows = [{"id": d.id, "title": d.title, "publisher": d.publisher, "date": d.date, "read": d.read,
                 "facts": facts[d.id], "rules": rules[d.id], "url": d.url, "via": d.via, "doc": d.doc}
                for d in model.sources.values()]
    else:
        rows = [{"id": text, "title": text, "publisher": None, "date": None, "read": None, "facts": facts[text],
                 "rules": rules[text], "url": None, "via": None, "doc": ""} for text in {**facts, **rules}]
    rows.sort(key=lambda r: (-r["facts"], -r["rules"], r["id"]))
    return Bibliography(tuple(rows), cited)


def _facts(model: Model):
    """Every fact the KB states: each entity's own, the other documents' figures beside them, the defaults."""
    for eid in model.entities:
        entity = model.entities[eid]
        for fact in entity.facts.values():
            if fact.entity == eid:
                yield fact
                yield from fact.also
    for variable in model.variables.values():
        if variable.default is not None:
            yield variable.default
