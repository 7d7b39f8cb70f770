"""Numbers as a page writes them (ui/numbers.py): never code's e-notation, and the same value read back."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from devtools.apptest import leading_number
from ui.numbers import power, written


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300), st.integers(1, 6))
def test_written_has_no_e_notation_and_reads_back_as_the_rounded_value(x, digits):
    shown = written(x, digits)
    assert "e" not in shown
    assert math.isclose(leading_number(shown), float(f"{x:.{digits}g}"), rel_tol=1e-12, abs_tol=0.0)


def test_written_keeps_plain_numbers_plain_and_powers_take_superscripts():
    assert written(0.0295) == "0.0295" and written(2.95e-05) == "2.95 × 10⁻⁵" and written(3.57e41) == "3.57 × 10⁴¹"
    assert written(float("inf")) == "inf"
    assert power(0.9, 99) == "0.90⁹⁹" and power(0.731, 99, 3) == "0.731⁹⁹"
