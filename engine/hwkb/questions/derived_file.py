"""Derived values as an entity file (``hwkb derive --write``), each to the digits the stated figures support.

The file states one entity extending the product, each derived value a fact whose source names the rule that
gave it (:data:`~hwkb.formats.entity_writing.DERIVED_SOURCE`, so a later audit sets it aside rather than
check a value against the facts it came from); :mod:`hwkb.formats.entity_writing` writes it in the KB's format.
"""
from __future__ import annotations

import math
from typing import Container, Iterable

from hwkb.definitions.model import VarKey
from hwkb.formats.entity_writing import DERIVED_SOURCE, entity_file_text
from hwkb.solving.values import Value

__all__ = ["derived_entity_text", "supported_digits", "WHOLE_BELOW"]

WHOLE_BELOW = 1e6


def derived_entity_text(entity: str, kind: str, values: Iterable[Value], counts: Container[VarKey] = ()) -> str:
    """A gpus/*.yaml document: one entity extending ``entity`` with the values as facts.

    >>> print(derived_entity_text("x", "product", []), end="")
    # derived by hwkb from x; every fact names the rule that gave it
    x-derived:
      kind: product
      extends: x
      facts: {}
    """
    facts = {v.key: {"value": f"{supported_digits(v, counts)} {v.unit}".strip(),
                     "source": f"{DERIVED_SOURCE}, rule {v.origin.rule}"} for v in values}
    return entity_file_text(f"{entity}-derived", kind, entity, facts,
                            f"derived by hwkb from {entity}; every fact names the rule that gave it")


def supported_digits(value: Value, counts: Container[VarKey] = (), most: int = 12) -> str:
    """The value with as many significant digits as the least precise stated figure it rests on: what the data
    supports, not ``1.41059027778``. A default or a count (a key in ``counts``: an integer variable, exact as
    the audit takes it) does not limit it; with nothing that does, up to ``most``. A whole number below
    :data:`WHOLE_BELOW` is written whole: such values are products of counts (32 banks x 4 B), whose small
    printed figures would otherwise limit them to a digit or two.

    >>> from hwkb.solving.values import FactOrigin, RuleOrigin
    >>> peak = Value("peak", 19.5, "TFLOPS", 19.5e12, FactOrigin("peak", "a100", None, None), uncertainty=0.05 / 19.5)
    >>> sms = Value("sms", 108.0, "", 108.0, FactOrigin("sms", "a100", None, None), uncertainty=0.5 / 108)
    >>> clock = Value("clock", 1.41059027778, "GHz", 1.41059027778e9, RuleOrigin("law", "law", None, (peak, sms)))
    >>> lanes = Value("lanes", 6912.000000000001, "", 6912.0, RuleOrigin("law", "law", None, (sms,)))
    >>> supported_digits(clock, counts={"sms"}), supported_digits(lanes, counts={"sms"})
    ('1.41', '6912')
    """
    magnitude = abs(value.magnitude)
    if magnitude < WHOLE_BELOW and abs(magnitude - round(magnitude)) <= 1e-9 * magnitude:
        return str(round(value.magnitude))  # 128 B/cycle from 32 banks x 4 B, not 1e+02
    digits = min((_printed_digits(fact) for fact in value.facts() if fact.uncertainty and fact.key not in counts
                  and getattr(fact.origin, "via", "fact") != "default"), default=most)
    return f"{value.magnitude:.{min(max(digits, 1), most)}g}"


def _printed_digits(fact: Value) -> int:
    """The significant digits a stated value was printed with, from its rounding (half its last digit)."""
    magnitude = abs(fact.magnitude)
    if not magnitude or not math.isfinite(magnitude):
        return 1
    return math.floor(math.log10(magnitude) + 1 - math.log10(2 * fact.uncertainty * magnitude) + 1e-9)
