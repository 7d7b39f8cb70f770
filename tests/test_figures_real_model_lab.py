"""Figure builders for the lab and the polysemy page's real-vector map: the returned data, and labels
escaped so that a typed tag shows as text."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

import attention_core as core
from figures import palette
from figures.polysemy import glove_pca_figure
from figures.real_model_lab import attention_bars, attention_heatmap, cosine_layers_figure, neighbours_figure
from ui.lessons.polysemy import load_word_groups

TOKENS = ["[CLS]", "the", "<script>", "the", "&", "[SEP]"]


def test_heatmap_has_the_weights_tokens_on_both_axes_and_keeps_repeated_tokens_apart():
    W = np.full((6, 6), 0.1) + 0.4 * np.eye(6)
    fig = attention_heatmap(W, TOKENS, "t")
    (hm,) = fig.data
    assert isinstance(hm, go.Heatmap)
    np.testing.assert_array_equal(np.asarray(hm.z), W.astype(np.float32))    # float32 on the wire
    assert len(set(hm.x)) == 6 and list(hm.x) == list(hm.y)                  # "the" twice stays twice
    assert [c.split(": ", 1)[0] for c in hm.x] == [str(i) for i in range(6)]
    assert hm.customdata is None and "%{x}" in hm.hovertemplate and "%{y}" in hm.hovertemplate
    assert hm.colorscale == tuple(tuple(s) for s in palette.WEIGHT_SCALE)
    assert hm.zmin == 0 and hm.zmax == pytest.approx(0.5)             # the scale tops out at the largest weight
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert list(axis.ticktext) == ["[CLS]", "the", "&lt;script&gt;", "the", "&amp;", "[SEP]"]
    assert "<script>" not in fig.to_json()


def test_heatmap_of_128_tokens_fits_the_payload_budget():
    """≤ 150 KB per interaction at 128 tokens; the heatmap is most of it."""
    T = 128
    W = np.random.default_rng(0).dirichlet(np.ones(T), size=T)
    tokens = ["[CLS]"] + [f"token{i}" for i in range(T - 2)] + ["[SEP]"]
    sent = len(attention_heatmap(W, tokens, "t").to_json(validate=False).encode())
    sent += len(attention_bars(W[3], tokens, 3, "t").to_json(validate=False).encode())
    assert sent <= 150_000, f"{sent:,} bytes"


def test_plotly_literal_changes_only_what_plotly_reads_as_markup():
    from figures.text import plotly_literal
    assert plotly_literal('<b>x</b> & "q" \'a\' `c` __u__ $x$') == \
        '&lt;b&gt;x&lt;/b&gt; &amp; "q" \'a\' `c` __u__ &#36;x&#36;'


def test_heatmap_refuses_a_mismatched_matrix():
    with pytest.raises(ValueError):
        attention_heatmap(np.ones((3, 3)), TOKENS, "t")


def test_heatmap_grows_with_the_sentence():
    small = attention_heatmap(np.eye(5), ["a"] * 5, "t").layout.height
    big = attention_heatmap(np.eye(60), ["a"] * 60, "t").layout.height
    assert big > small


def test_bars_show_one_row_with_the_query_highlighted():
    row = np.array([0.1, 0.2, 0.3, 0.1, 0.2, 0.1])
    fig = attention_bars(row, TOKENS, 2, "t")
    (bar,) = fig.data
    np.testing.assert_allclose(bar.y, row)
    assert bar.marker.color[2] == palette.KEY and bar.marker.color[0] == palette.WEIGHTS
    assert "&lt;script&gt;" in fig.layout.xaxis.ticktext


def test_cosine_layers_one_line_per_pair():
    curves = {"1 vs 2: <b>x</b>": np.linspace(1, 0.7, 8), "1 vs 3": np.linspace(1, 0.8, 8)}
    fig = cosine_layers_figure(list(core.LAYER_LABELS), curves, "t")
    assert [len(t.y) for t in fig.data] == [8, 8]
    assert list(fig.data[0].x) == list(core.LAYER_LABELS)
    np.testing.assert_allclose(fig.data[1].y, curves["1 vs 3"])
    assert fig.data[0].name == "1 vs 2: &lt;b&gt;x&lt;/b&gt;"


def test_neighbours_bars_group_by_sense_and_sort_best_first():
    fig = neighbours_figure(["a river", "a loan", "a shore"], np.array([0.9, 0.5, 0.7]), "t", "cosine",
                            ["river", "money", "river"])
    assert [t.name for t in fig.data] == ["river", "money"]
    np.testing.assert_allclose(fig.data[0].x, [0.9, 0.7])
    assert list(fig.layout.yaxis.categoryarray) == ["a loan", "a shore", "a river"]   # bottom to top


def test_glove_map_one_trace_per_group_at_the_given_coordinates():
    words, coords = ["bank", "river", "money", "<i>x</i>"], np.array([[0, 0], [1, 2], [-1, 0.5], [3, 3]])
    fig = glove_pca_figure(words, coords, ["ambiguous", "river", "money", "money"])
    assert [t.name for t in fig.data] == ["ambiguous", "river", "money"]
    np.testing.assert_allclose(fig.data[2].x, [-1, 3])
    np.testing.assert_allclose(fig.data[2].y, [0.5, 3])
    assert fig.data[0].marker.color == palette.NEUTRAL and fig.data[0].marker.symbol == "star"
    assert list(fig.data[2].text) == ["money", "&lt;i&gt;x&lt;/i&gt;"]
    with pytest.raises(ValueError):
        glove_pca_figure(words, coords[:2], ["a"] * 4)


def test_real_vector_words_are_all_in_glove_and_the_map_puts_bank_with_money():
    _, ambiguous, groups = load_word_groups()
    glove = core.load_glove()
    words = [w for ws in groups.values() for w in ws]
    assert all(w in glove for w in words)
    found, coords, _ = core.static_map(glove, words)
    pos = dict(zip(found, coords, strict=True))
    centre = {g: np.mean([pos[w] for w in ws], axis=0) for g, ws in groups.items() if g != "ambiguous"}
    # GloVe's single "bank" vector leans to the sense its training text used most: finance.
    assert np.linalg.norm(pos[ambiguous] - centre["money"]) < np.linalg.norm(pos[ambiguous] - centre["river"])


@pytest.mark.parametrize("T", [6, 128])
def test_the_unvalidated_lab_figures_are_what_plotly_validates(T):
    """The heatmap and the bars skip Plotly's validation (they are made anew on every move); Plotly
    validating their dicts must accept every property and change nothing."""
    import json

    import plotly.io as pio

    tokens = TOKENS if T == 6 else [f"w{i}" for i in range(T)]
    W = np.random.default_rng(T).dirichlet(np.ones(T), size=T)
    for fig in (attention_heatmap(W, tokens, "t"), attention_bars(W[2], tokens, 2, "t")):
        checked = go.Figure(fig.to_dict())                     # raises on a property Plotly does not know
        assert json.loads(pio.to_json(fig, validate=False)) == json.loads(pio.to_json(checked, validate=False))
