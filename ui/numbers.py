"""Numbers as a reader writes them on a page: 2.95 × 10⁻⁵ where Python prints 2.95e-05, and 0.90⁹⁹ for 0.90^99.

A projected slide or a page beside a prediction that says "3 × 10⁻⁵" should not show code's e-notation or a caret.
"""

from __future__ import annotations

import numpy as np

SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def written(x: float, digits: int = 3) -> str:
    """x to ``digits`` significant figures: 0.0295, or 2.95 × 10⁻⁵ where ``f"{x:.3g}"`` gives 2.95e-05."""
    text = f"{x:.{digits}g}"
    if "e" not in text or not np.isfinite(x):
        return text
    mantissa, exponent = text.split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"


def from_log10(log10: float, digits: int = 3) -> str:
    """The number 10^log10, written at any size, even far below the smallest double: 0.0295, 2.9 × 10⁻³⁷¹.

    For a quantity computed in log space (a product of hundreds of factors below 1), so that it is never
    written 0. Plain with three significant figures from 0.001 to 9,999; otherwise ``digits`` of mantissa."""
    if log10 == -np.inf:
        return "0"
    if -3 <= log10 < 4 and "e" not in f"{10 ** log10:.3g}":
        return f"{10 ** log10:.3g}"
    exponent = int(np.floor(log10))
    mantissa = 10 ** (log10 - exponent)
    if round(mantissa, digits - 1) >= 10:
        mantissa, exponent = 1.0, exponent + 1
    return f"{mantissa:.{digits}g} × 10{str(exponent).translate(SUPERSCRIPT)}"


def power(base: float, exponent: int, digits: int = 2) -> str:
    """base to the power exponent, written with a superscript: 0.90⁹⁹."""
    return f"{base:.{digits}f}{str(exponent).translate(SUPERSCRIPT)}"


def counted(n: float, singular: str, plural: str | None = None) -> str:
    """n with its noun, singular only for exactly one: "1 key", "2 keys", "0 keys", "1.5 keys".

    ``plural`` defaults to the singular with an s; give it for irregular nouns ("1 query", "3 queries")."""
    noun = singular if n == 1 else (plural or f"{singular}s")
    return f"{n:,g} {noun}" if isinstance(n, float) else f"{n:,} {noun}"


def fixed(x: float, decimals: int = 3) -> str:
    """x with a fixed number of decimals, never "-0.000": a value that rounds to zero is written unsigned."""
    text = f"{x:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text
