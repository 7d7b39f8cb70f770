"""Scaled dot-product attention: stages, masks, validation and the invariants the lesson relies on."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import attention_core as core

vals = st.floats(-20, 20, allow_nan=False)


@st.composite
def qkv(draw):
    n_q, n_k, d_k, d_v = (draw(st.integers(1, 5)) for _ in range(4))
    Q = draw(arrays(np.float64, (n_q, d_k), elements=vals))
    K = draw(arrays(np.float64, (n_k, d_k), elements=vals))
    V = draw(arrays(np.float64, (n_k, d_v), elements=vals))
    return Q, K, V


def naive_attention(Q, K, V):
    out = np.zeros((Q.shape[0], V.shape[1]))
    for i, q in enumerate(Q):
        s = [sum(q[m] * k[m] for m in range(len(q))) / np.sqrt(len(q)) for k in K]
        e = np.exp(np.array(s) - max(s))
        w = e / e.sum()
        out[i] = sum(w[j] * V[j] for j in range(len(K)))
    return out


@given(qkv())
def test_matches_a_naive_loop(m):
    Q, K, V = m
    np.testing.assert_allclose(core.scaled_dot_product_attention(Q, K, V).output, naive_attention(Q, K, V),
                               atol=1e-9)


@given(qkv())
def test_rows_lie_on_the_simplex(m):
    w = core.scaled_dot_product_attention(*m).weights
    assert np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)


@given(qkv())
def test_output_inside_the_bounding_box_and_hull_of_values(m):
    Q, K, V = m
    t = core.scaled_dot_product_attention(Q, K, V)
    # Inside the hull: the output is the weights' convex blend, so each coordinate lies within V's range...
    assert np.all(t.output >= V.min(axis=0) - 1e-9) and np.all(t.output <= V.max(axis=0) + 1e-9)
    # ...and every linear functional is bounded by its extreme over the value rows.
    for direction in np.eye(V.shape[1]) + 0.3:
        proj = t.output @ direction
        assert np.all(proj <= (V @ direction).max() + 1e-8) and np.all(proj >= (V @ direction).min() - 1e-8)


@settings(max_examples=50)
@given(qkv(), st.randoms())
def test_permutation_equivariance(m, rnd):
    Q, K, V = m
    pq = list(range(Q.shape[0]))
    pk = list(range(K.shape[0]))
    rnd.shuffle(pq)
    rnd.shuffle(pk)
    base = core.scaled_dot_product_attention(Q, K, V).output
    # Permuting queries permutes outputs; permuting key/value pairs together changes nothing.
    moved = core.scaled_dot_product_attention(Q[pq], K[pk], V[pk]).output
    np.testing.assert_allclose(moved, base[pq], atol=1e-9)


@given(qkv(), st.floats(-100, 100))
def test_adding_a_constant_to_every_score_changes_no_weight(m, c):
    # Shift invariance at the attention level: an extra key dimension where every key holds the same value
    # adds q·c to a whole row of scores.
    Q, K, V = m
    Q2 = np.hstack([Q, np.ones((Q.shape[0], 1))])
    K2 = np.hstack([K, np.full((K.shape[0], 1), c)])
    a = core.scaled_dot_product_attention(Q, K, V, scale=False).weights
    b = core.scaled_dot_product_attention(Q2, K2, V, scale=False).weights
    np.testing.assert_allclose(a, b, atol=1e-9)


def test_scale_toggle_and_trace_is_frozen():
    t = core.scaled_dot_product_attention([[1.0, 2.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0], [2.0]], scale=False)
    np.testing.assert_array_equal(t.scores, t.scaled)
    assert t.scale_factor == 1.0
    with pytest.raises(ValueError):
        t.weights[0, 0] = 3.0
    with pytest.raises(AttributeError):
        t.output = None


def test_unscaled_weights_are_sharper():
    Q, K, V = [[1.0, 0, 1, 0]], [[1.0, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 1]], [[1.0], [2], [3]]
    scaled = core.scaled_dot_product_attention(Q, K, V).weights[0]
    raw = core.scaled_dot_product_attention(Q, K, V, scale=False).weights[0]
    assert raw.max() > scaled.max() and core.entropy(raw) < core.entropy(scaled)


def test_mask_blocks_keys_and_all_blocked_row_raises():
    Q = np.ones((2, 2))
    K = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    V = np.eye(3)
    mask = np.array([[True, True, False], [True, False, False]])
    t = core.scaled_dot_product_attention(Q, K, V, mask=mask)
    np.testing.assert_allclose(t.weights[0], [0.5, 0.5, 0.0])
    np.testing.assert_allclose(t.weights[1], [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="every key is blocked"):
        core.scaled_dot_product_attention(Q, K, V, mask=np.array([[True, False, False], [False, False, False]]))
    with pytest.raises(ValueError, match="boolean"):
        core.scaled_dot_product_attention(Q, K, V, mask=np.ones((2, 3)))
    with pytest.raises(ValueError, match="shape"):
        core.scaled_dot_product_attention(Q, K, V, mask=np.ones((3, 3), bool))


@pytest.mark.parametrize(
    ("Q", "K", "V", "message"),
    [
        ([[1.0, 2.0]], [[1.0, 2.0, 3.0]], [[1.0]], "columns"),
        ([[1.0, 2.0]], [[1.0, 2.0]], [[1.0], [2.0]], "rows"),
        ([1.0, 2.0], [[1.0, 2.0]], [[1.0]], "2-D"),
        ([[np.nan, 2.0]], [[1.0, 2.0]], [[1.0]], "NaN"),
        ([[1.0, 2.0]], [[np.inf, 2.0]], [[1.0]], "NaN or infinity"),
        ([[1.0, 2.0]], [[1.0, 2.0]], [["a"]], "numbers"),
    ],
)
def test_bad_inputs_raise_plain_messages(Q, K, V, message):
    with pytest.raises(ValueError, match=message):
        core.scaled_dot_product_attention(Q, K, V)


def test_convex_combination_validates_the_simplex():
    X = np.eye(3)
    with pytest.raises(ValueError, match="non-negative"):
        core.convex_combination([1.2, -0.2, 0.0], X)
    with pytest.raises(ValueError, match="sum to 1"):
        core.convex_combination([0.5, 0.2, 0.2], X)
    assert core.is_on_simplex([0.2, 0.3, 0.5]) and not core.is_on_simplex([0.2, 0.3, 0.6])
    np.testing.assert_allclose(core.linear_combination([2.0, -1.0, 0.0], X), [2.0, -1.0, 0.0])
