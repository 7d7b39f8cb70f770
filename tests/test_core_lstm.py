"""The LSTM's gradient against finite differences, and the fixed-size state against attention on recall."""

import numpy as np
import pytest

from attention_core import (
    additive_state,
    best_state,
    gradient_bound,
    input_influence,
    lstm_forward,
    lstm_input_influence,
    random_lstm,
    random_pairs,
    random_rnn,
    recall_by_attention,
    recall_curve,
    recall_from_state,
)
from tests.test_core_rnn import fd_influence


def last_state(lstm):
    def f(X):
        tr = lstm_forward(lstm, X)
        return np.concatenate([tr.h[-1], tr.c[-1]])
    return f


@pytest.mark.parametrize("forget_bias", [-2.0, 0.0, 3.0])
def test_lstm_influence_matches_finite_differences(forget_bias):
    rng = np.random.default_rng(4)
    lstm = random_lstm(5, 3, forget_bias, rng, weight_scale=1.5)
    X = rng.standard_normal((7, 3))
    np.testing.assert_allclose(lstm_input_influence(lstm, X), fd_influence(last_state(lstm), X), rtol=1e-5,
                               atol=1e-9)


def test_forward_is_the_cell_equations():
    rng = np.random.default_rng(2)
    lstm = random_lstm(3, 2, 1.0, rng)
    X = rng.standard_normal((4, 2))
    tr = lstm_forward(lstm, X)
    sig = lambda z: 1 / (1 + np.exp(-z))                  # noqa: E731
    h = c = np.zeros(3)
    for t, x in enumerate(X):
        z = lstm.W_h @ h + lstm.W_x @ x + lstm.b
        f, i, g, o = sig(z[:3]), sig(z[3:6]), np.tanh(z[6:9]), sig(z[9:])
        c = f * c + i * g
        h = o * np.tanh(c)
        np.testing.assert_allclose([tr.c[t], tr.h[t]], [c, h], rtol=1e-14)


def test_a_large_forget_bias_keeps_token_one_alive_far_longer_than_a_tanh_rnn():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 4))
    rnn = input_influence(random_rnn(16, 4, 0.9, np.random.default_rng(1)), X)
    weak = lstm_input_influence(random_lstm(16, 4, 0.0, np.random.default_rng(1)), X)
    strong = lstm_input_influence(random_lstm(16, 4, 5.0, np.random.default_rng(1)), X)
    assert rnn[0] < float(gradient_bound(0.9, 199)) * 10
    assert strong[0] > 1e6 * rnn[0]
    assert strong[0] > 1e3 * weak[0]                     # the bias, not the architecture alone, does it


def test_the_cell_path_is_at_most_the_product_of_forget_gates_when_nothing_else_feeds_back():
    """With W_h = 0 the state only flows through the cell: ∂c_T/∂c_t = Π f, so token 1 fades like Π f."""
    rng = np.random.default_rng(3)
    lstm = random_lstm(4, 2, 2.0, rng)
    lstm = type(lstm)(W_h=np.zeros_like(lstm.W_h), W_x=lstm.W_x, b=lstm.b)
    X = rng.standard_normal((30, 2))
    tr = lstm_forward(lstm, X)
    infl = lstm_input_influence(lstm, X)
    assert infl[0] <= np.prod(tr.f[1:].max(axis=1)) * np.linalg.norm(lstm.W_x, ord=2) * 2


def test_recall_is_near_perfect_with_few_pairs_and_clearly_worse_with_many():
    d = 64
    curve = recall_curve(d, [4, 16, 64, 256, 512], np.random.default_rng(0))
    assert curve.best_state[0] == 1.0 and curve.additive[0] >= 0.95     # k ≪ d
    assert curve.best_state[2] == 1.0                     # k = d: d numbers can still satisfy d equations
    assert curve.best_state[-1] < 0.85 and curve.additive[-1] < 0.85    # k ≫ d: clearly below
    assert np.all(curve.attention == 1.0)                 # every pair kept, every pair found
    np.testing.assert_array_equal(curve.comparisons, [4, 16, 64, 256, 512])


def test_state_recall_is_exact_up_to_d_and_attention_compares_with_every_key():
    rng = np.random.default_rng(5)
    K, y = random_pairs(10, 10, rng)
    np.testing.assert_array_equal(recall_from_state(best_state(K, y), K), y)
    np.testing.assert_allclose(additive_state(K, y), (y[:, None] * K).sum(axis=0))
    np.testing.assert_array_equal(recall_by_attention(K, y), y)


def test_recall_needs_a_generator():
    with pytest.raises(ValueError, match="Generator"):
        recall_curve(8, [1, 2], 0)


def test_the_curves_shortcuts_give_the_least_squares_state_of_each_draw():
    """recall_curve's normal equations (k > d) and Kᵀ(KKᵀ)⁻¹y (k ≤ d) against best_state's lstsq, and its
    additive and attention columns against the plain functions, on the very draws it makes."""
    d, ks, draw = 8, [3, 8, 20, 40], 40
    curve = recall_curve(d, ks, np.random.default_rng(7), draw=draw, trials=2)
    rng = np.random.default_rng(7)
    expected = np.zeros((3, len(ks)))
    for _ in range(2):
        keys, values = random_pairs(draw, d, rng)
        for n, k in enumerate(ks):
            K, y = keys[:k], values[:k]
            expected[:, n] += [np.mean(recall_from_state(additive_state(K, y), K) == y) / 2,
                               np.mean(recall_from_state(best_state(K, y), K) == y) / 2,
                               np.mean(recall_by_attention(K, y) == y) / 2]
    np.testing.assert_allclose([curve.additive, curve.best_state, curve.attention], expected)


def test_lstm_log10_influence_stays_finite_where_the_norm_underflows():
    from attention_core import lstm_log10_input_influence

    rng = np.random.default_rng(4)
    lstm = random_lstm(5, 3, -2.0, rng, weight_scale=1.5)
    short = rng.standard_normal((7, 3))
    np.testing.assert_allclose(10.0 ** lstm_log10_input_influence(lstm, short),
                               fd_influence(last_state(lstm), short), rtol=1e-5, atol=1e-9)
    long = rng.standard_normal((600, 3))
    logs = lstm_log10_input_influence(lstm, long)
    assert np.isfinite(logs).all() and logs[0] < -323
    # Each step back multiplies by roughly the same factor: the log falls about linearly, with no floor at 10⁻³²³.
    rises = np.diff(logs[::100])                          # from token 1 towards the end, every 100 tokens
    assert rises.min() > 0 and rises.min() / rises.max() > 0.3
