"""Multi-head attention against a plain loop, its special cases, its cost count, and the head-role measures."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import attention_core as core


def naive_multi_head(X, W_Q, W_K, W_V, W_O, n_heads, mask=None):
    """Loops only: every product, every softmax and the concatenation written out entry by entry."""
    T, d = len(X), len(X[0])
    d_k = d // n_heads

    def matmul(A, B):
        return [[sum(A[i][m] * B[m][j] for m in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]

    Q, K, V = matmul(X, W_Q), matmul(X, W_K), matmul(X, W_V)
    concat = [[0.0] * d for _ in range(T)]
    weights = np.zeros((n_heads, T, T))
    for h in range(n_heads):
        cols = range(h * d_k, (h + 1) * d_k)
        for i in range(T):
            s = [sum(Q[i][c] * K[j][c] for c in cols) / np.sqrt(d_k) for j in range(T)]
            visible = [j for j in range(T) if mask is None or mask[i][j]]
            top = max(s[j] for j in visible)
            e = [np.exp(s[j] - top) if j in visible else 0.0 for j in range(T)]
            total = sum(e)
            for j in range(T):
                weights[h, i, j] = e[j] / total
            for c in cols:
                concat[i][c] = sum(weights[h, i, j] * V[j][c] for j in range(T))
    return weights, np.array(matmul(concat, W_O))


@st.composite
def layers(draw):
    n_heads = draw(st.sampled_from([1, 2, 4]))
    d = n_heads * draw(st.integers(1, 3))
    T = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, d))
    Ws = [rng.normal(size=(d, d)) for _ in range(4)]
    return X, Ws, n_heads


@settings(max_examples=60)
@given(layers())
def test_matches_a_plain_loop_on_random_inputs(layer):
    X, (W_Q, W_K, W_V, W_O), n = layer
    got = core.multi_head_attention(X, W_Q, W_K, W_V, W_O, n)
    weights, output = naive_multi_head(X.tolist(), W_Q.tolist(), W_K.tolist(), W_V.tolist(), W_O.tolist(), n)
    np.testing.assert_allclose(got.weights, weights, atol=1e-9)
    np.testing.assert_allclose(got.output, output, atol=1e-8)
    assert got.weights.shape == (n, len(X), len(X)) and got.output.shape == X.shape


@settings(max_examples=40)
@given(layers())
def test_masked_matches_the_loop_and_rows_still_sum_to_one(layer):
    X, (W_Q, W_K, W_V, W_O), n = layer
    mask = core.causal_mask(len(X))
    got = core.multi_head_attention(X, W_Q, W_K, W_V, W_O, n, mask=mask)
    weights, output = naive_multi_head(X.tolist(), W_Q.tolist(), W_K.tolist(), W_V.tolist(), W_O.tolist(), n,
                                       mask.tolist())
    np.testing.assert_allclose(got.weights, weights, atol=1e-9)
    np.testing.assert_allclose(got.output, output, atol=1e-8)
    np.testing.assert_allclose(got.weights.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(got.weights[:, ~mask] == 0.0)


def test_one_head_with_identity_output_is_single_head_attention():
    rng = np.random.default_rng(3)
    X, W_Q, W_K, W_V = (rng.normal(size=s) for s in ((5, 6), (6, 6), (6, 6), (6, 6)))
    got = core.multi_head_attention(X, W_Q, W_K, W_V, np.eye(6), 1)
    ref = core.scaled_dot_product_attention(X @ W_Q, X @ W_K, X @ W_V)
    np.testing.assert_allclose(got.output, ref.output, atol=1e-12)
    np.testing.assert_allclose(got.weights[0], ref.weights, atol=1e-12)


def test_each_head_is_scaled_dot_product_attention_on_its_own_columns():
    rng = np.random.default_rng(4)
    X, W_Q, W_K, W_V, W_O = (rng.normal(size=s) for s in ((4, 8), (8, 8), (8, 8), (8, 8), (8, 8)))
    got = core.multi_head_attention(X, W_Q, W_K, W_V, W_O, 4)
    for h in range(4):
        c = slice(2 * h, 2 * h + 2)
        ref = core.scaled_dot_product_attention((X @ W_Q)[:, c], (X @ W_K)[:, c], (X @ W_V)[:, c])
        np.testing.assert_allclose(got.weights[h], ref.weights, atol=1e-12)
        np.testing.assert_allclose(got.concat[:, c], ref.output, atol=1e-12)
    assert got.d_k == 2 and got.columns(3) == slice(6, 8)


def test_w_v_moves_its_heads_output_and_no_weight():
    rng = np.random.default_rng(5)
    X, W_Q, W_K, W_V = (rng.normal(size=s) for s in ((5, 8), (8, 8), (8, 8), (8, 8)))
    before = core.multi_head_attention(X, W_Q, W_K, W_V, np.eye(8), 2)
    W_V2 = W_V.copy()
    W_V2[:, :4] += rng.normal(size=(8, 4))                  # head 1's columns only
    after = core.multi_head_attention(X, W_Q, W_K, W_V2, np.eye(8), 2)
    np.testing.assert_array_equal(after.weights, before.weights)
    np.testing.assert_array_equal(after.head_outputs[1], before.head_outputs[1])
    assert np.abs(after.head_outputs[0] - before.head_outputs[0]).max() > 1e-3


def test_a_fully_masked_row_is_a_clear_error_not_nan():
    X = np.eye(3)
    mask = core.causal_mask(3)
    mask[1] = False
    with pytest.raises(ValueError, match="every key is blocked for query row 2"):
        core.multi_head_attention(X, np.eye(3), np.eye(3), np.eye(3), np.eye(3), 1, mask=mask)


@pytest.mark.parametrize("n_heads, message", [(3, "divide d_model = 8"), (0, "at least 1"), (True, "whole number"),
                                              (2.0, "whole number")])
def test_bad_head_counts_are_refused(n_heads, message):
    with pytest.raises(ValueError, match=message):
        core.multi_head_attention(np.ones((2, 8)), *[np.eye(8)] * 4, n_heads)


def test_bad_shapes_and_values_are_refused():
    with pytest.raises(ValueError, match="W_K must have 4 columns"):
        core.multi_head_attention(np.ones((2, 4)), np.eye(4), np.eye(3), np.eye(4), np.eye(4), 1)
    with pytest.raises(ValueError, match="NaN"):
        core.multi_head_attention([[np.nan, 1.0]], *[np.eye(2)] * 4, 1)


def test_trace_is_frozen():
    t = core.multi_head_attention(np.eye(4), *[np.eye(4)] * 4, 2)
    with pytest.raises(ValueError):
        t.weights[0, 0, 0] = 1.0


def naive_cost(T, d, H):
    """Count the multiply-adds of the loop above, stage by stage, without the closed form."""
    d_k = d // H
    projections = sum(1 for _ in range(3) for _ in range(T) for _ in range(d) for _ in range(d))
    scores = sum(1 for _ in range(H) for _ in range(T) for _ in range(T) for _ in range(d_k))
    blend = sum(1 for _ in range(H) for _ in range(T) for _ in range(d_k) for _ in range(T))
    mixing = sum(1 for _ in range(T) for _ in range(d) for _ in range(d))
    return projections, scores, blend, mixing


@pytest.mark.parametrize("T, d, H", [(3, 8, 1), (3, 8, 2), (5, 12, 4), (2, 6, 6)])
def test_cost_counts_match_a_loop_and_do_not_depend_on_the_number_of_heads(T, d, H):
    c = core.attention_cost(T, d, H)
    assert (c.projections, c.scores, c.blend, c.mixing) == naive_cost(T, d, H)
    one = core.attention_cost(T, d, 1)
    assert c.params == one.params == 4 * d * d
    assert c.multiply_adds == one.multiply_adds
    assert c.exps == H * one.exps


def test_head_roles_find_previous_token_sep_and_cls_heads():
    tokens = ["[CLS]", "a", "b", "c", "[SEP]"]
    T = len(tokens)
    prev = np.eye(T, k=-1)
    prev[0, 0] = 1.0                                       # [CLS] has no previous token: it looks at itself
    sep = np.zeros((T, T))
    sep[:, -1] = 1.0
    cls = np.zeros((T, T))
    cls[:, 0] = 1.0
    A = np.stack([prev, sep, cls])[None]                   # [1 layer, 3 heads, T, T]
    roles = core.head_roles(A, tokens)
    np.testing.assert_allclose(roles.previous[0], [1.0, 0.0, 0.25])   # a→[CLS] is also "previous"
    np.testing.assert_allclose(roles.to_sep[0], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(roles.to_cls[0], [0.4, 0.0, 1.0])    # rows [CLS] and a
    assert roles.top[0, 1].tolist() == [4] * T
    with pytest.raises(ValueError, match="attentions must be"):
        core.head_roles(A, tokens[:-1])
