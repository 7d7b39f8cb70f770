"""Projection, learned scores, sampling, the RNN helpers and text parsing."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import attention_core as core

vec = arrays(np.float64, 3, elements=st.floats(-10, 10))


@given(vec, vec)
def test_projection_decomposes_q(q, k):
    if np.linalg.norm(k) < 1e-3:
        return
    p = core.project(q, k)
    np.testing.assert_allclose(p.parallel + p.perpendicular, q, atol=1e-9)
    assert abs(p.perpendicular @ k) < 1e-7 * max(1.0, np.linalg.norm(q) * np.linalg.norm(k))
    assert p.score == pytest.approx(np.linalg.norm(k) * p.comp, abs=1e-9)
    assert p.score == pytest.approx(float(np.dot(q, k)), abs=1e-9)


def test_projection_is_not_commutative_but_the_score_is():
    q, k = np.array([2.0, 1.0]), np.array([1.0, 0.0])
    a, b = core.project(q, k), core.project(k, q)
    assert a.score == b.score
    assert not np.allclose(a.parallel, b.parallel)
    assert core.project([0.0, 3.0], [2.0, 0.0]).score == 0.0
    with pytest.raises(ValueError, match="zero vector"):
        core.project([1.0, 1.0], [0.0, 0.0])


def test_bilinear_scores_equal_x_m_x_and_break_symmetry():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 5))
    W_Q, W_K = rng.standard_normal((2, 5)), rng.standard_normal((2, 5))
    b = core.bilinear_scores(X, W_Q, W_K)
    np.testing.assert_allclose(b.scores, X @ b.M @ X.T, atol=1e-12)
    for i in range(4):
        for j in range(4):
            assert b.scores[i, j] == pytest.approx((W_Q @ X[i]) @ (W_K @ X[j]))
    assert b.asymmetry > 0.1 and b.rank <= 2
    same = core.bilinear_scores(X, W_Q, W_Q)
    assert same.asymmetry == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 512), st.integers(0, 2**32 - 1))
def test_dot_product_variance_is_d_k(d_k, seed):
    x = core.dot_product_samples(d_k, 4000, np.random.default_rng(seed))
    # Var(q·k) = d_k; the sample variance of 4000 draws has relative s.e. about sqrt(2/4000 · kurtosis).
    assert x.var() / d_k == pytest.approx(1.0, abs=0.25)
    assert abs(x.mean()) < 5 * np.sqrt(d_k / 4000)


def test_sampling_is_reproducible_and_needs_a_generator():
    a = core.dot_product_samples(8, 10, np.random.default_rng(1))
    b = core.dot_product_samples(8, 10, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="Generator"):
        core.dot_product_samples(8, 10, 1)


def test_rnn_influence_matches_finite_differences():
    rng = np.random.default_rng(3)
    rnn = core.random_rnn(4, 3, 0.9, rng)
    X = rng.standard_normal((6, 3))
    assert np.linalg.norm(rnn.W_hh, ord=2) == pytest.approx(0.9)
    influence = core.input_influence(rnn, X)
    h = 1e-6
    for j in range(6):
        J = np.empty((4, 3))
        for c in range(3):
            Xp, Xm = X.copy(), X.copy()
            Xp[j, c] += h
            Xm[j, c] -= h
            J[:, c] = (core.rnn_forward(rnn, Xp)[-1] - core.rnn_forward(rnn, Xm)[-1]) / (2 * h)
        assert influence[j] == pytest.approx(np.linalg.norm(J, ord=2), rel=1e-5)
    # Each step multiplies by a Jacobian of norm ≤ 0.9 · max|tanh'| ≤ 0.9, so input j reaches h_T shrunk by
    # at least 0.9^(T−1−j): the bound the lesson plots.
    bound = core.gradient_bound(0.9, np.arange(5, -1, -1)) * np.linalg.norm(rnn.W_xh, ord=2)
    assert np.all(influence <= bound + 1e-12)


def test_path_lengths():
    assert core.path_lengths(100) == {"rnn": 99, "attention": 1}


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "empty"), ("1, 2\n3", "same number"), ("1, x", "not a number"), ("1, nan", "finite"),
     ("1, inf", "finite"), ("<script>alert(1)</script>", "not a number"), ("1," * 3000, "too long"),
     ("1e308, 1e308", "too large"), ("1, -1000001", "too large")],
)
def test_parse_matrix_refuses_bad_text(text, message):
    with pytest.raises(ValueError, match=message):
        core.parse_matrix(text, "K")


@given(arrays(np.float64, (3, 2), elements=st.floats(-1e6, 1e6, allow_subnormal=False)))
def test_parse_and_format_round_trip(M):
    np.testing.assert_array_equal(core.parse_matrix(core.format_matrix(M), "M"), M)
