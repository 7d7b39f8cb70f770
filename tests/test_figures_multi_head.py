"""Figure builders for the multi-head page and the masks page, checked on the data they return."""

import numpy as np
import pytest

from figures.masks_and_cross_attention import cross_weights_figure, masked_weights_figure, scene_figure
from figures.multi_head import HEAD_COLOURS, blocks_figure, cost_figure, head_weights_figure, real_heads_figure


def test_head_weights_draw_one_heatmap_per_head_on_one_scale():
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(3), size=(4, 3))             # [4 heads, 3, 3]
    fig = head_weights_figure(w, ["a", "<b>", "c"], "t")
    assert len(fig.data) == 4 and all(t.type == "heatmap" for t in fig.data)
    for h, t in enumerate(fig.data):
        np.testing.assert_allclose(np.asarray(t.z), w[h])
        assert (t.zmin, t.zmax) == (0.0, 1.0)
    assert "&lt;b&gt;" in fig.data[0].x and "<b>" not in fig.data[0].x
    assert len({t.xaxis for t in fig.data}) == 4
    with pytest.raises(ValueError):
        head_weights_figure(w, ["a", "b"], "t")


def test_blocks_draw_a_line_between_heads():
    M = np.arange(16.0).reshape(2, 8)
    fig = blocks_figure(M, ["x", "y"], [f"c{j}" for j in range(8)], 4, "t")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), M)
    assert [s.x0 for s in fig.layout.shapes] == [1.5, 3.5, 5.5]
    labels = [a.text for a in fig.layout.annotations]
    assert [t.rsplit("</span> ", 1)[1] for t in labels] == ["head 1", "head 2", "head 3", "head 4"]
    # The head's colour marks a square; the words keep the theme's text colour (readable on dark too).
    assert all(a.font.color is None for a in fig.layout.annotations)
    assert [t.split('"')[1] for t in labels] == [f"color:{c}" for c in HEAD_COLOURS]


def panels(fig) -> dict[int, tuple[np.ndarray, np.ndarray, int, int]]:
    """Each head's panel in the one heatmap: (its weights from the hover data, its colour values, x0, y0)."""
    data, shade = np.asarray(fig.data[0].customdata, dtype=float), np.asarray(fig.data[0].z, dtype=float)
    out = {}
    for head in np.unique(data[..., 0][np.isfinite(data[..., 0])]).astype(int):
        ys, xs = np.nonzero(data[..., 0] == head)
        block = (slice(ys.min(), ys.max() + 1), slice(xs.min(), xs.max() + 1))
        out[int(head)] = (data[..., 1][block], shade[block], int(xs.min()), int(ys.min()))
    return out


def test_real_heads_are_twelve_panels_with_the_word_and_target_outlined():
    rng = np.random.default_rng(1)
    w = rng.dirichlet(np.ones(5), size=(12, 5)).astype(np.float32)
    fig = real_heads_figure(w, ["[CLS]", "it", "was", "<i>", "[SEP]"], "t", marked=1, target=(2, 3))
    assert len(fig.data) == 1 and fig.data[0].hoverongaps is False
    # The hover names the head under the pointer and its own weight, from the cell's data, for every panel.
    assert fig.data[0].hovertemplate.startswith("head %{customdata[0]}: %{y} → %{x}: %{customdata[1]:.3f}")
    found = panels(fig)
    assert sorted(found) == list(range(1, 13))
    x_cats, y_cats = list(fig.layout.xaxis.categoryarray), list(fig.layout.yaxis.categoryarray)
    assert list(fig.data[0].x) == x_cats and list(fig.data[0].y) == y_cats
    assert len(set(x_cats)) == len(x_cats) and len(set(y_cats)) == len(y_cats)
    rows = [s for s in fig.layout.shapes if s.y1 - s.y0 == 1]
    cols = [s for s in fig.layout.shapes if s.x1 - s.x0 == 1]
    assert len(rows) == 12 and len(cols) == 12
    for h, (row, col) in enumerate(zip(rows, cols, strict=True)):
        weights, shade, x0, y0 = found[h + 1]
        np.testing.assert_allclose(weights, w[h], rtol=1e-6)
        np.testing.assert_allclose(shade, w[h] / w[h].max(), rtol=1e-6)           # each panel on its own 0–max
        assert (row.x0, row.x1, row.y0) == (x0 - 0.5, x0 + 4.5, y0 + 0.5)           # the row of token 1
        assert (col.x0, col.x1, col.y0, col.y1) == (x0 + 1.5, x0 + 2.5, y0 - 0.5, y0 + 4.5)   # token 2's column
        assert fig.layout.annotations[h].text == f"head {h + 1}"
        assert x_cats[x0 + 3].replace("\u200b", "") == "3: &lt;i&gt;"              # the hover reads the same
    # No two panels overlap: twelve distinct corners, with blank categories (no data, no hover) between them.
    corners = {(x0, y0) for _, _, x0, y0 in found.values()}
    xs, ys = sorted({x for x, _ in corners}), sorted({y for _, y in corners})
    assert len(corners) == 12 and len(xs) == 4 and len(ys) == 3
    assert min(np.diff(xs)) > 5 and min(np.diff(ys)) > 5
    data, shade = np.asarray(fig.data[0].customdata, dtype=float), np.asarray(fig.data[0].z, dtype=float)
    assert np.isnan(data[:, xs[0] + 5, 0]).all() and np.isnan(shade[:, xs[0] + 5]).all()


def test_cost_figure_has_both_bars_per_stage():
    fig = cost_figure(["a", "b"], [10, 20], [10, 20], 12)
    assert [list(t.x) for t in fig.data] == [[10, 20], [10, 20]] and "12 heads" in fig.data[1].name
    assert list(fig.data[0].y) == ["a", "b"] and fig.data[0].orientation == "h"


def test_masked_cells_show_a_cross_and_no_colour():
    w = np.array([[1.0, 0.0], [0.3, 0.7]])
    mask = np.array([[True, False], [True, True]])
    fig = masked_weights_figure(w, mask, ["a", "b"], ["a", "b"], "t")
    z, text = np.asarray(fig.data[0].z, dtype=float), np.asarray(fig.data[0].text)
    assert np.isnan(z[0, 1]) and text[0, 1] == "×" and text[1, 1] == "0.70"
    assert not np.isnan(masked_weights_figure(w, None, ["a", "b"], ["a", "b"], "t").data[0].z[0][1])


def test_cross_weights_are_not_square_and_words_are_escaped():
    w = np.full((16, 3), 1 / 3)
    fig = cross_weights_figure(w, [f"p{i}" for i in range(16)], ["a", "<script>", "ball"])
    assert np.asarray(fig.data[0].z).shape == (16, 3)
    assert fig.data[0].x[1] == "2: &lt;script&gt;" and "16 × 3" in fig.layout.title.text


def test_scene_draws_each_patch_and_the_chosen_words_weights():
    w = np.linspace(0, 1, 16)
    colours = ["#000000"] * 16
    fig = scene_figure(4, colours, [i == 5 for i in range(16)], w, "<b>red</b>", ["x"] * 16)
    np.testing.assert_allclose(np.asarray(fig.data[0].z), w.reshape(4, 4))
    assert sum(s.type == "rect" for s in fig.layout.shapes) == 16
    assert sum(s.type == "circle" for s in fig.layout.shapes) == 1
    assert "&lt;b&gt;red" in fig.layout.title.text
