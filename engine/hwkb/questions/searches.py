"""Searches over one variable for where a condition holds, when no closed form says it.

``feasible(x)`` answers whether the constraints hold at one value of the
variable (display units) and raises
:class:`~hwkb.errors.UnevaluablePoint` where it cannot be evaluated.

* integers under a launch limit of at most 4096: every one is tried, so the
  admissible runs are exact (occupancy is not monotone in the block size);
* other integers: doubling, then bisection for the least admissible one, then
  doubling on to where the admissible run ends (one run of integers is assumed),
  up to 2^40;
* reals: a geometric scan over 2^-40 .. 2^60 (or up to a launch limit), 2^(1/8)
  apart, boundaries bisected and each end tested for whether it belongs.

>>> found = search_integers("n", lambda n: n * n >= 50)
>>> found.least, found.intervals[0].upper
(8, None)
>>> least_integer([Interval(127.5, None, True, False)]), least_integer([Interval(128.0, None, False, False)])
(128, 129)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from hwkb.definitions.model import VarKey
from hwkb.errors import NotDetermined, UnevaluablePoint
from hwkb.solving.solution import Interval

__all__ = ["Admissible", "search_integers", "scan_reals", "least_integer", "greatest_integer", "REAL_PROBES",
           "MAX_INTEGER", "SEARCH_BUDGET_S"]

REAL_PROBES = tuple(2.0 ** (k / 8) for k in range(-40 * 8, 60 * 8 + 1))  # 2^(1/8) apart: windows of 9 %
MAX_INTEGER = 2 ** 40
#: launch limits up to which every integer is tried rather than one run assumed (1024 threads a block: ~0.3 s)
EVERY_INTEGER_UP_TO = 4096
SEARCH_BUDGET_S = 20


@dataclass(frozen=True)
class Scanned:
    """A note: a numeric search probed ``lower`` .. ``upper`` (canonical numbers) by factors of 2^(1/8) and bisected
    the boundaries it met; render/ words it."""
    lower: float
    upper: float


@dataclass(frozen=True)
class Admissible:
    """Where the constraints hold, how that was found, and the least integer when one was searched for."""
    variable: VarKey
    intervals: tuple[Interval, ...]
    method: str  # exact | numeric
    notes: tuple[str, ...] = ()
    least: int | None = None


def search_integers(variable: VarKey, feasible: Callable[[float], bool], upper: int | None = None) -> Admissible:
    """The run of positive integers where ``feasible`` holds, searched up to ``upper`` (a launch limit) or 2^40."""
    top = MAX_INTEGER if upper is None else upper
    if top < 1:
        return Admissible(variable, (), "numeric", ("no positive integer lies within the launch limits",))
    if upper is not None and top <= EVERY_INTEGER_UP_TO:
        return _every_integer(variable, feasible, top)
    deadline = time.monotonic() + SEARCH_BUDGET_S
    below, probe = 0, 1
    try:
        while not feasible(probe):
            if probe >= top:
                return Admissible(variable, (), "numeric", (f"no admissible integer up to {top}",))
            if time.monotonic() > deadline:
                return Admissible(variable, (), "numeric", (f"no admissible integer up to {probe} "
                                                            f"(search stopped after {SEARCH_BUDGET_S} s)",))
            below, probe = probe, min(probe * 2, top)
    except UnevaluablePoint as exc:
        raise NotDetermined(f"the search stopped before any admissible value: {exc}") from None
    least = _bisect_int(feasible, below, probe)
    end, last, stopped = None, probe, ""
    try:
        while last < top and time.monotonic() <= deadline:  # where the admissible run of integers ends
            further = min(last * 2, top)
            if not feasible(further):
                end = _bisect_int(lambda n: not feasible(n), last, further) - 1
                break
            last = further
    except UnevaluablePoint as exc:
        stopped = f" ({exc})"
    if end is None and upper is not None and last >= top:
        end = top  # the run reaches the launch limit
    span = f" over 1 .. {top}" if upper is not None else ""
    if end is None and last < top:
        note = f"searched over the integers (doubling, then bisection); the end was not found up to {last}{stopped}"
    else:
        note = (f"searched over the integers{span} (doubling, then bisection), assuming the admissible integers are "
                "one run" + (f" up to {MAX_INTEGER}" if end is None else ""))
    return Admissible(variable, (Interval(float(least), None if end is None else float(end), True,
                                          end is not None),), "numeric", (note,), least)


def _every_integer(variable: VarKey, feasible: Callable[[float], bool], top: int) -> Admissible:
    """Each integer 1 .. ``top`` tried: the admissible runs as they are, however many."""
    runs: list[list[int]] = []
    stopped = ""
    for n in range(1, top + 1):
        try:
            holds = feasible(n)
        except UnevaluablePoint as exc:
            if not runs:
                raise NotDetermined(f"the search stopped before any admissible value: {exc}") from None
            stopped = f"; stopped at {n} ({exc})"
            break
        if holds and runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        elif holds:
            runs.append([n, n])
    if not runs:
        return Admissible(variable, (), "numeric", (f"no admissible integer up to {top}",))
    note = f"tried every integer 1 .. {top}" + (f": {len(runs)} separate runs admissible" if len(runs) > 1 else "")
    return Admissible(variable, tuple(Interval(float(a), float(b), True, True) for a, b in runs), "numeric",
                      (note + stopped,), runs[0][0])


def _bisect_int(holds: Callable[[float], bool], lo: int, hi: int) -> int:
    """The least n in (lo, hi] with holds(n), given holds(hi) and not holds(lo)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi


def scan_reals(variable: VarKey, evaluate: Callable[[float], bool], upper: float | None = None) -> Admissible:
    """Where ``evaluate`` holds over 2^-40 .. 2^60, or up to ``upper`` (a launch limit), which is probed too."""
    unevaluable: list[str] = []
    probes = REAL_PROBES if upper is None else tuple(x for x in REAL_PROBES if x < upper) + (upper,)

    def feasible(x: float) -> bool:
        try:
            return evaluate(x)
        except UnevaluablePoint as exc:
            unevaluable.append(str(exc))
            return False

    states = [feasible(x) for x in probes]
    intervals, start = [], None
    for i, state in enumerate(states):
        if state and start is None:
            start = 0.0 if i == 0 else _boundary(feasible, probes[i - 1], probes[i])
        if not state and start is not None:
            intervals.append((start, _boundary(feasible, probes[i - 1], probes[i])))
            start = None
    if start is not None:
        intervals.append((start, upper))
    out = tuple(Interval(lo, hi, lo != 0.0 and feasible(lo), hi is not None and feasible(hi)) for lo, hi in intervals)
    notes = (Scanned(probes[0], probes[-1]),) + ((f"{len(unevaluable)} points could not be evaluated, e.g. {unevaluable[0]}",) if unevaluable else ())
    return Admissible(variable, out, "numeric", notes)


def _boundary(feasible: Callable[[float], bool], a: float, b: float) -> float:
    """Where feasibility changes between a and b (to about 12 digits)."""
    side = feasible(a)
    for _ in range(60):
        mid = (a + b) / 2
        if feasible(mid) == side:
            a = mid
        else:
            b = mid
    return float(f"{(a + b) / 2:.12g}")




def least_integer(intervals: Sequence[Interval]) -> int | None:
    """The least positive integer in the intervals.

    >>> least_integer([Interval(127.5, None, True, False)]), least_integer([Interval(128.0, None, False, False)])
    (128, 129)
    """
    for interval in intervals:
        lower = interval.lower or 0.0
        nearest = round(lower)
        if abs(lower - nearest) <= _SNAP * max(1.0, abs(lower)):  # 64.00000000001 from float noise is 64
            candidate = nearest if interval.lower_closed else nearest + 1
        else:
            candidate = math.ceil(lower) if interval.lower_closed else math.floor(lower) + 1
        candidate = max(1, candidate)
        upper = interval.upper
        if upper is None or candidate < upper or (candidate <= upper * (1 + _SNAP) and interval.upper_closed):
            return candidate
    return None


_SNAP = 1e-9  # relative: a bound this close to an integer is that integer


def greatest_integer(intervals: Sequence[Interval]) -> int | None:
    """The greatest positive integer in the intervals; None when they are unbounded above or hold none.

    >>> greatest_integer([Interval(1.0, 64.0, True, True)]), greatest_integer([Interval(0.0, 2.3219, False, True)])
    (64, 2)
    """
    for interval in reversed(intervals):
        upper = interval.upper
        if upper is None:
            return None
        nearest = round(upper)
        if abs(upper - nearest) <= _SNAP * max(1.0, abs(upper)):
            candidate = nearest if interval.upper_closed else nearest - 1
        else:
            candidate = math.floor(upper)
        lower = interval.lower or 0.0
        if candidate >= 1 and (candidate > lower or (candidate >= lower * (1 - _SNAP) and interval.lower_closed)):
            return candidate
    return None
