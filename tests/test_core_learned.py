"""bilinear_scores, the interaction matrix and the token table, against naive loops."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from attention_core import bilinear_scores, random_projections, singular_values, strongest_target, token_table


def naive_scores(X, W_Q, W_K):
    n = X.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        q = [sum(W_Q[a, m] * X[i, m] for m in range(X.shape[1])) for a in range(W_Q.shape[0])]
        for j in range(n):
            k = [sum(W_K[a, m] * X[j, m] for m in range(X.shape[1])) for a in range(W_K.shape[0])]
            out[i, j] = sum(qa * ka for qa, ka in zip(q, k, strict=True))
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(1, 6), st.integers(1, 5))
def test_scores_match_a_naive_loop_and_x_m_x(seed, d_k, d_model, n):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d_model))
    W_Q, W_K = random_projections(d_k, d_model, rng)
    b = bilinear_scores(X, W_Q, W_K)
    np.testing.assert_allclose(b.scores, naive_scores(X, W_Q, W_K), atol=1e-10)
    np.testing.assert_allclose(b.scores, X @ b.M @ X.T, atol=1e-10)
    assert b.rank <= min(d_k, d_model)
    assert b.rank == min(d_k, d_model)                    # random Gaussian weights have full rank
    assert np.count_nonzero(singular_values(b.M) > 1e-10) == b.rank


def test_identity_projections_give_the_symmetric_raw_scores():
    X = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])
    raw = bilinear_scores(X, np.eye(2), np.eye(2))
    np.testing.assert_allclose(raw.scores, X @ X.T)
    assert raw.asymmetry == 0.0


def test_asymmetry_is_frobenius_norm_of_a_minus_a_transpose():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((4, 3))
    b = bilinear_scores(X, *random_projections(2, 3, rng))
    A = b.scores
    assert b.asymmetry == pytest.approx(np.sqrt(sum((A[i, j] - A[j, i]) ** 2 for i in range(4) for j in range(4))))
    assert b.asymmetry > 0


def test_same_seed_same_weights():
    a = random_projections(2, 4, np.random.default_rng(7))
    b = random_projections(2, 4, np.random.default_rng(7))
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError):
        random_projections(2, 4, None)


def test_token_table_reads_rows_and_refuses_ragged_ones():
    labels, X = token_table([{"text": "a", "embedding": [1, 2]}, {"text": "b", "embedding": [3, 4]}])
    assert labels == ["a", "b"] and X.shape == (2, 2)
    with pytest.raises(ValueError, match="2 entries"):
        token_table([{"text": "a", "embedding": [1, 2]}, {"text": "b", "embedding": [3]}])
    with pytest.raises(ValueError):
        token_table([])
    with pytest.raises(ValueError, match="NaN"):
        token_table([{"text": "a", "embedding": [float("nan")]}])
    np.testing.assert_array_equal(strongest_target(np.array([[0, 2.0], [5.0, 1]])), [1, 0])


def test_rank_sweep_hits_the_ceiling_min_d_k_d_model():
    from attention_core import rank_sweep

    d_ks = np.arange(1, 9)
    np.testing.assert_array_equal(rank_sweep(5, d_ks, np.random.default_rng(0)), np.minimum(d_ks, 5))
