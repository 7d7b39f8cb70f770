"""Figures for the FlashAttention page and the LSTM section, checked on their data."""

import numpy as np
import pytest

from attention_core import flash_attention, scores_seen
from figures import palette
from figures.flash_attention import block_figure, running_figure, tile_grid_figure, traffic_figure
from figures.rnn_vs_attention import FLOOR, lstm_figure, recall_figure


def test_tile_grid_shows_only_the_blocks_done_and_outlines_the_current_one():
    rng = np.random.default_rng(0)
    Q, K, V = rng.standard_normal((4, 2)), rng.standard_normal((6, 2)), rng.standard_normal((6, 1))
    trace = flash_attention(Q, K, V, 2)
    grid = scores_seen(trace, 2)
    fig = tile_grid_figure(grid, 2, 4, list("abcd"), list("uvwxyz"))
    z = np.array(fig.data[0].z, dtype=float)
    np.testing.assert_allclose(z[:, :4], Q @ K[:4].T / np.sqrt(2))
    assert np.isnan(z[:, 4:]).all()
    box = fig.layout.shapes[0]
    assert (box.x0, box.x1) == (1.5, 3.5) and box.line.color == palette.KEY
    # The hover names each cell: its score, or what a blank one is, never "NaN".
    said = np.array(fig.data[0].customdata)
    assert "%{customdata}" in fig.data[0].hovertemplate and "%{z" not in fig.data[0].hovertemplate
    assert (said[:, 4:] == "not computed yet").all()
    assert [float(x) for x in said[1, :4]] == pytest.approx(list(Q[1] @ K[:4].T / np.sqrt(2)), rel=1e-3)


def test_the_tile_grid_hover_tells_masked_cells_from_cells_not_reached():
    rng = np.random.default_rng(1)
    Q, K, V = (rng.standard_normal((4, 2)) for _ in range(3))
    grid = scores_seen(flash_attention(Q, K, V, 2, causal=True), 1)
    said = np.array(tile_grid_figure(grid, 0, 2, list("abcd"), list("wxyz")).data[0].customdata)
    assert said[0, 1] == "masked, never computed" and said[0, 2] == "not computed yet"
    assert not any("nan" in s.lower() for s in said.ravel())


def test_running_figure_plots_m_and_l_on_two_axes_with_the_current_block_marked():
    fig = running_figure(np.array([0.1, 0.5, 0.5]), np.array([1.0, 1.8, 2.5]), 2, "q3")
    assert list(fig.data[0].y) == [0.1, 0.5, 0.5] and fig.data[1].yaxis == "y2"
    assert fig.layout.shapes[0].x0 == 2 and "q3" in fig.layout.title.text


def test_traffic_figures_compare_plain_and_tiled():
    n = np.array([256, 512])
    fig = traffic_figure(n, np.array([10.0, 40.0]), np.array([2.0, 8.0]), 512)
    assert [t.name for t in fig.data] == ["plain attention", "tiled (FlashAttention)"]
    assert fig.layout.yaxis.type == "log" and fig.layout.shapes[0].x0 == 512
    bars = block_figure(np.array([16, 32]), np.array([5.0, 3.0]), 9.0, np.array([True, False]))
    assert list(bars.data[0].marker.pattern.shape) == ["", "/"] and list(bars.data[1].y) == [9.0, 9.0]


def test_lstm_figure_names_rnn_lstm_and_attention_and_floors_underflow():
    fig = lstm_figure(np.array([1, 0]), np.array([0.0, 1.0]), np.array([0.5, 1.0]), np.array([0.3, 0.3]))
    assert [t.name for t in fig.data] == ["RNN (tanh)", "LSTM", "attention"]
    assert fig.data[0].y[0] == FLOOR and fig.layout.yaxis.type == "log"


def test_recall_figure_marks_d_and_guessing():
    fig = recall_figure(np.array([1, 8, 64]), np.array([1, 0.9, 0.6]), np.array([1, 1, 0.7]), np.ones(3), 8)
    assert "LSTM" in fig.data[0].name and "attention" in fig.data[2].name
    assert fig.layout.shapes[0].x0 == 8 and fig.layout.shapes[1].y0 == 0.5
    assert fig.layout.xaxis.type == "log"


def test_recall_figure_marks_the_learners_k_and_the_three_recalls_there():
    fig = recall_figure(np.array([1, 8, 64]), np.array([1, 0.9, 0.6]), np.array([1, 1, 0.7]), np.ones(3), 8,
                        k=20, at_k=(0.8, 0.95, 1.0))
    assert [s.x0 for s in fig.layout.shapes if s.type == "line" and s.xref == "x"] == [8, 20]
    assert "your k = 20" in [a.text for a in fig.layout.annotations]
    mark = fig.data[-1]
    assert list(mark.x) == [20, 20, 20] and list(mark.y) == [0.8, 0.95, 1.0] and "k = %{x}" in mark.hovertemplate
    assert len(recall_figure(np.array([1, 8]), np.ones(2), np.ones(2), np.ones(2), 8).data) == 3
