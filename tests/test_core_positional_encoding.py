"""Word order: permutation equivariance, the sinusoidal table and rotary embeddings, each against a direct
formula, and MiniLM with its positions off (equivariant) and on (not)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

import attention_core as core


def sinusoidal_by_loop(n: int, d: int, base: float = 10_000.0) -> np.ndarray:
    """The table as the paper writes it, one entry at a time."""
    table = np.zeros((n, d))
    for p in range(n):
        for col in range(d):
            i = col // 2
            angle = p / base ** (2 * i / d)
            table[p, col] = math.sin(angle) if col % 2 == 0 else math.cos(angle)
    return table


def rotate_by_loop(x: np.ndarray, positions: np.ndarray, base: float = 10_000.0) -> np.ndarray:
    """Each pair turned by a 2 × 2 rotation matrix, pair by pair."""
    out = np.zeros_like(x)
    d = x.shape[1]
    for row, p in enumerate(positions):
        for i in range(d // 2):
            theta = p * base ** (-2 * i / d)
            R = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
            out[row, 2 * i:2 * i + 2] = R @ x[row, 2 * i:2 * i + 2]
    return out


@pytest.mark.parametrize("n, d", [(1, 2), (7, 4), (50, 16), (64, 384)])
def test_sinusoidal_table_matches_the_loop_sin_on_even_cos_on_odd(n, d):
    table = core.sinusoidal_positions(n, d)
    assert table.shape == (n, d)
    np.testing.assert_allclose(table, sinusoidal_by_loop(n, d), atol=1e-12)
    np.testing.assert_array_equal(table[0, 0::2], 0.0)                     # sin 0
    np.testing.assert_array_equal(table[0, 1::2], 1.0)                     # cos 0


def test_sinusoidal_table_refuses_an_odd_width():
    with pytest.raises(ValueError, match="even"):
        core.sinusoidal_positions(4, 5)


@settings(max_examples=40, deadline=None)
@given(n=hs.integers(2, 40), half=hs.integers(1, 32), k=hs.integers(0, 39))
def test_sinusoidal_cosine_depends_on_the_offset_alone(n, half, k):
    """PE_p · PE_(p+k) = Σ_i cos(k ω_i) for every p: the same along each diagonal, so its spread is 0."""
    d, k = 2 * half, k % n
    table = core.sinusoidal_positions(n, d)
    S = core.cosine_similarities(table)
    expected = np.cos(k * core.frequencies(d)).sum() / half                 # every row has length √(d/2)
    np.testing.assert_allclose(np.diagonal(S, k), expected, atol=1e-9)
    assert core.similarity_spread_by_offset(S)[k] < 1e-9
    assert core.similarity_by_offset(S)[k] == pytest.approx(expected, abs=1e-9)


def test_similarity_by_offset_is_the_mean_of_each_diagonal_by_a_loop():
    S = np.random.default_rng(1).uniform(-1, 1, (6, 6))
    means = [np.mean([S[p, p + k] for p in range(6 - k)]) for k in range(6)]
    spreads = [np.std([S[p, p + k] for p in range(6 - k)]) for k in range(6)]
    np.testing.assert_allclose(core.similarity_by_offset(S), means)
    np.testing.assert_allclose(core.similarity_spread_by_offset(S), spreads)


def test_cosine_similarities_against_the_formula():
    P = np.random.default_rng(2).standard_normal((5, 3))
    S = core.cosine_similarities(P)
    for a in range(5):
        for b in range(5):
            assert S[a, b] == pytest.approx(P[a] @ P[b] / np.linalg.norm(P[a]) / np.linalg.norm(P[b]))


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), n=hs.integers(1, 6), half=hs.integers(1, 4))
def test_rotary_matches_a_rotation_matrix_per_pair_and_keeps_lengths(seed, n, half):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 2 * half))
    positions = rng.integers(0, 200, n)
    r = core.rotary(x, positions)
    np.testing.assert_allclose(r.rotated, rotate_by_loop(x, positions), atol=1e-12)
    np.testing.assert_allclose(r.angles, positions[:, None] * 10_000.0 ** (-2 * np.arange(half) / (2 * half)))
    np.testing.assert_allclose(np.linalg.norm(r.rotated, axis=1), np.linalg.norm(x, axis=1))


@settings(max_examples=60, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), m=hs.integers(0, 500), n=hs.integers(0, 500), shift=hs.integers(-500, 500),
       half=hs.integers(1, 8))
def test_rotary_dot_product_depends_only_on_the_offset(seed, m, n, shift, half):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, 1, 2 * half))
    here = core.rotary(q, [m]).rotated[0] @ core.rotary(k, [n]).rotated[0]
    moved = core.rotary(q, [m + shift]).rotated[0] @ core.rotary(k, [n + shift]).rotated[0]
    direct = q[0] @ core.rotary(k, [n - m]).rotated[0]                      # ⟨q, R((n − m)ω) k⟩
    assert moved == pytest.approx(here, abs=1e-9)
    assert here == pytest.approx(direct, abs=1e-9)


def test_rotary_pair_in_the_plane_against_cos_and_sin():
    q, k, step = np.array([1.0, 0.3]), np.array([0.6, 0.8]), 0.25
    r = core.rotary_pair(q, k, 3, 7, step)
    turn = lambda v, a: np.array([v[0] * np.cos(a) - v[1] * np.sin(a), v[0] * np.sin(a) + v[1] * np.cos(a)])  # noqa: E731
    np.testing.assert_allclose(r.q_m, turn(q, 0.75))
    np.testing.assert_allclose(r.k_n, turn(k, 1.75))
    assert r.score == pytest.approx(q @ turn(k, 1.0))                       # the offset 4 alone
    assert r.angle_q == pytest.approx(np.degrees(np.arctan2(0.3, 1.0) + 0.75))


def test_rotate_pairs_refuses_mismatched_angles():
    with pytest.raises(ValueError):
        core.rotate_pairs(np.ones((2, 4)), np.ones((2, 3)))


@settings(max_examples=50, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), T=hs.integers(1, 9), d=hs.integers(1, 6), d_k=hs.integers(1, 4))
def test_attention_without_positions_is_permutation_equivariant(seed, T, d, d_k):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((T, d)) * 3
    W = core.random_head_weights(d, d_k, rng)
    order = core.shuffled_order(T, rng)
    r = core.shuffled_self_attention(X, *W, order)
    # The shuffled run, straight from the formula, against the original's rows moved.
    direct = core.scaled_dot_product_attention(X[order] @ W[0], X[order] @ W[1], X[order] @ W[2]).output
    np.testing.assert_allclose(r.shuffled.output, direct)
    np.testing.assert_allclose(r.shuffled.output, r.original.output[order], atol=1e-12)
    np.testing.assert_allclose(r.shuffled.weights, r.original.weights[np.ix_(order, order)], atol=1e-12)
    assert r.check.max_gap < 1e-12


def test_positions_added_by_slot_break_equivariance():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((6, 8))
    W = core.random_head_weights(8, 4, rng)
    order = np.array([5, 4, 3, 2, 1, 0])
    r = core.shuffled_self_attention(X, *W, order, core.sinusoidal_positions(6, 8))
    rows = X[order] + core.sinusoidal_positions(6, 8)
    direct = core.scaled_dot_product_attention(rows @ W[0], rows @ W[1], rows @ W[2]).output
    np.testing.assert_allclose(r.shuffled.output, direct)
    assert r.check.max_gap > 1e-3


def test_equivariance_report_by_hand():
    original = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    order = np.array([2, 0, 1])
    shuffled = original[order] + np.array([[0, 0], [0.5, 0], [0, -0.25]])
    e = core.permutation_equivariance(original, shuffled, order)
    np.testing.assert_array_equal(e.realigned, [[5, 6], [1, 2], [3, 4]])
    np.testing.assert_array_equal(e.row_gap, [0, 0.5, 0.25])
    assert e.max_gap == 0.5
    with pytest.raises(ValueError, match="permutation"):
        core.permutation_equivariance(original, shuffled, [0, 0, 1])


def test_orders_identity_without_a_generator_and_words_move_as_blocks():
    np.testing.assert_array_equal(core.shuffled_order(4, None), np.arange(4))
    assert sorted(core.shuffled_order(7, np.random.default_rng(3))) == list(range(7))
    # [CLS] mud ##dy bank [SEP]: words (1, 3) and (3, 4), swapped.
    order = core.word_blocks_order([1, 3], [3, 4], np.array([1, 0]), 5)
    np.testing.assert_array_equal(order, [0, 3, 1, 2, 4])


@pytest.fixture(scope="module")
def model():
    return core.load_model()


def test_minilm_run_with_positions_off_leaves_out_the_position_rows(model):
    ids = np.asarray(model.tokenizer.encode("the bank of the river").token_ids)
    p = model.params
    by_hand = core.bert.layer_norm(p["wte"][ids].astype(np.float32) + p["wtt"][0], p["ln_emb.g"], p["ln_emb.b"])
    run = model.run("the bank of the river", positions=False)
    np.testing.assert_allclose(run.hidden_states[0], by_hand, atol=1e-5)
    assert not np.allclose(run.hidden_states[0], model.run("the bank of the river").hidden_states[0], atol=1e-3)
    # encoder_output (token ids, no tokenizer) is the same pass as run.
    np.testing.assert_allclose(core.encoder_output(model, ids, positions=False), run.hidden_states[-1], atol=1e-6)


def test_minilm_without_positions_is_permutation_equivariant_and_with_them_is_not(model):
    text = "the quick brown fox jumps over the lazy dog by the river bank"
    ids = np.asarray(model.tokenizer.encode(text).token_ids)
    order = np.concatenate([[0], 1 + np.random.default_rng(7).permutation(len(ids) - 2), [len(ids) - 1]])
    off = core.permutation_equivariance(core.encoder_output(model, ids, False),
                                        core.encoder_output(model, ids[order], False), order)
    on = core.permutation_equivariance(core.encoder_output(model, ids, True),
                                       core.encoder_output(model, ids[order], True), order)
    assert off.max_gap < 1e-4                                               # float32 rounding
    assert on.max_gap > 0.1
