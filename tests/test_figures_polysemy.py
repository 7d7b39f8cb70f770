"""The polysemy figures: what they draw, read from the returned figure's data."""

import itertools

import numpy as np
import pandas as pd

import attention_core as core
from figures import palette
from figures.labels import clashes
from figures.polysemy import (
    SENSE_VIEWS,
    STAR_RADIUS,
    WIDE_VIEWS,
    context_map,
    dimension_lines,
    glove_pca_figure,
    sense_map,
)

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


def test_context_map_puts_one_bar_per_token_on_its_own_axes_under_the_map():
    fig = context_map(WORDS, X, GROUPS, STATIC, np.array([0.25, 0.8]), TOKENS, WEIGHTS, TOKEN_GROUPS)
    bar = fig.data[-1]
    assert bar.type == "bar" and (bar.xaxis, bar.yaxis) == ("x2", "y2") and bar.orientation == "h"
    assert list(bar.y) == TOKENS and list(bar.x) == [0.5, 0.3, 0.2]
    assert list(bar.text) == ["bank: 0.500", "river: 0.300", "money: 0.200"]    # each bar names its token
    assert list(bar.marker.color) == [palette.NEUTRAL, palette.WEIGHTS, palette.KEY]
    assert all(t.xaxis in (None, "x") for t in fig.data[:-1])                # the map keeps the first axes
    assert fig.layout.yaxis2.domain[1] < fig.layout.yaxis.domain[0]          # one above the other, apart
    assert fig.layout.xaxis2.title.text.startswith("weight α")
    assert "weight" in bar.hovertemplate and "token" in bar.hovertemplate


def _labels(fig):
    """(x, y, text, marker size, textposition) of every labelled point on a map."""
    out = []
    for t in fig.data:
        if t.type != "scatter" or "text" not in (t.mode or ""):
            continue
        n = len(t.x)
        sizes = list(t.marker.size) if isinstance(t.marker.size, tuple | list) else [t.marker.size] * n
        places = list(t.textposition) if isinstance(t.textposition, tuple | list) else [t.textposition] * n
        out += [row for row in zip(t.x, t.y, t.text, sizes, places, strict=True) if row[2]]
    return out


def _clear(fig, views):
    x, y, texts, sizes, places = zip(*_labels(fig), strict=True)
    return clashes(x, y, list(texts), sizes, fig.layout.xaxis.range, fig.layout.yaxis.range, views, list(places))


def test_the_lesson_maps_place_every_label_clear_of_the_others_at_every_width():
    vocab = pd.read_csv("assets/vocab/polysemy_2d.csv", comment="#", skipinitialspace=True)
    words, X, groups = list(vocab["word"]), vocab[["x", "y"]].to_numpy(float), list(vocab["group"])
    static = X[np.array(groups) == "sense"].mean(axis=0)
    fig = sense_map(words, X, groups, static)
    assert len(_labels(fig)) == len(words) + 1 and _clear(fig, SENSE_VIEWS) == []
    # The page's default sentence: bank among muddy and river, itself included.
    known = ["muddy", "river"]
    tokens = np.vstack([static, *(X[words.index(w)] for w in known)])
    trace = core.contextualize(static, tokens, temperature=0.05)
    fig = context_map(words, X, groups, static, trace.z, ["bank", *known], trace.weights,
                      ["sense", "river", "river"], highlight=tuple(known))
    assert _clear(fig, WIDE_VIEWS) == []
    texts = [row[2] for row in _labels(fig)]
    assert "<b>muddy</b>" in texts and len(texts) >= len(words)               # every word keeps its label


# The page's GloVe map as it is drawn: its words and their first two principal coordinates (to 2 places).
GLOVE_WORDS = ["bank", "river", "water", "shore", "stream", "lake", "mud", "flood", "money", "deposit", "cash",
               "loan", "credit", "interest", "savings"]
GLOVE_COORDS = [[-2.13, -1.74], [3.53, -2.34], [2.42, 1.96], [1.41, -1.16], [1.63, 0.49], [3.28, -1.8], [3.03, 2.44],
                [1.59, 0.66], [-1.97, 0.9], [-0.84, 0.36], [-2.23, 1.19], [-2.95, -0.86], [-2.55, -0.16],
                [-2.19, -0.2], [-2.03, 0.26]]


def test_the_glove_map_keeps_its_labels_inside_and_apart():
    coords = np.array(GLOVE_COORDS)
    fig = glove_pca_figure(GLOVE_WORDS, coords, ["ambiguous"] + ["river"] * 7 + ["money"] * 7)
    assert len(_labels(fig)) == len(GLOVE_WORDS) and _clear(fig, WIDE_VIEWS) == []
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    assert fig.layout.xaxis.range[0] < lo[0] and fig.layout.xaxis.range[1] > hi[0]   # every point inside
    assert fig.layout.yaxis.range[0] < lo[1] and fig.layout.yaxis.range[1] > hi[1]
    assert "principal axis 1" in fig.data[0].hovertemplate


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


def test_a_long_run_of_dimensions_labels_every_other_power_of_two():
    dims = [2 ** p for p in range(1, 13)] + [300]
    fig = dimension_lines(sorted(dims), [0.7] * 13, [0.7] * 13, [0.1] * 13, current=300)
    ticks = list(fig.layout.xaxis.tickvals)
    assert len(ticks) <= 6 and all(t in dims and t & (t - 1) == 0 for t in ticks)
    assert all(b == 4 * a for a, b in itertools.pairwise(ticks))
