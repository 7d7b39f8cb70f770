"""Figure builders for the transformer-block page: the returned data, the axes, and typed tokens escaped."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from figures import palette
from figures.transformer_block import by_layer_figure, stage_norms_figure, stage_vectors_figure

TOKENS = ["[CLS]", "the", "<b>bank</b>", "the", "[SEP]"]
STAGES = ["input", "attention out", "after LayerNorm 2"]


def read(tick: str) -> float:
    """A colour-bar label as a number: "0.1", "1000", or "10⁻³" → 0.001."""
    if tick.startswith("10") and len(tick) > 2 and not tick[2].isdigit():
        return 10.0 ** int(tick[2:].translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
    return float(tick)


def test_norms_heatmap_has_a_row_per_token_a_column_per_stage_on_a_log_scale_and_escapes_tokens():
    norms = np.array([[0.0, 1, 10], [2, 3, 150], [4, 5, 6], [7, 8, 9], [10, 11, 12]], dtype=float)
    fig = stage_norms_figure(norms, TOKENS, STAGES, "lengths")
    (hm,) = fig.data
    assert isinstance(hm, go.Heatmap)
    np.testing.assert_allclose(np.asarray(hm.z), np.log10(np.maximum(norms, 1e-3)))
    np.testing.assert_array_equal(np.asarray(hm.customdata), norms)               # the hover's exact lengths
    assert "%{customdata" in hm.hovertemplate
    assert list(hm.x) == STAGES and len(set(hm.y)) == 5                     # "the" twice stays twice
    assert hm.y[2] == "2: &lt;b&gt;bank&lt;/b&gt;" and "<b>bank" not in fig.to_json()
    assert hm.zmin == -3 and hm.zmax == 3                                   # 10⁻³ (the floor) … 150 < 10³
    bar = hm.colorbar
    assert [10.0 ** v for v in bar.tickvals] == pytest.approx([read(t) for t in bar.ticktext])
    assert fig.layout.yaxis.autorange == "reversed"
    assert fig.layout.xaxis.title.text == "stage of the block" and fig.layout.yaxis.title.text == "token"


def test_norms_heatmap_writes_large_powers_with_superscripts():
    fig = stage_norms_figure(np.full((5, 3), 2e4), TOKENS, STAGES, "t")
    assert fig.data[0].colorbar.ticktext[-1] == "10⁵"


def test_norms_heatmap_refuses_a_shape_that_does_not_match():
    with pytest.raises(ValueError, match=r"\[5, 3\]"):
        stage_norms_figure(np.ones((4, 3)), TOKENS, STAGES, "t")


def test_vectors_heatmap_is_symmetric_about_zero():
    X = np.array([[1.0, -3.0], [0.5, 2.0], [0, 0], [1, 1], [-1, 0]])
    fig = stage_vectors_figure(X, TOKENS, "vectors")
    (hm,) = fig.data
    np.testing.assert_array_equal(np.asarray(hm.z), X)
    assert hm.zmid == 0 and hm.zmin == -3 and hm.zmax == 3
    assert hm.colorscale == tuple(tuple(s) for s in palette.DIVERGING_SCALE)
    assert list(hm.x) == [0, 1] and fig.layout.xaxis.title.text == "dimension"


def test_by_layer_figure_draws_one_line_per_model_full_first():
    labels = ["embedding", "layer 1", "layer 2"]
    full, ablated = np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.9, 1.0])
    fig = by_layer_figure(labels, {"full model": full, "without the residual connections": ablated}, "t", "cosine")
    assert [t.name for t in fig.data] == ["full model", "without the residual connections"]
    np.testing.assert_array_equal(fig.data[0].y, full)
    np.testing.assert_array_equal(fig.data[1].y, ablated)
    assert list(fig.data[0].x) == labels and fig.data[0].line.dash == "solid" and fig.data[1].line.dash == "dash"
    assert fig.data[0].line.color != fig.data[1].line.color and fig.layout.showlegend
    assert fig.layout.yaxis.range == (-0.05, 1.05) and fig.layout.yaxis.title.text == "cosine"
    low = by_layer_figure(labels, {"a": np.array([-0.4, 0, 1])}, "t", "cosine")
    assert low.layout.yaxis.range[0] == pytest.approx(-0.45)
