"""The lookup figures: bars of scores, weights and outputs, and the self-attention heatmap."""

import numpy as np

from figures import palette
from figures.queries_keys_values import output_bars, scores_and_weights, self_attention_heatmap

TITLES = ["chain", "tap", "bread"]


def test_scores_are_horizontal_in_table_order_with_room_for_negatives():
    fig = scores_and_weights(TITLES, np.array([2.0, -1.0, 0.0]), np.array([0.7, 0.2, 0.1]))
    bar = fig.data[0]
    assert bar.type == "bar" and bar.orientation == "h" and bar.xaxis == "x"
    assert list(bar.y) == TITLES and list(bar.x) == [2.0, -1.0, 0.0]
    assert bar.marker.color == palette.SCORES
    assert fig.layout.xaxis.range[0] < -1.0 < 2.0 < fig.layout.xaxis.range[1]
    assert fig.layout.yaxis.autorange == "reversed" and "score" in fig.layout.xaxis.title.text


def test_weights_share_the_rows_on_their_own_unit_axis_beside_the_scores():
    fig = scores_and_weights(TITLES, np.array([2.0, -1.0, 0.0]), np.array([0.7, 0.2, 0.1]))
    bar = fig.data[1]
    assert bar.marker.color == palette.WEIGHTS and list(bar.x) == [0.7, 0.2, 0.1] and bar.xaxis == "x2"
    assert list(bar.y) == list(fig.data[0].y)                      # one row per key, labelled once
    assert fig.layout.xaxis2.range[0] == 0 and "weight" in fig.layout.xaxis2.title.text
    assert fig.layout.xaxis.domain[1] < fig.layout.xaxis2.domain[0]   # side by side, not overlapping
    assert fig.layout.showlegend is False


def test_output_bars_with_and_without_a_hard_match():
    soft = np.array([0.5, 0.1, 0.2])
    fig = output_bars(["fixing", "cooking", "listening"], soft, np.array([0.9, 0.0, 0.1]))
    assert [t.name for t in fig.data] == ["soft lookup Σ αⱼ vⱼ", "hard lookup value"]
    assert list(fig.data[0].x) == list(soft) and fig.data[0].marker.color == palette.OUTPUT
    assert fig.layout.barmode == "group"
    # One row per component, each number beside its own bar: two numbers never share a row's width.
    assert all(t.orientation == "h" and list(t.y) == ["fixing", "cooking", "listening"] for t in fig.data)
    assert all(t.textposition == "outside" and t.cliponaxis is False for t in fig.data)
    assert len(output_bars(["a", "b", "c"], soft, None).data) == 1


def test_self_attention_heatmap_rows_are_queries():
    w = np.array([[0.1, 0.8, 0.1], [0.9, 0.05, 0.05], [0.94, 0.03, 0.03]])
    fig = self_attention_heatmap(["robot", "repaired", "it"], w)
    hm = fig.data[0]
    assert hm.type == "heatmap" and np.allclose(np.array(hm.z), w)
    assert list(hm.x) == list(hm.y) == ["robot", "repaired", "it"]
    assert (hm.zmin, hm.zmax) == (0, 1)
    assert fig.layout.yaxis.title.text.startswith("query") and fig.layout.xaxis.title.text.startswith("key")
