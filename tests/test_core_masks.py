"""Causal and padding masks, renormalisation, and cross-attention from patches to words."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

import attention_core as core

scores = st.integers(1, 6).flatmap(lambda T: arrays(np.float64, (T, T), elements=st.floats(-20, 20)))


def test_causal_mask_is_the_lower_triangle():
    m = core.causal_mask(4)
    for i in range(4):
        for j in range(4):
            assert m[i, j] == (j <= i)
    with pytest.raises(ValueError):
        core.causal_mask(0)


@given(scores)
def test_causal_weights_are_zero_above_the_diagonal_and_rows_sum_to_one(S):
    T = len(S)
    t = core.scaled_dot_product_attention(S, np.eye(T), np.eye(T), mask=core.causal_mask(T), scale=False)
    assert np.all(np.triu(t.weights, k=1) == 0.0)
    np.testing.assert_allclose(t.weights.sum(axis=1), 1.0, atol=1e-12)
    assert t.weights[0, 0] == 1.0


@given(scores)
def test_masking_equals_renormalising_the_unmasked_weights(S):
    T = len(S)
    free = core.scaled_dot_product_attention(S, np.eye(T), np.eye(T), scale=False).weights
    masked = core.scaled_dot_product_attention(S, np.eye(T), np.eye(T), mask=core.causal_mask(T), scale=False).weights
    # Renormalising by hand in a loop: keep j ≤ i, divide by what was kept.
    for i in range(T):
        kept = sum(free[i, j] for j in range(i + 1))
        if kept > 1e-300:                                   # an underflowed row cannot be rescaled by hand
            for j in range(i + 1):
                assert masked[i, j] == pytest.approx(free[i, j] / kept, rel=1e-9, abs=1e-12)
    ok = np.where(core.causal_mask(T), free, 0).sum(axis=1) > 1e-300
    np.testing.assert_allclose(core.renormalised_rows(free[ok], core.causal_mask(T)[ok]), masked[ok],
                               rtol=1e-9, atol=1e-12)


def test_padding_mask_blocks_the_padding_keys_for_every_query():
    m = core.padding_mask(np.array([True, True, False]))
    assert m.tolist() == [[True, True, False]] * 3
    assert core.padding_mask(np.array([True, False]), n_q=4).shape == (4, 2)
    S = np.arange(9.0).reshape(3, 3)
    w = core.scaled_dot_product_attention(S, np.eye(3), np.eye(3), mask=m, scale=False).weights
    assert np.all(w[:, 2] == 0) and np.allclose(w.sum(axis=1), 1)
    with pytest.raises(ValueError, match="every position is padding"):
        core.padding_mask(np.array([False, False]))
    with pytest.raises(ValueError, match="boolean"):
        core.padding_mask([1, 0])


def test_a_fully_masked_row_raises_a_clear_error():
    mask = core.causal_mask(3) & core.padding_mask(np.array([False, True, True]))   # row 1 sees nothing
    with pytest.raises(ValueError, match="every key is blocked for query row 1"):
        core.scaled_dot_product_attention(np.eye(3), np.eye(3), np.eye(3), mask=mask)
    with pytest.raises(ValueError, match="every key blocked"):
        core.renormalised_rows(np.full((3, 3), 1 / 3), mask)


def test_cross_attention_is_n_queries_by_n_keys_and_matches_a_loop():
    rng = np.random.default_rng(0)
    P, Wd = rng.normal(size=(16, 8)), rng.normal(size=(5, 8))
    W_Q, W_K = rng.normal(size=(8, 8)), rng.normal(size=(8, 8))
    ca = core.cross_attention(P, Wd, list("abcde"), W_Q, W_K)
    assert ca.weights.shape == (16, 5)
    Q, K = P @ W_Q, Wd @ W_K
    for i in range(16):
        s = np.array([Q[i] @ K[j] for j in range(5)]) / np.sqrt(8)
        e = np.exp(s - s.max())
        np.testing.assert_allclose(ca.weights[i], e / e.sum(), atol=1e-12)
    np.testing.assert_allclose(ca.trace.output, ca.weights @ Wd, atol=1e-12)
    with pytest.raises(ValueError, match="one word per row"):
        core.cross_attention(P, Wd, ["a"], W_Q, W_K)


def test_top_labels_name_ties_and_even_rows():
    words = ["a", "red", "ball"]
    Wd = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    ca = core.cross_attention(np.array([[1.0, 0.0], [0.0, 1.0]]), Wd, words, 4 * np.eye(2), np.eye(2))
    assert ca.top_label(0) == "red / ball"
    assert ca.top_label(1) == "(even)"


def test_scene_patches_put_the_ball_sky_and_ground_where_asked():
    parts = {k: np.eye(4)[i] for i, k in enumerate(["red", "green", "round", "ground"])} | {"sky": np.zeros(4)}
    P, labels = core.scene_patches(4, (2, 1), 2, parts, "red", "green", horizon=2)
    assert P.shape == (16, 4)
    grid = np.array([lab.split()[-1] for lab in labels]).reshape(4, 4)
    assert (grid[2:, 1:3] == "round").all() and (grid[:2] == "sky").all()
    assert grid[3, 0] == "ground" and grid[2, 3] == "ground"
    np.testing.assert_array_equal(P[2 * 4 + 1], parts["red"] + parts["round"])
    with pytest.raises(ValueError, match="must fit"):
        core.scene_patches(4, (3, 3), 2, parts, "red", "green", horizon=2)


def test_prompt_words_split_known_and_unknown_and_bound_the_length():
    known, unknown = core.prompt_words("A red <b>ball</b> on zork, zork!", {"a", "red", "ball", "on", "b"}, 10)
    assert known == ["a", "red", "b", "ball", "b", "on"] and unknown == ["zork"]
    with pytest.raises(ValueError, match="no words"):
        core.prompt_words(" 12 !! ", {"a"}, 8)
    with pytest.raises(ValueError, match="at most 3"):
        core.prompt_words("a a a a", {"a"}, 3)
