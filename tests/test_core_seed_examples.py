"""The seeds' worked examples, reproduced by the core to the last printed digit (and beyond)."""

import math

import numpy as np
import pytest

import attention_core as core

Q = np.array([[1.0, 0.0, 1.0, 0.0]])
K = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0]])
V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


@pytest.fixture(scope="module")
def trace():
    return core.scaled_dot_product_attention(Q, K, V)


def test_scores(trace):
    np.testing.assert_array_equal(trace.scores[0], [1.0, 1.0, 2.0])


def test_scaled(trace):
    np.testing.assert_array_equal(trace.scaled[0], [0.5, 0.5, 1.0])


def test_weights_match_the_closed_form(trace):
    e = [math.exp(0.5), math.exp(0.5), math.exp(1.0)]
    expected = [x / sum(e) for x in e]
    np.testing.assert_allclose(trace.weights[0], expected, rtol=1e-15)
    np.testing.assert_allclose(trace.weights[0], [0.274069, 0.274069, 0.451863], atol=5e-7)


def test_output(trace):
    np.testing.assert_allclose(trace.output[0], [3.355588, 4.355588], atol=5e-7)


def test_hand_rounding_path_differs_only_in_the_last_digits(trace):
    # Rounding each weight to 4 places first gives 3.3559 (the seed's 3.3554 also miswrote α₃ as 0.4518).
    rounded = core.output_with_rounded_weights(trace.weights[0], V, decimals=4)
    np.testing.assert_allclose(rounded, [0.2741 * 1 + 0.2741 * 3 + 0.4519 * 5, 0.2741 * 2 + 0.2741 * 4 + 0.4519 * 6])
    seed_written = core.linear_combination([0.2741, 0.2741, 0.4518], V)
    np.testing.assert_allclose(seed_written, [3.3554, 4.3554], atol=1e-12)


def test_muddy_river_bank_blend():
    X = np.array([[0.10, 0.90], [0.45, 0.70], [0.20, 0.80]])
    z = core.convex_combination([0.60, 0.30, 0.10], X)
    np.testing.assert_allclose(z, [0.215, 0.830], atol=1e-15)


def test_gradient_bound_over_99_steps():
    bound = float(core.gradient_bound(0.9, 99))
    assert bound == pytest.approx(0.9**99)
    assert f"{bound:.2e}" == "2.95e-05"


def test_static_bank_centroid_is_045_070_not_072():
    c = core.centroid([[0.20, 0.90], [0.70, 0.50]])
    np.testing.assert_allclose(c, [0.45, 0.70], atol=1e-15)
    assert abs(c[1] - 0.72) > 0.01
