"""The polysemy figures: what they draw, read from the returned figure's data."""

import numpy as np

from figures import palette
from figures.polysemy import STAR_RADIUS, dimension_lines, sense_map, weight_bars

WORDS = ["bank (river)", "bank (finance)", "river", "money"]
X = np.array([[0.2, 0.9], [0.7, 0.5], [0.1, 0.9], [0.9, 0.45]])
GROUPS = ["sense", "sense", "river", "finance"]
STATIC = np.array([0.45, 0.70])


def test_sense_map_without_context_has_groups_and_the_static_point():
    fig = sense_map(WORDS, X, GROUPS, STATIC)
    names = [t.name for t in fig.data]
    assert names == ["senses of bank", "river words", "finance words", "static bank"]
    static = fig.data[-1]
    assert (static.x[0], static.y[0]) == (0.45, 0.70)
    assert fig.data[1].marker.color == palette.WEIGHTS and fig.data[2].marker.color == palette.KEY
    assert not fig.layout.annotations
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text


def test_sense_map_with_context_draws_z_and_an_arrow_from_static_to_z():
    z = np.array([0.25, 0.8])
    fig = sense_map(WORDS, X, GROUPS, STATIC, z=z, highlight=("river",))
    star, arrow = fig.data[-2], fig.data[-1]
    assert star.marker.symbol == "star" and (star.x[0], star.y[0]) == (0.25, 0.8)
    assert (arrow.x[0], arrow.y[0]) == (0.45, 0.70)                           # from static …
    head = np.array([arrow.x[1], arrow.y[1]])
    np.testing.assert_allclose(np.linalg.norm(z - head), STAR_RADIUS)         # … to just short of z, on its line
    np.testing.assert_allclose(np.cross(head - STATIC, z - STATIC), 0, atol=1e-12)
    assert list(arrow.marker.symbol) == ["circle", "arrow"] and arrow.showlegend is False
    river = fig.data[1]
    assert river.marker.size[0] > fig.data[2].marker.size[0]      # the context word is drawn larger
    assert "<b>river</b>" in river.text


def test_weight_bars_height_and_colour_per_token():
    fig = weight_bars(["bank", "river", "money"], np.array([0.5, 0.3, 0.2]), ["sense", "river", "finance"])
    bar = fig.data[0]
    assert bar.type == "bar" and list(bar.y) == [0.5, 0.3, 0.2]
    assert list(bar.marker.color) == [palette.NEUTRAL, palette.WEIGHTS, palette.KEY]
    assert fig.layout.yaxis.title.text == "weight α"


def test_dimension_ticks_skip_values_that_are_not_powers_of_two():
    fig = dimension_lines([128, 256, 300, 512], [0.7] * 4, [0.7] * 4, [0.1] * 4, current=300)
    assert list(fig.layout.xaxis.tickvals) == [128, 256, 512] and not fig.layout.annotations


def test_dimension_lines_log_axis_three_series_and_a_marker_at_the_current_d():
    dims = [2, 4, 8]
    fig = dimension_lines(dims, [0.7, 0.71, 0.7], [0.71, 0.7, 0.7], [0.1, 0.1, 0.1], current=8)
    assert [t.type for t in fig.data] == ["scatter"] * 3
    assert list(fig.data[0].x) == dims and list(fig.data[2].y) == [0.1, 0.1, 0.1]
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "dimensions d"
    assert fig.layout.shapes[0].x0 == 8
    assert list(fig.layout.xaxis.tickvals) == [2, 4, 8]
