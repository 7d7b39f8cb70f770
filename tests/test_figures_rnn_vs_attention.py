"""Figures for RNN versus attention, checked on their data."""

import numpy as np

from attention_core import gradient_bound
from figures import palette
from figures.rnn_vs_attention import FLOOR, MARKED, bound_figure, influence_figure, path_figure


def test_bound_figure_is_log_scaled_and_floors_underflow():
    d = np.arange(1, 6)
    fig = bound_figure(d, gradient_bound(0.9, d), 0.9)
    assert fig.layout.yaxis.type == "log"
    np.testing.assert_allclose(fig.data[0].y, 0.9 ** d)
    assert list(fig.data[1].y) == [0.9] * 5
    under = bound_figure(np.array([1, 2]), np.array([1e-5, 0.0]), 0.1)
    assert under.data[0].y[1] == FLOOR


def test_influence_figure_keeps_rnn_and_attention_apart():
    d = np.array([2, 1, 0])
    fig = influence_figure(d, np.array([1e-3, 0.1, 1.0]), np.array([0.2, 0.3, 0.4]), np.array([0.81, 0.9, 1.0]))
    assert [t.marker.color for t in fig.data[:2]] == [palette.SCORES, palette.WEIGHTS]
    assert list(fig.data[1].y) == [0.2, 0.3, 0.4] and list(fig.data[0].x) == [2, 1, 0]
    assert fig.data[0].mode == "markers"                          # a few tokens: one marker each


def test_influence_figure_draws_long_sequences_as_lines():
    d = np.arange(MARKED, -1, -1)
    fig = influence_figure(d, np.ones(d.size), np.ones(d.size), np.ones(d.size))
    assert [t.mode for t in fig.data] == ["lines"] * 3
    assert influence_figure(d[1:], d[1:], d[1:], d[1:]).data[0].mode == "markers"


def test_path_figure_draws_n_minus_one_against_one():
    n = np.arange(2, 6)
    fig = path_figure(n, n - 1, np.ones_like(n))
    assert list(fig.data[0].y) == [1, 2, 3, 4] and list(fig.data[1].y) == [1, 1, 1, 1]
