"""The formula page's output map: what it draws, and that its labels stay clear at every width."""

import numpy as np

import attention_core as core
from figures.labels import clashes
from figures.scaled_formula import OUTPUT_STAR, OUTPUT_VIEWS, output_figure

# The page's default inputs (the classic worked example): three keys, and values in 2-D.
Q = np.array([[1.0, 0.0, 1.0, 0.0]])
K = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0]])
V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def _clear(fig):
    values, outputs = fig.data
    x = [*values.x, *outputs.x]
    y = [*values.y, *outputs.y]
    texts = [*values.text, *outputs.text]
    sizes = [*values.marker.size, *[OUTPUT_STAR] * len(outputs.x)]
    return clashes(x, y, texts, sizes, fig.layout.xaxis.range, fig.layout.yaxis.range, OUTPUT_VIEWS,
                   [*values.textposition, *outputs.textposition])


def test_the_output_sits_where_the_weights_put_it_and_names_itself():
    trace = core.scaled_dot_product_attention(Q, K, V)
    fig = output_figure(V, trace.output, trace.weights, ["v1", "v2", "v3"])
    values, star = fig.data
    np.testing.assert_allclose([star.x[0], star.y[0]], trace.weights[0] @ V)
    assert star.text[0] == f"({trace.output[0, 0]:.4f}, {trace.output[0, 1]:.4f})"
    np.testing.assert_allclose(values.marker.size, 14 + 30 * trace.weights[0])      # sized by q1's weight
    assert "weight" in values.hovertemplate and "output" in star.hovertemplate
    assert _clear(fig) == []


def test_two_outputs_and_the_values_keep_their_labels_apart_at_any_width():
    # A second query beside the first, its output a label's height or more away from the first's (two stars a
    # few px apart cannot both keep a label off the other).
    for second in ([1.0, 1.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0], [3.0, 0.0, 3.0, 3.0]):
        q = np.vstack([Q, [second]])
        trace = core.scaled_dot_product_attention(q, K, V)
        fig = output_figure(V, trace.output, trace.weights, ["v1", "v2", "v3"])
        assert _clear(fig) == [], q
        lo, hi = np.vstack([V, trace.output]).min(axis=0), np.vstack([V, trace.output]).max(axis=0)
        assert fig.layout.xaxis.range[0] < lo[0] and fig.layout.xaxis.range[1] > hi[0]
        assert fig.layout.yaxis.range[0] < lo[1] and fig.layout.yaxis.range[1] > hi[1]


def test_stage_two_is_titled_by_what_it_holds():
    """Issue 47 polish: with the scaling off, stage ② holds Q Kᵀ, and its chart says so, not Q Kᵀ / √dₖ."""
    from figures.scaled_formula import stage_figure

    scores = np.array([[1.0, 2.0], [0.5, -1.0]])
    for rows in (scores, np.vstack([scores, scores])):             # bars (≤ 2 queries) and a heatmap
        labels = [f"q{i + 1}" for i in range(len(rows))]
        on = stage_figure(rows, "scaled", labels, ["k1", "k2"]).layout.title.text
        off = stage_figure(rows, "scaled", labels, ["k1", "k2"], scaled=False).layout.title.text
        assert "√dₖ" in on and "√dₖ" not in off and "Q Kᵀ" in off
