"""The runway figure: its traces sit where project() says they should."""

import numpy as np

from attention_core import project
from figures import palette
from figures.projection import projection_figure


def test_traces_draw_k_q_the_shadow_and_the_drop_at_the_computed_points():
    p = project(np.array([2.0, 1.0]), np.array([3.0, 0.0]))
    fig = projection_figure(p)
    names = [t.name for t in fig.data]
    # Later traces draw on top: the wide shadow under q (it covers q at 0° and 180°) and under the unit arrow.
    assert names.index("q∥ (shadow)") < names.index("q") < names.index("k̂ (unit length)")
    assert names.index("k") < names.index("q∥ (shadow)")
    by = {t.name: t for t in fig.data}
    assert list(by["k"].x) == [0.0, 3.0] and list(by["k"].y) == [0.0, 0.0]
    assert list(by["q∥ (shadow)"].x) == [0.0, 2.0] and list(by["q∥ (shadow)"].y) == [0.0, 0.0]
    assert list(by["q⊥ (drops out)"].x) == [2.0, 2.0] and list(by["q⊥ (drops out)"].y) == [0.0, 1.0]
    assert by["q"].line.color == palette.QUERY and by["k"].line.color == palette.KEY
    assert fig.layout.yaxis.scaleanchor == "x"          # equal axes, so right angles look right


def test_swapped_roles_use_the_given_names_and_colours():
    p = project(np.array([3.0, 0.0]), np.array([2.0, 1.0]))
    fig = projection_figure(p, "k", "q", palette.KEY, palette.QUERY, "swap")
    by = {t.name: t for t in fig.data}
    np.testing.assert_allclose([by["k∥ (shadow)"].x[1], by["k∥ (shadow)"].y[1]], [2.4, 1.2])
    assert by["k"].line.color == palette.KEY and fig.layout.title.text == "swap"


def test_axes_contain_every_point():
    p = project(np.array([-4.0, 0.5]), np.array([0.2, 0.1]))
    fig = projection_figure(p)
    lo, hi = fig.layout.xaxis.range
    for t in fig.data[1:]:
        assert all(lo <= v <= hi for v in t.x) and all(lo <= v <= hi for v in t.y)
