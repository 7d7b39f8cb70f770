"""Figures for the √d_k lab, checked on their data."""

import numpy as np

from attention_core import histogram_density, normal_pdf, sigmoid, sigmoid_slope
from figures import palette
from figures.sqrt_dk import histogram_figure, saturation_figure, sweep_figure, weights_figure


def test_histogram_sends_bins_not_samples_and_overlays_the_curve():
    samples = np.random.default_rng(0).standard_normal(10_000) * 8
    h = histogram_density(samples, 41, 32.0)
    x = np.linspace(-32, 32, 161)
    fig = histogram_figure(h, x, normal_pdf(x, 64), "N(0, 64)", "t", "q·k")
    bars, curve = fig.data
    assert bars.type == "bar" and len(bars.x) == 41             # 41 bins, not 10 000 points
    np.testing.assert_allclose(bars.y, h.density)
    assert curve.name == "N(0, 64)" and max(curve.y) == normal_pdf(0.0, 64)
    assert len(fig.to_json()) < 20_000


def test_weights_figure_has_both_rows_in_their_stage_colours():
    fig = weights_figure(np.array([0.9, 0.1]), np.array([0.6, 0.4]))
    assert [t.marker.color for t in fig.data] == [palette.SCORES, palette.SCALED]
    assert list(fig.data[1].y) == [0.6, 0.4] and list(fig.data[0].x) == ["k1", "k2"]


def test_sweep_figure_uses_a_log_x_axis_and_optionally_log_y():
    d = np.array([1, 4, 16])
    fig = sweep_figure(d, np.array([0.2, 0.1, 0.01]), np.array([0.2, 0.2, 0.2]), "t", "y", log_y=True)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert list(fig.data[0].x) == [1, 4, 16]


def test_saturation_figure_draws_s_and_its_slope_with_two_bands():
    x = np.linspace(-10, 10, 21)
    fig = saturation_figure(x, sigmoid(x), sigmoid_slope(x), 11.3, 1.41)
    assert max(fig.data[1].y) == 0.25
    assert sorted(round(s.x1, 2) for s in fig.layout.shapes) == [1.41, 11.3]
