"""Which unknowns relations could settle at all, whatever the planner picks: those every maximum matching covers.

An unknown that some maximum matching of relations to unknowns leaves free lies in the underdetermined part of the
system (Dulmage and Mendelsohn): no step of a plan gives it, since a relation with one unknown, and a square block
closed over its unknowns, give only unknowns that every maximum matching covers; and knowing more keys never uncovers
one. The search for what would settle a key uses this to skip planning a trial that cannot settle it, which would
otherwise look for blocks across the whole system (:mod:`hwkb.solving.plan`).

>>> Coverage({0: frozenset({"x", "y"}), 1: frozenset({"x", "y"}), 2: frozenset({"y", "z"})}).covered("x", set())
True
>>> Coverage({0: frozenset({"x", "y"}), 1: frozenset({"y", "z"})}).covered("x", set())
False
"""
from __future__ import annotations

from typing import Mapping

from hwkb.solving.plan_blocks import maximum_matching

__all__ = ["Coverage"]


class Coverage:
    """The relations' unknowns and one maximum matching of them, repaired for each set of keys later known."""

    def __init__(self, unknowns: Mapping[int, frozenset[str]]):
        self.unknowns = {r: sorted(keys) for r, keys in unknowns.items() if keys}
        self.owner = maximum_matching(self.unknowns)

    def covered(self, key: str, known: set[str]) -> bool:
        """Whether every maximum matching covers ``key`` once the ``known`` keys are known too: False proves no plan
        from those keys gives it.

        The matching less the known keys stays maximum once each relation they freed is given an augmenting path
        where one exists (none starts at a relation free before, as none did). ``key`` is then left free by some
        maximum matching exactly when it is free in this one or an alternating path leads to it from a free unknown.
        """
        owner = self.owner.copy()
        for r in sorted(owner.pop(k) for k in known if k in owner):
            self._augment(r, owner, known, set())
        if key not in owner:
            return False
        seen, queue = {key}, [key]
        while queue:
            for k in self.unknowns[owner[queue.pop()]]:
                if k not in known and k not in seen:
                    if k not in owner:
                        return False
                    seen.add(k)
                    queue.append(k)
        return True

    def _augment(self, r: int, owner: dict[str, int], known: set[str], seen: set[str]) -> bool:
        """Match relation ``r`` along an augmenting path, if there is one (Kuhn's search)."""
        for k in self.unknowns[r]:
            if k not in known and k not in seen:
                seen.add(k)
                if k not in owner or self._augment(owner[k], owner, known, seen):
                    owner[k] = r
                    return True
        return False
