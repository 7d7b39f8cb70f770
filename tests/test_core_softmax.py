"""softmax and friends against closed forms, finite differences and a naive loop."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import attention_core as core

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
logit_rows = arrays(np.float64, st.integers(1, 12), elements=finite)


def naive_softmax(x):
    m = max(x)
    e = [math.exp(v - m) for v in x]
    return [v / sum(e) for v in e]


@given(logit_rows)
def test_matches_naive_loop_and_lies_on_simplex(x):
    p = core.softmax(x)
    np.testing.assert_allclose(p, naive_softmax(list(x)), rtol=1e-12, atol=1e-300)
    assert np.all(p >= 0)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


@given(logit_rows, st.floats(-1e5, 1e5))
def test_shift_invariant(x, c):
    np.testing.assert_allclose(core.softmax(x + c), core.softmax(x), atol=1e-9)


@pytest.mark.parametrize("x", [[1e308, -1e308], [1e308, 1e308, 0.0], [-1e308, -1e308], [1e308, 1e307, -1e308]])
def test_stable_at_the_edge_of_float64(x):
    p = core.softmax(x)
    assert np.all(np.isfinite(p))
    assert p.sum() == pytest.approx(1.0)


def test_temperature_zero_is_argmax_with_ties_shared():
    np.testing.assert_array_equal(core.softmax([1.0, 3.0, 2.0], temperature=0), [0, 1, 0])
    np.testing.assert_array_equal(core.softmax([3.0, 1.0, 3.0], temperature=0), [0.5, 0, 0.5])


@given(arrays(np.float64, st.integers(2, 8), elements=st.floats(-50, 50)))
def test_tiny_temperature_converges_to_the_limit(x):
    top = x == x.max()
    p = core.softmax(x, temperature=1e-12)
    gap = np.sort(np.unique(x))
    if gap.size > 1 and (gap[-1] - gap[-2]) > 1e-9:
        np.testing.assert_allclose(p, top / top.sum(), atol=1e-12)


def test_large_temperature_tends_to_uniform():
    np.testing.assert_allclose(core.softmax([1.0, 5.0, -3.0], temperature=1e9), [1 / 3] * 3, atol=1e-8)


def test_axis_argument():
    X = np.array([[1.0, 2.0], [3.0, 5.0]])
    np.testing.assert_allclose(core.softmax(X, axis=0).sum(axis=0), [1, 1])
    np.testing.assert_allclose(core.softmax(X, axis=0)[:, 0], naive_softmax([1.0, 3.0]))


@pytest.mark.parametrize("bad", [[np.nan, 1.0], [np.inf, 0.0], [], "abc"])
def test_rejects_bad_logits(bad):
    with pytest.raises(ValueError):
        core.softmax(bad)


@pytest.mark.parametrize("t", [-1.0, np.nan, np.inf])
def test_rejects_bad_temperature(t):
    with pytest.raises(ValueError, match="temperature"):
        core.softmax([1.0, 2.0], temperature=t)


@settings(max_examples=50)
@given(arrays(np.float64, st.integers(2, 6), elements=st.floats(-5, 5)))
def test_jacobian_matches_finite_differences(x):
    J = core.softmax_jacobian(core.softmax(x))
    h = 1e-6
    numeric = np.empty_like(J)
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        numeric[:, j] = (core.softmax(x + e) - core.softmax(x - e)) / (2 * h)
    np.testing.assert_allclose(J, numeric, atol=1e-7)


def test_jacobian_rejects_off_simplex():
    with pytest.raises(ValueError, match="simplex"):
        core.softmax_jacobian([0.5, 0.7])


def test_saturation_kills_the_gradient():
    assert core.softmax_gradient_norm([0.0, 0.0]) == pytest.approx(0.5)
    assert core.softmax_gradient_norm([0.0, 40.0]) < 1e-15
    np.testing.assert_allclose(core.sigmoid_slope([0.0, 50.0]), [0.25, math.exp(-50)], rtol=1e-9)
    np.testing.assert_allclose(core.sigmoid([-800.0, 0.0, 800.0]), [0.0, 0.5, 1.0])


def test_entropy():
    assert core.entropy([0.5, 0.5]) == pytest.approx(math.log(2))
    assert core.entropy([1.0, 0.0]) == 0.0
