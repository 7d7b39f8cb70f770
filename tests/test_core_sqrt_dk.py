"""The √d_k lab's numbers: sampled variance, binning, the softmax Jacobian and the sweep."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from attention_core import (
    dot_product_samples,
    histogram_density,
    max_eigenvalue_of_softmax_jacobian,
    normal_pdf,
    sigmoid,
    sigmoid_slope,
    softmax,
    softmax_gradient_norm,
    softmax_jacobian,
    softmax_sweep,
)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 1024), st.integers(0, 1000))
def test_dot_product_variance_is_about_d_k(d_k, seed):
    s = dot_product_samples(d_k, 20_000, np.random.default_rng(seed))
    # Var of a sample variance of n draws with kurtosis ≤ 9 d_k²: 6 standard errors is a safe band.
    assert abs(s.var() / d_k - 1) < 6 * np.sqrt(8 / 20_000)
    assert abs((s / np.sqrt(d_k)).var() - 1) < 6 * np.sqrt(8 / 20_000)


def test_dot_products_are_real_draws_from_the_generator():
    a = dot_product_samples(3, 5, np.random.default_rng(1))
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    np.testing.assert_allclose(a, (q * k).sum(axis=1))


def finite_difference_jacobian(x, h=1e-6):
    n = x.size
    J = np.zeros((n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = h
        J[:, j] = (softmax(x + e) - softmax(x - e)) / (2 * h)
    return J


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-8, 8, allow_nan=False), min_size=1, max_size=7))
def test_softmax_jacobian_matches_finite_differences(x):
    x = np.array(x)
    np.testing.assert_allclose(softmax_jacobian(softmax(x)), finite_difference_jacobian(x), atol=1e-6)


def test_batched_jacobian_norm_matches_the_one_row_version():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 5)) * 3
    batched = max_eigenvalue_of_softmax_jacobian(softmax(X, axis=-1))
    np.testing.assert_allclose(batched, [softmax_gradient_norm(x) for x in X], atol=1e-12)


def test_histogram_density_matches_a_naive_count_and_integrates_to_one():
    rng = np.random.default_rng(2)
    s = rng.standard_normal(5000)
    h = histogram_density(s, bins=20, half_width=5.0)
    edges = np.linspace(-5, 5, 21)
    naive = [sum(1 for v in s if lo <= v < hi) for lo, hi in itertools.pairwise(edges)]
    naive[-1] += int(np.sum(s == 5.0))
    np.testing.assert_array_equal(h.count, naive)
    assert (h.density * h.width).sum() == pytest.approx(np.mean(np.abs(s) <= 5.0))


def test_normal_pdf_integrates_to_one_with_the_given_variance():
    x = np.linspace(-200, 200, 400_001)
    dx = x[1] - x[0]
    for var in (1.0, 64.0, 1024.0):
        p = normal_pdf(x, var)
        assert p.sum() * dx == pytest.approx(1.0, abs=1e-6)
        assert (x**2 * p).sum() * dx == pytest.approx(var, rel=1e-4)
    with pytest.raises(ValueError):
        normal_pdf(0.0, 0.0)


def test_sigmoid_slope_is_the_derivative_and_falls_to_zero():
    x = np.linspace(-10, 10, 41)
    h = 1e-6
    np.testing.assert_allclose(sigmoid_slope(x), (sigmoid(x + h) - sigmoid(x - h)) / (2 * h), atol=1e-8)
    assert sigmoid_slope(0.0) == pytest.approx(0.25)
    assert sigmoid_slope(30.0) < 1e-12


def test_sweep_unscaled_saturates_as_d_k_grows_and_scaled_does_not():
    sw = softmax_sweep([1, 16, 256, 1024], n_keys=16, n_rows=300, rng=np.random.default_rng(0))
    assert np.all(np.diff(sw.max_weight_raw) > 0)          # the top weight heads for 1
    assert np.all(np.diff(sw.entropy_raw) < 0)             # the distribution collapses
    assert sw.grad_norm_raw[-1] < 0.25 * sw.grad_norm_scaled[-1]
    assert np.ptp(sw.entropy_scaled) < 0.2                 # scaled rows look alike at every d_k
    assert np.all(sw.entropy_scaled <= np.log(16) + 1e-12)
    with pytest.raises(ValueError):
        softmax_sweep([0], 4, 4, np.random.default_rng(0))


def test_prefix_sums_are_real_nested_dot_products_with_variance_d():
    from attention_core import dot_product_prefix_sums

    P = dot_product_prefix_sums(8, 3, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((3, 8)), rng.standard_normal((3, 8))
    for d in range(1, 9):
        np.testing.assert_allclose(P[:, d - 1], [q[i, :d] @ k[i, :d] for i in range(3)])
    big = dot_product_prefix_sums(256, 20_000, np.random.default_rng(1))
    for d in (1, 16, 256):
        assert abs(big[:, d - 1].var() / d - 1) < 6 * np.sqrt(8 / 20_000)
