"""The blending figures: ternary point, bars, hull polygon and z, read from the returned figure."""

import numpy as np

import attention_core as core
from figures import palette
from figures.convex_blending import HULL_VIEWS, TOKEN_DOT, Z_STAR, hull_figure, simplex_figure, weight_bars
from figures.labels import clashes

X = np.array([[0.10, 0.90], [0.45, 0.70], [0.20, 0.80]])
LABELS = ["river", "bank", "muddy"]


def test_simplex_figure_places_the_weights_on_the_ternary_axes():
    fig = simplex_figure(np.array([0.6, 0.3, 0.1]), LABELS)
    point = fig.data[0]
    assert point.type == "scatterternary"
    assert (point.a[0], point.b[0], point.c[0]) == (0.6, 0.3, 0.1)
    assert point.mode == "markers" and "(0.60, 0.30, 0.10)" in fig.layout.title.text   # never clipped by the triangle
    t = fig.layout.ternary
    assert t.sum == 1
    assert [t.aaxis.title.text, t.baxis.title.text, t.caxis.title.text] == ["α river", "α bank", "α muddy"]


def test_weight_bars_mark_negative_weights():
    fig = weight_bars(np.array([1.2, -0.5, 0.3]), LABELS)
    bar = fig.data[0]
    assert bar.type == "bar" and list(bar.y) == [1.2, -0.5, 0.3]
    assert list(bar.marker.color) == [palette.WEIGHTS, palette.SCORES, palette.WEIGHTS]
    assert fig.layout.yaxis.range[0] < -0.5 and "sum 1.00" in fig.layout.title.text


def test_hull_figure_closes_the_polygon_and_draws_z_inside():
    hull = core.convex_hull_2d(X)
    fig = hull_figure(X, LABELS, hull, z=np.array([0.215, 0.83]), inside=True)
    ring, tokens, z = fig.data
    assert ring.fill == "toself" and len(ring.x) == len(hull) + 1 and ring.x[0] == ring.x[-1]
    assert list(tokens.text) == LABELS and list(tokens.x) == list(X[:, 0])
    assert (z.x[0], z.y[0]) == (0.215, 0.83) and z.marker.color == palette.OUTPUT
    assert fig.layout.xaxis.title.text == "component 1"
    assert "token" in tokens.hovertemplate and "blend z" in z.hovertemplate


def _clear(fig):
    _, tokens, *star = fig.data
    x, y = [*tokens.x, *(s.x[0] for s in star)], [*tokens.y, *(s.y[0] for s in star)]
    texts = [*tokens.text, *(s.text[0] for s in star)]
    sizes = [TOKEN_DOT] * len(tokens.x) + [Z_STAR] * len(star)
    return clashes(x, y, texts, sizes, fig.layout.xaxis.range, fig.layout.yaxis.range, HULL_VIEWS,
                   [*tokens.textposition, *(s.textposition for s in star)])


def test_hull_figure_keeps_every_label_clear_from_a_narrow_column_to_a_projector():
    # The page's default tokens and blend, a blend outside the hull, and a blend on a token's doorstep.
    for z, inside in ((np.array([0.215, 0.83]), True), (np.array([-0.5, 1.4]), False),
                      (np.array([0.12, 0.88]), True), (None, True)):
        fig = hull_figure(X, LABELS, core.convex_hull_2d(X), z=z, inside=inside)
        assert _clear(fig) == [], z


def test_hull_figure_colours_an_escaped_z_and_widens_the_axes():
    z = np.array([-0.5, 1.4])
    fig = hull_figure(X, LABELS, core.convex_hull_2d(X), z=z, inside=False)
    assert fig.data[-1].marker.color == palette.SCORES and "outside" in fig.data[-1].text[0]
    assert fig.layout.xaxis.range[0] < -0.5 and fig.layout.yaxis.range[1] > 1.4


def test_hull_figure_without_z_has_no_star():
    fig = hull_figure(X, LABELS, core.convex_hull_2d(X))
    assert len(fig.data) == 2
