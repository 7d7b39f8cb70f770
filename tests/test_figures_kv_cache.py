"""Figures for the KV-cache page, checked on their data: rows not computed yet are blank, the newest is outlined,
and each line holds the values it was given."""

import numpy as np

from figures import palette
from figures.kv_cache import cache_figure, cost_figure, step_weights_figure, work_figure


def test_cache_figure_shows_the_rows_so_far_and_outlines_the_newest():
    rows = np.arange(12.0).reshape(4, 3) - 5
    fig = cache_figure(rows, 2, list("abcd"), ["x", "y", "z"], "Cached keys K", palette.KEY)
    z = np.array(fig.data[0].z, dtype=float)
    np.testing.assert_array_equal(z[:2], rows[:2])
    assert np.isnan(z[2:]).all()
    box = fig.layout.shapes[0]
    assert (box.y0, box.y1) == (0.5, 1.5) and box.line.color == palette.KEY
    assert fig.data[0].zmax == 6 and fig.data[0].zmin == -6           # the colours span every row, drawn or not


def test_step_weights_has_one_bar_series_per_head():
    w = np.array([[0.2, 0.8], [0.6, 0.4]])
    fig = step_weights_figure(w, ["1 the", "2 cat"])
    assert [t.name for t in fig.data] == ["head 1", "head 2"]
    assert list(fig.data[1].y) == [0.6, 0.4] and list(fig.data[0].x) == ["1 the", "2 cat"]
    assert "step 2" in fig.layout.title.text                             # two cached tokens: step 2


def test_work_figure_draws_both_counts_and_marks_the_step():
    fig = work_figure(np.array([5, 7, 9]), np.array([5, 14, 27]), 2)
    assert [t.name for t in fig.data] == ["recompute everything", "with the cache"]
    assert list(fig.data[0].y) == [5, 14, 27] and list(fig.data[1].x) == [1, 2, 3]
    assert fig.layout.shapes[0].x0 == 2


def test_cost_figure_puts_the_weights_as_a_flat_line_on_log_axes():
    lengths = np.array([128, 256, 512, 1024])
    fig = cost_figure(lengths, lengths * 10.0, 3000.0, 512)
    assert list(fig.data[0].y) == [1280, 2560, 5120, 10240] and set(fig.data[1].y) == {3000.0}
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.shapes[0].x0 == 512
    assert list(fig.layout.xaxis.ticktext) == ["128", "512"]
