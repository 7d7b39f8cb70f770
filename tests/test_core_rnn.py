"""The RNN chain and the one-step attention path, against finite differences and the seed's number."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from attention_core import (
    attention_input_influence,
    gradient_bound,
    input_influence,
    last_output,
    path_lengths,
    random_head,
    random_rnn,
    rnn_forward,
)


def test_seed_bound_point_nine_to_the_ninety_ninth():
    assert float(gradient_bound(0.9, 99)) == pytest.approx(2.95e-5, rel=2e-3)   # seed: "≈ 2.95 × 10⁻⁵"
    steps = np.arange(5)
    np.testing.assert_allclose(gradient_bound(0.5, steps), [1, 0.5, 0.25, 0.125, 0.0625])
    with pytest.raises(ValueError):
        gradient_bound(-0.1, 3)


def fd_influence(fn, X, h=1e-6):
    """‖∂f/∂x_j‖₂ by central differences, one input row at a time."""
    out = []
    for j in range(X.shape[0]):
        cols = []
        for m in range(X.shape[1]):
            E = np.zeros_like(X)
            E[j, m] = h
            cols.append((fn(X + E) - fn(X - E)) / (2 * h))
        out.append(np.linalg.norm(np.column_stack(cols), ord=2))
    return np.array(out)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 8), st.floats(0.2, 1.5))
def test_rnn_influence_matches_finite_differences(seed, T, rho):
    rng = np.random.default_rng(seed)
    rnn = random_rnn(5, 3, rho, rng)
    X = rng.standard_normal((T, 3))
    np.testing.assert_allclose(input_influence(rnn, X), fd_influence(lambda Z: rnn_forward(rnn, Z)[-1], X),
                               rtol=1e-5, atol=1e-8)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 8))
def test_attention_influence_matches_finite_differences(seed, T):
    rng = np.random.default_rng(seed)
    head = random_head(3, 4, rng)
    X = rng.standard_normal((T, 3))
    np.testing.assert_allclose(attention_input_influence(head, X), fd_influence(lambda Z: last_output(head, Z), X),
                               rtol=1e-5, atol=1e-8)


def test_rnn_influence_stays_under_the_bound_and_attention_does_not_decay_with_distance():
    rng = np.random.default_rng(4)
    T = 60
    rnn = random_rnn(16, 4, 0.9, rng)
    X = rng.standard_normal((T, 4))
    infl = input_influence(rnn, X)
    bound = gradient_bound(0.9, T - 1 - np.arange(T)) * np.linalg.norm(rnn.W_xh, ord=2)
    assert np.all(infl <= bound * (1 + 1e-9))
    assert infl[0] < 1e-2 * infl[-1]
    att = attention_input_influence(random_head(4, 8, rng), X)
    assert att[0] > 1e-3 * att[-2]                       # no exponential fall-off with distance


def test_path_lengths():
    assert path_lengths(100) == {"rnn": 99, "attention": 1}
    assert path_lengths(1) == {"rnn": 0, "attention": 0}


def test_sequential_steps():
    from attention_core import sequential_steps

    assert sequential_steps(100) == {"rnn": 100, "attention": 1}
    with pytest.raises(ValueError):
        sequential_steps(0)


def test_log10_influence_is_the_log_of_the_plain_norm_and_stays_finite_past_underflow():
    from attention_core import chain_factors, log10_gradient_bound, log10_input_influence

    rng = np.random.default_rng(5)
    rnn = random_rnn(16, 4, 0.5, rng)
    X = rng.standard_normal((500, 4))
    logs = log10_input_influence(rnn, X)
    # A second path, forward from x_1: ∂h_T/∂x_1 = J_T ⋯ J_2 diag(1 − h_1²) W_xh, renormalised each step.
    H = rnn_forward(rnn, X)
    P, scale = (1 - H[0] ** 2)[:, None] * rnn.W_xh, 0.0
    for t in range(1, len(X)):
        P = (1 - H[t] ** 2)[:, None] * (rnn.W_hh @ P)
        P, scale = P / np.abs(P).max(), scale + np.log10(np.abs(P).max())
    assert logs[0] == pytest.approx(scale + np.log10(np.linalg.norm(P, ord=2)), abs=1e-9)
    assert logs[0] < -323 and input_influence(rnn, X)[0] == 0.0          # the plain norm underflows; the log does not
    short = X[:8]
    np.testing.assert_allclose(10.0 ** log10_input_influence(rnn, short),
                               fd_influence(lambda Z: rnn_forward(rnn, Z)[-1], short), rtol=1e-5, atol=1e-12)
    assert log10_gradient_bound(0.1, 499) == pytest.approx(-499) and float(gradient_bound(0.1, 499)) == 0.0
    assert chain_factors(rnn, X).log10_product == pytest.approx(np.log10(chain_factors(rnn, X).step_norms).sum())
