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


def power(base: float, exponent: int, digits: int = 2) -> str:
    """base to the power exponent, written with a superscript: 0.90⁹⁹."""
    return f"{base:.{digits}f}{str(exponent).translate(SUPERSCRIPT)}"
