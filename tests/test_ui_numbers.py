"""Numbers as a page writes them (ui/numbers.py): never code's e-notation, and the same value read back."""

from __future__ import annotations

import math

from hypothesis import given, strategies as st

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


@given(st.floats(min_value=-2000, max_value=2000))
def test_from_log10_writes_any_size_and_reads_back_within_its_digits(log10):
    from ui.numbers import from_log10

    shown = from_log10(log10)
    assert "e" not in shown and shown != "0"
    mantissa, _, exponent = shown.replace(",", "").partition(" × 10")
    read = math.log10(float(mantissa)) + (int(exponent.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
                                          if exponent else 0)
    assert abs(read - log10) < 0.03                              # two or three significant figures


def test_from_log10_writes_an_underflowed_product_as_a_reader_would():
    from ui.numbers import from_log10

    assert from_log10(-371 + math.log10(2.9), 2) == "2.9 × 10⁻³⁷¹"
    assert from_log10(math.log10(0.18)) == "0.18" and from_log10(-math.inf) == "0"


@given(st.integers(min_value=-10**6, max_value=10**6))
def test_counted_is_singular_for_exactly_one_and_plural_otherwise(n):
    from ui.numbers import counted
    text = counted(n, "key")
    assert text.endswith(" key") == (n == 1)
    assert text.endswith(" keys") == (n != 1)
    assert counted(n, "query", "queries").endswith("query" if n == 1 else "queries")


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_fixed_never_writes_minus_zero_and_reads_back_within_half_a_step(x):
    from ui.numbers import fixed
    text = fixed(x, 3)
    assert not (text.startswith("-") and float(text) == 0)
    assert abs(float(text) - x) <= 0.0005 + 1e-9 * abs(x)
