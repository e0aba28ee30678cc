"""Hints that know hardware: what the factor between a stated figure and the value the others imply says.

A figure exactly twice its dense decomposition looks like a sparse figure under
a dense key; 1.024 or 1.048576 is a binary prefix read as a decimal one (on a
capacity, JEDEC's: a vendor's "80 GB" of memory is 80 GiB); 8 is
bits against bytes; 1000 a decimal prefix; an exact power of two a precision or
per-unit mix-up. :func:`hint_for` names the figure, its factor and the slip's kind (a
:class:`~hwkb.audit.findings.Hint`, data the render stage words), and only where
the factor can arise for that quantity.
"""
from __future__ import annotations

import bisect
import math

from hwkb.audit.findings import Hint
from hwkb.definitions.model import VarKey, split_key
from hwkb.solving.system import System

__all__ = ["hint_for", "has_information", "SPECIFIC", "BINARY_BASES"]


#: the binary prefixes' factors over the decimal ones (Ki over k, Mi over M, Gi over G)
BINARY_BASES = (1.024, 1.048576, 1.073741824)
SPECIFIC = ("sparse", "bits", "binary", "decimal")  # hints that point at one figure, not just at a factor
_BITS = 8.0
_DECIMAL_STEPS = (1, 2, 3)      # 1000^k: k, M, G written for one another
_POWER_STEPS = range(1, 11)     # 2^k
_NEEDS_INFORMATION = ("bits", "binary")

#: every test :func:`hint_for` makes, in the order it makes them: (factor, kind); the render stage words each kind
_TESTS: tuple[tuple[float, str], ...] = (
    (2.0, "sparse"),
    (_BITS, "bits"), (1 / _BITS, "bits"),
    *((f, "binary") for base in BINARY_BASES for f in (base, 1 / base)),
    *((f, "decimal") for k in _DECIMAL_STEPS for f in (1000.0 ** k, 1000.0 ** -k)),
    *((f, "power_of_two") for k in _POWER_STEPS for f in (2.0 ** k, 2.0 ** -k)),
)
#: the factors of :data:`_TESTS`, ascending, for the pre-filter
_FACTORS = sorted({f for f, *_ in _TESTS})


def _tests_by_factor() -> dict[float, list[tuple[int, str, float]]]:
    """Each factor's tests as (place in :data:`_TESTS`, kind, factor): 8 is bits and a power of two."""
    out: dict[float, list[tuple[int, str, float]]] = {}
    for place, (factor, kind) in enumerate(_TESTS):
        out.setdefault(factor, []).append((place, kind, factor))
    return out


_TESTS_OF = _tests_by_factor()
#: the largest spread at which a factor can still be told from 1: the enclosure cannot hold both
_TIGHT_BELOW = {f: math.sqrt(max(f, 1 / f)) - 1 for f in _FACTORS}


def _candidates(factor: float, within: float) -> list[float]:
    """The factors of :data:`_FACTORS` within the relative distance ``within`` of ``factor``."""
    if within >= 1:
        return _FACTORS
    slack = 1e-12  # the bounds widened past float rounding; the caller's own test decides
    return _FACTORS[bisect.bisect_left(_FACTORS, factor / (1 + within) * (1 - slack)):
                    bisect.bisect_right(_FACTORS, factor / (1 - within) * (1 + slack))]


def has_information(system: System, key: VarKey) -> bool:
    """Whether the key's unit counts bits or bytes: only then can bits vs bytes or Ki vs k explain a factor."""
    return any(d == "[information]" for d, _ in system.units.dimensions(system.model.unit_of(key)))


def hint_for(system: System, key: VarKey, stated: float, implied: float, spread: float = 1e-9,
             rule: str | None = None, information: bool | None = None) -> Hint | None:
    """What the factor between a stated figure and the value the others imply says about how it was written.

    Returns a :class:`~hwkb.audit.findings.Hint` of kind ``sparse, bits, binary,
    decimal`` or ``power_of_two``, or None. A factor counts only if the check's relative
    ``spread`` pins it down, and only where it can arise: bits vs bytes and binary
    prefixes for quantities of information, a sparse figure where the variable has
    a ``_sparse`` twin.

    >>> from hwkb import KnowledgeBase
    >>> hint = hint_for(KnowledgeBase.load(), "tc_peak[bf16]", 624, 312, 0.002)
    >>> hint.kind, hint.factor, hint.twin
    ('sparse', 2.0, 'tc_peak_sparse[bf16]')
    """
    if not (implied and math.isfinite(implied) and math.isfinite(stated)) or stated / implied <= 0:
        return None
    factor = stated / implied
    within = spread + 1e-9
    near = [f for f in _candidates(factor, within) if spread < _TIGHT_BELOW[f] and abs(factor / f - 1) <= within]
    if not near:  # most failures: no factor a hint knows
        return None
    name, index = split_key(key)
    for _, kind, test_factor in sorted(test for f in near for test in _TESTS_OF[f]):
        twin, capacity = None, False
        if kind == "sparse":
            twin = f"{name}_sparse"
            if twin not in system.model.variables:
                continue
            twin = twin if index is None else f"{twin}[{index}]"
        elif kind in _NEEDS_INFORMATION:
            if information is None:
                information = has_information(system, key)
            if not information:
                continue
            capacity = kind == "binary" and system.model.variables[name].capacity
        return Hint(kind, key, stated, implied, system.model.unit_of(key), test_factor, rule, twin, capacity)
    return None
