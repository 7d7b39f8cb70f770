"""Figures for the learned-projections page, checked on their data."""

import numpy as np

from figures import palette
from figures.learned_projections import rank_figure, score_heatmap, singular_values_figure


def test_heatmap_keeps_rows_as_queries_and_is_centred_on_zero():
    A = np.array([[1.0, 5.0], [-2.0, 0.5]])
    fig = score_heatmap(A, ["it", "robot"], "t")
    h = fig.data[0]
    np.testing.assert_array_equal(np.asarray(h.z), A)
    assert list(h.y) == ["it", "robot"] and h.zmin == -5.0 and h.zmax == 5.0
    assert fig.layout.yaxis.autorange == "reversed"


def test_singular_values_past_d_k_are_grey():
    fig = singular_values_figure(np.array([3.0, 1.0, 0.0, 0.0]), d_k=2)
    colours = list(fig.data[0].marker.color)
    assert colours == [palette.SCORES, palette.SCORES, palette.NEUTRAL, palette.NEUTRAL]
    assert list(fig.data[0].y) == [3.0, 1.0, 0.0, 0.0]


def test_rank_figure_shows_the_ceiling_and_highlights_the_current_d_k():
    fig = rank_figure(np.arange(1, 6), np.array([1, 2, 3, 4, 4]), d_model=4, current=3)
    assert list(fig.data[1].y) == [1, 2, 3, 4, 4]        # min(d_k, d_model)
    assert [c == palette.SCORES for c in fig.data[0].marker.color] == [False, False, True, False, False]
