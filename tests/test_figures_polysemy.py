"""The polysemy figures: what they draw, read from the returned figure's data."""

import numpy as np

from figures import palette
from figures.polysemy import STAR_RADIUS, context_map, dimension_lines, sense_map

WORDS = ["bank (river)", "bank (finance)", "river", "money"]
X = np.array([[0.2, 0.9], [0.7, 0.5], [0.1, 0.9], [0.9, 0.45]])
GROUPS = ["sense", "sense", "river", "finance"]
STATIC = np.array([0.45, 0.70])


def test_sense_map_has_groups_and_the_static_point():
    fig = sense_map(WORDS, X, GROUPS, STATIC)
    names = [t.name for t in fig.data]
    assert names == ["senses of bank", "river words", "finance words", "static bank"]
    static = fig.data[-1]
    assert (static.x[0], static.y[0]) == (0.45, 0.70)
    assert fig.data[1].marker.color == palette.WEIGHTS and fig.data[2].marker.color == palette.KEY
    assert not fig.layout.annotations
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text


TOKENS, WEIGHTS, TOKEN_GROUPS = ["bank", "river", "money"], np.array([0.5, 0.3, 0.2]), ["sense", "river", "finance"]


def test_context_map_draws_z_and_an_arrow_from_static_to_z():
    z = np.array([0.25, 0.8])
    fig = context_map(WORDS, X, GROUPS, STATIC, z, TOKENS, WEIGHTS, TOKEN_GROUPS, highlight=("river",))
    star, arrow = fig.data[-3], fig.data[-2]
    assert star.marker.symbol == "star" and (star.x[0], star.y[0]) == (0.25, 0.8)
    assert (arrow.x[0], arrow.y[0]) == (0.45, 0.70)                           # from static …
    head = np.array([arrow.x[1], arrow.y[1]])
    np.testing.assert_allclose(np.linalg.norm(z - head), STAR_RADIUS)         # … to just short of z, on its line
    (a1, a2), (b1, b2) = head - STATIC, z - STATIC
    np.testing.assert_allclose(a1 * b2 - a2 * b1, 0, atol=1e-12)                # on the line from static to z
    assert list(arrow.marker.symbol) == ["circle", "arrow"] and arrow.showlegend is False
    river = fig.data[1]
    assert river.marker.size[0] > fig.data[2].marker.size[0]      # the context word is drawn larger
    assert "<b>river</b>" in river.text


def test_context_map_puts_one_bar_per_token_on_its_own_axes_beside_the_map():
    fig = context_map(WORDS, X, GROUPS, STATIC, np.array([0.25, 0.8]), TOKENS, WEIGHTS, TOKEN_GROUPS)
    bar = fig.data[-1]
    assert bar.type == "bar" and (bar.xaxis, bar.yaxis) == ("x2", "y2") and bar.orientation == "h"
    assert list(bar.y) == TOKENS and list(bar.x) == [0.5, 0.3, 0.2] and list(bar.text) == ["0.500", "0.300", "0.200"]
    assert list(bar.marker.color) == [palette.NEUTRAL, palette.WEIGHTS, palette.KEY]
    assert all(t.xaxis in (None, "x") for t in fig.data[:-1])                # the map keeps the first axes
    assert fig.layout.xaxis.domain[1] < fig.layout.xaxis2.domain[0]           # side by side, not overlapping
    assert fig.layout.yaxis.scaleanchor == "x"                                # the map keeps its true shape
    assert fig.layout.xaxis2.title.text.startswith("weight α")


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
